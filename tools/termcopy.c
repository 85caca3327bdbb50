/*
 * termcopy — the command-line face of the library: read a term written as Erlang text and
 * say what the VM would make of it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Reads TERM (text or '-') into `arena`; prints the error and returns false on bad input. */
static bool read_term_arg(const char *arg, tc_arena *arena, tc_term *out)
{
    size_t len;
    char *stdin_text = NULL;
    const char *text = arg;
    if (strcmp(arg, "-") == 0) {
        stdin_text = slurp_stdin(&len);
        if (!stdin_text) {
            fail("cannot read standard input: %s", strerror(errno ? errno : ENOMEM));
            return false;
        }
        text = stdin_text;
    } else {
        len = strlen(arg);
    }
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

static bool wants_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return true;
    return false;
}

/* Splits argv into known flags and exactly one TERM operand. */
static int parse_args(int argc, char **argv, const char *const *flags, bool *set, const char **term,
                      const char *usage)
{
    *term = NULL;
    bool options_done = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!options_done && strcmp(a, "--") == 0) {
            options_done = true;
        } else if (!options_done && a[0] == '-' && a[1] != '\0' && !(a[1] >= '0' && a[1] <= '9') && a[1] != '$') {
            bool known = false;
            for (int f = 0; flags && flags[f]; f++)
                if (strcmp(a, flags[f]) == 0)
                    known = set[f] = true;
            if (!known) {
                fprintf(stderr, "termcopy: unknown option '%s'\n%s", a, usage);
                return EXIT_USAGE;
            }
        } else if (*term) {
            fprintf(stderr, "termcopy: one TERM expected, got a second: '%.40s' (quote the term)\n", a);
            return EXIT_USAGE;
        } else {
            *term = a;
        }
    }
    if (!*term) {
        fprintf(stderr, "termcopy: missing TERM\n%s", usage);
        return EXIT_USAGE;
    }
    return 0;
}

static int cmd_size(int argc, char **argv)
{
    static const char *const flags[] = {"--tsv", NULL};
    bool set[1] = {false};
    const char *arg;
    int rc = parse_args(argc, argv, flags, set, &arg, usage_size);
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
            if (set[0])
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
    int rc = parse_args(argc, argv, NULL, NULL, &arg, usage_print);
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
            fwrite(text, 1, len, stdout);
            fputc('\n', stdout);
            tc_mem_free(text);
            rc = 0;
        }
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
    } commands[] = {{"size", cmd_size, usage_size}, {"print", cmd_print, usage_print}};
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        fputs(usage_main, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : 0;
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
    fprintf(stderr, "termcopy: unknown command '%s'\n%s", argv[1], usage_main);
    return EXIT_USAGE;
}
