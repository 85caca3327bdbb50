#define _GNU_SOURCE /* mkostemp */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_OUTPUTS = 8 };

typedef struct output {
    char final[PATH_MAX], temp[PATH_MAX];
    dev_t dir_dev;
    ino_t dir_ino;
    const char *base; /* inside final */
    FILE *f;          /* NULL once closed */
    bool failed;      /* a write or close failed */
} output;

static output outputs[MAX_OUTPUTS];
static volatile sig_atomic_t n_outputs;
static const char *prog_name; /* the binary's name (program_invocation_short_name until tc_out_finish) */

/* The folder of path (".", or what comes before the last '/'), stat'ed. */
static bool dir_of(const char *path, struct stat *st)
{
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX];
    if (!slash) {
        strcpy(dir, ".");
    } else if ((size_t)(slash - path) + 1 > sizeof dir) {
        errno = ENAMETOOLONG;
        return false;
    } else {
        size_t n = slash == path ? 1 : (size_t)(slash - path);
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    return stat(dir, st) == 0;
}

static const char *base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

bool tc_out_clashes(const char *path)
{
    struct stat d, f;
    bool have_dir = dir_of(path, &d), have_file = stat(path, &f) == 0;
    for (int i = 0; i < n_outputs; i++) {
        const output *o = &outputs[i];
        struct stat g;
        if (strcmp(o->final, path) == 0 ||
            (have_dir && o->dir_dev == d.st_dev && o->dir_ino == d.st_ino && strcmp(o->base, base_of(path)) == 0) ||
            (have_file && stat(o->final, &g) == 0 && g.st_dev == f.st_dev && g.st_ino == f.st_ino))
            return true;
    }
    return false;
}

static void say_kept(const char *final)
{
    /* write(2) only: this also runs in a signal handler. */
    const char *parts[] = {prog_name, ": the previous '", final, "' is kept (this run's output was discarded)\n"};
    if (access(final, F_OK) != 0)
        parts[1] = ": nothing written to '", parts[3] = "' (this run's output was discarded)\n";
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (write(STDERR_FILENO, parts[i], strlen(parts[i])) < 0)
            return;
}

static void discard_all(void)
{
    for (int i = 0; i < n_outputs; i++) {
        if (outputs[i].temp[0] && unlink(outputs[i].temp) == 0)
            say_kept(outputs[i].final);
        outputs[i].temp[0] = '\0';
    }
}

static void on_signal(int sig)
{
    discard_all();
    (void)signal(sig, SIG_DFL);
    (void)raise(sig); /* the default action: the exit status says which signal */
}

FILE *tc_out_open(const char *path)
{
    static bool hooked;
    if (!prog_name)
        prog_name = program_invocation_short_name;
    if (n_outputs == MAX_OUTPUTS) {
        errno = EMFILE;
        return NULL;
    }
    if (tc_out_clashes(path)) {
        errno = EEXIST;
        return NULL;
    }
    struct stat st;
    if (path[0] == '\0') {
        errno = ENOENT;
        return NULL;
    }
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return fopen(path, "w"); /* a device, a FIFO, a symlink: written in place, nothing to rename over */
    output *o = &outputs[n_outputs];
    struct stat d;
    if (strlen(path) + 1 > sizeof o->final || !dir_of(path, &d)) {
        if (errno == 0 || strlen(path) + 1 > sizeof o->final)
            errno = ENAMETOOLONG;
        return NULL;
    }
    const char *base = base_of(path);
    int n = snprintf(o->temp, sizeof o->temp, "%.*s.%s.XXXXXX", (int)(base - path), path, base);
    if (n < 0 || (size_t)n >= sizeof o->temp) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    if (!hooked) {
        if (atexit(discard_all) != 0) /* without it an early exit would leave the temporary file */
            return NULL;
        hooked = true;
        struct sigaction sa = {0};
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        (void)sigaction(SIGINT, &sa, NULL);
        (void)sigaction(SIGTERM, &sa, NULL);
        (void)sigaction(SIGHUP, &sa, NULL);
    }
    int fd = mkostemp(o->temp, O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(o->temp);
        }
        errno = e;
        return NULL;
    }
    (void)fchmod(fd, 0644); /* what fopen(path, "w") would give under the usual umask */
    strcpy(o->final, path);
    o->base = o->final + (base - path);
    o->dir_dev = d.st_dev;
    o->dir_ino = d.st_ino;
    o->f = f;
    o->failed = false;
    n_outputs++; /* last: the signal handler sees only whole entries */
    return f;
}

bool tc_out_close(FILE *f)
{
    for (int i = 0; i < n_outputs; i++) {
        output *o = &outputs[i];
        if (o->f != f)
            continue;
        bool ok = fflush(f) == 0 && !ferror(f) && fsync(fileno(f)) == 0;
        ok = fclose(f) == 0 && ok;
        o->f = NULL;
        o->failed |= !ok;
        return ok;
    }
    /* A device written in place: a write that failed before the close (a buffer filled
     * mid-run) leaves only the error flag, and fclose may then flush nothing and succeed. */
    bool ok = fflush(f) == 0 && !ferror(f);
    return fclose(f) == 0 && ok;
}

int tc_out_finish(const char *prog, int rc)
{
    prog_name = prog;
    for (int i = 0; rc == 0 && i < n_outputs; i++) {
        output *o = &outputs[i];
        if (o->f || o->failed) {
            fprintf(stderr, "%s: '%s' was not written whole\n", prog, o->final);
            rc = 2;
        }
    }
    for (int i = 0; rc == 0 && i < n_outputs; i++) {
        output *o = &outputs[i];
        if (rename(o->temp, o->final) != 0) {
            fprintf(stderr, "%s: cannot put '%s' in place: %s\n", prog, o->final, strerror(errno));
            rc = 2;
        } else {
            o->temp[0] = '\0';
        }
    }
    for (int i = 0; i < n_outputs; i++)
        if (outputs[i].f) {
            (void)fclose(outputs[i].f);
            outputs[i].f = NULL;
        }
    discard_all(); /* after a failure: nothing replaced; after a rename failure: the rest */
    return rc;
}
