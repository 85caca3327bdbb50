/*
 * base.h — what every termcopy module shares: result codes, the one replaceable
 * assertion handler, and the failable allocator.
 *
 * Models no erts mechanism by itself. It plays the part of erts' `ERTS_ASSERT` (one
 * handler that prints a backtrace and aborts) and of a debug `erts_alloc` whose Nth
 * call can be made to fail, so that out-of-memory is a result every caller handles.
 */
#ifndef TC_BASE_H
#define TC_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define TC_MUST_CHECK __attribute__((warn_unused_result))
#define TC_NORETURN __attribute__((noreturn))
#define TC_PRINTF(f, a) __attribute__((format(printf, f, a)))
/* The common case of a per-word branch, laid out as the fall-through: a taken branch per
 * word is what bounds a tight walk (see copy/compact.c copy_shallow). */
#define TC_LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define TC_MUST_CHECK
#define TC_NORETURN
#define TC_PRINTF(f, a)
#define TC_LIKELY(x) (x)
#endif

/*
 * The library is built with -fvisibility=hidden: what a public header declares between
 * TC_BEGIN_DECLS and TC_END_DECLS is the exported API; everything else (the *_impl.h
 * internals) stays inside the shared library.
 */
#if defined(__GNUC__)
#define TC_BEGIN_DECLS _Pragma("GCC visibility push(default)")
#define TC_END_DECLS _Pragma("GCC visibility pop")
#else
#define TC_BEGIN_DECLS
#define TC_END_DECLS
#endif

TC_BEGIN_DECLS

/* Results. Out of memory is a result, never an abort. */
typedef enum tc_result {
    TC_OK = 0,
    TC_ENOMEM,       /* an allocation failed; nothing was changed */
    TC_EPARSE,       /* malformed input (term text, external format) */
    TC_ELIMIT,       /* input within the syntax but past a VM limit */
    TC_EUNSUPPORTED, /* a valid term the model does not build yet */
    TC_EBADARG,      /* a caller broke an API precondition */
    TC_EIO           /* a read or write of a file failed */
} tc_result;

const char *tc_result_name(tc_result r);

/*
 * Debug level, fixed at build time (CMake option TC_DEBUG_LEVEL):
 * 0 no checks, 1 cheap assertions, 2 also the structure verifiers at state transitions.
 */
#ifndef TC_DEBUG_LEVEL
#define TC_DEBUG_LEVEL 1
#endif

typedef void (*tc_assert_handler)(const char *file, int line, const char *expr);

/* Replace the handler; NULL restores the default (message, libunwind backtrace, abort). */
tc_assert_handler tc_set_assert_handler(tc_assert_handler h);
TC_NORETURN void tc_assert_fail(const char *file, int line, const char *expr);
/* Prints the calling thread's stack to stderr with libunwind. */
void tc_print_backtrace(void);

#if TC_DEBUG_LEVEL >= 1
#define TC_ASSERT(e) ((e) ? (void)0 : tc_assert_fail(__FILE__, __LINE__, #e))
#else
#define TC_ASSERT(e) ((void)0)
#endif
/* Checked in every build: a broken internal invariant that must never pass silently. */
#define TC_CHECK(e) ((e) ? (void)0 : tc_assert_fail(__FILE__, __LINE__, #e))

/* The value of one hex digit (either case), or -1. */
int tc_hex_digit(int c);

/*
 * The failable allocator. Every allocation in the library goes through these, so a test
 * can make exactly the Nth one fail (`tc_mem_fail_at(n)`, 1-based; 0 disarms) and count
 * what is still live. The counters are global state, owned by the library's context
 * (terms/context_impl.h).
 *
 * Fault injection and the counters exist at debug level 1 and 2 only. A level-0 build (the
 * release build the experiments measure) compiles them out: the allocator is malloc and
 * free, every function below still links, tc_mem_fail_at returns false (nothing armed),
 * tc_mem_calls and tc_mem_live return 0 (nothing counted), and tc_mem_unchecked does nothing.
 * The test suites that use them are built only at level 1 or 2 (tests/CMakeLists.txt).
 */
void *tc_mem_alloc(size_t bytes) TC_MUST_CHECK;
void *tc_mem_calloc(size_t n, size_t size) TC_MUST_CHECK;
void *tc_mem_realloc(void *p, size_t bytes) TC_MUST_CHECK;
void tc_mem_free(void *p);
/* Arms the Nth allocation call from now to fail; true, or false in a level-0 build. */
bool tc_mem_fail_at(uint64_t n);
uint64_t tc_mem_calls(void);   /* allocation calls since start (alloc, calloc, realloc) */
/* For allocators that get memory without malloc (the carriers in alloc/): counts one
 * allocation call and returns nonzero when it is the one tc_mem_fail_at chose to fail. */
int tc_mem_inject_failure(void);
int64_t tc_mem_live(void);     /* blocks allocated and not yet freed */
/* Brackets a verifier run at a state transition (enter 1, then 0): the calling thread's
 * allocations in between are neither counted nor failed. */
void tc_mem_unchecked(int enter);

TC_END_DECLS

#endif
