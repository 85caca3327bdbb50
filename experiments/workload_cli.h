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

/* What every binary on this workload takes the same way (tc_bench_cli_spec fields): --shape
 * (the era's mechanisms come with --era: --set and the rest, harness.h). */
#define TC_EP_CLI_SWITCHES .shapes = tc_ep_shape_names, .nshapes = TC_EP_SHAPES

/* The configuration of the command line's era number `era` (tc_bench_cli, harness.h): the
 * era's preset with every --set given (tc_bench_cli_policy) and --shape; --len and
 * --iterations when given, else the defaults here. */
tc_result tc_ep_cli_config(const tc_bench_cli *c, int era, long default_len, long default_iterations,
                           tc_ep_config *out) TC_MUST_CHECK;
/* The metadata lines of one era's configuration: every field of its policy
 * (tc_bench_meta_policy) and the workload's own switches (tc_ep_switches). */
void tc_ep_meta_config(FILE *f, const tc_ep_config *c);

#endif
