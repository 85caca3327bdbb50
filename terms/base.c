#define UNW_LOCAL_ONLY
#include "base.h"

#include <libunwind.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "context_impl.h"

const char *tc_result_name(tc_result r)
{
    switch (r) {
    case TC_OK: return "ok";
    case TC_ENOMEM: return "out of memory";
    case TC_EPARSE: return "parse error";
    case TC_ELIMIT: return "limit exceeded";
    case TC_EUNSUPPORTED: return "unsupported";
    case TC_EBADARG: return "bad argument";
    case TC_EIO: return "i/o error";
    }
    return "unknown result";
}

int tc_hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

void tc_print_backtrace(void)
{
    unw_context_t ctx;
    unw_cursor_t cur;
    if (unw_getcontext(&ctx) != 0 || unw_init_local(&cur, &ctx) != 0) {
        fputs("  (no backtrace: libunwind could not start)\n", stderr);
        return;
    }
    for (int depth = 0; depth < 64 && unw_step(&cur) > 0; depth++) {
        unw_word_t ip = 0, off = 0;
        char name[256];
        unw_get_reg(&cur, UNW_REG_IP, &ip);
        if (unw_get_proc_name(&cur, name, sizeof name, &off) != 0)
            (void)snprintf(name, sizeof name, "?");
        fprintf(stderr, "  #%-2d 0x%012lx %s+0x%lx\n", depth, (unsigned long)ip, name,
                (unsigned long)off);
    }
}

static void default_handler(const char *file, int line, const char *expr)
{
    fprintf(stderr, "termcopy: assertion failed at %s:%d: %s\n", file, line, expr);
    tc_print_backtrace();
}

static _Atomic(tc_assert_handler) assert_handler = default_handler;

tc_assert_handler tc_set_assert_handler(tc_assert_handler h)
{
    return atomic_exchange(&assert_handler, h ? h : default_handler);
}

void tc_assert_fail(const char *file, int line, const char *expr)
{
    atomic_load(&assert_handler)(file, line, expr);
    abort();
}

#if TC_DEBUG_LEVEL >= 1
/* The counters are the context's (context_impl.h). Allocations made inside a verifier at a
 * state transition (debug level 2) are not counted and never fail, so a test that fails the
 * Nth allocation fails the same one at every debug level. */
static _Thread_local unsigned mem_unchecked;

bool tc_mem_fail_at(uint64_t n)
{
    tc_context *ctx = tc__ctx();
    atomic_store(&ctx->mem.fail_at, n ? atomic_load(&ctx->mem.calls) + n : 0);
    return true;
}

uint64_t tc_mem_calls(void) { return atomic_load(&tc__ctx()->mem.calls); }
int64_t tc_mem_live(void) { return atomic_load(&tc__ctx()->mem.live); }

void tc_mem_unchecked(int enter)
{
    TC_ASSERT(enter || mem_unchecked > 0);
    mem_unchecked += enter ? 1u : (unsigned)-1;
}

/* True when this call is the one chosen to fail. */
static inline int inject_failure(void)
{
    if (mem_unchecked)
        return 0;
    tc_context *ctx = tc__ctx();
    uint64_t call = atomic_fetch_add(&ctx->mem.calls, 1) + 1;
    return call == atomic_load(&ctx->mem.fail_at);
}

static inline void count_live(int64_t d) { atomic_fetch_add(&tc__ctx()->mem.live, d); }
#else
/* Level 0: compiled out, so the allocator is malloc and free and nothing more. */
bool tc_mem_fail_at(uint64_t n)
{
    (void)n;
    return false;
}

uint64_t tc_mem_calls(void) { return 0; }
int64_t tc_mem_live(void) { return 0; }
void tc_mem_unchecked(int enter) { (void)enter; }
static inline int inject_failure(void) { return 0; }
static inline void count_live(int64_t d) { (void)d; }
#endif

int tc_mem_inject_failure(void) { return inject_failure(); }

void *tc_mem_alloc(size_t bytes)
{
    if (inject_failure())
        return NULL;
    void *p = malloc(bytes ? bytes : 1);
    if (p)
        count_live(1);
    return p;
}

void *tc_mem_calloc(size_t n, size_t size)
{
    if (inject_failure())
        return NULL;
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (p)
        count_live(1);
    return p;
}

void *tc_mem_realloc(void *p, size_t bytes)
{
    if (p == NULL)
        return tc_mem_alloc(bytes);
    if (inject_failure())
        return NULL;
    return realloc(p, bytes ? bytes : 1);
}

void tc_mem_free(void *p)
{
    if (p) {
        count_live(-1);
        free(p);
    }
}
