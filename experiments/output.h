/*
 * output.h — result files that survive a failed run: each output file is written to a
 * temporary file in its own folder and renamed over the final name only when the whole run
 * succeeded (rename(2) is atomic within a folder), so the previous file is there after any
 * failure: an error exit, an out-of-memory exit, SIGINT, SIGTERM or SIGHUP (the temporary
 * file is removed, and a line on stderr says what was kept). Two outputs of one run that are
 * the same file (the same name, or st_dev/st_ino of an existing file or of its folder plus the
 * same name) are refused before anything is written. A path that exists and is not a regular
 * file (a device such as /dev/full, a FIFO, a symlink) is written in place: there is nothing to
 * rename over it. Used by tc_bench_csv_open for every CSV.
 */
#ifndef TC_OUTPUT_H
#define TC_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

/* Opens a temporary file beside `path` for writing. NULL with errno set when it cannot
 * (EEXIST: `path` is the same file as an output already opened in this run). */
FILE *tc_out_open(const char *path);
/* Whether `path` names the same file as an output already opened in this run. */
bool tc_out_clashes(const char *path);
/* Closes f (one tc_out_open gave); the file is kept pending. False on a write error. */
bool tc_out_close(FILE *f);
/* The end of the run: with rc 0, every pending output replaces its final name (rc becomes 2
 * after a one-line message if one cannot, or if one was never closed); otherwise each is
 * removed and a line says the previous file was kept. Returns the status to exit with. */
int tc_out_finish(const char *prog, int rc);

#endif
