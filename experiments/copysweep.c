/*
 * copysweep — every copy strategy of copy/ × term shape × payload size: nanoseconds per
 * word, and the ratio to a memcpy of the same number of bytes measured in the same run.
 *
 * Each measurement copies one term of the shape whose flat size is about the payload, into
 * one destination buffer that is allocated once, written once before the first repeat (warm
 * pages, no first-touch faults) and reused by every repeat of every strategy, except where
 * the strategy itself allocates: compact_in mallocs its block, literal_put fills a new
 * literal area. memcpy, compact_out, shallow_fast and lookup read the same stored compact
 * block; the others read the term. A sample is a batch of repeats of one strategy back to
 * back (about 32 Ki words a batch, at most 16 repeats), so the clock's cost and jitter are
 * small beside it and every repeat but the first finds the caches as the last one left
 * them; a shape whose copies take off-heap references (refc binaries) has batches of one,
 * since the next repeat would first have to drop them, which is not part of a copy. Before
 * its batch each strategy copies once untimed (but compact_in and literal_put, which time
 * fresh memory), so its source and destination are as warm as its own repeats leave them,
 * whatever ran before: for memcpy as for the rest. The strategies run in rounds, one batch
 * of each in turn, so a burst of load elsewhere hits all of them alike. Every batch is timed
 * with CLOCK_MONOTONIC, the clock's own cost subtracted (literal_get, far below the clock's
 * resolution, is timed as 1000 gets); the figures are the median batch (quartiles on stdout)
 * after warm-up rounds, and the fastest batch: on a shared machine an interrupted batch is
 * only ever slower, so the fastest is the least disturbed (min_ratio).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "copy/compact.h"
#include "copy/copy_shallow_fast.h"
#include "copy/copy_shared.h"
#include "copy/copy_struct.h"
#include "copy/literal.h"
#include "copy/memcpy_floor.h"
#include "codec_payload.h"
#include "harness.h"
#include "alloc/faults.h"
#include "profiler.h"
#include "scenarios/progress.h"
#include "terms/arena.h"
#include "terms/atom.h"
#include "terms/binary.h"
#include "codec/ext.h"
#include "terms/flatmap.h"
#include "terms/hashmap.h"
#include "terms/size.h"
#include "scenarios/workload.h"

/* A payload that cannot be built, or a copy that ran out of memory, ends the run (exit 1). */
#define NEED(ok, what)                        \
    do {                                      \
        if (!(ok))                            \
            tc_bench_oom("copysweep", (what)); \
    } while (0)

enum { X_PROFILE, X_CODEC, NEXTRAS };
static const tc_bench_cli_extra extras[NEXTRAS] = {
    [X_PROFILE] = {"profile", "NAME", "sample the whole sweep's stacks and write the phase shares to "
                                      "results/profile-NAME.csv (size, copy, shared, literal, memcpy, harness, "
                                      "loop = building the terms and the rest); NAME of letters, digits, _ . -", {0}},
    [X_CODEC] = {"codec", NULL, "instead of the copies, time the external-format encoder and decoder (codec/ext.c: "
                                "term_to_binary/1, binary_to_term/1) per byte on the eptest shapes and flatmap at 1 Ki, 32 Ki "
                                "and 1 Mi words (--quick: the first two) (CSV: codec,shape,payload_len,flat_words,ext_bytes,ns_per_byte,iqr,"
                                "min_ns_per_byte)", {0}},
};

static const tc_bench_cli_spec spec = {
    .prog = "copysweep",
    .about = "Times every copy strategy (memcpy floor, copy_struct, compact_in, compact_out,\n"
             "shallow_fast = the PROPOSAL copy_shallow_fast (not the VM: copy/copy_shallow_fast.h),\n"
             "lookup = [Object] out of the compact form, copy_shared, literal_put, literal_get) on\n"
             "terms of several shapes with flat sizes from 16 KiB to 4 MiB, and prints ns per word\n"
             "(median and fastest batch) and the ratios to memcpy of the same bytes.",
    .quick = "three sizes and fewer repeats (finishes in well under 20 s)",
    .csv = "one row per strategy, shape and size: strategy,shape,payload_words,batch,ns_per_word,"
           "memcpy_ns_per_word,ratio,min_ns_per_word,memcpy_min_ns_per_word,min_ratio (--codec: see there)",
    .extras = extras,
    .nextras = NEXTRAS,
};

/* ---- a destination that is allocated once and handed out again for every repeat -------- */

typedef struct dest {
    tc_alloc iface; /* first, so the interface pointer is the destination */
    tc_offheap offheap;
    tc_term *base;
    size_t top, cap;
} dest;

static tc_term *dest_alloc(tc_alloc *self, size_t words)
{
    dest *d = (dest *)self;
    if (d->cap - d->top < words)
        return NULL;
    tc_term *p = d->base + d->top;
    d->top += words;
    return p;
}

static void dest_reset(dest *d)
{
    tc_offheap_release_until(&d->offheap, NULL);
    d->offheap.overhead = 0;
    d->offheap.vheap = 0;
    d->top = 0;
}

/* ---- shapes --------------------------------------------------------------------------- */

typedef tc_term (*shape_fn)(tc_alloc *a, size_t words);

static tc_term cons_or_die(tc_alloc *a, tc_term car, tc_term cdr)
{
    tc_term c = tc_term_cons(a, car, cdr);
    NEED(c != TC_NON_VALUE, "building the payloads");
    return c;
}

/* Built from the tail, so the head is highest, as lists:seq builds it. */
static tc_term shape_ints(tc_alloc *a, size_t words)
{
    tc_term l = TC_NIL;
    for (size_t i = words / 2; i > 0; i--)
        l = cons_or_die(a, tc_make_small((int64_t)i), l);
    return l;
}

static tc_term shape_floats(tc_alloc *a, size_t words)
{
    tc_term l = TC_NIL;
    for (size_t i = words / 4; i > 0; i--) {
        tc_term f = tc_term_float(a, (double)i * 0.5);
        NEED(f != TC_NON_VALUE, "building the payloads");
        l = cons_or_die(a, f, l);
    }
    return l;
}

static tc_term shape_tuple(tc_alloc *a, size_t words)
{
    size_t n = words - 1;
    tc_term *e = tc_mem_alloc(n * sizeof *e);
    NEED(e != NULL, "building the payloads");
    for (size_t i = 0; i < n; i++)
        e[i] = tc_make_small((int64_t)i);
    tc_term t = tc_term_tuple(a, e, n);
    NEED(t != TC_NON_VALUE, "building the payloads");
    tc_mem_free(e);
    return t;
}

static tc_term pair(tc_alloc *a, tc_term x, tc_term y)
{
    tc_term e[2] = {x, y}, t = tc_term_tuple(a, e, 2);
    NEED(t != TC_NON_VALUE, "building the payloads");
    return t;
}

/* A balanced tree of 2-tuples, distinct nodes, small-int leaves: 3 words a node. The
 * recursion is as deep as the tree, a few tens of levels. */
static tc_term tree(tc_alloc *a, unsigned depth, int64_t *leaf) /* NOLINT(misc-no-recursion): depth bounded */
{
    if (depth == 0)
        return tc_make_small((*leaf)++);
    tc_term l = tree(a, depth - 1, leaf);
    return pair(a, l, tree(a, depth - 1, leaf));
}

static unsigned tree_depth(size_t words)
{
    unsigned d = 1;
    while (3 * ((UINT64_C(1) << (d + 1)) - 1) <= words)
        d++;
    return d;
}

static tc_term shape_nested_tuples(tc_alloc *a, size_t words)
{
    int64_t leaf = 0;
    return tree(a, tree_depth(words), &leaf);
}

/* Strings of 16 characters: 32 words each, plus the outer cell. */
static tc_term shape_strings(tc_alloc *a, size_t words)
{
    tc_term l = TC_NIL;
    for (size_t i = words / 34; i > 0; i--) {
        tc_term s = TC_NIL;
        for (int c = 'p'; c > 'p' - 16; c--)
            s = cons_or_die(a, tc_make_small(c), s);
        l = cons_or_die(a, s, l);
    }
    return l;
}

static tc_term binaries(tc_alloc *a, size_t words, size_t bytes, size_t per)
{
    unsigned char data[100];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (unsigned char)i;
    tc_term l = TC_NIL;
    for (size_t i = words / per; i > 0; i--) {
        tc_term b = tc_term_binary(a, data, bytes);
        NEED(b != TC_NON_VALUE, "building the payloads");
        l = cons_or_die(a, b, l);
    }
    return l;
}

/* 48-byte heap binaries (8 words) and 100-byte refc binaries (a 6-word ProcBin each). */
static tc_term shape_heap_binaries(tc_alloc *a, size_t words) { return binaries(a, words, 48, 10); }
static tc_term shape_refc_binaries(tc_alloc *a, size_t words) { return binaries(a, words, 100, 8); }

/* Flatmaps of 16 small-int keys: 3 + 16 + 17 words each, plus the outer cell (the codec's
 * flatmap shape). */
static tc_term shape_flatmaps(tc_alloc *a, size_t words) { return tc_codec_flatmaps(a, words / TC_CODEC_FLATMAP_WORDS); }

/* maps:from_list([{I, I} || I <- lists:seq(1, K)]): one hashmap. K is sized so that the
 * flat size is about the payload (10 keys to 37 words: a 2-word leaf cons per key and about
 * 1.7 words of nodes; the row states the real flat size). */
static tc_term shape_hashmap(tc_alloc *a, size_t words)
{
    size_t k = words * 10 / 37;
    tc_term *kv = tc_mem_alloc(2 * k * sizeof *kv), m;
    NEED(kv != NULL, "building the payloads");
    for (size_t i = 0; i < k; i++)
        kv[2 * i] = kv[2 * i + 1] = tc_make_small((int64_t)i + 1);
    NEED(tc_term_map(a, kv, k, &m) == TC_OK, "building the payloads");
    tc_mem_free(kv);
    return m;
}

/* lists:foldl(fun(_, A) -> {A, A} end, leaf, lists:seq(1, D)): flat 3(2^D - 1), shared 3D. */
static tc_term shape_shared_tree(tc_alloc *a, size_t words)
{
    tc_term t;
    NEED(tc_atom_intern("leaf", 4, &t) == TC_OK, "building the payloads");
    for (unsigned d = tree_depth(words); d > 0; d--)
        t = pair(a, t, t);
    return t;
}

static const struct {
    const char *name;
    shape_fn build;
} shapes[] = {
    {"ints", shape_ints},
    {"floats", shape_floats},
    {"tuple", shape_tuple},
    {"nested_tuples", shape_nested_tuples},
    {"strings", shape_strings},
    {"heap_binaries", shape_heap_binaries},
    {"refc_binaries", shape_refc_binaries},
    {"flatmaps", shape_flatmaps},
    {"hashmap", shape_hashmap},
    {"shared_tree", shape_shared_tree},
};

/* ---- strategies ----------------------------------------------------------------------- */

enum { MAX_BATCH = 16, BATCH_WORDS = 32768 };

typedef struct subject {
    tc_term term;
    size_t flat;
    size_t batch;            /* repeats a sample */
    tc_copy_compact *stored; /* the term in compact form, for out, lookup and memcpy */
    dest *dst;
    tc_copy_compact *made[MAX_BATCH];       /* compact_in's products, freed after each batch */
    tc_copy_literal_area *areas[MAX_BATCH]; /* literal_put's areas, new for each repeat */
    tc_copy_literal_area *got;              /* literal_get's area, holding the term */
    tc_term key;
} subject;

/* shallow_fast is the proposal of copy/copy_shallow_fast.h, not the VM's copy. */
enum strategy {
    MEMCPY, COPY_STRUCT, COMPACT_IN, COMPACT_OUT, SHALLOW_FAST, LOOKUP, COPY_SHARED, LITERAL_PUT, LITERAL_GET,
    NSTRATEGIES
};
static const char *const strategy_names[NSTRATEGIES] = {"memcpy",      "copy_struct", "compact_in",
                                                        "compact_out", "shallow_fast", "lookup",
                                                        "copy_shared", "literal_put", "literal_get"};

/* Untimed, around a batch of `reps` repeats: the destination emptied (a copy's off-heap
 * references dropped), and literal_put's areas made and compact_in's blocks freed. */
static void before_batch(subject *s, enum strategy st, size_t reps)
{
    dest_reset(s->dst);
    for (size_t r = 0; st == LITERAL_PUT && r < reps; r++) {
        s->areas[r] = tc_copy_literal_area_new(s->flat + 3);
        NEED(s->areas[r] != NULL, "building the payloads");
    }
}

static void after_batch(subject *s, enum strategy st, size_t reps)
{
    for (size_t r = 0; r < reps; r++) {
        if (st == COMPACT_IN)
            tc_copy_compact_free(s->made[r]);
        if (st == LITERAL_PUT)
            tc_copy_literal_area_free(s->areas[r]);
        s->made[r] = NULL;
        s->areas[r] = NULL;
    }
}

enum { GETS_PER_SAMPLE = 1000 };

/* The timed operation, repeat r of a batch. The destination is taken from its start again:
 * only a shape without off-heap members has batches of more than one, so there is nothing
 * to drop. */
static void run(subject *s, enum strategy st, size_t r)
{
    tc_alloc *a = &s->dst->iface;
    tc_term out;
    tc_term *raw;
    tc_result res = TC_OK;
    s->dst->top = 0;
    switch (st) {
    case MEMCPY: res = tc_copy_memcpy_floor(a, tc_copy_compact_words(s->stored), s->flat, &raw, NULL); break;
    case COPY_STRUCT: res = tc_copy_struct(a, s->term, NULL, &out, NULL); break;
    case COMPACT_IN: res = tc_copy_compact_in(s->term, &s->made[r], NULL); break;
    case COMPACT_OUT: res = tc_copy_compact_out(a, s->stored, &out, NULL); break;
    case SHALLOW_FAST: res = tc_copy_shallow_fast_out(a, s->stored, &out, NULL); break;
    case LOOKUP: res = tc_copy_compact_out_list(a, s->stored, &out, NULL); break;
    case COPY_SHARED: res = tc_copy_shared(a, s->term, &out, NULL); break;
    case LITERAL_PUT: res = tc_copy_literal_put(s->areas[r], s->key, s->term, NULL); break;
    case LITERAL_GET:
        /* a get copies nothing: one is far below the clock's resolution, so a sample is a
         * batch, and measure() divides it by the batch */
        for (int i = 0; i < GETS_PER_SAMPLE && res == TC_OK; i++)
            res = tc_copy_literal_get(s->got, s->key, &out);
        break;
    case NSTRATEGIES: break;
    }
    NEED(res == TC_OK, "timing a copy");
}

/* Repeats a sample: about BATCH_WORDS words, or 1 where a copy takes off-heap references. */
static size_t batch_size(subject *s)
{
    tc_term out;
    dest_reset(s->dst);
    NEED(tc_copy_compact_out(&s->dst->iface, s->stored, &out, NULL) == TC_OK, "timing a copy");
    bool members = s->dst->offheap.first != NULL;
    dest_reset(s->dst);
    size_t b = BATCH_WORDS / (s->flat ? s->flat : 1);
    return members || b < 1 ? 1 : b > MAX_BATCH ? MAX_BATCH : b;
}

typedef struct plan {
    int warmup, min_rounds, max_rounds;
    double min_total_ns; /* keep going, up to max_rounds, until this much was timed */
} plan;

typedef struct figure {
    tc_timing_summary ns; /* per repeat, over the batches */
    double fastest;       /* per repeat, in the fastest batch */
    double faults;        /* minor faults per repeat */
} figure;

enum { MAX_ROUNDS = 5000 };

/* Rounds of one batch of every strategy in turn, so that a burst of load from elsewhere on
 * the machine lands on all of them alike and the ratios to memcpy stay fair. */
static void measure(subject *s, const plan *p, figure fg[NSTRATEGIES])
{
    static double samples[NSTRATEGIES][MAX_ROUNDS];
    double faults[NSTRATEGIES] = {0}, overhead = tc_timing_overhead_ns(), total = 0;
    TC_CHECK(p->min_rounds > 0 && p->min_rounds <= p->max_rounds && p->max_rounds <= MAX_ROUNDS);
    int n = 0;
    for (int round = -p->warmup; n < p->min_rounds || (n < p->max_rounds && total < p->min_total_ns); round++) {
        for (int st = 0; st < NSTRATEGIES; st++) {
            /* literal_get's sample is already a batch of gets */
            size_t reps = st == LITERAL_GET ? 1 : s->batch;
            if (st != COMPACT_IN && st != LITERAL_PUT) {
                /* untimed: the source and destination as warm as a batch of its own leaves them,
                 * whatever ran before (at 4 MiB, what the others touched evicts them) */
                dest_reset(s->dst);
                run(s, (enum strategy)st, 0);
            }
            before_batch(s, (enum strategy)st, reps);
            long f0 = (long)tc_faults_minor();
            uint64_t t0 = tc_timing_now_ns();
            for (size_t r = 0; r < reps; r++)
                run(s, (enum strategy)st, r);
            uint64_t t1 = tc_timing_now_ns();
            long f1 = (long)tc_faults_minor();
            after_batch(s, (enum strategy)st, reps);
            if (round >= 0) {
                double ns = (double)(t1 - t0) - overhead;
                samples[st][n] = (ns > 0 ? ns : 0) / (double)reps / (st == LITERAL_GET ? GETS_PER_SAMPLE : 1);
                faults[st] += (double)(f1 - f0) / (double)reps;
                total += (double)(t1 - t0);
            }
        }
        if (round >= 0)
            n++;
    }
    for (int st = 0; st < NSTRATEGIES; st++) {
        fg[st].ns = tc_timing_summarize(samples[st], (size_t)n); /* sorts them */
        fg[st].fastest = samples[st][0];
        fg[st].faults = faults[st] / n;
    }
}

/* ---- --codec: the external format, per byte ----------------------------------------- */

typedef struct codec_subject {
    const tc_codec_payload *p;
    unsigned char **out; /* the encoder's products of one batch, freed untimed */
    dest *dst;           /* the decoder's destination, room for a batch, reset untimed */
} codec_subject;

/* One batch of calls back to back, as experiments/beam/codec.erl times the VM's. Encode as
 * term_to_binary/1 does it (OTP 25's default, minor version 1): the size pass, one buffer of
 * exactly that size, the write pass. Decode: binary_to_term/1 into a warm buffer. */
static void codec_run(void *ctx, int which)
{
    codec_subject *s = ctx;
    const tc_codec_payload *p = s->p;
    for (size_t i = 0; i < p->batch; i++) {
        if (which == 0) {
            size_t len;
            NEED(tc_ext_encode(p->term, 1, &s->out[i], &len) == TC_OK && len == p->ext_len, "timing the encoder");
        } else {
            tc_term t;
            NEED(tc_ext_decode(&s->dst->iface, p->ext, p->ext_len, &t, NULL) == TC_OK, "timing the decoder");
        }
    }
}

static void codec_after(void *ctx, int which)
{
    codec_subject *s = ctx;
    if (which == 1) {
        dest_reset(s->dst);
        return;
    }
    for (size_t i = 0; i < s->p->batch; i++) {
        tc_mem_free(s->out[i]);
        s->out[i] = NULL;
    }
}

static const char *const codec_names[2] = {"encode", "decode"};

static void codec_sweep(bool quick, FILE *csv)
{
    int batches = quick ? TC_CODEC_QUICK_BATCHES : TC_CODEC_BATCHES;
    if (csv) {
        tc_bench_meta_standard(csv);
        tc_bench_meta(csv, "experiment", "copysweep --codec%s", quick ? " --quick" : "");
        tc_bench_meta(csv, "encode", "tc_ext_encode minor 1 (term_to_binary/1): size pass, malloc, write pass");
        tc_bench_meta(csv, "decode", "tc_ext_decode (binary_to_term/1) into one warm buffer reused per batch");
        tc_codec_meta(csv, batches);
    }
    tc_codec_heading(batches);
    for (size_t z = 0; z < (quick ? TC_CODEC_QUICK_SIZES : TC_CODEC_SIZES); z++) {
        for (int sh = 0; sh < TC_CODEC_SHAPES; sh++) {
            tc_progress_line("codec %zu words %s", tc_codec_words[z], tc_codec_shape_name(sh));
            tc_codec_payload p;
            tc_codec_payload_make(sh, tc_codec_words[z], &p);
            codec_subject s = {&p, tc_mem_calloc(p.batch, sizeof *s.out), NULL};
            NEED(s.out != NULL, "building the payloads");
            dest d = {.iface = {dest_alloc, NULL, NULL}, .cap = p.batch * (p.flat + 16)};
            d.iface.offheap = &d.offheap;
            d.base = tc_mem_alloc(d.cap * sizeof(tc_term));
            NEED(d.base != NULL, "building the payloads");
            memset(d.base, 0, d.cap * sizeof(tc_term));
            s.dst = &d;
            tc_timing_summary ns[2];
            double least[2];
            tc_codec_time(codec_run, codec_after, &s, 2, batches, p.batch, ns, least);
            tc_progress_end();
            for (int which = 0; which < 2; which++)
                tc_codec_row(csv, codec_names[which], &p, &ns[which], least[which]);
            (void)fflush(stdout);
            dest_reset(&d);
            tc_mem_free(d.base);
            tc_mem_free(s.out);
            tc_codec_payload_free(&p);
        }
    }
}

/* What the sweep's samples are attributed to: each strategy's own passes, the harness
 * around them, and "loop" for the rest (mostly building the terms). The size walk is static
 * and the public size functions tail-call it: the profiler credits them with it. */
static const tc_prof_phase_map profile_phases[] = {
    {TC_PROF_FN(tc_term_flat_size), "size"},         {TC_PROF_FN(tc_term_flat_size_litopt), "size"},
    {TC_PROF_FN(tc_copy_struct_fill), "copy"},       {TC_PROF_FN(tc_copy_compact_in), "copy"},
    {TC_PROF_FN(tc_copy_compact_out), "copy"},       {TC_PROF_FN(tc_copy_compact_out_list), "copy"},
    {TC_PROF_FN(tc_copy_shallow_fast_out), "copy"},   {TC_PROF_FN(tc_copy_compact_out_via), "copy"},
    {TC_PROF_FN(tc_copy_shared), "shared"},          {TC_PROF_FN(tc_copy_literal_put), "literal"},
    {TC_PROF_FN(tc_copy_literal_get), "literal"},    {TC_PROF_FN(tc_copy_memcpy_floor), "memcpy"},
    {TC_PROF_FN(tc_timing_now_ns), "harness"},        {TC_PROF_FN(tc_faults_minor), "harness"},
    {TC_PROF_FN(tc_ext_encode), "encode"},           {TC_PROF_FN(tc_ext_decode), "decode"},
};

static bool profile_finish(tc_prof *prof, const char *name, bool quick)
{
    tc_prof_stop(prof);
    tc_prof_report r;
    tc_result res = tc_prof_report_phases(prof, profile_phases, sizeof profile_phases / sizeof profile_phases[0], &r);
    tc_prof_free(prof);
    if (res != TC_OK) {
        fprintf(stderr, "copysweep: profile: %s\n", tc_result_name(res));
        return false;
    }
    tc_prof_print(stdout, &r);
    char path[512];
    tc_prof_named_path(name, path, sizeof path);
    if (!tc_prof_write_csv(&r, path, quick ? "copysweep --quick" : "copysweep", NULL)) {
        fprintf(stderr, "copysweep: cannot write %s: %s\n", path, strerror(errno));
        return false;
    }
    printf("profile written to %s\n", path);
    return true;
}

static void copy_sweep(bool quick, FILE *csv)
{
    static const size_t full_kib[] = {16, 64, 256, 1024, 4096}, quick_kib[] = {16, 256, 4096};
    const size_t *kib = quick ? quick_kib : full_kib;
    size_t nsizes = quick ? 3 : 5;
    plan p = quick ? (plan){1, 5, 2000, 5e7} : (plan){3, 31, MAX_ROUNDS, 2e8};
    double overhead = tc_timing_overhead_ns();

    if (csv) {
        tc_bench_meta_standard(csv);
        tc_bench_meta(csv, "experiment", "copysweep%s", quick ? " --quick" : "");
        tc_bench_meta(csv, "clock_overhead_ns", "%.1f (subtracted from every sample)", overhead);
        tc_bench_meta(csv, "repeats",
                      "rounds of one batch of every strategy in turn: %d warm-up, then %d to %d; a batch is "
                      "%d words / payload_words repeats back to back (1 to %d; 1 where a copy takes off-heap "
                      "references: refc binaries), the batch column",
                      p.warmup, p.min_rounds, p.max_rounds, BATCH_WORDS, MAX_BATCH);
        tc_bench_meta(csv, "destination",
                      "one buffer, written once before the first repeat (warm pages, no first-touch faults), "
                      "reused by every repeat of every strategy, memcpy included; compact_in mallocs its block, "
                      "literal_put fills a new area");
        tc_bench_meta(csv, "temperature",
                      "each batch follows one untimed repeat of the same strategy (but compact_in and literal_put), "
                      "so source and destination are as warm (in cache) as its own repeats leave them");
        tc_bench_meta(csv, "source", "memcpy, compact_out, shallow_fast and lookup: the same stored compact block; "
                                     "the others: the term");
        tc_bench_meta(csv, "figures",
                      "ns_per_word: the median batch per repeat and word; min_ns_per_word: the fastest batch (on "
                      "a shared machine an interrupted batch is only slower); ratio and min_ratio: to memcpy's "
                      "of the same shape and size, median to median and fastest to fastest");
        tc_bench_meta(csv, "payload_words", "the term's flat size (erts_debug:flat_size)");
        fputs("strategy,shape,payload_words,batch,ns_per_word,memcpy_ns_per_word,ratio,min_ns_per_word,"
              "memcpy_min_ns_per_word,min_ratio\n",
              csv);
    }
    printf("clock overhead %.1f ns subtracted; ns/word = median batch, min = fastest batch (per repeat); IQR in "
           "ns/word; ratios to memcpy\n",
           overhead);
    printf("%-13s %-14s %9s %5s %9s %9s %7s %9s %7s %8s\n", "strategy", "shape", "words", "batch", "ns/word", "iqr",
           "ratio", "min", "ratio", "faults");

    tc_term key;
    NEED(tc_atom_intern("key", 3, &key) == TC_OK, "building the payloads");
    size_t nshapes = sizeof shapes / sizeof shapes[0];
    for (size_t z = 0; z < nsizes; z++) {
        size_t target = kib[z] * 1024 / sizeof(tc_term);
        for (size_t k = 0; k < nshapes; k++) {
            tc_arena *src = tc_arena_new(target + 64);
            NEED(src != NULL, "building the payloads");
            subject s = {0};
            s.key = key;
            s.term = shapes[k].build(tc_arena_alloc(src), target);
            uint64_t flat;
            NEED(tc_term_flat_size(s.term, &flat) == TC_OK, "building the payloads");
            s.flat = flat;
            NEED(tc_copy_compact_in(s.term, &s.stored, NULL) == TC_OK, "building the payloads");
            dest d = {.iface = {dest_alloc, NULL, NULL}, .cap = s.flat + 2};
            d.iface.offheap = &d.offheap;
            d.base = tc_mem_alloc(d.cap * sizeof(tc_term));
            NEED(d.base != NULL, "building the payloads");
            memset(d.base, 0, d.cap * sizeof(tc_term)); /* warm, as a reused heap is */
            s.dst = &d;
            s.got = tc_copy_literal_area_new(s.flat + 3);
            NEED(s.got != NULL, "building the payloads");
            NEED(tc_copy_literal_put(s.got, key, s.term, NULL) == TC_OK, "building the payloads");

            s.batch = batch_size(&s);

            tc_progress_line("%zu KiB %s", kib[z], shapes[k].name);
            figure fg[NSTRATEGIES];
            measure(&s, &p, fg);
            tc_progress_end();
            double floor_ns = fg[MEMCPY].ns.median / (double)s.flat, floor_min = fg[MEMCPY].fastest / (double)s.flat;
            for (int st = 0; st < NSTRATEGIES; st++) {
                double per_word = fg[st].ns.median / (double)s.flat, min = fg[st].fastest / (double)s.flat;
                printf("%-13s %-14s %9zu %5zu %9.3f %9.3f %7.2f %9.3f %7.2f %8.1f\n", strategy_names[st],
                       shapes[k].name, s.flat, s.batch, per_word, (fg[st].ns.q3 - fg[st].ns.q1) / (double)s.flat,
                       per_word / floor_ns, min, min / floor_min, fg[st].faults);
                /* 5 significant digits, not 4 decimals: literal_get's ns per word at 1 Mi words is
                 * below 0.0001, and the report multiplies it back into ns per get */
                if (csv)
                    fprintf(csv, "%s,%s,%zu,%zu,%.5g,%.5g,%.3f,%.5g,%.5g,%.3f\n", strategy_names[st], shapes[k].name,
                            s.flat, s.batch, per_word, floor_ns, per_word / floor_ns, min, floor_min, min / floor_min);
            }
            (void)fflush(stdout); /* a shape at a time; tc_bench_exit_status checks stdout */
            tc_copy_literal_area_free(s.got);
            dest_reset(&d);
            tc_mem_free(d.base);
            tc_copy_compact_free(s.stored);
            tc_arena_free(src);
        }
    }
}

int main(int argc, char **argv)
{
    tc_bench_cli cli;
    int rc = tc_bench_cli_parse(&cli, &spec, argc, argv);
    if (rc != TC_BENCH_CLI_RUN)
        return tc_bench_exit_status("copysweep", rc);
    rc = 0;
    bool quick = cli.quick;
    const char *csv_path = cli.csv, *profile_name = cli.extra[X_PROFILE].value;
    /* The name becomes part of a file name under results/. */
    if (profile_name &&
        (!*profile_name ||
         profile_name[strspn(profile_name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")]))
        return tc_bench_cli_bad(&cli, "--profile", "a name of letters, digits, '_', '.' and '-'", profile_name);
    FILE *csv = tc_bench_cli_open_csv(&cli, "--csv", csv_path, &rc);
    if (rc)
        return rc;

    /* Room for about 17 minutes of CPU at the kernel's usual 250 Hz; more is counted as dropped. */
    tc_prof *prof = NULL;
    if (profile_name) {
        tc_result res = tc_prof_new(0, 1u << 18, &prof);
        if (res == TC_OK)
            res = tc_prof_start(prof);
        if (res != TC_OK) {
            fprintf(stderr, "copysweep: cannot start the profiler: %s\n", tc_result_name(res));
            tc_prof_free(prof);
            return EXIT_FAILURE;
        }
    }

    if (cli.extra[X_CODEC].given)
        codec_sweep(quick, csv);
    else
        copy_sweep(quick, csv);
    if (prof && !profile_finish(prof, profile_name, quick))
        return EXIT_FAILURE;
    if (!tc_bench_cli_close_csv(&cli, csv, csv_path))
        return 2;
    return tc_bench_exit_status("copysweep", EXIT_SUCCESS);
}
