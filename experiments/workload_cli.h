/*
 * workload_cli.h — the command line and CSV metadata of the binaries on the 2005 workload
 * (scenarios/workload.h: eptest, ablate, crossover, breakdown): the switches they all take,
 * an era's configuration from a parsed command line, and its metadata lines.
 *
 * Models no erts mechanism: the harness's side of the workload (it needs tc_bench_cli,
 * which the scenarios below do not see).
 */
#ifndef TC_BENCH_WORKLOAD_CLI_H
#define TC_BENCH_WORKLOAD_CLI_H

#include <stdio.h>

#include "harness.h"
#include "scenarios/workload.h"

/* What every binary on this workload takes the same way (tc_bench_cli_spec fields):
 * --shape, and each mechanism of the era over the era's own setting. */
#define TC_EP_CLI_SWITCHES                                                                         \
    .shapes = tc_ep_shape_names, .nshapes = TC_EP_SHAPES, .gc_trigger = true, .send_path = true, .copy_out = true, \
    .no_shrink = true, .segment_cache = "the era's", .sbct = "the era's", .min_heap = "the era's"

/* The configuration of the command line's era number `era` (tc_bench_cli, harness.h): the
 * era's preset with every switch of its mechanisms given (--gc-trigger, --send-path,
 * --no-shrink, --segment-cache, --sbct, --min-heap) and --shape; --len and --iterations
 * when given, else the defaults here. */
tc_result tc_ep_cli_config(const tc_bench_cli *c, int era, long default_len, long default_iterations,
                           tc_ep_config *out) TC_MUST_CHECK;
/* The metadata lines of one era's configuration: every switch of its policy
 * (tc_bench_meta_policy) and its send path. */
void tc_ep_meta_config(FILE *f, const tc_ep_config *c);

#endif
