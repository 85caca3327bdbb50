/*
 * gctrace — the model's twin of experiments/beam/gctrace.erl --rows: the lookup loop of
 * lookuploop.h (a fresh process doing N lookups of {1, lists:seq(1, L)} that drop each
 * result) with one CSV row per GC, in the VM's own words, for experiments/tracediff.
 *
 * Columns: seq, op (the lookup the GC happened in, 1..N: a GC in the BIF's return and a GC
 * at the schedule-in after it both belong to that lookup), kind (minor | major), and at the
 * GC's start (_s) and end (_e) the fields of erts's gc_minor_start/_end trace, mapped:
 *   heap_size           htop - heap (at the start: young use - fragment words)
 *   heap_block_size     heap_sz
 *   old_heap_size       old_htop - old_heap;  old_heap_block_size  old_hend - old_heap
 *   mbuf_size           fragment words (mbuf_sz), followed through the hook's FRAG events
 *   stack_size          the stack's words (a GC delayed after its start ends elsewhere)
 *   recent_size         the young data that survived the last GC: high_water - heap (the
 *                       model's high_water use; erts reports the same quantity)
 * Start values the hook cannot see after the fact come from the state the previous GC left:
 * nothing but a GC touches the old heap or high_water.
 * The '#' metadata ends with the loop's counters as `# loop_KEY: value`, the keys
 * gctrace.erl writes: eheap_mseg_alloc is the carriers the heap allocator asked mseg for
 * (sbc cache hits + every carrier mapped), eheap_mseg_dealloc the sbcs given back,
 * eheap_mseg_realloc the sbc resizes, eheap_carriers the change in live carriers (mbcs and
 * sbcs). Then the same per allocator instance, `i<N>_eheap_mseg_alloc` ..., and for the
 * instance's segment cache `i<N>_mseg_create` (mapped), `i<N>_cache_hits` and
 * `i<N>_cached_segments` (at the end, not a delta). The model's loop stores nothing in a
 * table, so the ets_alloc keys gctrace.erl writes (`i<N>_ets_mseg_alloc` ...) are n/a.
 *
 * --tester [--shape S]: eptest's whole run (workload.h, every pass) instead of the loop, the
 * twin of gctrace.erl --tester --rows: one row per GC of the tester and of the servers, with
 * proc, phase (spawn, PASS, after_PASS: the region each pass's counters cover) and the op
 * from the loops' own counters, and the passes' GCs, faults and carriers as
 * `# pass_TEST_KEY` lines (the model's per-instance counters per pass are not written).
 * --tester --term FILE: Data is the term FILE holds as text (termcopy's reader) instead of a
 * shape's payload, which the tester decodes from its external format (workload.h payload); the
 * twin of gctrace.erl --ext-file FILE --rows (tracediff.sh --term), the way a term a user
 * brings to termcopy explain --vm is run.
 * --tester --draws OUTCOMES: the dirty-GC race's outcomes one by one (heaps/sched.h tc_draw;
 * the era's past the string's end); the metadata lists every draw taken (`# draws:`: the
 * role's initial, the seq of the GC it decided, its outcome), which tracediff.sh
 * --search-draws reads.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/faults.h"
#include "codec/reader.h"
#include "harness.h"
#include "scenarios/lookuploop.h"
#include "scenarios/progress.h"
#include "scenarios/workload.h"
#include "terms/size.h"
#include "workload_cli.h"

enum { X_TESTER, X_FRAMES, X_TERM, X_DRAWS };
static const tc_bench_cli_extra extras[] = {
    {"tester", NULL, "trace eptest's tester and server (the workload of eptest, every pass, spawn to "
                     "exit) instead of the lookup loop: the rows of gctrace.erl --tester --rows",
     {0}},
    {"frames", NULL, "print the tester's compiled code the model follows (module, function, arity, "
                     "instruction, words: tc_ep_frames) and exit; tests/cli_frames.sh checks it "
                     "against erlc -S",
     {0}},
    {"term", "FILE", "with --tester: Data is the term FILE holds as text (as termcopy explain reads it) "
                     "instead of a shape's payload", {0}},
    {"draws", "OUTCOMES", "with --tester: the dirty-GC race's outcomes one by one (heaps/sched.h tc_draw), a "
                          "letter per draw: g the GC first (the process locked until scheduled in), h "
                          "the GC first and over before the next send, s the server first; the draws "
                          "past the string's end take the era's (dirty_gc_first). The metadata lists "
                          "every draw taken", {0}},
};

static const tc_bench_cli_spec spec = {
    .prog = "gctrace",
    .about = "Runs the ets:lookup/2 loop that drops each result (heaptrace's) on a modelled process\n"
             "and writes one CSV row per GC in the columns of experiments/beam/gctrace.erl --rows,\n"
             "for experiments/tracediff.",
    .era = "otp25",
    .len = {"the stored list's length", 1, 10000000, "10000, a 20,005-word result"},
    .iterations = {"lookups", 1, 10000000, "1000, --quick 100"},
    .quick = "100 lookups",
    .csv = "one row per GC",
    .shapes = tc_ep_shape_names,
    .nshapes = TC_EP_SHAPES,
    .shape_dflt = "ints (--tester)",
    .extras = extras,
    .nextras = 4,
};

enum { NFIELDS = 7 };
static const char *const fields[NFIELDS] = {"heap_size", "heap_block_size", "old_heap_size", "old_heap_block_size",
                                            "mbuf_size", "stack_size", "recent_size"};

typedef struct gc_row {
    uint64_t op;
    bool major;
    tc_ep_role role; /* --tester: whose GC, and in which phase */
    tc_ep_where where;
    uint64_t s[NFIELDS], e[NFIELDS];
} gc_row;

/* What one process's trace follows between GCs. */
typedef struct proc_acc {
    uint64_t old_used, old_size, recent; /* as the last GC left them */
} proc_acc;

/* One draw of the dirty-GC race: whose GC (the role's seq-th) and how it went. */
typedef struct draw_row {
    tc_ep_role role;
    size_t seq;
    tc_draw outcome;
} draw_row;

typedef struct trace_acc {
    gc_row *rows;
    size_t n, cap;
    size_t nrole[TC_EP_ROLES]; /* rows per role */
    draw_row *draws;
    size_t ndraws, draws_cap;
    uint64_t op;          /* the lookup running now */
    proc_acc proc[TC_EP_ROLES];
    bool oom;
} trace_acc;

/* Room for one more of n items of `size` bytes in *items (capacity *cap, doubling from
 * `first`); false, with acc->oom set, when there is none. */
static bool room(trace_acc *acc, void **items, size_t n, size_t *cap, size_t first, size_t size)
{
    if (n < *cap)
        return true;
    size_t want = *cap ? 2 * *cap : first;
    void *grown = realloc(*items, want * size);
    if (!grown) {
        acc->oom = true;
        return false;
    }
    *items = grown;
    *cap = want;
    return true;
}

/* One row per GC (a new fragment is not a row: the GC's start reports the fragment words). */
static void add_event(trace_acc *acc, tc_ep_role role, const tc_ep_where *where, const tc_proc *p,
                      const tc_heap_event *ev)
{
    proc_acc *a = &acc->proc[role];
    if (ev->kind == TC_HEAP_EV_FRAG)
        return;
    void *rows = acc->rows;
    bool ok = room(acc, &rows, acc->n, &acc->cap, 256, sizeof *acc->rows);
    acc->rows = rows;
    if (!ok)
        return;
    uint64_t stack = tc_proc_stack_size(p);
    acc->nrole[role]++;
    gc_row *r = &acc->rows[acc->n++];
    *r = (gc_row){.op = where ? (uint64_t)where->op : acc->op, .major = ev->kind == TC_HEAP_EV_MAJOR,
                  .role = role, .where = where ? *where : (tc_ep_where){0},
                  .s = {ev->used_before, ev->heap_before, a->old_used, a->old_size, ev->frag_before,
                        ev->stack_before, a->recent},
                  .e = {ev->used_after, ev->heap_after, tc_proc_old_heap_used(p), tc_proc_old_heap_size(p),
                        tc_proc_frag_size(p), stack, tc_proc_high_water_used(p)}};
    a->old_used = r->e[2];
    a->old_size = r->e[3];
    a->recent = r->e[6];
}

static void on_event(void *ctx, const tc_proc *p, const tc_heap_event *ev) { add_event(ctx, TC_EP_TESTER, NULL, p, ev); }

static void on_tester_event(void *ctx, tc_ep_role role, const tc_ep_where *where, const tc_proc *p,
                            const tc_heap_event *ev)
{
    add_event(ctx, role, where, p, ev);
}

/* A draw decides the role's next GC (now or at its next schedule-in). */
static void on_draw(void *ctx, unsigned index, tc_ep_role role, const tc_ep_where *where, tc_draw outcome)
{
    trace_acc *acc = ctx;
    (void)index;
    (void)where;
    void *draws = acc->draws;
    bool ok = room(acc, &draws, acc->ndraws, &acc->draws_cap, 64, sizeof *acc->draws);
    acc->draws = draws;
    if (!ok)
        return;
    acc->draws[acc->ndraws++] = (draw_row){.role = role, .seq = acc->nrole[role] + 1, .outcome = outcome};
}

/* `# draws_given`, `# draws_taken` (how many, by outcome) and `# draws`: each draw as the
 * role's initial, the seq of the GC it decided and its outcome (t118g: the tester's 118th GC,
 * the GC first), the positions tracediff.sh --search-draws looks up. */
static void meta_draws(FILE *out, const char *given, const trace_acc *acc)
{
    size_t by[3] = {0};
    static const char letters[3] = {TC_DRAW_GC_FIRST, TC_DRAW_GC_OVER, TC_DRAW_SERVER_FIRST};
    for (size_t i = 0; i < acc->ndraws; i++)
        for (int k = 0; k < 3; k++)
            by[k] += acc->draws[i].outcome == (tc_draw)letters[k];
    /* the outcomes given, in runs (h20000: 20000 draws the GC over first) */
    fputs("# draws_given:", out);
    for (const char *c = given; c && *c;) {
        size_t run = strspn(c, (char[]){*c, '\0'});
        fprintf(out, " %c%zu", *c, run);
        c += run;
    }
    fputs(given && *given ? "\n" : " none (the era's)\n", out);
    tc_bench_meta(out, "draws_taken", "%zu (g %zu, h %zu, s %zu)", acc->ndraws, by[0], by[1], by[2]);
    fputs("# draws:", out);
    for (size_t i = 0; i < acc->ndraws; i++)
        fprintf(out, " %c%zu%c", acc->draws[i].role == TC_EP_TESTER ? 't' : 's', acc->draws[i].seq,
                (char)acc->draws[i].outcome);
    fputc('\n', out);
}

/* The carriers the allocator asked mseg for, gave back, resized, and holds. */
static uint64_t mseg_allocs(const tc_mseg_stats *s) { return s->cache_hits + s->carriers_mapped; }
static uint64_t live_carriers(const tc_mseg_stats *s)
{
    return (s->carriers_mapped - s->cache_misses) + (s->sbc_blocks - s->sbc_frees);
}

/* `# PREFIXNAME: value`, or n/a when nothing measures it. */
static void meta_at(FILE *out, const char *prefix, const char *name, bool known, long long v)
{
    char key[64];
    (void)snprintf(key, sizeof key, "%s%s", prefix, name); /* the keys are short and fixed */
    if (!known)
        tc_bench_meta(out, key, "n/a");
    else
        tc_bench_meta(out, key, "%lld", v);
}

static void meta_counts(FILE *out, const char *prefix, const tc_mseg_stats *a, const tc_mseg_stats *b)
{
    meta_at(out, prefix, "eheap_mseg_alloc", true, (long long)(mseg_allocs(b) - mseg_allocs(a)));
    meta_at(out, prefix, "eheap_mseg_dealloc", true, (long long)(b->sbc_frees - a->sbc_frees));
    meta_at(out, prefix, "eheap_mseg_realloc", true, (long long)(b->sbc_resizes - a->sbc_resizes));
    meta_at(out, prefix, "eheap_carriers", true, (long long)live_carriers(b) - (long long)live_carriers(a));
}

static int fail(const char *what, tc_result r)
{
    fprintf(stderr, "gctrace: %s: %s\n", what, tc_result_name(r));
    return EXIT_FAILURE;
}

static void write_header(FILE *out, bool tester)
{
    fputs(tester ? "proc,phase,op,seq,kind" : "seq,op,kind", out);
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < NFIELDS; j++)
            fprintf(out, ",%s_%c", fields[j], k ? 'e' : 's');
    fputc('\n', out);
}

static void write_fields(FILE *out, const gc_row *w)
{
    for (int j = 0; j < NFIELDS; j++)
        fprintf(out, ",%llu", (unsigned long long)w->s[j]);
    for (int j = 0; j < NFIELDS; j++)
        fprintf(out, ",%llu", (unsigned long long)w->e[j]);
    fputc('\n', out);
}

/* The words one operation of an ETS pass allocates, as gctrace.erl infers its op from them:
 * a lookup's result [{I, Data}] (flat size of Data + 5), an insert's {I, Data} (3); 0 for the
 * other passes. */
static uint64_t op_words(int test, uint64_t result_words)
{
    return test == TC_EP_LOOKUP ? result_words : test == TC_EP_INSERT || test == TC_EP_OVERWRITE ? 3 : 0;
}

/* The op gctrace.erl gives a GC of an ETS pass: its loop cannot expose a counter without a
 * call that changes its heap, so it divides the words allocated since the process's previous
 * GC by one operation's, counting from 0 at the pass's mark. The model writes the same
 * inference (its own counter would differ where a pass's first GC also holds what came before
 * the loop, such as the last reply of proc3), so identical heaps compare equal. */
static uint64_t inferred_op(const gc_row *w, const gc_row *prev, uint64_t base, uint64_t per)
{
    int64_t words = (int64_t)w->s[0] - (int64_t)(prev ? prev->e[0] : 0) + (int64_t)w->s[4] -
                    (int64_t)(prev ? prev->e[4] : 0);
    return base + (words > 0 ? (uint64_t)words : 0) / per;
}

/* The term the text file at `path` holds, read into `arena`; false after one line on stderr. */
static bool read_term_file(const char *path, tc_arena *arena, tc_term *out)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "gctrace: --term: cannot open '%s': %s\n", path, strerror(errno));
        return false;
    }
    /* a regular file: its size, then its bytes in one read */
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    bool sized = size >= 0 && fseek(f, 0, SEEK_SET) == 0;
    char *text = sized ? malloc((size_t)size + 1) : NULL;
    if (sized && !text)
        tc_bench_oom("gctrace", "the --term text");
    bool ok = sized && fread(text, 1, (size_t)size, f) == (size_t)size;
    (void)fclose(f);
    tc_read_error err = {0};
    tc_result r = ok ? tc_term_read(tc_arena_alloc(arena), text, (size_t)size, out, &err) : TC_EIO;
    free(text);
    if (!ok)
        fprintf(stderr, "gctrace: --term: cannot read '%s' (a regular file)\n", path);
    else if (r == TC_ENOMEM)
        tc_bench_oom("gctrace", "the --term term");
    else if (r != TC_OK)
        fprintf(stderr, "gctrace: --term: bad term in '%s' at byte %zu: %s\n", path, err.offset, err.message);
    return ok && r == TC_OK;
}

/* --tester: eptest's whole run on the model (workload.h), one row per GC of the tester and
 * of the servers, with the phase and op the workload's loops say. */
static int run_tester(const tc_bench_cli *cli, FILE *out)
{
    tc_ep_config cfg;
    tc_result r = tc_ep_cli_config(cli, 0, 1000, cli->quick ? 100 : 1000, &cfg);
    if (r != TC_OK)
        return fail("era", r);
    const char *term_path = cli->extra[X_TERM].given ? cli->extra[X_TERM].value : NULL;
    uint64_t term_words = 0;
    tc_arena *term_arena = NULL;
    if (term_path) {
        if (!(term_arena = tc_arena_new(0)))
            tc_bench_oom("gctrace", "the --term arena");
        if (!read_term_file(term_path, term_arena, &cfg.payload) ||
            tc_term_flat_size(cfg.payload, &term_words) != TC_OK) {
            tc_arena_free(term_arena);
            return 2;
        }
        cfg.len = (long)term_words; /* not read with a payload; what the rows' metadata shows */
    } else if (cfg.len < TC_EP_MIN_LEN || cfg.len > TC_EP_MAX_LEN) {
        return tc_bench_cli_bad(cli, "--len", "a length from 10 to 30000 with --tester", "");
    }
    const char *draws = cli->extra[X_DRAWS].given ? cli->extra[X_DRAWS].value : NULL;
    for (const char *c = draws; c && *c; c++)
        if (!tc_sched_draw_valid(*c))
            return tc_bench_cli_bad(cli, "--draws", "letters g, h and s (one per draw)", draws);
    trace_acc acc = {0};
    cfg.draws = draws;
    cfg.draw = on_draw;
    cfg.trace = on_tester_event;
    cfg.trace_ctx = &acc;
    cfg.trace_receive = true; /* gctrace.erl --tester traces 'receive' events too */
    tc_ep_counts c[TC_EP_TESTS];
    r = tc_ep_run(&cfg, c);
    int status = EXIT_SUCCESS;
    if (r != TC_OK)
        status = fail("eptest's run", r);
    else if (acc.oom)
        status = fail("rows", TC_ENOMEM);
    size_t n[TC_EP_ROLES] = {0};
    for (size_t i = 0; i < acc.n; i++)
        n[acc.rows[i].role]++;
    if (status == EXIT_SUCCESS)
        printf("gctrace --tester: era %s, %s L %ld, N %ld: %zu GCs of the tester, %zu of the servers\n",
               cfg.policy.name, term_path ? "term of flat size" : tc_ep_shape_names[cfg.shape], cfg.len,
               cfg.iterations, n[TC_EP_TESTER], n[TC_EP_SERVER]);
    if (out && status == EXIT_SUCCESS) {
        tc_bench_meta_standard(out);
        tc_ep_meta_config(out, &cfg);
        tc_bench_meta(out, "experiment", "gctrace --tester (eptest's tester and servers on the model)");
        tc_bench_meta(out, "loop_len", "%ld", cfg.len);
        tc_bench_meta(out, "loop_lookups", "%ld", cfg.iterations);
        tc_bench_meta(out, "loop_shape", "%s", term_path ? "term" : tc_ep_shape_names[cfg.shape]);
        if (term_path)
            tc_bench_meta(out, "loop_term", "%s (flat size %llu words)", term_path, (unsigned long long)term_words);
        tc_bench_meta(out, "op", "from the loops' own counters (a call: replies received + 1; the server: "
                               "requests received; a loop: its iteration)");
        meta_draws(out, draws, &acc);
        for (int k = 0; k < TC_EP_TESTS; k++) {
            char key[64];
            (void)snprintf(key, sizeof key, "pass_%s_gcs", tc_ep_test_names[k]); /* the names are short */
            tc_bench_meta(out, key, "%llu", (unsigned long long)c[k].gcs);
            (void)snprintf(key, sizeof key, "pass_%s_faults", tc_ep_test_names[k]);
            tc_bench_meta(out, key, "%ld", c[k].faults);
            (void)snprintf(key, sizeof key, "pass_%s_mseg_create", tc_ep_test_names[k]);
            tc_bench_meta(out, key, "%llu", (unsigned long long)c[k].carriers_mapped);
        }
        write_header(out, true);
        uint64_t result_words = term_path ? term_words + 5 : 0;
        tc_arena *ar = term_path ? NULL : tc_arena_new(0);
        tc_term data;
        if (ar && tc_ep_build_payload(tc_arena_alloc(ar), cfg.shape, cfg.len, &data) == TC_OK &&
            tc_term_flat_size(data, &result_words) == TC_OK)
            result_words += 5;
        tc_arena_free(ar);
        static const char *const roles[TC_EP_ROLES] = {"tester", "server"};
        for (int role = 0; role < TC_EP_ROLES; role++) {
            size_t seq = 0;
            const gc_row *prev = NULL;
            uint64_t prev_op = 0;
            for (size_t i = 0; i < acc.n; i++) {
                gc_row *w = &acc.rows[i];
                if ((int)w->role != role)
                    continue;
                uint64_t per = w->where.after || w->where.test < 0 ? 0 : op_words(w->where.test, result_words);
                if (per && result_words) {
                    bool same = prev && prev->where.test == w->where.test && prev->where.after == w->where.after;
                    w->op = inferred_op(w, prev, same ? prev_op : 0, per);
                }
                prev = w;
                prev_op = w->op;
                char phase[40];
                if (w->where.test < 0)
                    (void)snprintf(phase, sizeof phase, "spawn");
                else
                    (void)snprintf(phase, sizeof phase, "%s%s", w->where.after ? "after_" : "",
                                   tc_ep_test_names[w->where.test]); /* at most 19 bytes */
                fprintf(out, "%s,%s,%llu,%zu,%s", roles[role], phase, (unsigned long long)w->op, ++seq,
                        w->major ? "major" : "minor");
                write_fields(out, w);
            }
        }
    }
    free(acc.rows);
    free(acc.draws);
    tc_arena_free(term_arena);
    return status;
}

int main(int argc, char **argv)
{
    tc_bench_cli cli;
    int rc = tc_bench_cli_parse(&cli, &spec, argc, argv);
    if (rc != TC_BENCH_CLI_RUN)
        return tc_bench_exit_status("gctrace", rc);
    rc = 0;
    tc_policy pol;
    if (tc_policy_preset(cli.eras[0], &pol) != TC_OK)
        return fail("era", TC_EBADARG);
    tc_bench_cli_policy(&cli, &pol);
    size_t length = cli.len ? (size_t)cli.len : 10000;
    size_t lookups = cli.iterations ? (size_t)cli.iterations : cli.quick ? 100 : 1000;
    FILE *out = tc_bench_cli_open_csv(&cli, "--csv", cli.csv, &rc);
    if (rc)
        return rc;
    if (cli.extra[X_FRAMES].given) {
        for (int k = 0; k < TC_EP_FRAMES; k++)
            printf("%s %s %d %s %u\n", tc_ep_frames[k].module, tc_ep_frames[k].function, tc_ep_frames[k].arity,
                   tc_ep_frames[k].instr, tc_ep_frames[k].words);
        return 0;
    }
    if (cli.extra[X_TESTER].given) {
        int status = run_tester(&cli, out);
        if (out && !tc_bench_cli_close_csv(&cli, out, cli.csv) && status == EXIT_SUCCESS)
            status = 2;
        return tc_bench_exit_status("gctrace", status);
    }
    if (cli.extra[X_DRAWS].given)
        return tc_bench_cli_bad(&cli, "--draws", "--tester beside it (the lookup loop runs alone: no race)", cli.extra[X_DRAWS].value);
    if (cli.extra[X_TERM].given)
        return tc_bench_cli_bad(&cli, "--term", "--tester beside it (the lookup loop stores lists:seq)", cli.extra[X_TERM].value);
    if (cli.shape >= 0 && cli.shape != TC_EP_INTS)
        return tc_bench_cli_bad(&cli, "--shape", "ints (the lookup loop stores lists:seq) or --tester", tc_ep_shape_names[cli.shape]);

    tc_lookup_loop loop;
    const char *what;
    tc_result r = tc_lookup_loop_new(&pol, length, &loop, &what);
    if (r != TC_OK) {
        tc_bench_cli_close_csv(&cli, out, cli.csv);
        return fail(what, r);
    }
    trace_acc acc = {0};
    tc_proc_set_trace(loop.p, on_event, &acc);
    const tc_mseg_stats *ms = tc_mseg_stats_get(loop.mem);
    tc_mseg_stats m0 = *ms, i0[TC_MSEG_MAX_INSTANCES];
    unsigned ninst = tc_mseg_instances(loop.mem);
    for (unsigned k = 0; k < ninst; k++)
        i0[k] = *tc_mseg_instance_stats(loop.mem, k);
    tc_faults f;
    tc_faults_begin(&f);
    for (size_t i = 0; i < lookups && r == TC_OK && !acc.oom; i++) {
        acc.op = i + 1;
        r = tc_lookup_loop_step(&loop, &what);
        tc_progress_line("lookup %zu/%zu", i + 1, lookups);
    }
    uint64_t faults = tc_faults_end(&f);
    tc_progress_end();
    int status = EXIT_SUCCESS;
    if (r != TC_OK)
        status = fail(what, r);
    else if (acc.oom)
        status = fail("rows", TC_ENOMEM);
    else if (!tc_lookup_loop_verify(&loop, &what)) {
        fprintf(stderr, "gctrace: the process fails the verifier: %s\n", what);
        status = EXIT_FAILURE;
    }
    size_t minor = 0;
    for (size_t i = 0; i < acc.n; i++)
        minor += !acc.rows[i].major;
    if (status == EXIT_SUCCESS)
        printf("gctrace: era %s, L %zu, %zu lookups, result %zu words: %zu GCs (%zu minor, %zu major), "
               "%llu carriers mapped, %llu cache hits, %llu minor faults\n",
               pol.name, length, lookups, loop.result_words, acc.n, minor, acc.n - minor,
               (unsigned long long)(ms->carriers_mapped - m0.carriers_mapped),
               (unsigned long long)(ms->cache_hits - m0.cache_hits), (unsigned long long)faults);
    if (out && status == EXIT_SUCCESS) {
        tc_bench_meta_standard(out);
        tc_bench_meta_policy(out, &pol);
        tc_bench_meta(out, "experiment", "gctrace (the lookup loop's GCs on the model)");
        tc_bench_meta(out, "loop_gcs", "%zu", acc.n);
        tc_bench_meta(out, "loop_minor", "%zu", minor);
        tc_bench_meta(out, "loop_major", "%zu", acc.n - minor);
        tc_bench_meta(out, "loop_len", "%zu", length);
        tc_bench_meta(out, "loop_lookups", "%zu", lookups);
        tc_bench_meta(out, "loop_carriers_mapped", "%llu", (unsigned long long)(ms->carriers_mapped - m0.carriers_mapped));
        tc_bench_meta(out, "loop_cache_hits", "%llu", (unsigned long long)(ms->cache_hits - m0.cache_hits));
        meta_counts(out, "loop_", &m0, ms);
        for (unsigned k = 0; k < ninst; k++) {
            const tc_mseg_stats *is = tc_mseg_instance_stats(loop.mem, k);
            char prefix[32];
            (void)snprintf(prefix, sizeof prefix, "loop_i%u_", k); /* at most 21 bytes */
            meta_counts(out, prefix, &i0[k], is);
            static const char *const ets_keys[] = {"ets_mseg_alloc", "ets_mseg_dealloc", "ets_mseg_realloc",
                                                   "ets_carriers"};
            for (int e = 0; e < 4; e++)
                meta_at(out, prefix, ets_keys[e], false, 0);
            meta_at(out, prefix, "mseg_create", true, (long long)(is->carriers_mapped - i0[k].carriers_mapped));
            meta_at(out, prefix, "cache_hits", true, (long long)(is->cache_hits - i0[k].cache_hits));
            meta_at(out, prefix, "cached_segments", true, (long long)tc_mseg_instance_cached(loop.mem, k));
        }
        tc_bench_meta(out, "loop_minor_faults", "%llu", (unsigned long long)faults);
        tc_bench_meta(out, "loop_result_words", "%zu", loop.result_words);
        tc_bench_meta(out, "loop_unattributed", "0");
        write_header(out, false);
        for (size_t i = 0; i < acc.n; i++) {
            const gc_row *w = &acc.rows[i];
            fprintf(out, "%zu,%llu,%s", i + 1, (unsigned long long)w->op, w->major ? "major" : "minor");
            write_fields(out, w);
        }
    }
    if (out && !tc_bench_cli_close_csv(&cli, out, cli.csv) && status == EXIT_SUCCESS)
        status = 2;
    free(acc.rows);
    tc_lookup_loop_free(&loop);
    return tc_bench_exit_status("gctrace", status);
}
