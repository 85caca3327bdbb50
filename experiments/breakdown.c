/*
 * breakdown — where each eptest test spends its time, attributed twice (DESIGN rule 6):
 *
 * By counters: the work every pass counted (words sized, words copied, words the GC
 * copied, minor faults, carriers mapped, I/O polls, process switches) times what one unit
 * of that work costs on this machine, measured here in the same run on the same payload
 * (a size pass, a copy_struct, a copy_shallow, a GC moving the payload, a ping-pong of
 * switches, poll(2), and the harness's fault and mmap calibration). What the units do not
 * explain is "loop".
 * By the profiler: SIGPROF samples of the same passes, each given to the phase of the
 * leaf-most function of a phase table (experiments/profiler.h). Runs alternate: the even
 * ones are timed for the counters, the odd ones profiled, because each sample costs tens of
 * microseconds here (a timer interrupt and a signal in a virtual machine, then the stack
 * walk) and would otherwise swell the timed passes and so the counters' "loop". Kernel time
 * (faults, mmap) lands in the user function that entered the kernel, so the profiler shows it
 * inside copy or GC where the counters show it as its own phase: the cross-check says so.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/mseg.h"
#include "copy/compact.h"
#include "copy/copy_shallow_fast.h"
#include "copy/copy_struct.h"
#include "heaps/send.h"
#include "harness.h"
#include "heaps/gc.h"
#include "heaps/sched.h"
#include "profiler.h"
#include "scenarios/progress.h"
#include "terms/arena.h"
#include "terms/binary.h"
#include "terms/size.h"
#include "scenarios/vmoverhead.h"
#include "scenarios/workload.h"
#include "workload_cli.h"

/* Samples per second: a pass of a few milliseconds still gets tens of samples per run (the
 * cost of a sample is why profiled runs are not the timed ones). */
#define TC_BREAKDOWN_HZ 5000

/* vm_overhead is not in the model's time: it is the VM's fixed per-operation cost the model
 * does not execute (vmoverhead.h), added to the pass with --vm-overhead, else 0. */
enum { PH_SIZE, PH_COPY, PH_GC, PH_FAULT, PH_ALLOC, PH_POLL, PH_SWITCH, PH_LOOP, PH_VMOH, PHASES };
static const char *const phase_names[PHASES] = {"size",    "copy",   "gc_copy", "page_fault", "heap_alloc",
                                                "io_poll", "switch", "loop",    "vm_overhead"};

/* Leaf-most match decides, each function named by its address (profiler.h): static ones by
 * the public functions they are reached through. The size walk is what the public size
 * functions tail-call; copy_shallow is called by the compact form's out functions alone; the
 * collector is entered at the safe points (their own tests, a few instructions, count with
 * it); sys_schedule is inlined into tc_sched_run, and its cost is the poll. The workload's
 * step functions (tc_ep_step_fns) are "loop", appended at run time, so that the scheduler's
 * own frames below them count as switching only when no step is running. */
static const tc_prof_phase_map phase_table[] = {
    {TC_PROF_FN(tc_term_flat_size), "size"},
    {TC_PROF_FN(tc_term_flat_size_litopt), "size"},
    {TC_PROF_FN(tc_copy_struct_fill), "copy"},
    {TC_PROF_FN(tc_copy_compact_out), "copy"},
    {TC_PROF_FN(tc_copy_compact_out_list), "copy"},
    {TC_PROF_FN(tc_copy_shallow_fast_out), "copy"},
    {TC_PROF_FN(tc_copy_shallow_fast_out_list), "copy"},
    {TC_PROF_FN(tc_copy_compact_out_via), "copy"}, /* what the proposal's copy-outs tail-call */
    {TC_PROF_FN(tc_mseg_alloc_block), "heap_alloc"},
    {TC_PROF_FN(tc_mseg_free_block), "heap_alloc"},
    {TC_PROF_FN(tc_mseg_realloc_block), "heap_alloc"},
    {TC_PROF_FN(tc_gc_collect), "gc_copy"},
    {TC_PROF_FN(tc_proc_test_heap_maybe_gc), "gc_copy"},
    {TC_PROF_FN(tc_proc_push_maybe_gc), "gc_copy"},
    {TC_PROF_FN(tc_proc_bif_return_maybe_gc), "gc_copy"},
    {TC_PROF_FN(tc_proc_schedule_in_maybe_gc), "gc_copy"},
    {TC_PROF_FN(poll), "io_poll"},
    {TC_PROF_FN(tc_proc_receive), "switch"},
    {TC_PROF_FN(tc_proc_queue_message), "switch"},
    {TC_PROF_FN(tc_sched_wake), "switch"},
    {TC_PROF_FN(tc_sched_run), "switch"},
};
#define NTABLE (sizeof phase_table / sizeof *phase_table)

/* What one unit of each kind of work costs here, in ns. */
typedef struct unit_costs {
    double size_word, copy_word, shallow_word, gc_word, fault, carrier, poll, switch_;
} unit_costs;

/* A tc_alloc over one reusable buffer: each repeat of a copy starts from its beginning. */
typedef struct buffer_alloc {
    tc_alloc iface;
    tc_offheap oh;
    tc_term *words;
    size_t cap, top;
} buffer_alloc;

static tc_term *buffer_take(tc_alloc *self, size_t n)
{
    buffer_alloc *b = (buffer_alloc *)self;
    if (b->cap - b->top < n)
        return NULL;
    tc_term *p = b->words + b->top;
    b->top += n;
    return p;
}

static double median_of(double *v, size_t n) { return tc_timing_summarize(v, n).median; }

enum { UNIT_REPEATS = 15 };

/* ns per word of a size pass, a copy_struct and a copy-out of the payload (copy_shallow, or
 * the proposal copy_shallow_fast when the lookup uses it). */
static tc_result measure_copy_units(tc_term data, uint64_t words, tc_copy_out kind, unit_costs *u)
{
    buffer_alloc b = {.iface = {buffer_take, NULL, NULL}, .cap = words + 2};
    b.iface.offheap = &b.oh;
    b.words = tc_mem_alloc(b.cap * sizeof *b.words);
    tc_copy_compact *stored = NULL;
    tc_result r = b.words ? tc_copy_compact_in(data, &stored, NULL) : TC_ENOMEM;
    double size_ns[UNIT_REPEATS], copy_ns[UNIT_REPEATS], shallow_ns[UNIT_REPEATS];
    for (int k = 0; r == TC_OK && k < UNIT_REPEATS; k++) {
        uint64_t w, t0 = tc_timing_now_ns();
        r = tc_term_flat_size(data, &w);
        uint64_t t1 = tc_timing_now_ns();
        tc_copy_struct_fill(data, b.words, words, &b.oh, NULL);
        uint64_t t2 = tc_timing_now_ns();
        tc_offheap_release_until(&b.oh, NULL);
        tc_term out;
        b.top = 0;
        if (r == TC_OK)
            r = kind == TC_COPY_OUT_SHALLOW_FAST ? tc_copy_shallow_fast_out(&b.iface, stored, &out, NULL)
                                                 : tc_copy_compact_out(&b.iface, stored, &out, NULL);
        uint64_t t3 = tc_timing_now_ns();
        tc_offheap_release_until(&b.oh, NULL);
        size_ns[k] = (double)(t1 - t0);
        copy_ns[k] = (double)(t2 - t1);
        shallow_ns[k] = (double)(t3 - t2);
    }
    if (r == TC_OK && words > 0) {
        double overhead = tc_timing_overhead_ns();
        u->size_word = (median_of(size_ns, UNIT_REPEATS) - overhead) / (double)words;
        u->copy_word = (median_of(copy_ns, UNIT_REPEATS) - overhead) / (double)words;
        u->shallow_word = (median_of(shallow_ns, UNIT_REPEATS) - overhead) / (double)words;
    }
    tc_copy_compact_free(stored);
    tc_mem_free(b.words);
    return r;
}

/* ns per word the GC moves: a fresh process holding the payload in x0 is collected once
 * (a first GC has no old heap, so it moves every live word). Its new heap is fresh memory
 * when above sbct, so the unit includes first-touch faults of the to-space there. */
static tc_result measure_gc_unit(const tc_policy *pol, tc_term data, unit_costs *u)
{
    tc_mseg *mem = tc_mseg_new(&pol->mem);
    uint64_t words = 0;
    tc_result r = mem ? tc_term_flat_size(data, &words) : TC_ENOMEM;
    double ns[UNIT_REPEATS];
    for (int k = 0; r == TC_OK && k < UNIT_REPEATS; k++) {
        tc_proc *p;
        if ((r = tc_proc_new(mem, pol, &p)) != TC_OK)
            break;
        r = tc_proc_test_heap_maybe_gc(p, words);
        if (r == TC_OK)
            r = tc_proc_copy_in(p, data, words, &tc_proc_x(p)[0]);
        if (r == TC_OK) {
            tc_proc_set_arity(p, 1);
            uint64_t before = tc_proc_stats_get(p)->words_copied, t0 = tc_timing_now_ns();
            r = tc_gc_collect(p, 0, tc_proc_x(p), tc_proc_arity(p));
            uint64_t t1 = tc_timing_now_ns(), moved = tc_proc_stats_get(p)->words_copied - before;
            ns[k] = moved ? ((double)(t1 - t0) - tc_timing_overhead_ns()) / (double)moved : 0;
        }
        tc_proc_free(p);
    }
    if (r == TC_OK)
        u->gc_word = median_of(ns, UNIT_REPEATS);
    tc_mseg_free(mem);
    return r;
}

/* A process switch with its message: two tasks bouncing an immediate. */
typedef struct bounce {
    tc_task *peer;
    long left;
} bounce;

static tc_step bounce_step(tc_task *t)
{
    bounce *b = t->state;
    tc_term m;
    if (b->left < 0 && !tc_sched_receive(t, &m))
        return TC_STEP_WAIT;
    if (b->left < 0)
        b->left = -b->left - 1;
    if (b->left == 0)
        return TC_STEP_DONE;
    if (tc_send(t->proc, b->peer->proc, tc_make_small(1), false, NULL) != TC_OK) {
        t->error = TC_ENOMEM;
        return TC_STEP_ERROR;
    }
    tc_sched_wake(b->peer);
    b->left = -b->left; /* now wait for the answer */
    return TC_STEP_CONTINUE;
}

static tc_result measure_switch_unit(const tc_policy *pol, unit_costs *u)
{
    enum { BOUNCES = 20000 };
    tc_mseg *mem = tc_mseg_new(&pol->mem);
    tc_proc *a = NULL, *b = NULL;
    tc_result r = mem ? tc_proc_new(mem, pol, &a) : TC_ENOMEM;
    if (r == TC_OK)
        r = tc_proc_new(mem, pol, &b);
    if (r == TC_OK) {
        tc_sched s;
        tc_task ta, tb;
        bounce ba = {&tb, BOUNCES}, bb = {&ta, -(BOUNCES + 1)};
        tc_sched_init(&s);
        tc_sched_spawn(&s, &ta, a, bounce_step, &ba);
        tc_sched_spawn(&s, &tb, b, bounce_step, &bb);
        uint64_t t0 = tc_timing_now_ns();
        r = tc_sched_run(&s);
        uint64_t t1 = tc_timing_now_ns();
        if (r == TC_OK && s.stats.switches)
            u->switch_ = (double)(t1 - t0) / (double)s.stats.switches;
    }
    if (a)
        tc_proc_free(a);
    if (b)
        tc_proc_free(b);
    tc_mseg_free(mem);
    return r;
}

static void measure_poll_unit(unit_costs *u)
{
    double ns[UNIT_REPEATS];
    for (int k = 0; k < UNIT_REPEATS; k++) {
        uint64_t t0 = tc_timing_now_ns();
        (void)poll(NULL, 0, 0);
        ns[k] = (double)(tc_timing_now_ns() - t0) - tc_timing_overhead_ns();
    }
    u->poll = median_of(ns, UNIT_REPEATS);
}

static tc_result measure_units(const tc_ep_config *cfg, unit_costs *u)
{
    tc_arena *arena = tc_arena_new(0);
    tc_term data;
    uint64_t words = 0;
    tc_result r = arena ? tc_ep_build_payload(tc_arena_alloc(arena), cfg->shape, cfg->len, &data) : TC_ENOMEM;
    if (r == TC_OK)
        r = tc_term_flat_size(data, &words);
    if (r == TC_OK)
        r = measure_copy_units(data, words, cfg->policy.copy_out, u);
    if (r == TC_OK)
        r = measure_gc_unit(&cfg->policy, data, u);
    if (r == TC_OK)
        r = measure_switch_unit(&cfg->policy, u);
    measure_poll_unit(u);
    const tc_bench_calibration *cal = tc_bench_calibrate();
    u->fault = cal->measured ? cal->fault_ns.median : 0;
    u->carrier = cal->measured ? cal->mmap_munmap_ns.median : 0;
    tc_arena_free(arena);
    return r;
}

/* Counter-based phase times of one pass. */
static void counter_phases(int test, const tc_ep_counts *c, const unit_costs *u, const tc_vmoh *oh, long iterations,
                           double out[PHASES])
{
    double copy_unit = test == TC_EP_LOOKUP ? u->shallow_word : u->copy_word;
    out[PH_SIZE] = (double)c->words_sized * u->size_word;
    out[PH_COPY] = (double)c->words_copied * copy_unit;
    out[PH_GC] = (double)c->gc_words * u->gc_word;
    out[PH_FAULT] = (double)c->faults * u->fault;
    out[PH_ALLOC] = (double)c->carriers_mapped * u->carrier;
    out[PH_POLL] = (double)c->io_polls * u->poll;
    out[PH_SWITCH] = (double)c->switches * u->switch_;
    double sum = 0;
    for (int k = 0; k < PH_LOOP; k++)
        sum += out[k];
    double total = c->us * 1000.0;
    out[PH_LOOP] = total > sum ? total - sum : 0;
    out[PH_VMOH] = tc_vmoh_pass_us(oh, test, iterations) * 1000.0;
}

/* The profiler of the test that is running: one per test, started and stopped by the hook
 * in the runs that are profiled. */
typedef struct profilers {
    tc_prof *p[TC_EP_TESTS];
    bool on;
    tc_result error;
} profilers;

/* With one run it is both timed and profiled; otherwise even runs are timed, odd profiled. */
static bool run_profiled(long k, long runs) { return runs == 1 || k % 2 == 1; }
static bool run_timed(long k, long runs) { return runs == 1 || k % 2 == 0; }

static void pass_hook(void *ctx, int test, bool begin)
{
    profilers *ps = ctx;
    if (ps->error != TC_OK || !ps->on)
        return;
    if (begin)
        ps->error = tc_prof_start(ps->p[test]);
    else
        tc_prof_stop(ps->p[test]);
}

enum { X_VM_OVERHEAD, NEXTRAS };
static const tc_bench_cli_extra extras[NEXTRAS] = {
    [X_VM_OVERHEAD] = {"vm-overhead", NULL,
                       "measure on the installed VM (erl on PATH) the fixed per-operation cost the model does "
                       "not execute, per era, and add it to every test as the phase vm_overhead (vmoverhead.h)",
                       {0}},
};

static const tc_bench_cli_spec spec = {
    .prog = "breakdown",
    .about = "Splits each eptest test's time into phases (size, copy, gc_copy, page_fault,\n"
             "heap_alloc, io_poll, switch, loop) twice: by its work counters times unit costs\n"
             "measured in the same run, and by a sampling profiler over the same passes; with\n"
             "--vm-overhead also the VM's fixed cost the model does not execute (vm_overhead).",
    .era = "all",
    .era_all = true,
    .len = {"payload length", TC_EP_MIN_LEN, TC_EP_MAX_LEN, "1000 for r10b, 10000 for otp25"},
    .iterations = {"calls per pass", 1, 100000000, "1000"},
    .repeats = {"workload runs, alternately timed (counters) and profiled", 1, 64, "10, --quick 2"},
    .shape_dflt = "ints",
    .quick = "2 runs",
    .csv = "one row per era, test and phase: "
           "era,test,phase,counter_ns,counter_share,profiler_samples,profiler_share",
    TC_EP_CLI_SWITCHES,
    .extras = extras,
    .nextras = NEXTRAS,
};

int main(int argc, char **argv)
{
    tc_bench_cli cli;
    int rc = tc_bench_cli_parse(&cli, &spec, argc, argv);
    if (rc != TC_BENCH_CLI_RUN)
        return tc_bench_exit_status("breakdown", rc);
    rc = 0;
    long runs = cli.repeats ? cli.repeats : cli.quick ? 2 : 10;
    const char *csv_path = cli.csv;
    tc_vm *vm = cli.extra[X_VM_OVERHEAD].given ? tc_vm_start("breakdown", NULL) : NULL;
    if (cli.extra[X_VM_OVERHEAD].given && !vm)
        return 2;
    FILE *csv = tc_bench_cli_open_csv(&cli, "--csv", csv_path, &rc);
    if (rc) {
        tc_vm_stop(vm);
        return rc;
    }
    if (csv) {
        tc_bench_meta_standard(csv);
        tc_bench_meta(csv, "experiment", "breakdown (eptest phases by counters x unit costs, and by SIGPROF samples)");
        tc_bench_meta(csv, "runs",
                      "%ld workload runs, alternately timed and profiled (%d Hz); counter times are from the counts of "
                      "the timed run with the median time",
                      runs, TC_BREAKDOWN_HZ);
        tc_bench_meta(csv, "note", "each era's configuration ('# era', '# era_set', '# workload', "
                                   "'# payload_len_ERA') and unit costs ('# unit_costs') follow as lines among the rows");
        fprintf(csv, "era,test,phase,counter_ns,counter_share,profiler_samples,profiler_share\n");
    }
    /* The library's functions, then the workload's steps, which only workload.c can name. */
    tc_prof_phase_map table[NTABLE + TC_EP_STEP_FNS];
    memcpy(table, phase_table, sizeof phase_table);
    for (int k = 0; k < TC_EP_STEP_FNS; k++)
        table[NTABLE + k] = (tc_prof_phase_map){tc_ep_step_fns[k], "loop"};
    int status = 0;
    for (int e = 0; e < cli.neras && status == 0; e++) {
        const char *era = cli.eras[e];
        tc_ep_config cfg;
        tc_result r = tc_ep_cli_config(&cli, e, tc_ep_gap_len(era), 1000, &cfg);
        if (r != TC_OK) {
            fprintf(stderr, "breakdown: %s: %s\n", era, tc_result_name(r));
            tc_vm_stop(vm);
            return 1;
        }
        tc_vmoh oh = {0};
        if (vm && !tc_vmoh_measure_with("breakdown", vm, &cfg.policy, &oh)) {
            tc_vm_stop(vm);
            return 2;
        }
        if (csv) {
            char key[64];
            tc_ep_meta_config(csv, &cfg);
            (void)snprintf(key, sizeof key, "payload_len_%s", era);
            tc_bench_meta(csv, key, "%ld", cfg.len);
            tc_vmoh_meta(csv, &oh, "not measured: add --vm-overhead (needs erl) to charge it; its rows are 0");
        }
        tc_vmoh_print(stdout, &oh, "not measured: add --vm-overhead (needs erl) to charge it");
        unit_costs u = {0};
        tc_progress_line("breakdown %s: unit costs", era);
        r = measure_units(&cfg, &u);
        profilers ps = {{NULL}, false, TC_OK};
        for (int t = 0; r == TC_OK && t < TC_EP_TESTS; t++)
            r = tc_prof_new(TC_BREAKDOWN_HZ, 16384, &ps.p[t]);
        cfg.pass_hook = pass_hook;
        cfg.pass_ctx = &ps;
        tc_ep_counts *counts = calloc((size_t)runs * TC_EP_TESTS, sizeof *counts);
        if (!counts)
            r = TC_ENOMEM;
        for (long k = 0; r == TC_OK && k < runs; k++) {
            tc_progress_line("breakdown %s: run %ld of %ld (%s)", era, k + 1, runs,
                              run_profiled(k, runs) ? "profiled" : "timed");
            ps.on = run_profiled(k, runs);
            r = tc_ep_run(&cfg, &counts[k * TC_EP_TESTS]);
            if (r == TC_OK)
                r = ps.error;
        }
        tc_progress_end();
        if (r != TC_OK) {
            fprintf(stderr, "breakdown: %s failed: %s\n", era, tc_result_name(r));
            status = 1;
        }
        if (status == 0) {
            printf("%s, L=%ld, N=%ld: unit costs size %.2f, copy %.2f, shallow %.2f, gc %.2f ns/word; fault %.0f ns, "
                   "carrier %.0f ns, poll %.0f ns, switch %.0f ns\n",
                   era, cfg.len, cfg.iterations, u.size_word, u.copy_word, u.shallow_word, u.gc_word, u.fault,
                   u.carrier, u.poll, u.switch_);
            if (csv)
                tc_bench_meta(csv, "unit_costs",
                              "%s: size %.3f copy %.3f shallow %.3f gc %.3f ns/word, fault %.0f, carrier %.0f, "
                              "poll %.0f, switch %.0f ns",
                              era, u.size_word, u.copy_word, u.shallow_word, u.gc_word, u.fault, u.carrier, u.poll,
                              u.switch_);
        }
        for (int t = 0; status == 0 && t < TC_EP_TESTS; t++) {
            /* The timed run closest to the median time of this test gives its counts. */
            double times[64];
            size_t ntimed = 0;
            for (long k = 0; k < runs; k++)
                if (run_timed(k, runs))
                    times[ntimed++] = counts[k * TC_EP_TESTS + t].us;
            double med = median_of(times, ntimed);
            long pick = -1;
            double off = 0;
            for (long k = 0; k < runs; k++) {
                double d = counts[k * TC_EP_TESTS + t].us - med;
                d = d < 0 ? -d : d;
                if (run_timed(k, runs) && (pick < 0 || d < off)) {
                    pick = k;
                    off = d;
                }
            }
            double ph[PHASES];
            counter_phases(t, &counts[pick * TC_EP_TESTS + t], &u, &oh, cfg.iterations, ph);
            tc_prof_report rep;
            if (tc_prof_report_phases(ps.p[t], table, NTABLE + TC_EP_STEP_FNS, &rep) != TC_OK) {
                fprintf(stderr, "breakdown: attributing the samples of %s failed\n", tc_ep_test_names[t]);
                status = 1;
                break;
            }
            printf("\n%s %s: %.0f us, %llu profiler samples\n", era, tc_ep_test_names[t], med,
                   (unsigned long long)rep.samples);
            tc_prof_counter_phase cp[PHASES];
            for (int k = 0; k < PHASES; k++)
                cp[k] = (tc_prof_counter_phase){phase_names[k], ph[k]};
            tc_prof_crosscheck(stdout, false, &rep, cp, PHASES);
            if (csv) {
                double total = 0;
                for (int k = 0; k < PHASES; k++)
                    total += ph[k];
                for (int k = 0; k < PHASES; k++) {
                    uint64_t samples = 0;
                    for (size_t i = 0; i < rep.nphases; i++)
                        if (strcmp(rep.phase[i].phase, phase_names[k]) == 0)
                            samples = rep.phase[i].samples;
                    fprintf(csv, "%s,%s,%s,%.0f,%.4f,%llu,%.4f\n", era, tc_ep_test_names[t], phase_names[k], ph[k], total > 0 ? ph[k] / total : 0,
                            (unsigned long long)samples, rep.samples ? (double)samples / (double)rep.samples : 0);
                }
            }
        }
        free(counts);
        for (int t = 0; t < TC_EP_TESTS; t++)
            tc_prof_free(ps.p[t]);
    }
    tc_vm_stop(vm);
    if (!tc_bench_cli_close_csv(&cli, csv, csv_path))
        return 2;
    return tc_bench_exit_status("breakdown", status);
}
