/*
 * size_term.c — read an Erlang term from the command line and print its flat size (what a
 * send or an ETS insert copies) and its shared size (each subterm once), in words.
 *
 *   cc size_term.c $(pkg-config --cflags --libs termcopy) -o size_term
 *   ./size_term '{[1,2,3], <<"abc">>, 1.5}'
 */
#include <stdio.h>
#include <string.h>

#include <termcopy/termcopy.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s TERM\n", argv[0]);
        return 2;
    }
    /* An arena holds terms that belong to no process; freeing it frees them all. */
    tc_arena *arena = tc_arena_new(0);
    if (!arena) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    int rc = 0;
    tc_term t;
    tc_read_error err = {0};
    uint64_t flat, shared;
    tc_result r = tc_term_read(tc_arena_alloc(arena), argv[1], strlen(argv[1]), &t, &err);
    if (r != TC_OK && r != TC_ENOMEM) { /* TC_EPARSE, TC_ELIMIT, TC_EUNSUPPORTED */
        fprintf(stderr, "bad term at byte %zu: %s\n", err.offset, err.message);
        rc = 2;
    } else if (r != TC_OK || (r = tc_term_flat_size(t, &flat)) != TC_OK ||
               (r = tc_term_shared_size(t, &shared)) != TC_OK) {
        fprintf(stderr, "%s\n", tc_result_name(r)); /* every function returns a tc_result */
        rc = 1;
    } else {
        printf("flat:   %llu words\nshared: %llu words\n", (unsigned long long)flat,
               (unsigned long long)shared);
    }
    tc_arena_free(arena);
    return rc;
}
