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

enum { NFIELDS = 14, MAX_META = 96 };
static const char *const field_names[NFIELDS] = {
    "heap_size_s", "heap_block_size_s", "old_heap_size_s", "old_heap_block_size_s", "mbuf_size_s",
    "stack_size_s", "recent_size_s", "heap_size_e", "heap_block_size_e", "old_heap_size_e",
    "old_heap_block_size_e", "mbuf_size_e", "stack_size_e", "recent_size_e"};
enum { F_HEAP_E = 7, F_OLD_S = 2, F_OLD_E = 9 };

typedef struct gc {
    long long seq, op;
    bool major;
    long long f[NFIELDS];
} gc;

typedef struct trace {
    const char *path;
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

/* Reads a trace; 0, or 2 after the one-line message. */
static int read_trace(const char *path, trace *t)
{
    t->path = path;
    FILE *f = fopen(path, "r");
    if (!f)
        return bad_input(path, "%s", strerror(errno));
    char line[4096], *cols[64];
    int idx[NFIELDS + 3], ncols = 0, rc = 0;
    bool header = false;
    size_t cap = 0, lineno = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#') {
            char *colon = strstr(line, ": ");
            if (colon && t->nmeta < MAX_META && strncmp(line, "# loop_", 7) == 0) {
                *colon = '\0';
                colon[2 + strcspn(colon + 2, "\r\n")] = '\0';
                t->meta_key[t->nmeta] = strdup(line + 7);
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

static void print_gc(const char *side, const gc *g)
{
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
static bool first_divergence(const trace *m, const trace *v, int context, unsigned mask, const char *label)
{
    size_t i = 0, j = 0; /* model, VM */
    while (i < m->n || j < v->n) {
        const gc *a = i < m->n ? &m->gcs[i] : NULL, *b = j < v->n ? &v->gcs[j] : NULL;
        if (a && b && a->op == b->op) {
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
                if (kind)
                    printf("%sfirst divergence: op %lld (model GC %lld, VM GC %lld): kind: model %s, VM %s\n", label, a->op,
                           a->seq, b->seq, a->major ? "major" : "minor", b->major ? "major" : "minor");
                else
                    printf("%sfirst divergence: op %lld (model GC %lld, VM GC %lld): %s: model %lld, VM %lld\n", label, a->op,
                           a->seq, b->seq, field_names[first], a->f[first], b->f[first]);
                if (others)
                    printf("  also differing in this GC (model / VM):%s\n", also);
            } else {
                i++, j++;
                continue;
            }
        } else if (a && (!b || a->op < b->op)) {
            printf("%sfirst divergence: op %lld: gc: model GC %lld (%s), VM none (its next GC is ", label, a->op, a->seq,
                   a->major ? "major" : "minor");
            b ? printf("at op %lld)\n", b->op) : printf("none)\n");
        } else {
            TC_CHECK(b != NULL); /* the loop runs while either side has a GC left */
            printf("%sfirst divergence: op %lld: gc: model none (its next GC is ", label, b->op);
            a ? printf("at op %lld)", a->op) : printf("none)");
            printf(", VM GC %lld (%s)\n", b->seq, b->major ? "major" : "minor");
        }
        printf("  fields: %s", field_names[0]);
        for (int k = 1; k < NFIELDS; k++)
            printf("%s%s", k == 7 ? " -> " : ",", field_names[k]);
        putchar('\n');
        size_t from_m = i > (size_t)context ? i - (size_t)context : 0;
        size_t from_v = j > (size_t)context ? j - (size_t)context : 0;
        for (size_t k = from_m; k <= i && k < m->n; k++)
            print_gc("model", &m->gcs[k]);
        for (size_t k = from_v; k <= j && k < v->n; k++)
            print_gc("VM", &v->gcs[k]);
        return true;
    }
    printf("%sidentical: %zu GCs\n", label, m->n);
    return false;
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
        rc = first_divergence(&model, &vm, context, all_fields, "") ? 1 : 0;
        /* Past the first difference in any field, where the heaps themselves part. */
        if (rc)
            first_divergence(&model, &vm, context, trajectory_fields,
                             "trajectory (heap and old-heap block sizes, fragment words, GC ops and kinds): ");
        summary(&model, &vm);
    }
    free_trace(&vm);
    free_trace(&model);
    return tc_bench_exit_status("tracediff", rc);
}
