/*
 * codec_payload.h — what the external-format benchmarks time, the same way on every side:
 * `copysweep --codec` (termcopy's encoder and decoder), `codecpeer` (erl_interface's ei)
 * and experiments/beam/codec.erl (the VM's term_to_binary/1 and binary_to_term/1). The
 * shapes (eptest's, and flatmap), the payload length whose flat size is a given number of
 * words, termcopy's encoding of it, the batch of calls a sample times and the rounds of
 * samples.
 *
 * Models no erts mechanism: the harness's side of the codec benchmarks.
 */
#ifndef TC_BENCH_CODEC_PAYLOAD_H
#define TC_BENCH_CODEC_PAYLOAD_H

#include <stdio.h>

#include "alloc/mseg.h"
#include "harness.h"
#include "heaps/proc.h"
#include "scenarios/workload.h"

/* eptest's shapes (tc_ep_shape; `map`, maps:from_list([{I, I} || I <- lists:seq(1, L)]),
 * is a hashmap at every size here: more than 32 keys), then flatmap: L flatmaps of the 16
 * small-int keys 0..15, each with the value I, [maps:from_list([{K, I} || K <-
 * lists:seq(0, 15)]) || I <- lists:seq(1, L)]. */
enum { TC_CODEC_FLATMAP = TC_EP_SHAPES, TC_CODEC_SHAPES };
#define TC_CODEC_FLATMAP_WORDS 38u /* a flatmap of 16 keys (3 + 16 + 17 words) and its cell */

/* The sizes in words (--quick: the first two). */
enum { TC_CODEC_SIZES = 3, TC_CODEC_QUICK_SIZES = 2 };
extern const size_t tc_codec_words[TC_CODEC_SIZES];

/* Samples after the warm-up one: what codec.erl's --batches gets from the pipeline too. */
enum { TC_CODEC_BATCHES = 20, TC_CODEC_QUICK_BATCHES = 10 };

const char *tc_codec_shape_name(int shape);

/* `count` flatmaps as above, in a list, built in `a` (ends the run when out of memory). */
tc_term tc_codec_flatmaps(tc_alloc *a, size_t count);

/* One payload as every side times it: the term as the VM's Data is when codec.erl times it,
 * on a process heap after a fullsweep (placed there as a spawn argument is, then moved by
 * one collection: the collector's layout, which decides the walks' cache misses on a map of
 * a million words), its flat size, and termcopy's encoding of it (minor version 1,
 * term_to_binary/1's). Ends the run when out of memory. */
typedef struct tc_codec_payload {
    int shape;
    long len;        /* the payload length L: the largest whose flat size is at most `words` */
    tc_mseg *mem;    /* the process's memory */
    tc_proc *proc;   /* holds term, on the bottom slot of its stack */
    tc_term term;
    uint64_t flat;
    unsigned char *ext; /* tc_mem_alloc'd */
    size_t ext_len;
    size_t batch; /* calls a sample: 500,000 / ext_len, at least 1 (codec.erl's K) */
} tc_codec_payload;

void tc_codec_payload_make(int shape, size_t words, tc_codec_payload *out);
void tc_codec_payload_free(tc_codec_payload *p);

/* Times `nops` operations on one payload: rounds of one batch of each operation in turn
 * (run(ctx, op) runs the batch; after(ctx, op), untimed, cleans up after it), a warm-up
 * round first, then `batches` rounds. ns[op] gets the per-call summary of the rounds and
 * least[op] the fastest round's per-call time; the clock's own cost is subtracted. */
void tc_codec_time(void (*run)(void *ctx, int op), void (*after)(void *ctx, int op), void *ctx, int nops,
                   int batches, size_t batch, tc_timing_summary *ns, double *least);

/* The table's two heading lines on stdout. */
void tc_codec_heading(int batches);
/* The CSV's metadata about the payloads, batches and figures, and its header row. */
void tc_codec_meta(FILE *csv, int batches);
/* One row: codec,shape,payload_len,flat_words,ext_bytes,ns_per_byte,iqr,min_ns_per_byte
 * (and the same on stdout, aligned). */
void tc_codec_row(FILE *csv, const char *codec, const tc_codec_payload *p, const tc_timing_summary *ns,
                  double least);

#endif
