#include "codec_payload.h"

#include "codec/ext.h"
#include "heaps/gc.h"
#include "terms/arena.h"
#include "terms/flatmap.h"
#include "terms/size.h"

#define NEED(ok, what)                          \
    do {                                        \
        if (!(ok))                              \
            tc_bench_oom("codec", (what));      \
    } while (0)

const size_t tc_codec_words[TC_CODEC_SIZES] = {1024, 32768, 1048576};

const char *tc_codec_shape_name(int shape) { return shape == TC_CODEC_FLATMAP ? "flatmap" : tc_ep_shape_names[shape]; }

/* Built from the last, so the first map is the head cell, as the list comprehension makes it. */
tc_term tc_codec_flatmaps(tc_alloc *a, size_t count)
{
    tc_term l = TC_NIL;
    for (size_t i = count; i > 0; i--) {
        tc_term kv[32], m;
        for (int k = 0; k < 16; k++) {
            kv[2 * k] = tc_make_small(k);
            kv[2 * k + 1] = tc_make_small((int64_t)i);
        }
        NEED(tc_term_flatmap(a, kv, 16, &m) == TC_OK, "building the payloads");
        l = tc_term_cons(a, m, l);
        NEED(l != TC_NON_VALUE, "building the payloads");
    }
    return l;
}

static tc_term payload(tc_alloc *a, int shape, long len)
{
    if (shape == TC_CODEC_FLATMAP)
        return tc_codec_flatmaps(a, (size_t)len);
    tc_term t;
    NEED(tc_ep_build_payload(a, (tc_ep_shape)shape, len, &t) == TC_OK, "building the payloads");
    return t;
}

static uint64_t flat_of(int shape, long len)
{
    tc_arena *ar = tc_arena_new(0);
    NEED(ar != NULL, "building the payloads");
    uint64_t flat;
    NEED(tc_term_flat_size(payload(tc_arena_alloc(ar), shape, len), &flat) == TC_OK, "building the payloads");
    tc_arena_free(ar);
    return flat;
}

/* The largest L whose flat size is at most `words` (binary: its flat size is its 6-word
 * ProcBin whatever its length, so it gets 8 bytes a word instead). The sizes grow with L,
 * about linearly: a bracket around the estimate from a small payload, widened until it holds
 * the answer, then bisection (a few builds of the payload, not one per bit of L). */
static long len_for(int shape, size_t words)
{
    if (shape == TC_EP_BINARY)
        return (long)(words * sizeof(tc_term));
    if (shape == TC_CODEC_FLATMAP)
        return (long)(words / TC_CODEC_FLATMAP_WORDS);
    long probe = 256, est = (long)((double)words * (double)probe / (double)flat_of(shape, probe));
    if (est < 1)
        est = 1;
    long step = est / 256 + 1, lo, hi;
    if (flat_of(shape, est) <= words) {
        lo = est;
        hi = est + step;
        while (flat_of(shape, hi) <= words) {
            lo = hi;
            hi += step *= 2;
        }
    } else {
        hi = est;
        lo = est - step > 1 ? est - step : 1;
        while (lo > 1 && flat_of(shape, lo) > words) {
            hi = lo;
            lo = lo - (step *= 2) > 1 ? lo - step : 1;
        }
    }
    while (hi - lo > 1) {
        long mid = lo + (hi - lo) / 2;
        if (flat_of(shape, mid) > words)
            hi = mid;
        else
            lo = mid;
    }
    return lo;
}

void tc_codec_payload_make(int shape, size_t words, tc_codec_payload *out)
{
    *out = (tc_codec_payload){.shape = shape, .len = len_for(shape, words)};
    tc_arena *built = tc_arena_new(0);
    NEED(built != NULL, "building the payloads");
    /* codec.erl's Data is built in its process and collected before every batch
     * (erlang:garbage_collect/0, a fullsweep): the same here, on a process of the model's,
     * with every collection a fullsweep; nothing allocates on it afterwards. */
    tc_policy pol;
    NEED(tc_policy_preset("otp25", &pol) == TC_OK, "the policy");
    pol.fullsweep_after = 0;
    out->mem = tc_mseg_new(&pol.mem);
    NEED(out->mem && tc_proc_new(out->mem, &pol, &out->proc) == TC_OK &&
             tc_ep_place_on_heap(out->proc, payload(tc_arena_alloc(built), shape, out->len)) == TC_OK &&
             tc_gc_collect(out->proc, 0, NULL, 0) == TC_OK,
         "building the payloads");
    tc_arena_free(built);
    out->term = *tc_proc_stack_slot(out->proc, tc_proc_stack_size(out->proc) - 1);
    NEED(tc_term_flat_size(out->term, &out->flat) == TC_OK, "building the payloads");
    NEED(tc_ext_encode(out->term, 1, &out->ext, &out->ext_len) == TC_OK, "building the payloads");
    out->batch = out->ext_len < 500000 ? 500000 / out->ext_len : 1; /* about half a millisecond */
}

void tc_codec_payload_free(tc_codec_payload *p)
{
    tc_mem_free(p->ext);
    tc_proc_free(p->proc);
    tc_mseg_free(p->mem);
    *p = (tc_codec_payload){0};
}

void tc_codec_time(void (*run)(void *ctx, int op), void (*after)(void *ctx, int op), void *ctx, int nops,
                   int batches, size_t batch, tc_timing_summary *ns, double *least)
{
    double overhead = tc_timing_overhead_ns();
    double *samples = tc_mem_calloc((size_t)nops * (size_t)batches, sizeof *samples);
    NEED(samples != NULL, "the samples");
    for (int round = -1; round < batches; round++) {
        for (int op = 0; op < nops; op++) {
            uint64_t t0 = tc_timing_now_ns();
            run(ctx, op);
            uint64_t t1 = tc_timing_now_ns();
            if (after)
                after(ctx, op);
            if (round >= 0) {
                double per = ((double)(t1 - t0) - overhead) / (double)batch;
                samples[op * batches + round] = per > 0 ? per : 0;
            }
        }
    }
    for (int op = 0; op < nops; op++) {
        ns[op] = tc_timing_summarize(&samples[op * batches], (size_t)batches); /* sorts them */
        least[op] = samples[op * batches];
    }
    tc_mem_free(samples);
}

void tc_codec_heading(int batches)
{
    printf("ns/byte of the external format: median over %d batches, iqr, the fastest batch\n", batches);
    printf("%-10s %-8s %9s %9s %10s %9s %9s %9s\n", "codec", "shape", "L", "words", "bytes", "ns/byte", "iqr", "min");
}

void tc_codec_meta(FILE *csv, int batches)
{
    tc_bench_meta(csv, "shapes", "eptest's (map: more than 32 keys, a hashmap at every size here), and flatmap: "
                                "[maps:from_list([{K, I} || K <- lists:seq(0, 15)]) || I <- lists:seq(1, L)]");
    tc_bench_meta(csv, "payload_len", "the L whose flat size is the largest at or below 1 Ki, 32 Ki, 1 Mi words "
                                     "(binary: 8 bytes a word)");
    tc_bench_meta(csv, "batch", "a sample is 500,000 / ext_bytes calls (at least 1) back to back, as "
                               "experiments/beam/codec.erl times the VM; the figures are per call, per byte of "
                               "term_to_binary/1's encoding; the clock's cost is subtracted");
    tc_bench_meta(csv, "batches", "%d batches of each operation after a warm-up round, the operations in turn",
                  batches);
    tc_bench_meta(csv, "min_ns_per_byte", "the fastest batch: on a shared machine a batch the scheduler "
                                         "interrupted is only ever longer");
    fputs("codec,shape,payload_len,flat_words,ext_bytes,ns_per_byte,iqr,min_ns_per_byte\n", csv);
}

void tc_codec_row(FILE *csv, const char *codec, const tc_codec_payload *p, const tc_timing_summary *ns,
                  double least)
{
    double bytes = (double)p->ext_len, per = ns->median / bytes, iqr = (ns->q3 - ns->q1) / bytes;
    const char *shape = tc_codec_shape_name(p->shape);
    printf("%-10s %-8s %9ld %9llu %10zu %9.3f %9.3f %9.3f\n", codec, shape, p->len, (unsigned long long)p->flat,
           p->ext_len, per, iqr, least / bytes);
    if (csv)
        fprintf(csv, "%s,%s,%ld,%llu,%zu,%.4f,%.4f,%.4f\n", codec, shape, p->len, (unsigned long long)p->flat,
                p->ext_len, per, iqr, least / bytes);
}
