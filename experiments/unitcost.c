/*
 * unitcost — every unit cost of the model beside the same unit on the installed VM, and the
 * physical floor beside both (issue 17).
 *
 * Per word, on the eptest shapes (scenarios/workload.h, built by tc_ep_build_payload as the
 * VM's eptest:payload builds them) with flat sizes from 1 Ki to 1 Mi words:
 *   size_object   tc_term_flat_size              erts_debug:flat_size/1
 *   copy_struct   size + tc_copy_struct into a   ets:insert of {1, Data} under a key not in
 *                 reused (warm) destination      the set (db_store_term), deleted after
 *   copy_shallow  [{1, Data}] out of the compact ets:lookup of that key in a process whose
 *                 form (tc_copy_compact_out_list) min_heap_size holds every result
 *   gc_copy       a fullsweep of a process        erlang:garbage_collect/0 with Data live
 *                 holding Data (tc_gc_collect)
 * per byte of the external format (the binary shape too, its bytes):
 *   encode        tc_ext_encode                  term_to_binary(Data, [{minor_version, 2}])
 *   decode        tc_ext_decode                  binary_to_term/1
 * Each is (ns of one operation on Data - ns of the same operation on []) / size, on both
 * sides, so the call, the timer and a table's hash and lock drop out: what is left is the
 * cost that grows with the term. The floors, per word of the same payload: memcpy of its
 * words (tc_copy_memcpy_floor) and a dependent-load chain through words/2 two-word cells laid
 * out as a built list is (each cell's pointer to the one below it): the latency bound of
 * walking a list. Per operation, with the payload []: a round trip, a lookup, an insert of a
 * fresh key, a persistent_term:get (the VM's costs here are what vmoverhead.h charges).
 *
 * The model's figures are medians of tc_bench_repeat samples (clock overhead subtracted); the
 * VM's are medians of os:perf_counter samples in experiments/beam/unitcost.erl, whose timer
 * cost drops out in the subtraction. With --vm both sides run in one process tree, point by
 * point: the model's units on one shape and size, then the VM's on the same.
 *
 * The binary shape's flat size is a 6-word ProcBin at every length above 64 bytes: it has no
 * per-word cost, so it is measured only for the per-byte units (its "words" are its bytes / 8).
 *
 * Temperatures (issue 28): a unit is the same work on both sides only if it writes into pages
 * of the same temperature and reads a source as hot. Every row says which (`dest`, `src`):
 *   dest  none   the unit writes nothing that grows with the term (size_object)
 *         warm   the destination's pages were written by the previous operation (the model's
 *                arena rolled back; a GC's new heap from the allocator's cache)
 *         fresh  every page of the destination is touched for the first time, as a page of a
 *                new mapping is (one minor fault a page): the model drops its destination's
 *                pages (madvise MADV_DONTNEED) before each operation, untimed
 *   src   hot    Data was just read by the previous operation on both sides (two untimed
 *                operations first); 1 Mi words (8 MiB) is within this machine's L3
 * The model times copy_struct, copy_shallow, encode and decode at both destinations. The VM's
 * destination is what erts gives it: a row's VM figure is put beside the model's of the same
 * temperature, which the VM's own minor faults per operation decide (fresh when they are at
 * least half the pages the operation writes: a process heap or a binary in a new carrier,
 * erl_mseg.c; warm otherwise). The faults are the mean of the VM's loop and the time its
 * median: an operation that writes fresh pages faults on each of them, so the mean is the
 * share of fresh operations times the pages, and at least half the pages means the median
 * operation wrote fresh ones (1 Mi words of decode: 409.6 an operation of 2,048 pages, one
 * fresh operation in 5, the median warm). copy_shallow is asked of the VM twice, as it comes (lookups
 * into a heap the same lookups filled before the last collection) and into the fresh heap of
 * a new process (copy_shallow_fresh in unitcost.erl), so both of its rows have a VM figure
 * where the VM gives both. The faults are in the CSV (model_faults, vm_faults).
 *
 * Reasons: a per-word or per-byte row whose model/VM is outside 0.8-1.25 has its measured
 * reason printed beside it, looked up in report/data/unitcost-reasons.csv (--reasons FILE;
 * unit, shape, words, dest, side: slower or faster; all but unit and side may be '*'): the
 * first row that matches; --annotate FILE does the same
 * for a unitcost CSV already written and exits 1 when a row outside the band has none.
 */
#define _GNU_SOURCE /* madvise, getloadavg */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "copy/compact.h"
#include "copy/copy_struct.h"
#include "copy/memcpy_floor.h"
#include "harness.h"
#include "profiler.h"
#include "heaps/gc.h"
#include "scenarios/progress.h"
#include "terms/arena.h"
#include "codec/ext.h"
#include "terms/size.h"
#include "scenarios/vmoverhead.h"
#include "scenarios/vmside.h"
#include "scenarios/workload.h"

#define NEED(ok, what)                        \
    do {                                      \
        if (!(ok))                            \
            tc_bench_oom("unitcost", (what)); \
    } while (0)

enum { X_VM, X_REASONS, X_ANNOTATE, X_PROFILE, NEXTRAS };
static const tc_bench_cli_extra extras[NEXTRAS] = {
    [X_VM] = {"vm", NULL, "also measure every unit on the installed VM (starts erl itself: erl and erlc on PATH), "
                          "alternated with the model point by point",
              {0}},
    [X_REASONS] = {"reasons", "FILE", "the measured reasons of the rows outside 0.8-1.25x (default: the source "
                                      "tree's report/data/unitcost-reasons.csv)",
                   {0}},
    [X_ANNOTATE] = {"annotate", "FILE", "measure nothing: print each row of the unitcost CSV FILE outside 0.8-1.25x "
                                        "with its reason; exit 1 when one has none",
                    {0}},
    [X_PROFILE] = {"profile", "UNIT", "measure nothing: run the model's UNIT (a per-word or per-byte unit, warm) "
                                      "for a second at each size and shape under the sampling profiler "
                                      "(experiments/profiler.h) and print where its time goes",
                   {0}},
};

static const tc_bench_cli_spec spec = {
    .prog = "unitcost",
    .about = "Times each unit cost of the model (size_object, copy_struct, copy_shallow, gc_copy\n"
             "per word; encode, decode per byte; round trip, lookup, insert, persistent_term:get\n"
             "per operation) on the eptest shapes from 1 Ki to 1 Mi words, beside the floors\n"
             "(memcpy, a dependent-load chain) and, with --vm, the same unit on the VM.",
    .repeats = {"timed operations per point (the VM's too)", 3, 1001, "21 to 7 by size, --quick 7 to 5"},
    .shapes = tc_ep_shape_names,
    .nshapes = TC_EP_SHAPES,
    .shape_dflt = "every shape",
    .quick = "three sizes (1 Ki, 32 Ki, 1 Mi words) and fewer repeats: under a minute with --vm",
    .csv = "unit,shape,words,model_ns,vm_ns,model_over_vm,floor_ns,dest,src,model_faults,vm_faults: ns per word "
           "(encode, decode: per byte; the *_fixed units: per operation, words 0); dest none, warm or fresh and src "
           "hot: the temperatures of the row's destination and source; the minor faults of one operation on each "
           "side; vm_ns and model_over_vm n/a without --vm, where the VM's point stayed below its [] (stderr says "
           "so) or where the VM gave no figure at the row's temperature",
    .extras = extras,
    .nextras = NEXTRAS,
};

/* ---- the units ------------------------------------------------------------------------- */

enum unit { SIZE_OBJECT, COPY_STRUCT, COPY_SHALLOW, GC_COPY, ENCODE, DECODE, MEMCPY, LOAD_CHAIN, NUNITS };
static const char *const unit_names[NUNITS] = {"size_object", "copy_struct", "copy_shallow", "gc_copy",
                                               "encode",      "decode",      "memcpy",       "load_chain"};
/* The units measured on the VM too, with a payload-minus-[] difference. */
#define MEASURED_UNITS 6

/* A destination's temperature (the header's comment). */
enum temp { T_NONE, T_WARM, T_FRESH, NTEMPS };
static const char *const temp_names[NTEMPS] = {"none", "warm", "fresh"};

typedef struct subject {
    tc_term term;
    tc_arena *dest;        /* copies and decodes land here, rolled back after each */
    tc_arena_mark mark;
    unsigned char *dest_base; /* the first byte a copy after the mark writes */
    size_t dest_bytes;        /* what the current unit writes there (fresh: the pages dropped) */
    bool fresh;               /* drop the destination's pages before each operation */
    tc_copy_compact *stored; /* {1, Data} in compact form */
    unsigned char *ext;      /* term_to_binary of Data */
    size_t ext_len;
    tc_mseg *mem;            /* gc_copy's process */
    tc_proc *proc;
    const tc_term *memsrc;   /* memcpy's source and its words */
    size_t memwords;
    void **chain;            /* load_chain's cells, the walk's start */
    size_t cells;
    enum unit unit;
} subject;

/* Gives the whole pages inside [p, p + bytes) back to the kernel: the next write to each is a
 * first touch (a minor fault and a zeroed page), as in a mapping just made. */
static void drop_pages(void *p, size_t bytes)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), lo = ((uintptr_t)p + page - 1) & ~(page - 1),
              hi = ((uintptr_t)p + bytes) & ~(page - 1);
    if (hi > lo)
        NEED(madvise((void *)lo, hi - lo, MADV_DONTNEED) == 0, "dropping the destination's pages");
}

static void before(void *ctx)
{
    subject *s = ctx;
    tc_arena_rollback(s->dest, s->mark);
    if (s->fresh && s->unit != ENCODE)
        drop_pages(s->dest_base, s->dest_bytes);
}

/* Each encode makes its own buffer; fresh: its pages are dropped before it is freed, so the
 * next encode, which the allocator gives the same block, writes to first-touched pages. */
static void after_encode(void *ctx)
{
    subject *s = ctx;
    if (s->fresh)
        drop_pages(s->ext, s->dest_bytes);
    tc_mem_free(s->ext);
    s->ext = NULL;
}
static void run(void *ctx)
{
    subject *s = ctx;
    tc_alloc *a = tc_arena_alloc(s->dest);
    tc_term out;
    tc_term *raw;
    uint64_t words;
    size_t len;
    tc_result r = TC_OK;
    switch (s->unit) {
    case SIZE_OBJECT: r = tc_term_flat_size(s->term, &words); break;
    case COPY_STRUCT: r = tc_copy_struct(a, s->term, NULL, &out, NULL); break;
    case COPY_SHALLOW: r = tc_copy_compact_out_list(a, s->stored, &out, NULL); break;
    case GC_COPY: r = tc_gc_collect(s->proc, 0, NULL, 0); break;
    case ENCODE: r = tc_ext_encode(s->term, 2, &s->ext, &len); break;
    case DECODE: r = tc_ext_decode(a, s->ext, s->ext_len, &out, NULL); break;
    case MEMCPY: r = tc_copy_memcpy_floor(a, s->memsrc, s->memwords, &raw, NULL); break;
    case LOAD_CHAIN: {
        void **p = s->chain;
        for (size_t i = 0; i < s->cells; i++)
            p = *p;
        __asm__ volatile("" : : "r"(p) : "memory"); /* the walk's end is used */
        break;
    }
    case NUNITS: break;
    }
    NEED(r == TC_OK, "timing a unit");
}

/* Data: the bottom stack slot of gc_copy's process (each collection moves it). */
static tc_term data_of(tc_proc *p) { return *tc_proc_stack_slot(p, tc_proc_stack_size(p) - 1); }

/* Builds everything the units need for Data = t (flat size `flat`). Data itself is t placed on
 * the heap of a process (as a spawn argument is) and then moved by one fullsweep, as
 * unitcost.erl collects its Data once before measuring: so both sides walk the collector's
 * layout of the same term, not two different builders' (a list of strings built element by
 * element interleaves each string with its cell; the VM's comprehension does not). */
static void subject_init(subject *s, tc_term t, uint64_t flat)
{
    memset(s, 0, sizeof *s);
    /* gc_copy's process: every GC a fullsweep, as garbage_collect/0 is. */
    tc_policy pol = tc_policy_native(); /* the VM it is set beside */
    pol.fullsweep_after = 0;
    s->mem = tc_mseg_new(&pol.mem);
    NEED(s->mem && tc_proc_new(s->mem, &pol, &s->proc) == TC_OK && tc_ep_place_on_heap(s->proc, t) == TC_OK &&
             tc_gc_collect(s->proc, 0, NULL, 0) == TC_OK,
         "gc_copy's process");
    s->term = data_of(s->proc);
    tc_term pair[2] = {tc_make_small(1), s->term};
    s->dest = tc_arena_new((size_t)flat + 4096);
    NEED(s->dest != NULL, "the destination");
    /* The first block holds every copy, so the rollback keeps it and it stays warm. */
    NEED(tc_term_float(tc_arena_alloc(s->dest), 0.0) != TC_NON_VALUE, "the destination");
    s->mark = tc_arena_get_mark(s->dest);
    tc_term *first = tc_alloc_words(tc_arena_alloc(s->dest), 1);
    NEED(first != NULL, "the destination");
    s->dest_base = (unsigned char *)first;
    tc_arena_rollback(s->dest, s->mark);
    tc_term obj = tc_term_tuple(tc_arena_alloc(s->dest), pair, 2);
    NEED(obj != TC_NON_VALUE && tc_copy_compact_in(obj, &s->stored, NULL) == TC_OK, "the stored object");
    tc_arena_rollback(s->dest, s->mark);
    s->memsrc = tc_copy_compact_words(s->stored);
    s->memwords = (size_t)flat;
    NEED(tc_ext_encode(s->term, 2, &s->ext, &s->ext_len) == TC_OK, "the external format");
    /* words/2 cells of two words, each pointing at the one below, walked from the top. */
    s->cells = flat / 2 ? (size_t)flat / 2 : 1;
    void **cells = tc_mem_alloc(s->cells * 2 * sizeof *cells);
    if (!cells)
        tc_bench_oom("unitcost", "the load chain");
    /* cppcheck-suppress nullPointerRedundantCheck ; tc_bench_oom does not return */
    cells[0] = &cells[0];
    for (size_t i = 1; i < s->cells; i++) {
        cells[2 * i] = &cells[2 * (i - 1)];
        cells[2 * i + 1] = NULL;
    }
    cells[1] = NULL;
    s->chain = &cells[2 * (s->cells - 1)];
}

static void subject_destroy(subject *s)
{
    tc_mem_free(s->chain ? s->chain - 2 * (s->cells - 1) : NULL);
    tc_proc_free(s->proc);
    tc_mseg_free(s->mem);
    tc_mem_free(s->ext);
    tc_copy_compact_free(s->stored);
    tc_arena_free(s->dest);
}

/* The model's median ns of one operation of `u` on s into a destination at temperature t
 * (fresh: the `bytes` it writes dropped first), and its mean minor faults. */
static double model_ns(subject *s, enum unit u, enum temp t, size_t bytes, int reps, double *faults)
{
    s->unit = u;
    s->fresh = t == T_FRESH;
    s->dest_bytes = bytes;
    bool encode = u == ENCODE;
    unsigned char *kept = s->ext;
    if (encode)
        s->ext = NULL; /* each encode makes its own buffer; decode's stays */
    tc_bench_op op = {before, run, encode ? after_encode : NULL, s};
    tc_bench_stats st;
    NEED(tc_bench_repeat(&op, 2, reps, NULL, &st), "the samples");
    s->fresh = false;
    if (encode)
        s->ext = kept;
    if (u == GC_COPY)
        s->term = data_of(s->proc); /* moved */
    if (faults)
        *faults = st.minor_faults;
    return st.ns.median;
}

/* ---- sizes ----------------------------------------------------------------------------- */

/* The length of a shape whose flat size is about `words` (the binary: its bytes). */
static long len_for(tc_ep_shape sh, size_t words)
{
    switch (sh) {
    case TC_EP_INTS: return (long)(words / 2);
    case TC_EP_FLOATS: return (long)(words / (2 + TC_FLOAT_SIZE));
    case TC_EP_TUPLE: return (long)words - 1;
    case TC_EP_NESTED: return (long)(words / 3);
    case TC_EP_STRINGS: {
        /* [integer_to_list(X) || X <- lists:seq(1, L)]: 2 + 2 * digits(X) words an element */
        size_t w = 0;
        long l = 0, next = 10, digits = 1;
        while (w + 2 + 2 * (size_t)digits <= words) {
            w += 2 + 2 * (size_t)digits;
            if (++l + 1 == next) {
                digits++;
                next *= 10;
            }
        }
        return l;
    }
    case TC_EP_BINARY: return (long)(words * TC_WORD_BYTES);
    /* a hashmap of L small keys is about 3.8 words a key (37,898 for 10,000: the [K | V]
     * leaves and the nodes' headers and slots); only the point's length, the figures divide
     * by the term's own flat size */
    case TC_EP_MAP: return (long)(words * 10 / 38);
    case TC_EP_SHAPES: break;
    }
    return 0;
}

static int reps_for(size_t words, bool quick, long given)
{
    if (given)
        return (int)given;
    if (quick)
        return words <= 64 * 1024 ? 7 : 5;
    return words <= 16 * 1024 ? 21 : words <= 256 * 1024 ? 11 : 7;
}

/* ---- the reasons ----------------------------------------------------------------------- */

/* 0 within 0.8-1.25x of the VM's, 1 slower, -1 faster. */
static int band_side(double ratio) { return ratio > 1.25 ? 1 : ratio < 0.8 ? -1 : 0; }

/* Whether a unit has a reason to give when outside the band: the per-word and per-byte units
 * the VM has (not the floors, not the per-operation *_fixed costs). */
static bool banded_unit(const char *unit)
{
    for (int u = 0; u < MEASURED_UNITS; u++)
        if (strcmp(unit, unit_names[u]) == 0)
            return true;
    return false;
}

/* Splits a CSV line in place into at most `max` fields, a "quoted" field unquoted ("" is a
 * quote); the count. */
static int csv_split(char *line, char **f, int max)
{
    int n = 0;
    char *r = line, *w = line;
    line[strcspn(line, "\r\n")] = '\0';
    while (n < max) {
        f[n++] = w;
        if (*r == '"') {
            for (r++; *r && !(r[0] == '"' && r[1] != '"'); r++) {
                if (r[0] == '"') /* "" is a quote */
                    r++;
                *w++ = *r;
            }
            if (*r == '"')
                r++;
        } else {
            while (*r && *r != ',')
                *w++ = *r++;
        }
        bool more = *r == ',';
        *w++ = '\0';
        if (!more)
            break;
        r++;
    }
    return n;
}

enum { MAX_FIELDS = 16 };

/* A CSV read line by line: its '#' and blank lines skipped, its columns found by name. */
typedef struct csv_in {
    FILE *f;
    const char *path;
    char *line, *head;
    size_t cap;
    char *field[MAX_FIELDS];
    int nfields, ncols;
    char *names[MAX_FIELDS];
} csv_in;

static bool csv_next(csv_in *c)
{
    while (getline(&c->line, &c->cap, c->f) > 0) {
        if (c->line[0] == '#' || c->line[strspn(c->line, " \r\n")] == '\0')
            continue;
        c->nfields = csv_split(c->line, c->field, MAX_FIELDS);
        return true;
    }
    return false;
}

/* Opens path and reads its header; false after one line on stderr. */
static bool csv_begin(csv_in *c, const char *path)
{
    memset(c, 0, sizeof *c);
    c->path = path;
    if (!(c->f = fopen(path, "r"))) {
        fprintf(stderr, "unitcost: %s: cannot read it\n", path);
        return false;
    }
    if (!csv_next(c)) {
        fprintf(stderr, "unitcost: %s: no header\n", path);
        return false;
    }
    c->head = c->line; /* the names stay in the header's buffer */
    c->line = NULL;
    c->cap = 0;
    c->ncols = c->nfields;
    memcpy(c->names, c->field, sizeof c->names);
    return true;
}

/* The column's index, -1 (after one line on stderr) when the header has none of that name. */
static int csv_col(const csv_in *c, const char *name)
{
    for (int i = 0; i < c->ncols; i++)
        if (strcmp(c->names[i], name) == 0)
            return i;
    fprintf(stderr, "unitcost: %s: no column '%s'\n", c->path, name);
    return -1;
}

static void csv_end(csv_in *c)
{
    if (c->f)
        (void)fclose(c->f);
    free(c->line);
    free(c->head);
}

/* report/data/unitcost-reasons.csv: unit,shape,words,dest,side,reason,measurement; shape,
 * words and dest may be '*' (any), side is slower (model/VM above 1.25) or faster (below 0.8). */
typedef struct reason {
    char *unit, *shape, *words, *dest, *side, *text;
} reason;

typedef struct reasons {
    reason *r;
    size_t n;
} reasons;

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (!d)
        tc_bench_oom("unitcost", "the reasons");
    /* cppcheck-suppress nullPointerRedundantCheck ; tc_bench_oom does not return */
    return memcpy(d, s, n);
}

/* Reads the reasons; false after one line on stderr. */
static bool reasons_load(const char *path, reasons *out)
{
    memset(out, 0, sizeof *out);
    csv_in c;
    bool ok = csv_begin(&c, path);
    int col[6] = {-1, -1, -1, -1, -1, -1};
    static const char *const names[6] = {"unit", "shape", "words", "dest", "side", "reason"};
    for (int i = 0; ok && i < 6; i++)
        ok = (col[i] = csv_col(&c, names[i])) >= 0;
    for (size_t line = 2; ok && csv_next(&c); line++) {
        if (c.nfields != c.ncols) {
            fprintf(stderr, "unitcost: %s: a row of %d fields, not %d\n", path, c.nfields, c.ncols);
            ok = false;
            break;
        }
        const char *side = c.field[col[4]];
        if (strcmp(side, "slower") != 0 && strcmp(side, "faster") != 0) {
            fprintf(stderr, "unitcost: %s: side '%s' is neither slower nor faster\n", path, side);
            ok = false;
            break;
        }
        reason *grown = realloc(out->r, (out->n + 1) * sizeof *grown);
        if (!grown)
            tc_bench_oom("unitcost", "the reasons");
        out->r = grown;
        reason *r = &out->r[out->n++];
        r->unit = dup_str(c.field[col[0]]);
        r->shape = dup_str(c.field[col[1]]);
        r->words = dup_str(c.field[col[2]]);
        r->dest = dup_str(c.field[col[3]]);
        r->side = dup_str(side);
        r->text = dup_str(c.field[col[5]]);
    }
    csv_end(&c);
    return ok;
}

static void reasons_free(reasons *rs)
{
    for (size_t i = 0; i < rs->n; i++) {
        free(rs->r[i].unit);
        free(rs->r[i].shape);
        free(rs->r[i].words);
        free(rs->r[i].dest);
        free(rs->r[i].side);
        free(rs->r[i].text);
    }
    free(rs->r);
}

static bool matches(const char *pattern, const char *value) { return strcmp(pattern, "*") == 0 || strcmp(pattern, value) == 0; }

/* The first reason for a row outside the band on that side, NULL when none is recorded. */
static const char *reason_of(const reasons *rs, const char *unit, const char *shape, const char *words,
                             const char *dest, int side)
{
    for (size_t i = 0; rs && i < rs->n; i++) {
        const reason *r = &rs->r[i];
        if (strcmp(r->unit, unit) == 0 && matches(r->shape, shape) && matches(r->words, words) && matches(r->dest, dest) &&
            strcmp(r->side, side > 0 ? "slower" : "faster") == 0)
            return r->text;
    }
    return NULL;
}

#define NO_REASON "NO REASON RECORDED (report/data/unitcost-reasons.csv)"

/* --annotate: every row of a unitcost CSV outside the band, with its reason; 1 when one has
 * none, 2 when the file is not a unitcost CSV. */
static int annotate(const char *path, const reasons *rs)
{
    csv_in c;
    if (!csv_begin(&c, path)) {
        csv_end(&c);
        return 2;
    }
    int col[5];
    static const char *const names[5] = {"unit", "shape", "words", "dest", "model_over_vm"};
    for (int i = 0; i < 5; i++)
        if ((col[i] = csv_col(&c, names[i])) < 0) {
            csv_end(&c);
            return 2;
        }
    int out = 0, missing = 0, rows = 0;
    while (csv_next(&c)) {
        if (c.nfields != c.ncols) {
            fprintf(stderr, "unitcost: %s: a row of %d fields, not %d\n", path, c.nfields, c.ncols);
            csv_end(&c);
            return 2;
        }
        rows++;
        const char *unit = c.field[col[0]], *ratio = c.field[col[4]];
        char *end;
        double r = strtod(ratio, &end);
        if (!banded_unit(unit) || end == ratio || *end || band_side(r) == 0)
            continue;
        out++;
        const char *why = reason_of(rs, unit, c.field[col[1]], c.field[col[2]], c.field[col[3]], band_side(r));
        missing += why == NULL;
        printf("%-13s %-8s %8s %-5s %6.2f  %s\n", unit, c.field[col[1]], c.field[col[2]], c.field[col[3]], r,
               why ? why : NO_REASON);
    }
    csv_end(&c);
    printf("%s: %d rows, %d outside 0.8-1.25x, %d of them without a reason\n", path, rows, out, missing);
    return missing ? 1 : 0;
}

/* ---- output ---------------------------------------------------------------------------- */

static void num(FILE *f, double v, bool present)
{
    if (present)
        fprintf(f, ",%.4f", v);
    else
        fputs(",n/a", f);
}

/* One row: a unit on a shape at one size and destination temperature. */
typedef struct line {
    const char *unit, *shape;
    size_t words;
    enum temp dest;
    double m, vm, floor;
    bool has_vm, has_floor, has_faults;
    double mf, vf; /* minor faults of one operation on each side */
    double size;   /* the unit's denominator (0: not per word) */
} line;

/* On stdout with the faults, the VM's figure less its faults at this machine's cost of one
 * (the harness's calibration) and, outside the band, the reason; in the CSV without the last
 * two. */
static void row(FILE *csv, const reasons *rs, const line *l)
{
    bool ratio = l->has_vm && l->vm > 0;
    printf("%-17s %-8s %8zu %-5s %10.4f", l->unit, l->shape, l->words, temp_names[l->dest], l->m);
    if (l->has_vm)
        printf(" %10.4f %7.2f", l->vm, ratio ? l->m / l->vm : 0);
    else
        printf(" %10s %7s", "n/a", "n/a");
    if (l->has_floor)
        printf(" %10.4f", l->floor);
    else
        printf(" %10s", "n/a");
    if (l->has_faults)
        printf(" %9.1f", l->mf);
    else
        printf(" %9s", "n/a");
    if (l->has_vm && l->has_faults && l->size > 0)
        printf(" %9.1f %10.4f", l->vf, l->vm - l->vf * tc_bench_calibrate()->fault_ns.median / l->size);
    else if (l->has_vm && l->has_faults)
        printf(" %9.1f %10s", l->vf, "n/a");
    else
        printf(" %9s %10s", "n/a", "n/a");
    int side = ratio && banded_unit(l->unit) ? band_side(l->m / l->vm) : 0;
    if (side) {
        char words[24];
        (void)snprintf(words, sizeof words, "%zu", l->words);
        const char *why = reason_of(rs, l->unit, l->shape, words, temp_names[l->dest], side);
        printf("  %s", why ? why : NO_REASON);
    }
    putchar('\n');
    if (!csv)
        return;
    fprintf(csv, "%s,%s,%zu", l->unit, l->shape, l->words);
    num(csv, l->m, true);
    num(csv, l->vm, l->has_vm);
    num(csv, ratio ? l->m / l->vm : 0, ratio);
    num(csv, l->floor, l->has_floor);
    fprintf(csv, ",%s,hot", temp_names[l->dest]);
    num(csv, l->mf, l->has_faults);
    num(csv, l->vf, l->has_faults && l->has_vm);
    fputc('\n', csv);
}

/* ---- the run --------------------------------------------------------------------------- */

/* What the VM is asked at each point: every measured unit as erts gives it, and copy_shallow
 * also into the fresh heap of a new process (unitcost.erl's copy_shallow_fresh). */
enum { V_SHALLOW_FRESH = MEASURED_UNITS, NVM };
static const char *const vm_names[NVM] = {"size_object", "copy_struct", "copy_shallow",      "gc_copy",
                                          "encode",      "decode",      "copy_shallow_fresh"};
static enum unit vm_unit(int v) { return v == V_SHALLOW_FRESH ? COPY_SHALLOW : (enum unit)v; }

typedef struct tiny {
    double model[MEASURED_UNITS], vm[NVM]; /* ns of one operation on [] */
} tiny;

/* The VM's time of `v` on []; exits after the session's one line when the VM fails. */
static double vm_tiny(tc_vm *vm, int v, int reps)
{
    double ns, f;
    if (!tc_vm_point(vm, vm_names[v], "nil", 0, reps, &ns, &f))
        exit(1);
    return ns;
}

static void measure_tiny(tc_vm *vm, int reps, tiny *out)
{
    subject s;
    subject_init(&s, TC_NIL, 0);
    for (int u = 0; u < MEASURED_UNITS; u++)
        out->model[u] = model_ns(&s, (enum unit)u, T_WARM, 0, reps, NULL);
    subject_destroy(&s);
    for (int v = 0; vm && v < NVM; v++)
        out->vm[v] = vm_tiny(vm, v, reps);
}

/* How often a VM point and its [] are measured when the point is not above []: a burst of
 * load during the few samples on [] (one at the start of a size serves every shape) can make
 * the difference negative on a busy machine; measured again, it is the unit's cost. */
#define VM_ATTEMPTS 3

static double per(double ns, double base, double size) { return size > 0 ? (ns - base) / size : 0; }

/* The temperatures the model times unit u at (a bit per enum temp): the binary's decode
 * writes its bytes into a buffer of the allocator's, not the arena, so warm only. */
static unsigned model_temps(enum unit u, bool binary)
{
    switch (u) {
    case COPY_STRUCT:
    case COPY_SHALLOW:
    case ENCODE: return 1u << T_WARM | 1u << T_FRESH;
    case DECODE: return binary ? 1u << T_WARM : 1u << T_WARM | 1u << T_FRESH;
    case GC_COPY:
    case MEMCPY: return 1u << T_WARM; /* its arena, as copy_struct's warm */
    default: return 1u << T_NONE;
    }
}

/* The payload of shape sh at about `target` words, built into the arena returned (freed by
 * the caller after subject_destroy), and s set up on it; *flat is its flat size. */
static tc_arena *point_subject(subject *s, tc_ep_shape sh, size_t target, uint64_t *flat)
{
    tc_arena *src = tc_arena_new(target + 64);
    NEED(src != NULL, "the payload");
    tc_term data;
    NEED(tc_ep_build_payload(tc_arena_alloc(src), sh, len_for(sh, target), &data) == TC_OK &&
             tc_term_flat_size(data, flat) == TC_OK,
         "the payload");
    bool binary = sh == TC_EP_BINARY;
    subject_init(s, data, binary ? target : *flat);
    if (binary) { /* its bytes are its external form's: the floor copies those */
        s->memsrc = (const tc_term *)(const void *)s->ext;
        s->memwords = s->ext_len / TC_WORD_BYTES;
    }
    return src;
}

/* One shape at one size: the model's units, then the VM's, then the rows. */
static void measure_point(FILE *csv, const reasons *rs, tc_vm *vm, tc_ep_shape sh, size_t target, int reps, tiny *t)
{
    long len = len_for(sh, target);
    uint64_t flat;
    subject s;
    tc_arena *src = point_subject(&s, sh, target, &flat);
    bool binary = sh == TC_EP_BINARY;
    size_t words = binary ? target : (size_t)flat;
    /* The bytes each unit writes: the pages a fresh destination drops, and how the VM's
     * faults per operation say which temperature it wrote to. */
    size_t written[NUNITS] = {0};
    written[COPY_STRUCT] = written[COPY_SHALLOW] = written[GC_COPY] = (size_t)flat * TC_WORD_BYTES;
    written[ENCODE] = written[DECODE] = s.ext_len;
    if (!binary)
        written[DECODE] = (size_t)flat * TC_WORD_BYTES;
    const char *name = tc_ep_shape_names[sh];
    tc_progress_line("unitcost %s %zu words: model", name, words);
    double m[NUNITS][NTEMPS] = {{0}}, mf[NUNITS][NTEMPS] = {{0}};
    for (int u = 0; u < NUNITS; u++)
        for (int tp = 0; tp < NTEMPS; tp++)
            if ((!binary || u == ENCODE || u == DECODE || u == MEMCPY) && (model_temps((enum unit)u, binary) >> tp & 1))
                m[u][tp] = model_ns(&s, (enum unit)u, (enum temp)tp, written[u], reps, &mf[u][tp]);
    /* A warm gc_copy or encode is warm because the allocator gives back the block just freed
     * (glibc does); where it does not (a sanitizer's quarantine), the faults say so. */
    for (int u = 0; u < NUNITS; u++)
        if ((u == GC_COPY || u == ENCODE) && (!binary || u == ENCODE) &&
            mf[u][T_WARM] >= (double)written[u] / (double)sysconf(_SC_PAGESIZE) / 2 && written[u] > 0) {
            tc_progress_end();
            fprintf(stderr, "unitcost: the model's warm %s of %s at %zu words wrote fresh pages (%.1f faults an "
                            "operation): the allocator did not give back the block just freed\n",
                    unit_names[u], name, words, mf[u][T_WARM]);
        }
    tc_progress_line("unitcost %s %zu words: VM", name, words);
    double v[NVM] = {0}, vf[NVM] = {0};
    bool got[NVM] = {false};
    for (int k = 0; vm && k < NVM; k++) {
        enum unit u = vm_unit(k);
        if (binary && u != ENCODE && u != DECODE)
            continue;
        for (int a = 1;; a++) {
            if (!tc_vm_point(vm, vm_names[k], name, len, reps, &v[k], &vf[k]))
                exit(1);
            if ((got[k] = v[k] > t->vm[k]))
                break;
            if (a == VM_ATTEMPTS) {
                tc_progress_end();
                fprintf(stderr, "unitcost: the VM's %s of %s at %zu words was not above its time on [] in %d "
                                "attempts (a busy machine): its vm_ns is not resolved\n",
                        vm_names[k], name, words, VM_ATTEMPTS);
                break;
            }
            t->vm[k] = vm_tiny(vm, k, reps);
        }
    }
    tc_progress_end();
    /* Each VM figure's temperature, from its faults: fresh when at least half the pages. */
    enum temp vt[NVM];
    for (int k = 0; k < NVM; k++) {
        double pages = (double)written[vm_unit(k)] / (double)sysconf(_SC_PAGESIZE);
        vt[k] = written[vm_unit(k)] == 0 ? T_NONE : vf[k] >= pages / 2 ? T_FRESH : T_WARM;
        if (got[k] && !(model_temps(vm_unit(k), binary) >> vt[k] & 1))
            fprintf(stderr, "unitcost: the VM's %s of %s at %zu words wrote %s pages (%.1f faults an operation), "
                            "which the model does not time: no row has it\n",
                    vm_names[k], name, words, temp_names[vt[k]], vf[k]);
    }
    double bytes = (double)s.ext_len, memcpy_w = m[MEMCPY][T_WARM] / (double)words,
           chain_w = m[LOAD_CHAIN][T_NONE] / (double)words;
    for (int u = 0; u < MEASURED_UNITS; u++) {
        bool per_byte = u == ENCODE || u == DECODE;
        if (binary && !per_byte)
            continue;
        double size = per_byte ? bytes : (double)words;
        double floor = u == SIZE_OBJECT ? chain_w : per_byte ? memcpy_w / TC_WORD_BYTES : memcpy_w;
        for (int tp = 0; tp < NTEMPS; tp++) {
            if (!(model_temps((enum unit)u, binary) >> tp & 1))
                continue;
            /* the VM's figure at this temperature: the one asked for it first (copy_shallow's
             * two), else any */
            int k = -1;
            for (int c = 0; c < NVM; c++)
                if (vm_unit(c) == (enum unit)u && got[c] && vt[c] == (enum temp)tp &&
                    (k < 0 || (c == V_SHALLOW_FRESH) == (tp == T_FRESH)))
                    k = c;
            line l = {unit_names[u], name, words, (enum temp)tp, per(m[u][tp], t->model[u], size),
                      k >= 0 ? per(v[k], t->vm[k], size) : 0, floor, k >= 0, true, true, mf[u][tp],
                      k >= 0 ? vf[k] : 0, size};
            row(csv, rs, &l);
        }
    }
    line mc = {"memcpy", name, words, T_WARM, memcpy_w, 0, memcpy_w, false, true, true, mf[MEMCPY][T_WARM], 0, 0};
    row(csv, rs, &mc);
    if (!binary) {
        line lc = {"load_chain", name, words, T_NONE, chain_w, 0, chain_w, false, true, true, 0, 0, 0};
        row(csv, rs, &lc);
    }
    (void)fflush(stdout);
    subject_destroy(&s);
    tc_arena_free(src);
}

static void measure_fixed(FILE *csv, tc_vm *vm, bool quick)
{
    tc_policy pol = tc_policy_native();
    int reps = quick ? 3 : TC_VMOH_REPEATS;
    tc_vm_fixed m, v = {0};
    tc_progress_line("unitcost fixed costs");
    if (!tc_vmoh_model_fixed("unitcost", &pol, TC_VMOH_N, reps, &m) ||
        (vm && !tc_vm_fixed_costs(vm, TC_VMOH_N, reps, &v)))
        exit(1);
    tc_progress_end();
    const char *names[4] = {"round_trip_fixed", "lookup_fixed", "insert_fixed", "pt_get_fixed"};
    double mv[4] = {m.round_trip, m.lookup, m.insert, m.pt_get}, vv[4] = {v.round_trip, v.lookup, v.insert, v.pt_get};
    for (int i = 0; i < 4; i++) {
        line l = {names[i], "nil", 0, T_NONE, mv[i], vv[i], 0, vm != NULL, false, false, 0, 0, 0};
        row(csv, NULL, &l);
    }
    if (vm) {
        tc_vmoh oh = tc_vmoh_of(&v, &m);
        tc_vmoh_print(stdout, &oh, "");
    }
}

/* --profile: the model's unit u (warm) on one shape and size, repeated for a second under the
 * profiler; the report's top functions are the leaves the samples landed in. */
static bool profile_point(enum unit u, tc_ep_shape sh, size_t target)
{
    uint64_t flat;
    subject s;
    tc_arena *src = point_subject(&s, sh, target, &flat);
    bool binary = sh == TC_EP_BINARY;
    s.unit = u;
    tc_prof *p = NULL;
    static const tc_prof_phase_map harness[] = {{TC_PROF_FN(tc_timing_now_ns), "harness"}};
    tc_prof_report r;
    long ops = 0;
    tc_result res = tc_prof_new(2000, 0, &p);
    if (res == TC_OK)
        res = tc_prof_start(p);
    if (res == TC_OK) {
        uint64_t t0 = tc_timing_now_ns();
        unsigned char *kept = s.ext;
        do {
            before(&s);
            if (u == ENCODE)
                s.ext = NULL;
            run(&s);
            if (u == ENCODE)
                after_encode(&s);
            ops++;
        } while (tc_timing_now_ns() - t0 < 1000000000u);
        s.ext = kept;
        tc_prof_stop(p);
        res = tc_prof_report_phases(p, harness, 1, &r);
    }
    tc_prof_free(p);
    if (res == TC_OK) {
        printf("profile: model %s on %s, %zu words: %ld operations in 1 s\n", unit_names[u], tc_ep_shape_names[sh],
               binary ? target : (size_t)flat, ops);
        tc_prof_print(stdout, &r);
    } else
        fprintf(stderr, "unitcost: --profile: %s\n", tc_result_name(res));
    subject_destroy(&s);
    tc_arena_free(src);
    return res == TC_OK;
}

int main(int argc, char **argv)
{
    tc_bench_cli cli;
    int rc = tc_bench_cli_parse(&cli, &spec, argc, argv);
    if (rc != TC_BENCH_CLI_RUN)
        return tc_bench_exit_status("unitcost", rc);
    rc = 0;
    static const size_t full[] = {1024, 4096, 16384, 65536, 262144, 1048576}, quick[] = {1024, 32768, 1048576};
    const size_t *sizes = cli.quick ? quick : full;
    size_t nsizes = cli.quick ? sizeof quick / sizeof *quick : sizeof full / sizeof *full;
    if (cli.extra[X_PROFILE].given) {
        int u = 0;
        while (u < MEASURED_UNITS && strcmp(unit_names[u], cli.extra[X_PROFILE].value) != 0)
            u++;
        if (u == MEASURED_UNITS)
            return tc_bench_cli_bad(&cli, "--profile", "size_object, copy_struct, copy_shallow, gc_copy, encode or decode",
                                    cli.extra[X_PROFILE].value);
        for (size_t z = 0; z < nsizes; z++)
            for (int sh = 0; sh < TC_EP_SHAPES; sh++)
                if ((cli.shape < 0 || cli.shape == sh) && (sh != TC_EP_BINARY || u == ENCODE || u == DECODE) &&
                    !profile_point((enum unit)u, (tc_ep_shape)sh, sizes[z]))
                    return 1;
        return 0;
    }
    /* The reasons: the given file, else the source tree's; a measuring run without that tree
     * does without (every row outside the band then says it has none). */
    bool given = cli.extra[X_REASONS].given;
    const char *reasons_path = given ? cli.extra[X_REASONS].value : TC_UNITCOST_REASONS;
    reasons rs = {NULL, 0};
    if ((given || cli.extra[X_ANNOTATE].given || access(reasons_path, F_OK) == 0) && !reasons_load(reasons_path, &rs)) {
        reasons_free(&rs);
        return 2;
    }
    if (cli.extra[X_ANNOTATE].given) {
        rc = annotate(cli.extra[X_ANNOTATE].value, &rs);
        reasons_free(&rs);
        return rc;
    }
    bool with_vm = cli.extra[X_VM].given;
    tc_vm *vm = NULL;
    if (with_vm && !(vm = tc_vm_start("unitcost", NULL))) {
        reasons_free(&rs);
        return 2;
    }
    FILE *csv = tc_bench_cli_open_csv(&cli, "--csv", cli.csv, &rc);
    if (rc) {
        tc_vm_stop(vm);
        reasons_free(&rs);
        return rc;
    }
    if (csv) {
        struct utsname un;
        double load[3] = {0, 0, 0};
        tc_bench_meta_standard(csv);
        if (uname(&un) == 0)
            tc_bench_meta(csv, "machine", "%s %s %s, %ld online CPUs", un.sysname, un.release, un.machine,
                          sysconf(_SC_NPROCESSORS_ONLN));
        if (getloadavg(load, 3) == 3)
            tc_bench_meta(csv, "load", "load average %.2f %.2f %.2f at the start (a shared machine)", load[0], load[1],
                          load[2]);
        tc_bench_meta(csv, "experiment", "unitcost%s%s", cli.quick ? " --quick" : "", with_vm ? " --vm" : "");
        tc_bench_meta(csv, "vm", "%s", with_vm ? "erl " TC_VM_FLAGS " running experiments/beam/unitcost.erl, "
                                                 "alternated with the model point by point"
                                               : "not run (--vm): vm_ns and model_over_vm are n/a");
        tc_bench_meta(csv, "units", "per word: (ns on Data - ns on []) / words; encode, decode per byte of "
                                    "term_to_binary(Data, [{minor_version, 2}]); *_fixed per operation on []");
        tc_bench_meta(csv, "temperatures", "dest: none (writes nothing per word), warm (pages the previous "
                                           "operation wrote), fresh (first touch: the model drops them with "
                                           "madvise; the VM's row is the VM's figure whose faults are at least "
                                           "half its pages); src: hot (Data read by the previous operation)");
        tc_bench_meta(csv, "floor", "size_object: load_chain; copies: memcpy per word; codecs: memcpy per byte");
        tc_bench_meta(csv, "clock_overhead_ns", "%.1f (subtracted from every model sample)",
                      tc_timing_overhead_ns());
        fputs("unit,shape,words,model_ns,vm_ns,model_over_vm,floor_ns,dest,src,model_faults,vm_faults\n", csv);
    }
    printf("ns per word (encode, decode: per byte; *_fixed: per operation); medians; model - [] on both sides;\n"
           "dest: the destination's pages warm, fresh (first touch) or none; m_faults, vm_faults: minor faults\n"
           "per operation (the VM's over its loop, the untimed work between operations included); vm-faults:\n"
           "vm_ns less vm_faults x %.0f ns (one first-touch fault here); outside 0.8-1.25x: the measured reason\n",
           tc_bench_calibrate()->fault_ns.median);
    printf("%-17s %-8s %8s %-5s %10s %10s %7s %10s %9s %9s %10s\n", "unit", "shape", "words", "dest", "model_ns",
           "vm_ns", "m/vm", "floor_ns", "m_faults", "vm_faults", "vm-faults");
    measure_fixed(csv, vm, cli.quick);
    for (size_t z = 0; z < nsizes; z++) {
        int reps = reps_for(sizes[z], cli.quick, cli.repeats);
        tiny t = {{0}, {0}};
        measure_tiny(vm, reps, &t);
        for (int sh = 0; sh < TC_EP_SHAPES; sh++)
            if (cli.shape < 0 || cli.shape == sh)
                measure_point(csv, &rs, vm, (tc_ep_shape)sh, sizes[z], reps, &t);
    }
    tc_vm_stop(vm);
    reasons_free(&rs);
    if (!tc_bench_cli_close_csv(&cli, csv, cli.csv))
        return 2;
    return tc_bench_exit_status("unitcost", EXIT_SUCCESS);
}
