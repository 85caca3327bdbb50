/*
 * codecpeer — the external format in C's own library beside termcopy's: erl_interface's ei
 * (Debian's erlang-dev: ei.h, libei.a), the library C programs and C nodes use for this
 * format, on the payloads `copysweep --codec` times termcopy's encoder and decoder on
 * (experiments/codec_payload.h: the shapes, sizes, batches and rounds), per byte:
 *
 *   ei_encode  the payload's C values (longs, doubles, strings, bytes) written with
 *              ei_x_new_with_version and the ei_x_encode_* call of each (list, tuple and map
 *              headers, longs, doubles, strings, a binary) into ei's growing buffer
 *   ei_decode  the encoding read back into those C values with ei_decode_* (what a C program
 *              that knows the shape does)
 *   ei_skip    ei_skip_term over the whole encoding: every tag read, nothing kept
 *
 * ei builds no terms: its decoder fills the caller's arrays and its encoder reads them, while
 * termcopy's decoder builds the term word for word as binary_to_term/1 lays it out on a
 * heap, and its encoder walks that layout. Before timing, ei's encoding of the values its
 * decoder read must be termcopy's encoding byte for byte (else exit 1): both write what
 * term_to_binary/1 writes.
 *
 * ei_skip_term recurses once per nesting level (erl_interface's decode_skip.c): the nested
 * shape at 1 Mi words, 349,525 tuples deep, needs more than 16 MiB of C stack and overflows
 * a default 8 MiB main thread. The sweep runs on a thread with a 256 MiB stack (mapped, and
 * touched only as deep as ei goes).
 *
 * Built only where libei is (CMake finds it); the report pipeline and the tests skip it
 * where the binary is absent.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <ei.h>

#include "codec_payload.h"
#include "scenarios/progress.h"

static const tc_bench_cli_spec spec = {
    .prog = "codecpeer",
    .about = "Times erl_interface's ei on the external format of the payloads copysweep --codec\n"
             "times termcopy on: ei_x_encode_* from C values, ei_decode_* into C values,\n"
             "ei_skip_term, in ns per byte.",
    .quick = "the 1 Ki and 32 Ki word sizes and 10 batches (well under a second)",
    .csv = "one row per operation, shape and size: "
           "codec,shape,payload_len,flat_words,ext_bytes,ns_per_byte,iqr,min_ns_per_byte "
           "(codec: ei_encode, ei_decode, ei_skip)",
};

static void fail(const char *what, const tc_codec_payload *p)
{
    fprintf(stderr, "codecpeer: %s (%s, L = %ld)\n", what, tc_codec_shape_name(p->shape), p->len);
    exit(tc_bench_exit_status("codecpeer", EXIT_FAILURE));
}

/* The payload as C holds it: one array per kind of value, in the order of the encoding. */
typedef struct cvalues {
    long *longs;      /* integers: elements, keys and values, the nested tuples' first elements */
    double *doubles;  /* floats */
    char *chars;      /* the strings, each followed by its NUL (ei_decode_string's form) */
    int *lens;        /* each string's length */
    long count;       /* elements at the top: list or tuple length, map size, binary bytes */
    long nlongs, ndoubles, nstrings;
    size_t nchars;
} cvalues;

typedef struct peer {
    const tc_codec_payload *p;
    cvalues v;
    ei_x_buff *out; /* one batch's encodings, freed untimed */
} peer;

/* ---- decoding into C values, one reader a shape ------------------------------------------ */

static bool dec_list_end(const char *b, int *i)
{
    int n;
    return ei_decode_list_header(b, i, &n) == 0 && n == 0;
}

static bool decode_values(const tc_codec_payload *p, cvalues *v)
{
    const char *b = (const char *)p->ext;
    int i = 0, version, n;
    v->nlongs = v->ndoubles = v->nstrings = 0;
    v->nchars = 0;
    if (ei_decode_version(b, &i, &version) != 0)
        return false;
    switch (p->shape) {
    case TC_EP_INTS:
    case TC_EP_FLOATS:
    case TC_EP_STRINGS:
        if (ei_decode_list_header(b, &i, &n) != 0)
            return false;
        v->count = n;
        for (int k = 0; k < n; k++) {
            bool ok;
            if (p->shape == TC_EP_INTS) {
                ok = ei_decode_long(b, &i, &v->longs[v->nlongs++]) == 0;
            } else if (p->shape == TC_EP_FLOATS) {
                ok = ei_decode_double(b, &i, &v->doubles[v->ndoubles++]) == 0;
            } else {
                char *s = v->chars + v->nchars;
                ok = ei_decode_string(b, &i, s) == 0;
                size_t len = strlen(s);
                v->lens[v->nstrings++] = (int)len;
                v->nchars += len + 1;
            }
            if (!ok)
                return false;
        }
        return dec_list_end(b, &i);
    case TC_EP_TUPLE:
        if (ei_decode_tuple_header(b, &i, &n) != 0)
            return false;
        v->count = n;
        for (int k = 0; k < n; k++)
            if (ei_decode_long(b, &i, &v->longs[v->nlongs++]) != 0)
                return false;
        return true;
    case TC_EP_NESTED: /* {1, {2, ... {L, []}}} */
        v->count = 0;
        for (;;) {
            int type, size;
            if (ei_get_type(b, &i, &type, &size) != 0)
                return false;
            if (type != ERL_SMALL_TUPLE_EXT)
                return dec_list_end(b, &i);
            if (ei_decode_tuple_header(b, &i, &n) != 0 || n != 2 || ei_decode_long(b, &i, &v->longs[v->nlongs++]) != 0)
                return false;
            v->count++;
        }
    case TC_EP_BINARY: {
        long len;
        if (ei_decode_binary(b, &i, v->chars, &len) != 0)
            return false;
        v->count = len;
        return true;
    }
    case TC_EP_MAP:
        if (ei_decode_map_header(b, &i, &n) != 0)
            return false;
        v->count = n;
        for (int k = 0; k < 2 * n; k++)
            if (ei_decode_long(b, &i, &v->longs[v->nlongs++]) != 0)
                return false;
        return true;
    case TC_CODEC_FLATMAP:
        if (ei_decode_list_header(b, &i, &n) != 0)
            return false;
        v->count = n;
        for (int k = 0; k < n; k++) {
            int m;
            if (ei_decode_map_header(b, &i, &m) != 0 || m != 16)
                return false;
            for (int j = 0; j < 32; j++)
                if (ei_decode_long(b, &i, &v->longs[v->nlongs++]) != 0)
                    return false;
        }
        return dec_list_end(b, &i);
    default:
        return false;
    }
}

/* ---- encoding from C values --------------------------------------------------------------- */

static bool encode_values(const tc_codec_payload *p, const cvalues *v, ei_x_buff *x)
{
    if (ei_x_new_with_version(x) != 0)
        return false;
    int bad = 0;
    long k = 0;
    switch (p->shape) {
    case TC_EP_INTS:
        bad |= ei_x_encode_list_header(x, v->count);
        for (; k < v->count; k++)
            bad |= ei_x_encode_long(x, v->longs[k]);
        bad |= ei_x_encode_empty_list(x);
        break;
    case TC_EP_FLOATS:
        bad |= ei_x_encode_list_header(x, v->count);
        for (; k < v->count; k++)
            bad |= ei_x_encode_double(x, v->doubles[k]);
        bad |= ei_x_encode_empty_list(x);
        break;
    case TC_EP_STRINGS: {
        const char *s = v->chars;
        bad |= ei_x_encode_list_header(x, v->count);
        for (; k < v->count; k++) {
            bad |= ei_x_encode_string_len(x, s, v->lens[k]);
            s += v->lens[k] + 1;
        }
        bad |= ei_x_encode_empty_list(x);
        break;
    }
    case TC_EP_TUPLE:
        bad |= ei_x_encode_tuple_header(x, v->count);
        for (; k < v->count; k++)
            bad |= ei_x_encode_long(x, v->longs[k]);
        break;
    case TC_EP_NESTED:
        for (; k < v->count; k++) {
            bad |= ei_x_encode_tuple_header(x, 2);
            bad |= ei_x_encode_long(x, v->longs[k]);
        }
        bad |= ei_x_encode_empty_list(x);
        break;
    case TC_EP_BINARY:
        bad |= ei_x_encode_binary(x, v->chars, (int)v->count);
        break;
    case TC_EP_MAP:
        bad |= ei_x_encode_map_header(x, v->count);
        for (; k < 2 * v->count; k++)
            bad |= ei_x_encode_long(x, v->longs[k]);
        break;
    default: /* TC_CODEC_FLATMAP */
        bad |= ei_x_encode_list_header(x, v->count);
        for (long m = 0; m < v->count; m++) {
            bad |= ei_x_encode_map_header(x, 16);
            for (int j = 0; j < 32; j++, k++)
                bad |= ei_x_encode_long(x, v->longs[k]);
        }
        bad |= ei_x_encode_empty_list(x);
        break;
    }
    return bad == 0;
}

/* ---- the batches -------------------------------------------------------------------------- */

enum { EI_ENCODE, EI_DECODE, EI_SKIP, NOPS };
static const char *const op_names[NOPS] = {"ei_encode", "ei_decode", "ei_skip"};

static void run(void *ctx, int op)
{
    peer *s = ctx;
    const tc_codec_payload *p = s->p;
    for (size_t i = 0; i < p->batch; i++) {
        bool ok;
        if (op == EI_ENCODE) {
            ok = encode_values(p, &s->v, &s->out[i]);
        } else if (op == EI_DECODE) {
            ok = decode_values(p, &s->v);
        } else {
            int at = 0, version;
            ok = ei_decode_version((const char *)p->ext, &at, &version) == 0 &&
                 ei_skip_term((const char *)p->ext, &at) == 0 && (size_t)at == p->ext_len;
        }
        if (!ok)
            fail(op == EI_ENCODE ? "ei_x_encode failed" : "ei could not read termcopy's encoding", p);
    }
}

static void after(void *ctx, int op)
{
    peer *s = ctx;
    if (op != EI_ENCODE)
        return;
    for (size_t i = 0; i < s->p->batch; i++)
        ei_x_free(&s->out[i]);
}

/* Room for the C values of the payload: at most one long, double or string character per
 * byte of its encoding. */
static void cvalues_make(const tc_codec_payload *p, cvalues *v)
{
    size_t n = p->ext_len;
    *v = (cvalues){.longs = calloc(n, sizeof(long)), .doubles = calloc(n, sizeof(double)),
                   .chars = calloc(n, 1), .lens = calloc(n, sizeof(int))};
    if (!v->longs || !v->doubles || !v->chars || !v->lens)
        tc_bench_oom("codecpeer", "the C values");
}

static void cvalues_free(cvalues *v)
{
    free(v->longs);
    free(v->doubles);
    free(v->chars);
    free(v->lens);
}

static void sweep(bool quick, FILE *csv)
{
    int batches = quick ? TC_CODEC_QUICK_BATCHES : TC_CODEC_BATCHES;
    if (csv) {
        tc_bench_meta_standard(csv);
        tc_bench_meta(csv, "experiment", "codecpeer%s", quick ? " --quick" : "");
        tc_bench_meta(csv, "ei", "erl_interface's libei (ei.h, Debian's erlang-dev): %s", TC_EI_LIBRARY_PATH);
        tc_bench_meta(csv, "ei_encode", "ei_x_new_with_version, then the ei_x_encode_* of the payload's C values "
                                       "(ei's buffer grows by realloc)");
        tc_bench_meta(csv, "ei_decode", "ei_decode_* of the encoding into the payload's C values (arrays of long, "
                                       "double, the strings' characters, the binary's bytes)");
        tc_bench_meta(csv, "ei_skip", "ei_skip_term over the encoding (it recurses a nesting level: the sweep "
                                     "runs on a thread with a 256 MiB stack)");
        tc_codec_meta(csv, batches);
    }
    tc_codec_heading(batches);
    for (size_t z = 0; z < (quick ? TC_CODEC_QUICK_SIZES : TC_CODEC_SIZES); z++) {
        for (int sh = 0; sh < TC_CODEC_SHAPES; sh++) {
            tc_progress_line("codecpeer %zu words %s", tc_codec_words[z], tc_codec_shape_name(sh));
            tc_codec_payload p;
            tc_codec_payload_make(sh, tc_codec_words[z], &p);
            peer s = {&p, {0}, calloc(p.batch, sizeof(ei_x_buff))};
            if (!s.out)
                tc_bench_oom("codecpeer", "the encodings");
            cvalues_make(&p, &s.v);
            /* Both write term_to_binary/1's bytes: ei's encoding of what ei read is termcopy's. */
            ei_x_buff x;
            if (!decode_values(&p, &s.v))
                fail("ei could not read termcopy's encoding", &p);
            if (!encode_values(&p, &s.v, &x))
                fail("ei_x_encode failed", &p);
            if ((size_t)x.index != p.ext_len || memcmp(x.buff, p.ext, p.ext_len) != 0)
                fail("ei's encoding differs from termcopy's", &p);
            ei_x_free(&x);
            tc_timing_summary ns[NOPS];
            double least[NOPS];
            tc_codec_time(run, after, &s, NOPS, batches, p.batch, ns, least);
            tc_progress_end();
            for (int op = 0; op < NOPS; op++)
                tc_codec_row(csv, op_names[op], &p, &ns[op], least[op]);
            (void)fflush(stdout);
            cvalues_free(&s.v);
            free(s.out);
            tc_codec_payload_free(&p);
        }
    }
}

#define SWEEP_STACK_MIB 256u

typedef struct sweep_args {
    bool quick;
    FILE *csv;
} sweep_args;

static void *sweep_thread(void *arg)
{
    const sweep_args *a = arg;
    sweep(a->quick, a->csv);
    return NULL;
}

int main(int argc, char **argv)
{
    tc_bench_cli cli;
    int rc = tc_bench_cli_parse(&cli, &spec, argc, argv);
    if (rc != TC_BENCH_CLI_RUN)
        return tc_bench_exit_status("codecpeer", rc);
    rc = 0;
    FILE *csv = tc_bench_cli_open_csv(&cli, "--csv", cli.csv, &rc);
    if (rc)
        return rc;
    if (ei_init() != 0) {
        fprintf(stderr, "codecpeer: ei_init failed\n");
        return tc_bench_exit_status("codecpeer", EXIT_FAILURE);
    }
    sweep_args args = {cli.quick, csv};
    pthread_attr_t attr;
    pthread_t th;
    if (pthread_attr_init(&attr) != 0 || pthread_attr_setstacksize(&attr, (size_t)SWEEP_STACK_MIB << 20) != 0 ||
        pthread_create(&th, &attr, sweep_thread, &args) != 0 || pthread_join(th, NULL) != 0) {
        fprintf(stderr, "codecpeer: cannot start the sweep's thread (a %u MiB stack)\n", SWEEP_STACK_MIB);
        return tc_bench_exit_status("codecpeer", EXIT_FAILURE);
    }
    (void)pthread_attr_destroy(&attr);
    if (!tc_bench_cli_close_csv(&cli, csv, cli.csv))
        return 2;
    return tc_bench_exit_status("codecpeer", EXIT_SUCCESS);
}
