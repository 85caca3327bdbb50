/*
 * tracediff — sets a GC-by-GC trace of the lookup loop from the real VM
 * (experiments/beam/gctrace.erl --rows) beside the model's (experiments/gctrace): the same
 * columns, one row per GC. The rows are aligned by operation index (the lookup each GC
 * happened in) and the first GC where the two differ is printed: its op, the first field
 * that differs (a GC present on one side only is the field "gc"), both values, the other
 * fields that differ in the same GC, and the few GCs before it on both sides; then, past that,
 * the first divergence of the heap trajectory alone (heap and old-heap block sizes, fragment
 * words: what the issue asks to be identical), since a few words of difference in heap_size
 * may leave every collection and every heap block the same. Then a summary
 * of the loop from the rows and the `# loop_*` metadata: GCs (minor, major), GC words (as
 * eptest.erl counts them from the trace: a minor writes heap_size_e plus the old heap's
 * growth, a major heap_size_e + old_heap_size_e), carriers mapped, cache hits, eheap's
 * segment requests and minor faults, model / VM.
 * Whole lives (gctrace --tester, gctrace.erl --tester: proc and phase columns): the same per
 * process, tester then server, the rows aligned by phase (spawn, each pass, the gap after it)
 * and op; the summary adds each process's GCs per phase and the passes' `# pass_*` counters.
 *
 * Exit status: 0 when every GC is identical, 1 when they differ (a result, not an error),
 * 2 after one line on stderr for bad input (an unreadable file, a missing column, a row that
 * is not numbers, traces of different loops).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const tc_bench_cli_extra extras[] = {
    {"vm", "FILE", "the VM's trace (gctrace.erl --rows)", {0}},
    {"model", "FILE", "the model's trace (gctrace --csv)", {0}},
    {"context", "N", NULL, {"GCs shown before the first divergence, per side", 0, 1000, "3"}},
};

static const tc_bench_cli_spec spec = {
    .prog = "tracediff",
    .about = "Compares two GC-by-GC traces of the lookup loop, the VM's (experiments/beam/gctrace.erl\n"
             "--rows) and the model's (gctrace --csv): the first GC where they differ, aligned by\n"
             "operation index, and a summary. Exit 0: identical; 1: they differ; 2: bad input.",
    .extras = extras,
    .nextras = 3,
};

enum { NFIELDS = 14, MAX_META = 512 };
static const char *const field_names[NFIELDS] = {
    "heap_size_s", "heap_block_size_s", "old_heap_size_s", "old_heap_block_size_s", "mbuf_size_s",
    "stack_size_s", "recent_size_s", "heap_size_e", "heap_block_size_e", "old_heap_size_e",
    "old_heap_block_size_e", "mbuf_size_e", "stack_size_e", "recent_size_e"};
enum { F_HEAP_E = 7, F_OLD_S = 2, F_OLD_E = 9 };

/* The phases of eptest's tester in the order it lives them (gctrace --tester's rows): spawn,
 * then each pass and the gap after it. */
static const char *const tests[] = {"proc1", "proc2", "proc3", "ets_insert", "ets_overwrite", "ets_lookup",
                                    "empty", "pt_get"};
enum { NTESTS = sizeof tests / sizeof tests[0], NPHASES = 1 + 2 * NTESTS, NPROCS = 2 };
static const char *const procs[NPROCS] = {"tester", "server"};

typedef struct gc {
    long long seq, op;
    bool major;
    int proc, phase; /* whole-life traces: indexes into procs and the phases; 0 otherwise */
    long long f[NFIELDS];
} gc;

typedef struct trace {
    const char *path;
    bool life; /* rows of gctrace --tester (proc and phase columns) */
    gc *gcs;
    size_t n;
    char *meta_key[MAX_META], *meta_val[MAX_META];
    int nmeta;
} trace;

static int bad_input(const char *path, const char *fmt, const char *arg)
{
    fprintf(stderr, "tracediff: %s: ", path);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    return 2;
}

/* Splits line at commas in place (no quoting: these CSVs have none); returns the count. */
static int split(char *line, char **cols, int max)
{
    int n = 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *s = line;; s++) {
        if (n < max)
            cols[n] = s;
        n++;
        s = strchr(s, ',');
        if (!s)
            break;
        *s = '\0';
    }
    return n;
}

static bool number(const char *s, long long *out)
{
    char *end;
    errno = 0;
    *out = strtoll(s, &end, 10);
    return errno == 0 && end != s && *end == '\0';
}

/* A phase's index (0 spawn, then 2k+1 the pass k, 2k+2 the gap after it), or -1. */
static int phase_index(const char *name)
{
    if (strcmp(name, "spawn") == 0)
        return 0;
    bool after = strncmp(name, "after_", 6) == 0;
    for (int k = 0; k < NTESTS; k++)
        if (strcmp(after ? name + 6 : name, tests[k]) == 0)
            return 1 + 2 * k + after;
    return -1;
}

static const char *phase_name(int phase, char *buf, size_t n)
{
    if (phase == 0)
        return "spawn";
    (void)snprintf(buf, n, "%s%s", phase % 2 ? "" : "after_", tests[(phase - 1) / 2]); /* short names */
    return buf;
}

/* Reads a trace; 0, or 2 after the one-line message. */
static int read_trace(const char *path, trace *t)
{
    t->path = path;
    FILE *f = fopen(path, "r");
    if (!f)
        return bad_input(path, "%s", strerror(errno));
    char line[4096], *cols[64];
    int idx[NFIELDS + 3], ncols = 0, rc = 0, proc_col = -1, phase_col = -1;
    bool header = false;
    size_t cap = 0, lineno = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        bool whole = strchr(line, '\n') || feof(f);
        if (!whole && line[0] == '#') {
            /* a metadata line longer than the buffer (gctrace's list of draws): none this
             * reads, so skip the rest of it */
            int c;
            while ((c = getc(f)) != EOF && c != '\n')
                ;
            continue;
        }
        if (!whole) {
            char where[64];
            (void)snprintf(where, sizeof where, "%zu", lineno);
            rc = bad_input(path, "line %s is longer than 4095 bytes", where);
            break;
        }
        if (line[0] == '#') {
            char *colon = strstr(line, ": ");
            /* the loop's counters, and a whole life's per-pass counters (pass_TEST_KEY) */
            bool loop = strncmp(line, "# loop_", 7) == 0, pass = strncmp(line, "# pass_", 7) == 0;
            if (colon && t->nmeta < MAX_META && (loop || pass)) {
                *colon = '\0';
                colon[2 + strcspn(colon + 2, "\r\n")] = '\0';
                t->meta_key[t->nmeta] = strdup(line + (loop ? 7 : 2));
                t->meta_val[t->nmeta] = strdup(colon + 2);
                if (!t->meta_key[t->nmeta] || !t->meta_val[t->nmeta])
                    rc = bad_input(path, "%s", "out of memory");
                t->nmeta++;
            }
            continue;
        }
        int n = split(line, cols, 64);
        if (!header) {
            static const char *const fixed[3] = {"seq", "op", "kind"};
            for (int k = 0; k < NFIELDS + 3 && rc == 0; k++) {
                const char *want = k < 3 ? fixed[k] : field_names[k - 3];
                idx[k] = -1;
                for (int c = 0; c < n && c < 64; c++)
                    if (strcmp(cols[c], want) == 0)
                        idx[k] = c;
                if (idx[k] < 0)
                    rc = bad_input(path, "no column '%s'", want);
            }
            for (int c = 0; c < n && c < 64; c++) {
                if (strcmp(cols[c], "proc") == 0)
                    proc_col = c;
                if (strcmp(cols[c], "phase") == 0)
                    phase_col = c;
            }
            t->life = proc_col >= 0 && phase_col >= 0;
            ncols = n;
            header = true;
            continue;
        }
        if (n != ncols) {
            char what[64];
            (void)snprintf(what, sizeof what, "%zu", lineno); /* a line number fits */
            rc = bad_input(path, "line %s: not as many fields as the header", what);
            break;
        }
        if (t->n == cap) {
            cap = cap ? 2 * cap : 256;
            gc *g = realloc(t->gcs, cap * sizeof *g);
            if (!g) {
                rc = bad_input(path, "%s", "out of memory");
                break;
            }
            t->gcs = g;
        }
        gc *g = &t->gcs[t->n];
        const char *kind = cols[idx[2]];
        g->major = strcmp(kind, "major") == 0;
        bool ok = number(cols[idx[0]], &g->seq) && number(cols[idx[1]], &g->op) &&
                  (g->major || strcmp(kind, "minor") == 0);
        for (int k = 0; k < NFIELDS && ok; k++)
            ok = number(cols[idx[k + 3]], &g->f[k]);
        g->proc = g->phase = 0;
        if (ok && t->life) {
            g->proc = strcmp(cols[proc_col], "server") == 0 ? 1 : strcmp(cols[proc_col], "tester") == 0 ? 0 : -1;
            g->phase = phase_index(cols[phase_col]);
            if (g->proc < 0 || g->phase < 0) {
                char what[64];
                (void)snprintf(what, sizeof what, "%zu", lineno); /* a line number fits */
                rc = bad_input(path, "line %s: unknown proc or phase", what);
                break;
            }
        }
        if (!ok) {
            char what[64];
            (void)snprintf(what, sizeof what, "%zu", lineno); /* a line number fits */
            rc = bad_input(path, "line %s: a field is not a number (or kind not minor/major)", what);
            break;
        }
        t->n++;
    }
    if (rc == 0 && ferror(f))
        rc = bad_input(path, "%s", strerror(errno));
    if (rc == 0 && !header)
        rc = bad_input(path, "%s", "no header row");
    (void)fclose(f); /* read only: its errors showed in ferror above */
    return rc;
}

static void free_trace(trace *t)
{
    free(t->gcs);
    for (int i = 0; i < t->nmeta; i++) {
        free(t->meta_key[i]);
        free(t->meta_val[i]);
    }
}

static const char *meta(const trace *t, const char *key)
{
    for (int i = 0; i < t->nmeta; i++)
        if (strcmp(t->meta_key[i], key) == 0)
            return t->meta_val[i];
    return "n/a";
}

static void print_gc(const char *side, const gc *g, bool life)
{
    char ph[40];
    if (life)
        printf("  %-5s %s GC %lld %s op %lld %s:", side, procs[g->proc], g->seq, phase_name(g->phase, ph, sizeof ph),
               g->op, g->major ? "major" : "minor");
    else
        printf("  %-5s GC %lld op %lld %s:", side, g->seq, g->op, g->major ? "major" : "minor");
    for (int k = 0; k < NFIELDS; k++)
        printf("%s%lld", k == 0 ? " " : k == 7 ? " -> " : ",", g->f[k]);
    putchar('\n');
}

/* The words a GC wrote, as eptest.erl's --trace counts them from the trace. */
static long long gc_words(const gc *g)
{
    return g->major ? g->f[F_HEAP_E] + g->f[F_OLD_E] : g->f[F_HEAP_E] + (g->f[F_OLD_E] - g->f[F_OLD_S]);
}

static void summary(const trace *m, const trace *v)
{
    long long words[2] = {0, 0}, minor[2] = {0, 0};
    const trace *t[2] = {m, v};
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < t[s]->n; i++) {
            words[s] += gc_words(&t[s]->gcs[i]);
            minor[s] += !t[s]->gcs[i].major;
        }
    printf("summary (L %s, %s lookups), model / VM:\n", meta(v, "len"), meta(v, "lookups"));
    printf("  GCs %zu / %zu (minor %lld / %lld, major %lld / %lld); GC words %lld / %lld\n", m->n, v->n, minor[0],
           minor[1], (long long)m->n - minor[0], (long long)v->n - minor[1], words[0], words[1]);
    printf("  carriers mapped %s / %s; cache hits %s / %s; eheap segment requests %s / %s; minor faults %s / %s\n",
           meta(m, "carriers_mapped"), meta(v, "carriers_mapped"), meta(m, "cache_hits"), meta(v, "cache_hits"),
           meta(m, "eheap_mseg_alloc"), meta(v, "eheap_mseg_alloc"), meta(m, "minor_faults"),
           meta(v, "minor_faults"));
    /* Each side's allocator instances (the VM's process may run on any scheduler's). */
    for (int s = 0; s < 2; s++) {
        printf("  %s instances (eheap mseg alloc/dealloc/realloc, segments mapped, cache hits, cached):",
               s ? "VM" : "model");
        for (unsigned ix = 0; ix < 8; ix++) {
            char k[6][48];
            static const char *const names[6] = {"eheap_mseg_alloc", "eheap_mseg_dealloc", "eheap_mseg_realloc",
                                                 "mseg_create", "cache_hits", "cached_segments"};
            for (int j = 0; j < 6; j++)
                (void)snprintf(k[j], sizeof k[j], "i%u_%s", ix, names[j]); /* at most 22 bytes */
            if (strcmp(meta(t[s], k[0]), "n/a") == 0)
                continue;
            printf(" i%u %s/%s/%s, %s, %s, %s;", ix, meta(t[s], k[0]), meta(t[s], k[1]), meta(t[s], k[2]),
                   meta(t[s], k[3]), meta(t[s], k[4]), meta(t[s], k[5]));
        }
        putchar('\n');
    }
}

/* The trajectory: heap and old-heap block sizes and fragment words, at start and end. */
static const unsigned trajectory_fields = 1u << 1 | 1u << 3 | 1u << 4 | 1u << 8 | 1u << 10 | 1u << 11;
static const unsigned all_fields = (1u << NFIELDS) - 1;

/* Prints the first divergence in the fields of mask (a GC's op and kind always count), with
 * label before it; false when there is none. */
/* A GC's place in its process's life: the phase, then the op within it. */
static long long key(const gc *g) { return (long long)g->phase << 40 | g->op; }

/* The rows of one side, one process's (all of them for a loop trace). */
typedef struct rows {
    const gc *g;
    size_t n;
} rows;

static rows rows_of(const trace *t, int proc)
{
    size_t from = 0;
    while (from < t->n && t->gcs[from].proc != proc)
        from++;
    size_t to = from;
    while (to < t->n && t->gcs[to].proc == proc)
        to++;
    return (rows){t->gcs + from, to - from};
}

static bool first_divergence(rows m, rows v, bool life, int context, unsigned mask, const char *label)
{
    size_t i = 0, j = 0; /* model, VM */
    char ph[40];
    while (i < m.n || j < v.n) {
        const gc *a = i < m.n ? &m.g[i] : NULL, *b = j < v.n ? &v.g[j] : NULL;
        if (a && b && key(a) == key(b)) {
            int first = -1, others = 0;
            char also[1024] = "";
            size_t used = 0;
            bool kind = a->major != b->major;
            for (int k = 0; k < NFIELDS; k++)
                if ((mask >> k & 1) && a->f[k] != b->f[k]) {
                    if (first < 0 && !kind)
                        first = k;
                    else if (used < sizeof also) {
                        used += (size_t)snprintf(also + used, sizeof also - used, "%s %s %lld / %lld",
                                                 others++ ? "," : "", field_names[k], a->f[k], b->f[k]);
                    }
                }
            if (first >= 0 || kind) {
                printf("%sfirst divergence: %s%sop %lld (model GC %lld, VM GC %lld): ", label,
                       life ? phase_name(a->phase, ph, sizeof ph) : "", life ? " " : "", a->op, a->seq, b->seq);
                if (kind)
                    printf("kind: model %s, VM %s\n", a->major ? "major" : "minor", b->major ? "major" : "minor");
                else
                    printf("%s: model %lld, VM %lld\n", field_names[first], a->f[first], b->f[first]);
                if (others)
                    printf("  also differing in this GC (model / VM):%s\n", also);
            } else {
                i++, j++;
                continue;
            }
        } else if (a && (!b || key(a) < key(b))) {
            printf("%sfirst divergence: %s%sop %lld: gc: model GC %lld (%s), VM none (its next GC is ", label,
                   life ? phase_name(a->phase, ph, sizeof ph) : "", life ? " " : "", a->op, a->seq,
                   a->major ? "major" : "minor");
            b ? printf("at %s%sop %lld)\n", life ? phase_name(b->phase, ph, sizeof ph) : "", life ? " " : "", b->op)
              : printf("none)\n");
        } else {
            TC_CHECK(b != NULL); /* the loop runs while either side has a GC left */
            printf("%sfirst divergence: %s%sop %lld: gc: model none (its next GC is ", label,
                   life ? phase_name(b->phase, ph, sizeof ph) : "", life ? " " : "", b->op);
            a ? printf("at %s%sop %lld)", life ? phase_name(a->phase, ph, sizeof ph) : "", life ? " " : "", a->op)
              : printf("none)");
            printf(", VM GC %lld (%s)\n", b->seq, b->major ? "major" : "minor");
        }
        printf("  fields: %s", field_names[0]);
        for (int k = 1; k < NFIELDS; k++)
            printf("%s%s", k == 7 ? " -> " : ",", field_names[k]);
        putchar('\n');
        size_t from_m = i > (size_t)context ? i - (size_t)context : 0;
        size_t from_v = j > (size_t)context ? j - (size_t)context : 0;
        for (size_t k = from_m; k <= i && k < m.n; k++)
            print_gc("model", &m.g[k], life);
        for (size_t k = from_v; k <= j && k < v.n; k++)
            print_gc("VM", &v.g[k], life);
        return true;
    }
    printf("%sidentical: %zu GCs\n", label, m.n);
    return false;
}

/* Whole-life traces: each process's GCs per phase, model / VM, and the passes' counters. */
static void life_summary(const trace *m, const trace *v)
{
    char ph[40];
    for (int proc = 0; proc < NPROCS; proc++) {
        printf("  %s GCs per phase (model / VM):", procs[proc]);
        for (int phase = 0; phase < NPHASES; phase++) {
            size_t c[2] = {0, 0};
            const trace *t[2] = {m, v};
            for (int s = 0; s < 2; s++)
                for (size_t i = 0; i < t[s]->n; i++)
                    c[s] += t[s]->gcs[i].proc == proc && t[s]->gcs[i].phase == phase;
            if (c[0] || c[1])
                printf(" %s %zu / %zu%s", phase_name(phase, ph, sizeof ph), c[0], c[1], c[0] == c[1] ? "" : " *");
        }
        putchar('\n');
    }
    printf("  per pass (GCs of all processes, minor faults, segments mapped; model / VM):");
    for (int k = 0; k < NTESTS; k++) {
        char key[3][48];
        static const char *const what[3] = {"gcs", "faults", "mseg_create"};
        for (int j = 0; j < 3; j++)
            (void)snprintf(key[j], sizeof key[j], "pass_%s_%s", tests[k], what[j]); /* short names */
        printf(" %s %s / %s, %s / %s, %s / %s;", tests[k], meta(m, key[0]), meta(v, key[0]), meta(m, key[1]),
               meta(v, key[1]), meta(m, key[2]), meta(v, key[2]));
    }
    putchar('\n');
}

int main(int argc, char **argv)
{
    tc_bench_cli cli;
    int rc = tc_bench_cli_parse(&cli, &spec, argc, argv);
    if (rc != TC_BENCH_CLI_RUN)
        return tc_bench_exit_status("tracediff", rc);
    if (!cli.extra[0].given || !cli.extra[1].given) {
        fprintf(stderr, "tracediff: both --vm FILE and --model FILE are needed; try 'tracediff --help'\n");
        return 2;
    }
    int context = cli.extra[2].given ? (int)cli.extra[2].number : 3;
    trace vm = {0}, model = {0};
    rc = read_trace(cli.extra[0].value, &vm);
    if (rc == 0)
        rc = read_trace(cli.extra[1].value, &model);
    if (rc == 0) {
        const char *keys[2] = {"len", "lookups"};
        for (int k = 0; k < 2 && rc == 0; k++)
            if (strcmp(meta(&vm, keys[k]), meta(&model, keys[k])) != 0) {
                fprintf(stderr, "tracediff: the traces are of different loops: %s %s (VM) vs %s (model)\n", keys[k],
                        meta(&vm, keys[k]), meta(&model, keys[k]));
                rc = 2;
            }
    }
    if (rc == 0) {
        if (vm.life != model.life) {
            fprintf(stderr, "tracediff: one trace is of the tester's whole life (proc, phase columns), the other not\n");
            rc = 2;
        }
    }
    if (rc == 0) {
        for (int proc = 0; proc < (vm.life ? NPROCS : 1); proc++) {
            rows m = rows_of(&model, proc), v = rows_of(&vm, proc);
            char label[64] = "";
            if (vm.life)
                (void)snprintf(label, sizeof label, "%s: ", procs[proc]);
            bool differ = first_divergence(m, v, vm.life, context, all_fields, label);
            /* Past the first difference in any field, where the heaps themselves part. */
            if (differ) {
                char tl[160];
                (void)snprintf(tl, sizeof tl, "%strajectory (heap and old-heap block sizes, fragment words, GC ops and kinds): ",
                               label);
                first_divergence(m, v, vm.life, context, trajectory_fields, tl);
            }
            rc |= differ;
        }
        summary(&model, &vm);
        if (vm.life)
            life_summary(&model, &vm);
    }
    free_trace(&vm);
    free_trace(&model);
    return tc_bench_exit_status("tracediff", rc);
}
