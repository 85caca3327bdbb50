/*
 * termcopy — the command-line face of the library: read a term written as Erlang text and
 * say what the VM would make of it, turn it into (and back from) the external term format,
 * or predict what moving it costs on this machine from the pipeline's calibration.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy/compact.h"
#include "terms/ext.h"
#include "terms/arena.h"
#include "terms/printer.h"
#include "terms/reader.h"
#include "terms/size.h"

#define EXIT_USAGE 2

static const char usage_main[] =
    "usage: termcopy COMMAND [OPTIONS] TERM\n"
    "\n"
    "TERM is Erlang term text (as io_lib:format(\"~w\") writes it, or any literal term);\n"
    "'-' reads it from standard input.\n"
    "\n"
    "commands:\n"
    "  size [--tsv] TERM   flat and shared size in 64-bit words (erts_debug:flat_size, erts_debug:size)\n"
    "  print TERM          the term as ~w prints it\n"
    "  encode [--minor 1|2] TERM\n"
    "                      term_to_binary(TERM, [{minor_version, 2}]) (or 1) as hex\n"
    "  decode HEX          binary_to_term of the hex bytes, printed as ~w\n"
    "  predict [--calibration FILE] TERM\n"
    "                      sizes, and the predicted cost of a send, a round trip, an ETS lookup\n"
    "                      (each era) and a persistent_term get on this machine\n"
    "\n"
    "'termcopy COMMAND --help' describes one command. Bad input: a one-line message, exit 2.\n";

static const char usage_size[] =
    "usage: termcopy size [--tsv] TERM\n"
    "\n"
    "Prints the flat size (what a copy by send or ETS insert allocates; shared subterms are\n"
    "counted each time they are reached) and the shared size (each subterm once), in words\n"
    "of the 64-bit VM (OTP 25 layout).\n"
    "  --tsv   print exactly FLAT<TAB>SHARED on one line\n";

static const char usage_print[] =
    "usage: termcopy print TERM\n"
    "\n"
    "Reads TERM and prints it exactly as io_lib:format(\"~w\", [T]) does on OTP 25.\n";

static const char usage_encode[] =
    "usage: termcopy encode [--minor 1|2] TERM\n"
    "\n"
    "Prints the external term format of TERM (what term_to_binary writes, version byte 131\n"
    "first) as uppercase hex on one line.\n"
    "  --minor 2   the default here: atoms always UTF-8 (SMALL_ATOM_UTF8_EXT), as\n"
    "              term_to_binary(T, [{minor_version, 2}]) and the golden vectors; OTP 26's default\n"
    "  --minor 1   OTP 25's term_to_binary/1 default: Latin-1 atoms as ATOM_EXT\n";

static const char usage_decode[] =
    "usage: termcopy decode HEX\n"
    "\n"
    "Decodes HEX (the external term format, version byte 131 first; whitespace is ignored;\n"
    "'-' reads it from standard input) as binary_to_term/1 does, with strict checks, and\n"
    "prints the term as ~w.\n";

#define DEFAULT_CALIBRATION "results/calibration.tsv"

static const char usage_predict[] =
    "usage: termcopy predict [--calibration FILE] TERM\n"
    "\n"
    "Prints TERM's flat and shared size, the size of the ETS object {1, TERM} (an integer key,\n"
    "stored as one compact block; the table's per-object node header is not counted), its\n"
    "external format size, and the predicted cost on this machine of: one send (size_object +\n"
    "copy_struct of TERM), a client-server round trip whose reply carries TERM and an\n"
    "ets:lookup/2 of {1, TERM} in each modelled era, and a persistent_term:get.\n"
    "The costs come from a calibration file that './run report' writes from its experiments\n"
    "(copysweep's ns per word, crossover's per-operation times at each measured list\n"
    "length, interpolated at TERM's flat size, and beyond the largest length scaled by its\n"
    "cost per word); the file used is named in the output.\n"
    "  --calibration FILE  the calibration to use (default " DEFAULT_CALIBRATION ")\n"
    "No calibration: says how to make one and exits 2.\n";

static int fail(const char *fmt, const char *detail)
{
    fprintf(stderr, "termcopy: ");
    fprintf(stderr, fmt, detail);
    fputc('\n', stderr);
    return EXIT_USAGE;
}

/* Reads all of standard input; NULL on failure with errno-style message printed. */
static char *slurp_stdin(size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, stdin);
        n += got;
        if (got == 0) {
            if (ferror(stdin)) {
                free(buf);
                return NULL;
            }
            *len = n;
            return buf;
        }
        if (n == cap) {
            char *p = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
            if (!p)
                free(buf);
            buf = p;
            cap *= 2;
        }
    }
    return NULL;
}

/* The text of an operand: the argument itself, or all of standard input for '-' (then
 * *owned is set, to be freed). NULL, after printing why, when stdin cannot be read. */
static const char *operand_text(const char *arg, size_t *len, char **owned)
{
    *owned = NULL;
    if (strcmp(arg, "-") != 0) {
        *len = strlen(arg);
        return arg;
    }
    *owned = slurp_stdin(len);
    if (!*owned)
        fail("cannot read standard input: %s", strerror(errno ? errno : ENOMEM));
    return *owned;
}

/* Reads TERM (text or '-') into `arena`; prints the error and returns false on bad input. */
static bool read_term_arg(const char *arg, tc_arena *arena, tc_term *out)
{
    size_t len;
    char *stdin_text;
    const char *text = operand_text(arg, &len, &stdin_text);
    if (!text)
        return false;
    tc_read_error err = {0};
    tc_result r = tc_term_read(tc_arena_alloc(arena), text, len, out, &err);
    free(stdin_text);
    if (r == TC_ENOMEM) {
        fail("%s", "out of memory reading the term");
        return false;
    }
    if (r != TC_OK) {
        fprintf(stderr, "termcopy: bad term at byte %zu: %s\n", err.offset, err.message);
        return false;
    }
    return true;
}

/* --help or -h among the options; after "--" it is an operand (a TERM), not a request. */
static bool wants_help(int argc, char **argv)
{
    for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return true;
    return false;
}

/* One option of a command: a flag, or (takes_value) '--name VALUE' / '--name=VALUE'. */
typedef struct option {
    const char *name;
    bool takes_value;
    bool set;
    const char *value;
} option;

/* Splits argv into the options in `opts` (ended by a NULL name; may be NULL) and exactly one
 * TERM operand. A usage error is one line naming the command's --help, and exit 2. */
static int parse_args(int argc, char **argv, option *opts, const char **term, const char *cmd)
{
    *term = NULL;
    bool options_done = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!options_done && strcmp(a, "--") == 0) {
            options_done = true;
        } else if (!options_done && a[0] == '-' && a[1] != '\0' && !(a[1] >= '0' && a[1] <= '9') && a[1] != '$') {
            bool known = false;
            for (option *o = opts; o && o->name && !known; o++) {
                size_t n = strlen(o->name);
                if (strncmp(a, o->name, n) != 0 || (a[n] != '\0' && !(o->takes_value && a[n] == '=')))
                    continue;
                known = o->set = true;
                if (!o->takes_value)
                    continue;
                if (a[n] == '=') {
                    o->value = a + n + 1;
                } else if (i + 1 < argc) {
                    o->value = argv[++i];
                } else {
                    fprintf(stderr, "termcopy %s: option '%s' needs a value (see 'termcopy %s --help')\n", cmd,
                            o->name, cmd);
                    return EXIT_USAGE;
                }
            }
            if (!known) {
                fprintf(stderr, "termcopy %s: unknown option '%s' (see 'termcopy %s --help')\n", cmd, a, cmd);
                return EXIT_USAGE;
            }
        } else if (*term) {
            fprintf(stderr, "termcopy %s: one TERM expected, got a second: '%.40s' (quote the term)\n", cmd, a);
            return EXIT_USAGE;
        } else {
            *term = a;
        }
    }
    if (!*term) {
        fprintf(stderr, "termcopy %s: missing TERM (see 'termcopy %s --help')\n", cmd, cmd);
        return EXIT_USAGE;
    }
    return 0;
}

static int cmd_size(int argc, char **argv)
{
    option opts[] = {{"--tsv", false, false, NULL}, {NULL, false, false, NULL}};
    const char *arg;
    int rc = parse_args(argc, argv, opts, &arg, "size");
    if (rc)
        return rc;
    tc_arena *arena = tc_arena_new(0);
    if (!arena)
        return fail("%s", "out of memory");
    tc_term t;
    uint64_t flat, shared;
    rc = EXIT_USAGE;
    if (read_term_arg(arg, arena, &t)) {
        if (tc_term_flat_size(t, &flat) != TC_OK || tc_term_shared_size(t, &shared) != TC_OK) {
            fail("%s", "out of memory sizing the term");
        } else {
            if (opts[0].set)
                printf("%llu\t%llu\n", (unsigned long long)flat, (unsigned long long)shared);
            else
                printf("flat size:   %llu words (%llu bytes)\nshared size: %llu words (%llu bytes)\n",
                       (unsigned long long)flat, (unsigned long long)flat * TC_WORD_BYTES,
                       (unsigned long long)shared, (unsigned long long)shared * TC_WORD_BYTES);
            rc = 0;
        }
    }
    tc_arena_free(arena);
    return rc;
}

static int cmd_print(int argc, char **argv)
{
    const char *arg;
    int rc = parse_args(argc, argv, NULL, &arg, "print");
    if (rc)
        return rc;
    tc_arena *arena = tc_arena_new(0);
    if (!arena)
        return fail("%s", "out of memory");
    tc_term t;
    char *text;
    size_t len;
    rc = EXIT_USAGE;
    if (read_term_arg(arg, arena, &t)) {
        if (tc_term_print(t, &text, &len) != TC_OK) {
            fail("%s", "out of memory printing the term");
        } else {
            (void)fwrite(text, 1, len, stdout); /* main checks stdout before exiting */
            fputc('\n', stdout);
            tc_mem_free(text);
            rc = 0;
        }
    }
    tc_arena_free(arena);
    return rc;
}

static int cmd_encode(int argc, char **argv)
{
    option opts[] = {{"--minor", true, false, NULL}, {NULL, false, false, NULL}};
    const char *arg;
    int rc = parse_args(argc, argv, opts, &arg, "encode");
    if (rc)
        return rc;
    unsigned minor = 2;
    if (opts[0].set) {
        if (strcmp(opts[0].value, "1") != 0 && strcmp(opts[0].value, "2") != 0) {
            fprintf(stderr, "termcopy: --minor must be 1 or 2, not '%.20s'\n", opts[0].value);
            return EXIT_USAGE;
        }
        minor = (unsigned)(opts[0].value[0] - '0');
    }
    tc_arena *arena = tc_arena_new(0);
    if (!arena)
        return fail("%s", "out of memory");
    tc_term t;
    unsigned char *bytes;
    size_t len;
    rc = EXIT_USAGE;
    if (read_term_arg(arg, arena, &t)) {
        tc_result r = tc_ext_encode(t, minor, &bytes, &len);
        if (r != TC_OK) {
            fail("cannot encode the term: %s", tc_result_name(r));
        } else {
            for (size_t i = 0; i < len; i++)
                printf("%02X", bytes[i]);
            putchar('\n');
            tc_mem_free(bytes);
            rc = 0;
        }
    }
    tc_arena_free(arena);
    return rc;
}

/* Hex text to bytes (whitespace between digits ignored); NULL after printing why. */
static unsigned char *parse_hex(const char *text, size_t len, size_t *n)
{
    unsigned char *bytes = malloc(len / 2 + 1);
    if (!bytes) {
        fail("%s", "out of memory");
        return NULL;
    }
    size_t digits = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            continue;
        int v = tc_hex_digit(c);
        if (v < 0) {
            fprintf(stderr, "termcopy: bad hex: %s 0x%02X at character %zu\n",
                    c >= 0x21 && c <= 0x7E ? "not a hex digit:" : "byte", c, i);
            free(bytes);
            return NULL;
        }
        if (digits % 2 == 0)
            bytes[digits / 2] = (unsigned char)(v << 4);
        else
            bytes[digits / 2] |= (unsigned char)v;
        digits++;
    }
    if (digits % 2) {
        fprintf(stderr, "termcopy: bad hex: odd number of hex digits (%zu)\n", digits);
        free(bytes);
        return NULL;
    }
    *n = digits / 2;
    return bytes;
}

static int cmd_decode(int argc, char **argv)
{
    const char *arg;
    int rc = parse_args(argc, argv, NULL, &arg, "decode");
    if (rc)
        return rc;
    size_t len, n;
    char *stdin_text;
    const char *text = operand_text(arg, &len, &stdin_text);
    if (!text)
        return EXIT_USAGE;
    unsigned char *bytes = parse_hex(text, len, &n);
    free(stdin_text);
    if (!bytes)
        return EXIT_USAGE;
    tc_arena *arena = tc_arena_new(0);
    if (!arena) {
        free(bytes);
        return fail("%s", "out of memory");
    }
    tc_term t;
    tc_read_error err = {0};
    tc_result r = tc_ext_decode(tc_arena_alloc(arena), bytes, n, &t, &err);
    free(bytes);
    char *out;
    size_t out_len;
    rc = EXIT_USAGE;
    if (r == TC_ENOMEM) {
        fail("%s", "out of memory decoding the term");
    } else if (r != TC_OK) {
        fprintf(stderr, "termcopy: bad external term (%s): %s\n", tc_result_name(r), err.message);
    } else if (tc_term_print(t, &out, &out_len) != TC_OK) {
        fail("%s", "out of memory printing the term");
    } else {
        (void)fwrite(out, 1, out_len, stdout); /* main checks stdout before exiting */
        fputc('\n', stdout);
        tc_mem_free(out);
        rc = 0;
    }
    tc_arena_free(arena);
    return rc;
}

/* ---- predict: costs from the pipeline's calibration --------------------------------------- */

#define CAL_MAX_KEYS 64
#define CAL_MAX_POINTS 64

/* One calibration key: a scalar (npoints 0, value), or a cost per operation measured at
 * increasing payload sizes in words (the crossover grid). */
typedef struct cal_key {
    char name[48];
    double value;
    size_t npoints;
    double words[CAL_MAX_POINTS], ns[CAL_MAX_POINTS];
} cal_key;

typedef struct calibration {
    char origin[256]; /* date, git, cpu, compiler and mode from its '#' lines */
    size_t nkeys;
    cal_key keys[CAL_MAX_KEYS];
} calibration;

static cal_key *cal_find(calibration *cal, const char *name)
{
    for (size_t i = 0; i < cal->nkeys; i++)
        if (strcmp(cal->keys[i].name, name) == 0)
            return &cal->keys[i];
    return NULL;
}

/* Appends the text after "# KEY: " of a metadata line to cal->origin. */
static void cal_note(calibration *cal, const char *line)
{
    static const char *const wanted[] = {"# mode: ", "# date: ", "# git: ", "# cpu: ", "# compiler: "};
    for (size_t i = 0; i < sizeof wanted / sizeof *wanted; i++) {
        size_t n = strlen(wanted[i]), used = strlen(cal->origin);
        if (strncmp(line, wanted[i], n) != 0)
            continue;
        (void)snprintf(cal->origin + used, sizeof cal->origin - used, "%s%s%s", used ? ", " : "", wanted[i] + 2,
                       line + n); /* a note for the reader: truncated is fine */
    }
}

/* Reads KEY<TAB>WORDS<TAB>VALUE<TAB>SOURCE lines (WORDS '-' for a scalar; grid points in
 * increasing WORDS). Returns 0, or EXIT_USAGE after saying what is wrong. */
static int cal_read(const char *path, calibration *cal)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[512];
    int rc = 0;
    unsigned lineno = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#') {
            cal_note(cal, line);
            continue;
        }
        if (line[0] == '\0' || strncmp(line, "key\t", 4) == 0)
            continue;
        char name[48], words[32];
        double value = 0;
        cal_key *k;
        /* KEY and WORDS with sscanf, VALUE with strtod (sscanf's %lf has undefined behaviour
         * when the number is out of range); "%n" stores where VALUE starts. */
        int at = -1;
        bool fields = sscanf(line, "%47[^\t]\t%31[^\t]\t%n", name, words, &at) == 2 && at >= 0;
        if (fields) {
            char *end;
            value = strtod(line + at, &end);
            fields = end != line + at;
        }
        if (!fields) {
            fprintf(stderr, "termcopy: %s:%u: expected KEY<TAB>WORDS<TAB>VALUE\n", path, lineno);
            rc = EXIT_USAGE;
        } else if (!(k = cal_find(cal, name)) && cal->nkeys == CAL_MAX_KEYS) {
            fprintf(stderr, "termcopy: %s:%u: more than %d keys\n", path, lineno, CAL_MAX_KEYS);
            rc = EXIT_USAGE;
        } else {
            if (!k) {
                k = &cal->keys[cal->nkeys++];
                (void)snprintf(k->name, sizeof k->name, "%s", name); /* name[48] into name[48] */
            }
            if (strcmp(words, "-") == 0) {
                k->value = value;
            } else if (k->npoints == CAL_MAX_POINTS ||
                       (k->words[k->npoints] = strtod(words, NULL)) <= (k->npoints ? k->words[k->npoints - 1] : 0)) {
                fprintf(stderr, "termcopy: %s:%u: %s: too many points, or WORDS not increasing\n", path, lineno, name);
                rc = EXIT_USAGE;
            } else {
                k->ns[k->npoints++] = value;
            }
        }
    }
    (void)fclose(f); /* read only */
    return rc;
}

/* A grid key's cost at `words`: linear between the measured points, the first point's cost
 * below them, and beyond them the last point's cost per word (never negative, unlike a line
 * through two noisy points). */
static double cal_at(const cal_key *k, double words)
{
    size_t n = k->npoints, i = 1;
    if (words <= k->words[0])
        return k->ns[0];
    if (words >= k->words[n - 1])
        return k->ns[n - 1] * words / k->words[n - 1];
    while (words > k->words[i])
        i++;
    double slope = (k->ns[i] - k->ns[i - 1]) / (k->words[i] - k->words[i - 1]);
    return k->ns[i - 1] + slope * (words - k->words[i - 1]);
}

/* The flat size, the stored size of {1, t} and the external size; false after saying why. */
static bool predict_sizes(tc_arena *arena, tc_term t, uint64_t *flat, uint64_t *shared, size_t *stored,
                          size_t *ext)
{
    tc_term elems[2] = {tc_make_small(1), t};
    tc_term object = tc_term_tuple(tc_arena_alloc(arena), elems, 2);
    tc_copy_compact *block = NULL;
    if (tc_term_flat_size(t, flat) != TC_OK || tc_term_shared_size(t, shared) != TC_OK ||
        object == TC_NON_VALUE || tc_copy_compact_in(object, &block, NULL) != TC_OK) {
        fail("%s", "out of memory sizing the term");
        return false;
    }
    *stored = tc_copy_compact_size(block);
    tc_copy_compact_free(block);
    tc_result r = tc_ext_size(t, 2, ext);
    if (r != TC_OK) {
        fail("cannot size the external format: %s", tc_result_name(r));
        return false;
    }
    return true;
}

static int cmd_predict(int argc, char **argv)
{
    option opts[] = {{"--calibration", true, false, NULL}, {NULL, false, false, NULL}};
    const char *arg;
    int rc = parse_args(argc, argv, opts, &arg, "predict");
    if (rc)
        return rc;
    const char *path = opts[0].set ? opts[0].value : DEFAULT_CALIBRATION;
    static calibration cal;
    memset(&cal, 0, sizeof cal);
    rc = cal_read(path, &cal);
    if (rc < 0) {
        fprintf(stderr,
                "termcopy: no calibration at %s (%s).\n"
                "Make one with './run report' (or './run report --quick', about 30 s), which writes\n"
                DEFAULT_CALIBRATION " from its experiments; or pass --calibration FILE.\n",
                path, strerror(errno));
        return EXIT_USAGE;
    }
    if (rc)
        return rc;
    static const char *const needed[] = {"copy_struct_ns_per_word", "literal_get_ns", "round_trip_ns.r10b",
                                         "round_trip_ns.otp25", "lookup_ns.r10b", "lookup_ns.otp25"};
    cal_key *k[sizeof needed / sizeof *needed];
    for (size_t i = 0; i < sizeof needed / sizeof *needed; i++) {
        k[i] = cal_find(&cal, needed[i]);
        if (!k[i] || (strchr(needed[i], '.') && k[i]->npoints == 0)) {
            fprintf(stderr, "termcopy: calibration %s has no %s: rewrite it with './run report'\n", path, needed[i]);
            return EXIT_USAGE;
        }
    }
    tc_arena *arena = tc_arena_new(0);
    if (!arena)
        return fail("%s", "out of memory");
    tc_term t;
    uint64_t flat, shared;
    size_t stored, ext;
    rc = EXIT_USAGE;
    if (read_term_arg(arg, arena, &t) && predict_sizes(arena, t, &flat, &shared, &stored, &ext)) {
        double w = (double)flat;
        const cal_key *grid = k[2];
        printf("calibration:      %s (%s)\n", path, cal.origin[0] ? cal.origin : "no metadata");
        printf("flat size:        %llu words (%llu bytes)\n", (unsigned long long)flat,
               (unsigned long long)flat * TC_WORD_BYTES);
        printf("shared size:      %llu words (%llu bytes)\n", (unsigned long long)shared,
               (unsigned long long)shared * TC_WORD_BYTES);
        printf("ETS stored size:  %zu words: the object {1, TERM} as one compact block (node header not counted)\n",
               stored);
        printf("external format:  %zu bytes (term_to_binary, minor_version 2)\n", ext);
        printf("predicted cost on this machine, us per operation (modelled VM; the per-operation costs\n"
               "were measured on lists of integers of %.0f to %.0f words, here read at %llu words%s):\n",
               grid->words[0], grid->words[grid->npoints - 1], (unsigned long long)flat,
               w > grid->words[grid->npoints - 1] ? ", extrapolated" : w < grid->words[0] ? ", below them: the smallest one's cost" : "");
        printf("  send (size_object + copy_struct)  %10.2f\n", k[0]->value * w / 1000);
        printf("  round trip, R10B                  %10.2f\n", cal_at(k[2], w) / 1000);
        printf("  round trip, OTP 25                %10.2f\n", cal_at(k[3], w) / 1000);
        printf("  ets:lookup/2, R10B                %10.2f\n", cal_at(k[4], w) / 1000);
        printf("  ets:lookup/2, OTP 25              %10.2f\n", cal_at(k[5], w) / 1000);
        printf("  persistent_term:get/1             %10.2f\n", k[1]->value / 1000);
        rc = 0;
    }
    tc_arena_free(arena);
    return rc;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(int, char **);
        const char *usage;
    } commands[] = {{"size", cmd_size, usage_size},
                    {"print", cmd_print, usage_print},
                    {"encode", cmd_encode, usage_encode},
                    {"decode", cmd_decode, usage_decode},
                    {"predict", cmd_predict, usage_predict}};
    if (argc < 2) {
        fputs("termcopy: missing COMMAND (see 'termcopy --help')\n", stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        fputs(usage_main, stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        if (strcmp(argv[1], commands[i].name) != 0)
            continue;
        if (wants_help(argc - 2, argv + 2)) {
            fputs(commands[i].usage, stdout);
            return 0;
        }
        int rc = commands[i].run(argc - 2, argv + 2);
        if (fflush(stdout) != 0 || ferror(stdout))
            return fail("cannot write output: %s", strerror(errno));
        return rc;
    }
    fprintf(stderr, "termcopy: unknown command '%s' (see 'termcopy --help')\n", argv[1]);
    return EXIT_USAGE;
}
