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
 */
#include <stdlib.h>
#include <string.h>

#include "copy/compact.h"
#include "copy/copy_struct.h"
#include "copy/memcpy_floor.h"
#include "harness.h"
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

enum { X_VM, NEXTRAS };
static const tc_bench_cli_extra extras[NEXTRAS] = {
    [X_VM] = {"vm", NULL, "also measure every unit on the installed VM (starts erl itself: erl and erlc on PATH), "
                          "alternated with the model point by point",
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
    .csv = "unit,shape,words,model_ns,vm_ns,model_over_vm,floor_ns: ns per word (encode, decode: per "
           "byte; the *_fixed units: per operation, words 0); vm_ns and model_over_vm n/a without --vm "
           "(or where the VM's point stayed below its [], which stderr says)",
    .extras = extras,
    .nextras = NEXTRAS,
};

/* ---- the units ------------------------------------------------------------------------- */

enum unit { SIZE_OBJECT, COPY_STRUCT, COPY_SHALLOW, GC_COPY, ENCODE, DECODE, MEMCPY, LOAD_CHAIN, NUNITS };
static const char *const unit_names[NUNITS] = {"size_object", "copy_struct", "copy_shallow", "gc_copy",
                                               "encode",      "decode",      "memcpy",       "load_chain"};
/* The units measured on the VM too, with a payload-minus-[] difference. */
#define MEASURED_UNITS 6

typedef struct subject {
    tc_term term;
    tc_arena *dest;        /* copies and decodes land here, rolled back after each */
    tc_arena_mark mark;
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

static void before(void *ctx)
{
    subject *s = ctx;
    tc_arena_rollback(s->dest, s->mark);
}

static void after_encode(void *ctx)
{
    subject *s = ctx;
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

/* The model's median ns of one operation of `u` on s, and its mean minor faults. */
static double model_ns(subject *s, enum unit u, int reps, double *faults)
{
    s->unit = u;
    bool encode = u == ENCODE;
    unsigned char *kept = s->ext;
    if (encode)
        s->ext = NULL; /* each encode makes its own buffer; decode's stays */
    tc_bench_op op = {before, run, encode ? after_encode : NULL, s};
    tc_bench_stats st;
    NEED(tc_bench_repeat(&op, 2, reps, NULL, &st), "the samples");
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

/* ---- output ---------------------------------------------------------------------------- */

static void num(FILE *f, double v, bool present)
{
    if (present)
        fprintf(f, ",%.4f", v);
    else
        fputs(",n/a", f);
}

/* One unit's row: on stdout with the minor faults of one operation on each side (mf, vf)
 * and the VM's figure less its faults at this machine's cost of one (the harness's
 * calibration; `size` the unit's denominator, 0: not per word), in the CSV without them. */
static void row(FILE *csv, const char *unit, const char *shape, size_t words, double m, double vm, bool has_vm,
                double floor, bool has_floor, double mf, double vf, double size)
{
    printf("%-17s %-8s %8zu %10.4f", unit, shape, words, m);
    if (has_vm)
        printf(" %10.4f %7.2f", vm, vm > 0 ? m / vm : 0);
    else
        printf(" %10s %7s", "n/a", "n/a");
    if (has_floor)
        printf(" %10.4f", floor);
    else
        printf(" %10s", "n/a");
    printf(" %9.1f", mf);
    if (has_vm && size > 0)
        printf(" %9.1f %10.4f\n", vf, vm - vf * tc_bench_calibrate()->fault_ns.median / size);
    else if (has_vm)
        printf(" %9.1f %10s\n", vf, "n/a");
    else
        printf(" %9s %10s\n", "n/a", "n/a");
    if (!csv)
        return;
    fprintf(csv, "%s,%s,%zu", unit, shape, words);
    num(csv, m, true);
    num(csv, vm, has_vm);
    num(csv, vm > 0 ? m / vm : 0, has_vm && vm > 0);
    num(csv, floor, has_floor);
    fputc('\n', csv);
}

/* ---- the run --------------------------------------------------------------------------- */

typedef struct tiny {
    double model[MEASURED_UNITS], vm[MEASURED_UNITS]; /* ns of one operation on [] */
} tiny;

/* The VM's time of `u` on []; exits after the session's one line when the VM fails. */
static double vm_tiny(tc_vm *vm, int u, int reps)
{
    double ns, f;
    if (!tc_vm_point(vm, unit_names[u], "nil", 0, reps, &ns, &f))
        exit(1);
    return ns;
}

static void measure_tiny(tc_vm *vm, int reps, tiny *out)
{
    subject s;
    subject_init(&s, TC_NIL, 0);
    for (int u = 0; u < MEASURED_UNITS; u++)
        out->model[u] = model_ns(&s, (enum unit)u, reps, NULL);
    subject_destroy(&s);
    for (int u = 0; vm && u < MEASURED_UNITS; u++)
        out->vm[u] = vm_tiny(vm, u, reps);
}

/* How often a VM point and its [] are measured when the point is not above []: a burst of
 * load during the few samples on [] (one at the start of a size serves every shape) can make
 * the difference negative on a busy machine; measured again, it is the unit's cost. */
#define VM_ATTEMPTS 3

static double per(double ns, double base, double size) { return size > 0 ? (ns - base) / size : 0; }

/* One shape at one size: the model's units, then the VM's, then the rows. */
static void measure_point(FILE *csv, tc_vm *vm, tc_ep_shape sh, size_t target, int reps, tiny *t)
{
    long len = len_for(sh, target);
    tc_arena *src = tc_arena_new(target + 64);
    NEED(src != NULL, "the payload");
    tc_term data;
    uint64_t flat;
    NEED(tc_ep_build_payload(tc_arena_alloc(src), sh, len, &data) == TC_OK && tc_term_flat_size(data, &flat) == TC_OK,
         "the payload");
    bool binary = sh == TC_EP_BINARY;
    size_t words = binary ? target : (size_t)flat;
    subject s;
    subject_init(&s, data, binary ? target : flat);
    if (binary) { /* its bytes are its external form's: the floor copies those */
        s.memsrc = (const tc_term *)(const void *)s.ext;
        s.memwords = s.ext_len / TC_WORD_BYTES;
    }
    const char *name = tc_ep_shape_names[sh];
    tc_progress_line("unitcost %s %zu words: model", name, words);
    double m[NUNITS] = {0}, v[MEASURED_UNITS] = {0}, mf[NUNITS] = {0}, vf[MEASURED_UNITS] = {0};
    for (int u = 0; u < NUNITS; u++)
        if (!binary || u == ENCODE || u == DECODE || u == MEMCPY)
            m[u] = model_ns(&s, (enum unit)u, reps, &mf[u]);
    tc_progress_line("unitcost %s %zu words: VM", name, words);
    for (int u = 0; vm && u < MEASURED_UNITS; u++) {
        if (binary && u != ENCODE && u != DECODE)
            continue;
        for (int a = 1;; a++) {
            if (!tc_vm_point(vm, unit_names[u], name, len, reps, &v[u], &vf[u]))
                exit(1);
            if (v[u] > t->vm[u])
                break;
            if (a == VM_ATTEMPTS) {
                tc_progress_end();
                fprintf(stderr, "unitcost: the VM's %s of %s at %zu words was not above its time on [] in %d "
                                "attempts (a busy machine): its vm_ns is not resolved\n",
                        unit_names[u], name, words, VM_ATTEMPTS);
                break;
            }
            t->vm[u] = vm_tiny(vm, u, reps);
        }
    }
    tc_progress_end();
    double bytes = (double)s.ext_len, memcpy_w = m[MEMCPY] / (double)words, chain_w = m[LOAD_CHAIN] / (double)words;
    for (int u = 0; u < MEASURED_UNITS; u++) {
        bool per_byte = u == ENCODE || u == DECODE;
        if (binary && !per_byte)
            continue;
        double size = per_byte ? bytes : (double)words;
        double floor = u == SIZE_OBJECT ? chain_w : per_byte ? memcpy_w / TC_WORD_BYTES : memcpy_w;
        row(csv, unit_names[u], name, words, per(m[u], t->model[u], size), per(v[u], t->vm[u], size), vm && v[u] > t->vm[u],
            floor, true, mf[u], vf[u], size);
    }
    row(csv, "memcpy", name, words, memcpy_w, 0, false, memcpy_w, true, mf[MEMCPY], 0, 0);
    if (!binary)
        row(csv, "load_chain", name, words, chain_w, 0, false, chain_w, true, 0, 0, 0);
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
    row(csv, "round_trip_fixed", "nil", 0, m.round_trip, v.round_trip, vm != NULL, 0, false, 0, 0, 0);
    row(csv, "lookup_fixed", "nil", 0, m.lookup, v.lookup, vm != NULL, 0, false, 0, 0, 0);
    row(csv, "insert_fixed", "nil", 0, m.insert, v.insert, vm != NULL, 0, false, 0, 0, 0);
    row(csv, "pt_get_fixed", "nil", 0, m.pt_get, v.pt_get, vm != NULL, 0, false, 0, 0, 0);
    if (vm) {
        tc_vmoh oh = tc_vmoh_of(&v, &m);
        tc_vmoh_print(stdout, &oh, "");
    }
}

int main(int argc, char **argv)
{
    tc_bench_cli cli;
    int rc = tc_bench_cli_parse(&cli, &spec, argc, argv);
    if (rc != TC_BENCH_CLI_RUN)
        return tc_bench_exit_status("unitcost", rc);
    rc = 0;
    bool with_vm = cli.extra[X_VM].given;
    tc_vm *vm = NULL;
    if (with_vm && !(vm = tc_vm_start("unitcost", NULL)))
        return 2;
    FILE *csv = tc_bench_cli_open_csv(&cli, "--csv", cli.csv, &rc);
    if (rc) {
        tc_vm_stop(vm);
        return rc;
    }
    static const size_t full[] = {1024, 4096, 16384, 65536, 262144, 1048576}, quick[] = {1024, 32768, 1048576};
    const size_t *sizes = cli.quick ? quick : full;
    size_t nsizes = cli.quick ? sizeof quick / sizeof *quick : sizeof full / sizeof *full;
    if (csv) {
        tc_bench_meta_standard(csv);
        tc_bench_meta(csv, "experiment", "unitcost%s%s", cli.quick ? " --quick" : "", with_vm ? " --vm" : "");
        tc_bench_meta(csv, "vm", "%s", with_vm ? "erl " TC_VM_FLAGS " running experiments/beam/unitcost.erl, "
                                                 "alternated with the model point by point"
                                               : "not run (--vm): vm_ns and model_over_vm are n/a");
        tc_bench_meta(csv, "units", "per word: (ns on Data - ns on []) / words; encode, decode per byte of "
                                    "term_to_binary(Data, [{minor_version, 2}]); *_fixed per operation on []");
        tc_bench_meta(csv, "floor", "size_object: load_chain; copies: memcpy per word; codecs: memcpy per byte");
        tc_bench_meta(csv, "clock_overhead_ns", "%.1f (subtracted from every model sample)",
                      tc_timing_overhead_ns());
        fputs("unit,shape,words,model_ns,vm_ns,model_over_vm,floor_ns\n", csv);
    }
    printf("ns per word (encode, decode: per byte; *_fixed: per operation); medians; model - [] on both sides;\n"
           "m_faults, vm_faults: minor faults per operation (the VM's over its loop, the untimed work between\n"
           "operations included); vm-faults: vm_ns less vm_faults x %.0f ns (one first-touch fault here)\n",
           tc_bench_calibrate()->fault_ns.median);
    printf("%-17s %-8s %8s %10s %10s %7s %10s %9s %9s %10s\n", "unit", "shape", "words", "model_ns", "vm_ns", "m/vm",
           "floor_ns", "m_faults", "vm_faults", "vm-faults");
    measure_fixed(csv, vm, cli.quick);
    for (size_t z = 0; z < nsizes; z++) {
        int reps = reps_for(sizes[z], cli.quick, cli.repeats);
        tiny t = {{0}, {0}};
        measure_tiny(vm, reps, &t);
        for (int sh = 0; sh < TC_EP_SHAPES; sh++)
            if (cli.shape < 0 || cli.shape == sh)
                measure_point(csv, vm, (tc_ep_shape)sh, sizes[z], reps, &t);
    }
    tc_vm_stop(vm);
    if (!tc_bench_cli_close_csv(&cli, csv, cli.csv))
        return 2;
    return tc_bench_exit_status("unitcost", EXIT_SUCCESS);
}
