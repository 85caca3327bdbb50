#define _GNU_SOURCE /* getloadavg */
/*
 * account — the time account of the eptest loops (DESIGN.md rule 8, scenarios/account.h):
 * at each point (a shape and a payload length), each round, the model's eptest (its counts,
 * and its own C time as model_exec_us), then on the VM (one session for the whole run) the
 * same loops with the VM's counts and, apart from them, the calibrations of each loop's unit
 * prices in its context (experiments/beam/account.erl), and this process's fault and carrier
 * probe on as much fresh memory as the loop faulted in. Per loop (proc1..3, ets_lookup): the VM's CPU time
 * (vm_us), its counts at its prices (vm_priced_us, in phases, other_us the rest), and the
 * model's counts at the same prices (model_priced_us). Medians over the rounds: of the times,
 * of each count and of each price, priced once; the identity (priced_over_vm) is the median
 * of each round's own vm_priced_us / vm_us, round_min and round_max its extremes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "workload_cli.h"
#include "scenarios/account.h"
#include "scenarios/progress.h"
#include "scenarios/workload.h"

enum { X_POINTS, X_PRICES, X_FAULT_PROBE, X_CARRIER_PROBE, NEXTRAS };
static const tc_bench_cli_extra extras[NEXTRAS] = {
    [X_POINTS] = {"points", "\"SHAPE:L ...\"",
                  "the points, each a shape and a payload length (default: --shape's at --len)", {0}},
    [X_PRICES] = {"prices", "FILE|-", "also write each loop's unit prices per point (medians over the rounds)", {0}},
    [X_FAULT_PROBE] = {"fault-probe", "FAULTS",
                       "only print this machine's fault price (ns) for a loop that took FAULTS faults, and exit "
                       "(experiments/beam/eras/run.sh: the seeds' VMs have no NIF to probe with)",
                       {0}},
    [X_CARRIER_PROBE] = {"carrier-probe", "BYTES",
                         "only print this machine's price (ns) of a carrier of BYTES: mapped, its first page "
                         "written, unmapped, less that page's fault, and exit (as the cpuclock NIF's carrier/1 in "
                         "the VM; for the seeds' one-threaded VMs this process is as good a place)",
                         {0}},
};

static const tc_bench_cli_spec spec = {
    .prog = "account",
    .era = "otp25", /* the VM the account runs; --set switches the model's mechanisms to match a rebuilt one */
    .about = "The time account of the eptest loops: per point and loop the VM's CPU time, its counts\n"
             "at the unit prices the VM shows in calibration runs of the same session (the phases:\n"
             "fixed, copy, gc, fault, mmap, and what they leave), and the model's counts at the same\n"
             "prices. Needs erl and the cpuclock NIF (erlang-dev).",
    .len = {"payload length", TC_EP_MIN_LEN, TC_EP_MAX_LEN, "1000"},
    .iterations = {"calls per pass on both sides", 1, 100000, "1000 (--quick 200)"},
    .repeats = {"rounds (model, VM loops, calibrations each)", 1, 15, "3 (--quick 1)"},
    .shapes = tc_ep_shape_names,
    .nshapes = TC_EP_SHAPES,
    .shape_dflt = "ints",
    .quick = "200 calls per pass, one round",
    .csv = "shape,payload_len,loop,vm_us,vm_priced_us,model_priced_us,copy_us,gc_us,fault_us,mmap_us,fixed_us,"
           "other_us, then the identity (priced_over_vm, within_15, round_min, round_max), the point's ratios, "
           "the wall and traced times, the model's C time and phases, both sides' counts, and the VM's "
           "scheduler sleeps (sleep_us, vm_sleeps: a phase of vm_priced_us the model has no count for), the "
           "dirty CPU schedulers' CPU time (vm_dirty_cpu_us, of vm_us) and the carriers mapped there, the "
           "fastest and slowest tester's CPU time (vm_testers_lo_us, vm_testers_hi_us: vm_us is the median tester's)",
    .extras = extras,
    .nextras = NEXTRAS,
};

/* The passes priced, as eptest's tests and the account's loops. */
static const int tests[TC_VM_ACCOUNT_PASSES] = {TC_EP_PROC1, TC_EP_PROC2, TC_EP_PROC3, TC_EP_LOOKUP};

enum { MAX_POINTS = 64, MAX_ROUNDS = 15 };

typedef struct point {
    tc_ep_shape shape;
    long len;
} point;

/* What one round measured at one point. */
typedef struct round_data {
    double vm_us[TC_VM_ACCOUNT_PASSES], wall_us[TC_VM_ACCOUNT_PASSES], traced_us[TC_VM_ACCOUNT_PASSES],
        traced_gc_us[TC_VM_ACCOUNT_PASSES], exec_us[TC_VM_ACCOUNT_PASSES], dirty_cpu_us[TC_VM_ACCOUNT_PASSES],
        lo_us[TC_VM_ACCOUNT_PASSES], hi_us[TC_VM_ACCOUNT_PASSES];
    tc_account_counts vm[TC_VM_ACCOUNT_PASSES], model[TC_VM_ACCOUNT_PASSES];
    tc_account_prices prices[TC_ACCOUNT_LOOPS];
    double clock_ns[2]; /* the VM's thread and process CPU clocks' own cost per timed run */
    int testers;        /* untraced testers per pass */
} round_data;

static bool parse_points(const char *text, point *out, int *n)
{
    *n = 0;
    char buf[2048];
    if (snprintf(buf, sizeof buf, "%s", text) >= (int)sizeof buf)
        return false;
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *colon = strchr(tok, ':');
        if (!colon || *n == MAX_POINTS)
            return false;
        *colon = '\0';
        int sh = -1;
        for (int i = 0; i < TC_EP_SHAPES; i++)
            if (strcmp(tc_ep_shape_names[i], tok) == 0)
                sh = i;
        char *end;
        long len = strtol(colon + 1, &end, 10);
        if (sh < 0 || *end || len < TC_EP_MIN_LEN || len > TC_EP_MAX_LEN)
            return false;
        out[(*n)++] = (point){(tc_ep_shape)sh, len};
    }
    return *n > 0;
}

static double median(double *v, int n) { return tc_timing_summarize(v, (size_t)n).median; }


/* One round at one point: the model (base's policy), then the VM, then the probes. */
static bool measure(tc_vm *vm, const tc_ep_config *base, const point *pt, long n, round_data *rd)
{
    tc_ep_config cfg = *base;
    cfg.shape = pt->shape;
    cfg.len = pt->len;
    cfg.iterations = n;
    tc_ep_counts c[TC_EP_TESTS];
    tc_result r = tc_ep_run(&cfg, c);
    if (r != TC_OK) {
        fprintf(stderr, "account: the model's run failed: %s\n", tc_result_name(r));
        return false;
    }
    uint64_t words;
    if (tc_ep_payload_words(pt->shape, pt->len, &words) != TC_OK)
        tc_bench_oom("account", "the payload");
    tc_vm_account a;
    if (!tc_vm_account_point(vm, tc_ep_shape_names[pt->shape], pt->len, n, &a))
        return false;
    static const char *const clocks[2] = {"clock_thread", "clock_process"};
    for (int k = 0; k < 2; k++) {
        rd->clock_ns[k] = NAN;
        for (int i = 0; i < a.nprices; i++)
            if (strcmp(a.price[i].unit, clocks[k]) == 0)
                rd->clock_ns[k] = a.price[i].cpu_ns;
    }
    for (int k = 0; k < TC_ACCOUNT_LOOPS; k++) {
        /* the probe takes as much fresh memory as the loop faulted in */
        const tc_vm_pass *p = &a.pass[k == TC_ACCOUNT_RT ? 1 : 3];
        double fault;
        if (!tc_account_probe(tc_account_probe_region(p->faults), &fault)) {
            fprintf(stderr, "account: the fault probe cannot map memory\n");
            return false;
        }
        if (!tc_account_prices_of_vm(&a, (tc_account_loop)k, fault, &rd->prices[k]))
            return false;
    }
    for (int i = 0; i < TC_VM_ACCOUNT_PASSES; i++) {
        const tc_vm_pass *p = &a.pass[i];
        if (strcmp(p->test, tc_ep_test_names[tests[i]]) != 0) {
            fprintf(stderr, "account: the VM's passes are not eptest's (%s)\n", p->test);
            return false;
        }
        rd->vm_us[i] = p->cpu_us;
        rd->lo_us[i] = p->cpu_lo_us;
        rd->testers = (int)p->testers;
        rd->hi_us[i] = p->cpu_hi_us;
        rd->wall_us[i] = p->wall_us;
        rd->traced_us[i] = p->traced_us;
        rd->traced_gc_us[i] = p->gc_us;
        rd->dirty_cpu_us[i] = p->dirty_cpu_us;
        rd->exec_us[i] = c[tests[i]].us;
        rd->vm[i] = tc_account_of_vm(p, n, a.words);
        rd->model[i] = tc_account_of_model(&c[tests[i]], n, words);
    }
    return true;
}

/* GCs within 3 % and faults within 15 % (or 200 per 1000 operations), the sweep's criteria. */
static bool counts_match(const tc_account_counts *m, const tc_account_counts *v)
{
    double mg = m->minor + m->major, vg = v->minor + v->major;
    double df = fabs(m->faults - v->faults);
    return fabs(mg - vg) <= 0.03 * vg && (df <= 0.15 * v->faults || df * 1000 / v->ops <= 200);
}

static void write_prices(FILE *f, const point *pt, round_data *rounds, int nr)
{
    for (int k = 0; k < TC_ACCOUNT_LOOPS; k++) {
        tc_account_prices p;
        tc_account_prices_median(&rounds[0].prices[k], sizeof *rounds, (size_t)nr, &p);
        tc_account_prices_write(f, tc_ep_shape_names[pt->shape], pt->len, (tc_account_loop)k, &p);
    }
}

typedef struct tally {
    int loops, within, matched, model_within;
} tally;

static void write_point(FILE *csv, const point *pt, round_data *rounds, int nr, tally *t)
{
    double vm_us[TC_VM_ACCOUNT_PASSES], model_us[TC_VM_ACCOUNT_PASSES];
    tc_account_phases vp[TC_VM_ACCOUNT_PASSES], mp[TC_VM_ACCOUNT_PASSES];
    double vals[MAX_ROUNDS];
    for (int i = 0; i < TC_VM_ACCOUNT_PASSES; i++) {
        tc_account_loop loop = tc_account_loop_of_test(tests[i]);
        tc_account_counts vc, mc;
        tc_account_prices p;
        tc_account_counts_median(&rounds[0].vm[i], sizeof *rounds, (size_t)nr, &vc);
        tc_account_counts_median(&rounds[0].model[i], sizeof *rounds, (size_t)nr, &mc);
        tc_account_prices_median(&rounds[0].prices[loop], sizeof *rounds, (size_t)nr, &p);
        vp[i] = tc_account_price(&vc, &p);
        mp[i] = tc_account_price(&mc, &p);
        for (int r = 0; r < nr; r++)
            vals[r] = rounds[r].vm_us[i];
        vm_us[i] = median(vals, nr);
        model_us[i] = mp[i].total_us;
    }
    /* the round trip: the median of the three proc passes, as the report's (stats.awk) */
    double rt3[3] = {vm_us[0], vm_us[1], vm_us[2]}, mrt3[3] = {model_us[0], model_us[1], model_us[2]};
    double vm_ratio = vm_us[3] / median(rt3, 3), model_ratio = model_us[3] / median(mrt3, 3);
    for (int i = 0; i < TC_VM_ACCOUNT_PASSES; i++) {
        tc_account_loop loop = tc_account_loop_of_test(tests[i]);
        double lo = INFINITY, hi = 0, wall[MAX_ROUNDS], traced[MAX_ROUNDS], tgc[MAX_ROUNDS], exec[MAX_ROUNDS],
               dirty[MAX_ROUNDS], qs[MAX_ROUNDS], mqs[MAX_ROUNDS], los[MAX_ROUNDS], his[MAX_ROUNDS];
        for (int r = 0; r < nr; r++) {
            double q = tc_account_price(&rounds[r].vm[i], &rounds[r].prices[loop]).total_us / rounds[r].vm_us[i];
            qs[r] = q;
            mqs[r] = tc_account_price(&rounds[r].model[i], &rounds[r].prices[loop]).total_us / rounds[r].vm_us[i];
            lo = q < lo ? q : lo;
            hi = q > hi ? q : hi;
            wall[r] = rounds[r].wall_us[i];
            traced[r] = rounds[r].traced_us[i];
            tgc[r] = rounds[r].traced_gc_us[i];
            exec[r] = rounds[r].exec_us[i];
            dirty[r] = rounds[r].dirty_cpu_us[i];
            los[r] = rounds[r].lo_us[i];
            his[r] = rounds[r].hi_us[i];
        }
        tc_account_counts vc, mc;
        tc_account_counts_median(&rounds[0].vm[i], sizeof *rounds, (size_t)nr, &vc);
        tc_account_counts_median(&rounds[0].model[i], sizeof *rounds, (size_t)nr, &mc);
        /* The identity from each round's own ratio (its loop and its prices measured minutes
         * apart in one VM session), the median over the rounds: this shared machine has bursts
         * that slow a loop or a calibration (a lookup's copy from ~1 to ~2 ns a word for some
         * ten runs at a time), and the ratio of two medians pairs one round's loop with
         * another's prices. */
        double q = median(qs, nr);
        bool within = fabs(q - 1) <= 0.15, match = counts_match(&mc, &vc);
        bool model_within = fabs(median(mqs, nr) - 1) <= 0.20;
        t->loops++;
        t->within += within;
        t->matched += match;
        t->model_within += match && model_within;
        fprintf(csv,
                "%s,%ld,%s,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.3f,%s,%.3f,%.3f,%.3f,%.3f,%.1f,%.1f,%.1f,%.1f,"
                "%.1f,%.1f,%.1f,%.1f,%.1f,%s,%s,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,"
                "%.1f,%.0f,%.1f,%.0f,%.0f,%.1f,%.1f\n",
                tc_ep_shape_names[pt->shape], pt->len, tc_ep_test_names[tests[i]], vm_us[i], vp[i].total_us,
                model_us[i], vp[i].copy_us, vp[i].gc_us, vp[i].fault_us, vp[i].mmap_us, vp[i].fixed_us,
                vm_us[i] - vp[i].total_us, q, within ? "yes" : "no", lo, hi, vm_ratio, model_ratio,
                median(wall, nr), median(traced, nr), median(tgc, nr), median(exec, nr), mp[i].copy_us, mp[i].gc_us,
                mp[i].fault_us, mp[i].mmap_us, mp[i].fixed_us, match ? "yes" : "no", model_within ? "yes" : "no",
                vc.minor, vc.major, vc.dirty, vc.gc_copied, vc.gc_moved, vc.faults, vc.carriers, mc.minor, mc.major,
                mc.dirty, mc.gc_copied + mc.gc_frag, mc.gc_moved, mc.faults, mc.carriers, vp[i].sleep_us, vc.sleeps,
                median(dirty, nr), vc.dirty_carriers, mc.dirty_carriers, median(los, nr), median(his, nr));
        printf("%-8s %6ld %-10s vm %10.1f priced %10.1f (%.2f, rounds %.2f-%.2f) model %10.1f | copy %9.1f gc %8.1f "
               "fault %8.1f mmap %6.1f sleep %8.1f fixed %7.1f other %9.1f\n",
               tc_ep_shape_names[pt->shape], pt->len, tc_ep_test_names[tests[i]], vm_us[i], vp[i].total_us, q, lo, hi,
               model_us[i], vp[i].copy_us, vp[i].gc_us, vp[i].fault_us, vp[i].mmap_us, vp[i].sleep_us, vp[i].fixed_us,
               vm_us[i] - vp[i].total_us);
    }
    printf("%-8s %6ld ratio      vm %.3f (CPU time) model priced %.3f\n", tc_ep_shape_names[pt->shape], pt->len,
           vm_ratio, model_ratio);
    (void)fflush(stdout);
}

/* A probe option's value: a number from lo to hi, else false. */
static bool probe_arg(const tc_bench_cli *cli, int x, double lo, double hi, double *v)
{
    char *end;
    *v = strtod(cli->extra[x].value, &end);
    return !*end && end != cli->extra[x].value && *v >= lo && *v <= hi;
}

int main(int argc, char **argv)
{
    tc_bench_cli cli;
    int rc = tc_bench_cli_parse(&cli, &spec, argc, argv);
    if (rc != TC_BENCH_CLI_RUN)
        return tc_bench_exit_status("account", rc);
    if (cli.extra[X_FAULT_PROBE].given || cli.extra[X_CARRIER_PROBE].given) {
        double v, fault, carrier;
        bool faults = cli.extra[X_FAULT_PROBE].given;
        if (faults && !probe_arg(&cli, X_FAULT_PROBE, 0, 1e12, &v))
            return tc_bench_cli_bad(&cli, "--fault-probe", "a count of faults", cli.extra[X_FAULT_PROBE].value);
        if (!faults && !probe_arg(&cli, X_CARRIER_PROBE, 1, (double)(1u << 30), &v))
            return tc_bench_cli_bad(&cli, "--carrier-probe", "a size in bytes, 1 to 1 GiB",
                                    cli.extra[X_CARRIER_PROBE].value);
        if (!tc_account_probe(tc_account_probe_region(faults ? v : 0), &fault) ||
            (!faults && !tc_account_probe_carrier((size_t)v, fault, &carrier))) {
            fprintf(stderr, "account: %s: mmap failed\n", faults ? "--fault-probe" : "--carrier-probe");
            return 1;
        }
        printf("%.1f\n", faults ? fault : carrier);
        return 0;
    }
    static point points[MAX_POINTS];
    int np = 1;
    points[0] = (point){cli.shape >= 0 ? (tc_ep_shape)cli.shape : TC_EP_INTS, cli.len ? cli.len : 1000};
    if (cli.extra[X_POINTS].given && !parse_points(cli.extra[X_POINTS].value, points, &np))
        return tc_bench_cli_bad(&cli, "--points", "SHAPE:L words, L from 10 to 30000", cli.extra[X_POINTS].value);
    long n = cli.iterations ? cli.iterations : cli.quick ? 200 : 1000;
    int nr = (int)(cli.repeats ? cli.repeats : cli.quick ? 1 : 3);
    if (cli.neras != 1 || strcmp(cli.eras[0], "otp25") != 0)
        return tc_bench_cli_bad(&cli, "--era", "otp25 (the account's VM is OTP 25)", cli.eras[0]);
    tc_ep_config base;
    TC_CHECK(tc_ep_cli_config(&cli, 0, 1000, n, &base) == TC_OK);
    char erl[4096] = "erl";
    (void)tc_vm_which("erl", erl, sizeof erl);
    tc_vm *vm = tc_vm_start_account("account", NULL, NULL);
    if (!vm)
        return 2;
    rc = 0;
    FILE *csv = tc_bench_cli_open_csv(&cli, "--csv", cli.csv, &rc);
    FILE *pcsv = rc ? NULL : tc_bench_cli_open_csv(&cli, "--prices", cli.extra[X_PRICES].value, &rc);
    if (rc) {
        tc_vm_stop(vm);
        return rc;
    }
    static round_data data[MAX_POINTS][MAX_ROUNDS];
    bool ok = true;
    for (int r = 0; r < nr && ok; r++)
        for (int p = 0; p < np && ok; p++) {
            tc_progress_line("account: round %d of %d, %s L = %ld", r + 1, nr, tc_ep_shape_names[points[p].shape],
                              points[p].len);
            ok = measure(vm, &base, &points[p], n, &data[p][r]);
        }
    tc_progress_end();
    tc_vm_stop(vm);
    if (!ok)
        return 1;
    const char *zflags = getenv("ERL_ZFLAGS"); /* account.sh --schedulers 1 */
    const char *meta_vm = "erl " TC_VM_ACCOUNT_FLAGS " with experiments/beam/account.erl and the cpuclock NIF";
    /* what the clock reads cost inside a timed run, over every point and round: the
     * calibrations' runs are net of it (account.erl clock/2) */
    double clk[2][MAX_POINTS * MAX_ROUNDS];
    int nclk = 0;
    for (int p = 0; p < np; p++)
        for (int r = 0; r < nr; r++, nclk++)
            for (int c = 0; c < 2; c++)
                clk[c][nclk] = data[p][r].clock_ns[c];
    char clock_cost[256];
    (void)snprintf(clock_cost, sizeof clock_cost,
                   "%.0f ns (thread clock), %.0f ns (process clock) of CPU time per timed run, medians over "
                   "the points and rounds, taken out of every calibration run",
                   median(clk[0], nclk), median(clk[1], nclk));
    double load[3] = {0};
    if (getloadavg(load, 3) != 3)
        load[0] = load[1] = load[2] = 0;
    if (csv) {
        tc_bench_meta_standard(csv);
        tc_bench_meta(csv, "experiment", "account%s (the time account of the eptest loops)", cli.quick ? " --quick" : "");
        tc_bench_meta(csv, "vm", "%s", meta_vm);
        tc_bench_meta(csv, "erl", "%s (the first on PATH: the VM measured and priced)", erl);
        if (zflags && *zflags)
            tc_bench_meta(csv, "erl_zflags", "%s (ERL_ZFLAGS: after the session's flags, so its +S wins)", zflags);
        tc_ep_meta_config(csv, &base);
        tc_bench_meta(csv, "iterations", "%ld per pass; %d round%s (model, VM loops, calibrations, probe each)", n,
                      nr, nr == 1 ? "" : "s");
        tc_bench_meta(csv, "testers", "each round, a traced tester (the counts per GC, the calibrations' context) "
                                      "and %d untraced ones, the first before the calibrations and one after each "
                                      "loop's; vm_us is the median tester's CPU time (experiments/beam/account.erl)",
                      data[0][0].testers);
        tc_bench_meta(csv, "clock", "vm_us, every price and every phase: CPU time of the VM's OS process (all its "
                                    "threads), so the machine's other load does not enter; vm_wall_us: timer:tc");
        tc_bench_meta(csv, "clock_cost", "%s", clock_cost);
        tc_bench_meta(csv, "medians", "times, counts and prices are medians over the rounds, priced once; "
                                      "priced_over_vm: the median over the rounds of each round's own vm_priced_us / "
                                      "vm_us (its loop at its prices), round_min and round_max their extremes; "
                                      "model_within_20 the same of the model's counts at each round's prices");
        tc_bench_meta(csv, "ratio", "point_vm_ratio: ets_lookup / median(proc1..3) of vm_us; point_model_ratio: the "
                                    "same of model_priced_us");
        tc_bench_meta(csv, "loadavg", "%.2f %.2f %.2f (at the end of the run: the machine is shared)", load[0],
                      load[1], load[2]);
        fputs("shape,payload_len,loop,vm_us,vm_priced_us,model_priced_us,copy_us,gc_us,fault_us,mmap_us,fixed_us,"
              "other_us,priced_over_vm,within_15,round_min,round_max,point_vm_ratio,point_model_ratio,vm_wall_us,"
              "vm_traced_us,vm_traced_gc_us,model_exec_us,model_copy_us,model_gc_us,model_fault_us,model_mmap_us,"
              "model_fixed_us,counts_match,model_within_20,vm_minor,vm_major,vm_dirty,vm_gc_copied,vm_gc_moved,"
              "vm_faults,vm_carriers,model_minor,model_major,model_dirty,model_gc_copied,model_gc_moved,"
              "model_faults,model_carriers,sleep_us,vm_sleeps,vm_dirty_cpu_us,vm_dirty_carriers,model_dirty_carriers,"
              "vm_testers_lo_us,vm_testers_hi_us\n",
              csv);
    }
    if (pcsv) {
        tc_bench_meta_standard(pcsv);
        tc_bench_meta(pcsv, "experiment", "account%s: the unit prices per point and loop", cli.quick ? " --quick" : "");
        tc_bench_meta(pcsv, "vm", "%s", meta_vm);
        tc_bench_meta(pcsv, "erl", "%s (the first on PATH: the VM priced)", erl);
        if (zflags && *zflags)
            tc_bench_meta(pcsv, "erl_zflags", "%s (ERL_ZFLAGS: after the session's flags, so its +S wins)", zflags);
        tc_bench_meta(pcsv, "units", "ns of CPU time: fixed per operation, word per word of Data, gc_minor and "
                                     "gc_major per GC, gc_word and gc_move_word per word, gc_dirty per dirty GC, "
                                     "fault per page (its unmap included), carrier and carrier_dirty per carrier "
                                     "mapped, first written and unmapped in the VM's process on a scheduler and on "
                                     "a dirty CPU scheduler (its fault out), sleep per scheduler sleep and wake-up");
        tc_bench_meta(pcsv, "clock_cost", "%s", clock_cost);
        char pts[MAX_POINTS * 24] = "";
        for (int p = 0; p < np; p++)
            (void)snprintf(pts + strlen(pts), sizeof pts - strlen(pts), "%s%s:%ld", p ? " " : "",
                           tc_ep_shape_names[points[p].shape], points[p].len);
        tc_bench_meta(pcsv, "points", "%s", pts);
        tc_bench_meta(pcsv, "iterations", "%ld per pass; %d round%s (prices are medians over the rounds)", n, nr,
                      nr == 1 ? "" : "s");
        tc_bench_meta(pcsv, "loadavg", "%.2f %.2f %.2f (at the end of the run: the machine is shared)", load[0],
                      load[1], load[2]);
        fputs(TC_ACCOUNT_PRICES_HEADER "\n", pcsv);
    }
    tally t = {0};
    for (int p = 0; p < np; p++) {
        FILE *out = csv ? csv : fopen("/dev/null", "w");
        if (!out)
            return 2;
        write_point(out, &points[p], data[p], nr, &t);
        if (!csv)
            (void)fclose(out);
        if (pcsv)
            write_prices(pcsv, &points[p], data[p], nr);
    }
    printf("account: vm_priced_us within 15%% of vm_us at %d of %d loops; where the counts match (%d), "
           "model_priced_us within 20%% at %d; loadavg %.2f\n",
           t.within, t.loops, t.matched, t.model_within, load[0]);
    if (!tc_bench_cli_close_csv(&cli, csv, cli.csv) || !tc_bench_cli_close_csv(&cli, pcsv, cli.extra[X_PRICES].value))
        return 2;
    return tc_bench_exit_status("account", EXIT_SUCCESS);
}
