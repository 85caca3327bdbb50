#include "vmside.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct tc_vm {
    const char *prog;
    pid_t pid;
    FILE *to, *from; /* the VM's standard input and output */
    char dir[4096];  /* the directory of the .beam files */
    bool cached;     /* dir is TC_BEAM_CACHE: kept */
};

bool tc_vm_which(const char *name, char *file, size_t size)
{
    const char *path = getenv("PATH");
    while (path && *path) {
        size_t n = strcspn(path, ":");
        if (n > 0 && snprintf(file, size, "%.*s/%s", (int)n, path, name) < (int)size && access(file, X_OK) == 0)
            return true;
        path += n + (path[n] == ':');
    }
    return false;
}

bool tc_vm_on_path(const char *name)
{
    char file[4096];
    return tc_vm_which(name, file, sizeof file);
}

bool tc_vm_installed(void) { return tc_vm_on_path("erl") && tc_vm_on_path("erlc"); }

/* The modules every session compiles: eptest's loops, unitcost's commands, the account's
 * calibrations and the CPU clock's loader. */
static const char *const modules[] = {"eptest", "unitcost", "account", "cpuclock"};
enum { NMODULES = sizeof modules / sizeof *modules };

static void remove_dir(tc_vm *vm)
{
    if (!vm->dir[0] || vm->cached)
        return;
    char file[4200];
    for (size_t i = 0; i < NMODULES; i++) {
        (void)snprintf(file, sizeof file, "%s/%s.beam", vm->dir, modules[i]);
        (void)unlink(file);                                                  /* absent is fine */
    }
    (void)rmdir(vm->dir);
    vm->dir[0] = '\0';
}

/* Runs argv (searched on PATH) to its end; its exit status, or -1 when it could not run. */
static int run_wait(char *const argv[])
{
    pid_t pid;
    if (posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ) != 0)
        return -1;
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static tc_vm *start_fail(tc_vm *vm, const char *why)
{
    fprintf(stderr, "%s: --vm: %s\n", vm->prog, why);
    remove_dir(vm);
    free(vm);
    return NULL;
}

/* Whether `beam` is missing or older than `src` (mtimes to the nanosecond). */
static bool stale(const char *src, const char *beam)
{
    struct stat s, b;
    if (stat(beam, &b) != 0 || stat(src, &s) != 0)
        return true;
    return b.st_mtim.tv_sec < s.st_mtim.tv_sec ||
           (b.st_mtim.tv_sec == s.st_mtim.tv_sec && b.st_mtim.tv_nsec < s.st_mtim.tv_nsec);
}

bool tc_vm_compile(const char *prog, const char *beam_dir, const char *out)
{
    if (!beam_dir)
        beam_dir = TC_BENCH_SOURCE_DIR "/experiments/beam";
    char src[NMODULES][4096], beam[4096];
    bool need = false;
    for (int i = 0; i < NMODULES; i++) {
        if (snprintf(src[i], sizeof src[i], "%s/%s.erl", beam_dir, modules[i]) >= (int)sizeof src[i] ||
            access(src[i], R_OK) != 0) {
            fprintf(stderr, "%s: --vm: cannot find eptest.erl, unitcost.erl, account.erl and cpuclock.erl in %s\n",
                    prog, beam_dir);
            return false;
        }
        need = need || snprintf(beam, sizeof beam, "%s/%s.beam", out, modules[i]) >= (int)sizeof beam ||
               stale(src[i], beam);
    }
    if (!need)
        return true;
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        char why[128] = "unknown error"; /* strerror_r: library code may run on any thread */
        (void)strerror_r(errno, why, sizeof why);
        fprintf(stderr, "%s: --vm: cannot make %s: %s\n", prog, out, why);
        return false;
    }
    char *erlc[] = {"erlc", "-o", (char *)out, src[0], src[1], src[2], src[3], NULL};
    if (run_wait(erlc) != 0) {
        fprintf(stderr, "%s: --vm: erlc failed on the modules of %s\n", prog, beam_dir);
        return false;
    }
    return true;
}

/* Starts erl with `flags` (NULL-terminated, after -noshell) on the modules of beam_dir; with
 * nif_dir, unitcost.erl loads the cpuclock NIF from it. */
static tc_vm *start(const char *prog, const char *beam_dir, char *const *flags, const char *nif_dir)
{
    tc_vm *vm = calloc(1, sizeof *vm);
    if (!vm) {
        fprintf(stderr, "%s: --vm: out of memory\n", prog);
        return NULL;
    }
    vm->prog = prog;
    if (!tc_vm_installed())
        return start_fail(vm, "needs erl and erlc on PATH (install Erlang/OTP: apt-get install erlang-nox)");
    const char *cache = getenv(TC_VM_BEAM_CACHE);
    if (cache && *cache) {
        if (snprintf(vm->dir, sizeof vm->dir, "%s", cache) >= (int)sizeof vm->dir) {
            vm->dir[0] = '\0';
            return start_fail(vm, TC_VM_BEAM_CACHE " is too long a path");
        }
        vm->cached = true;
    } else {
        const char *tmp = getenv("TMPDIR");
        if (!tmp || !*tmp || strlen(tmp) > 32)
            tmp = "/tmp";
        (void)snprintf(vm->dir, sizeof vm->dir, "%s/termcopy-vm.XXXXXX", tmp);
        if (!mkdtemp(vm->dir)) {
            vm->dir[0] = '\0';
            return start_fail(vm, "cannot make a temporary directory");
        }
    }
    if (!tc_vm_compile(prog, beam_dir, vm->dir)) {
        remove_dir(vm);
        free(vm);
        return NULL;
    }

    int in[2], out[2];
    if (pipe(in) != 0)
        return start_fail(vm, "no pipe");
    if (pipe(out) != 0) {
        (void)close(in[0]);
        (void)close(in[1]);
        return start_fail(vm, "no pipe");
    }
    posix_spawn_file_actions_t fa;
    char *erl[32] = {"erl", "-noshell"};
    int na = 2;
    for (int i = 0; flags[i] && na < 20; i++)
        erl[na++] = flags[i];
    char *tail[] = {"-pa", vm->dir, "-s", "unitcost", "main", "-extra", "--nif", (char *)nif_dir, NULL};
    for (int i = 0; (i < 6 || nif_dir) && tail[i]; i++)
        erl[na++] = tail[i];
    erl[na] = NULL;
    bool spawned = posix_spawn_file_actions_init(&fa) == 0;
    if (spawned) {
        spawned = posix_spawn_file_actions_adddup2(&fa, in[0], 0) == 0 &&
                  posix_spawn_file_actions_adddup2(&fa, out[1], 1) == 0 &&
                  posix_spawn_file_actions_addclose(&fa, in[1]) == 0 &&
                  posix_spawn_file_actions_addclose(&fa, out[0]) == 0 &&
                  posix_spawnp(&vm->pid, "erl", &fa, NULL, erl, environ) == 0;
        (void)posix_spawn_file_actions_destroy(&fa);
    }
    (void)close(in[0]);
    (void)close(out[1]);
    vm->to = spawned ? fdopen(in[1], "w") : NULL;
    vm->from = spawned ? fdopen(out[0], "r") : NULL;
    if (!vm->to || !vm->from) {
        if (vm->to)
            (void)fclose(vm->to);
        else
            (void)close(in[1]);
        if (vm->from)
            (void)fclose(vm->from);
        else
            (void)close(out[0]);
        if (spawned)
            (void)waitpid(vm->pid, NULL, 0); /* erl ends at the closed standard input */
        return start_fail(vm, "cannot start erl");
    }
    /* A VM that died must be a message, not a SIGPIPE. */
    (void)signal(SIGPIPE, SIG_IGN);
    return vm;
}

tc_vm *tc_vm_start(const char *prog, const char *beam_dir)
{
    static char *const flags[] = {"+S", "2:2", NULL};
    return start(prog, beam_dir, flags, NULL);
}

tc_vm *tc_vm_start_account(const char *prog, const char *beam_dir, const char *nif_dir)
{
    static char *const flags[] = {"+S", "2:2", "+sbwt", "none", "+sbwtdcpu", "none", "+sbwtdio", "none", NULL};
    if (!nif_dir)
        nif_dir = TC_BENCH_NIF_DIR;
    char so[4096];
    if (snprintf(so, sizeof so, "%s/cpuclock.so", nif_dir) >= (int)sizeof so || access(so, R_OK) != 0) {
        fprintf(stderr, "%s: the time account needs the cpuclock NIF (%s), built where erl_nif.h is "
                        "(apt-get install erlang-dev)\n", prog, so);
        return NULL;
    }
    return start(prog, beam_dir, flags, nif_dir);
}

void tc_vm_stop(tc_vm *vm)
{
    if (!vm)
        return;
    (void)fputs("quit\n", vm->to);
    (void)fclose(vm->to); /* the VM may be gone already: nothing to report then */
    (void)fclose(vm->from);
    int status;
    while (waitpid(vm->pid, &status, 0) < 0 && errno == EINTR)
        ;
    remove_dir(vm);
    free(vm);
}

/* Sends one command and reads its answer's lines up to "end" into lines[0 .. *n). */
enum { LINE = 512 }; /* an account's pass line at L = 30000 passes 256 */

static bool ask(tc_vm *vm, const char *cmd, char lines[][LINE], int max, int *n)
{
    if (fputs(cmd, vm->to) == EOF || fflush(vm->to) == EOF) {
        char why[128] = "unknown error"; /* strerror_r: library code may run on any thread */
        (void)strerror_r(errno, why, sizeof why);
        fprintf(stderr, "%s: --vm: the VM is gone (%s)\n", vm->prog, why);
        return false;
    }
    char line[2 * LINE];
    *n = 0;
    while (fgets(line, sizeof line, vm->from)) {
        line[strcspn(line, "\n")] = '\0';
        if (strcmp(line, "end") == 0)
            return true;
        if (strncmp(line, "error", 5) == 0 || *n == max) {
            fprintf(stderr, "%s: --vm: the VM answered '%.100s' to '%.*s'\n", vm->prog, line,
                    (int)strcspn(cmd, "\n"), cmd);
            return false;
        }
        if (strlen(line) >= LINE) { /* a cut line would lose its last fields */
            fprintf(stderr, "%s: --vm: an answer to '%.*s' is longer than %d characters: '%.60s...'\n", vm->prog,
                    (int)strcspn(cmd, "\n"), cmd, LINE - 1, line);
            return false;
        }
        memcpy(lines[(*n)++], line, strlen(line) + 1);
    }
    fprintf(stderr, "%s: --vm: the VM ended during '%.*s' (its error is above)\n", vm->prog,
            (int)strcspn(cmd, "\n"), cmd);
    return false;
}

/* The number after `key` and a space in `line`; false when there is none. */
static bool field(const char *line, const char *key, double *out)
{
    size_t k = strlen(key);
    const char *p = line;
    /* the key as a whole word: "dirty" is not "dirty_carriers" */
    while ((p = strstr(p, key)) != NULL && ((p != line && p[-1] != ' ') || p[k] != ' '))
        p += k;
    if (!p)
        return false;
    p += k + 1;
    char *end;
    *out = strtod(p, &end);
    return end != p;
}

bool tc_vm_point(tc_vm *vm, const char *unit, const char *shape, long len, int reps, double *ns, double *faults)
{
    char cmd[160], lines[1][LINE];
    int n;
    (void)snprintf(cmd, sizeof cmd, "point %s %s %ld %d\n", unit, shape, len, reps);
    if (!ask(vm, cmd, lines, 1, &n))
        return false;
    if (n != 1 || strncmp(lines[0], "ns ", 3) != 0 || !field(lines[0], "ns", ns) || !field(lines[0], "faults", faults)) {
        fprintf(stderr, "%s: --vm: no time in the VM's answer to '%s %s %ld'\n", vm->prog, unit, shape, len);
        return false;
    }
    return true;
}

bool tc_vm_fixed_costs(tc_vm *vm, long n, int reps, tc_vm_fixed *out)
{
    char cmd[64], lines[4][LINE];
    int got;
    (void)snprintf(cmd, sizeof cmd, "fixed %ld %d\n", n, reps);
    if (!ask(vm, cmd, lines, 4, &got))
        return false;
    int seen = 0;
    for (int i = 0; i < got; i++) {
        static const char *const names[4] = {"round_trip_fixed", "lookup_fixed", "insert_fixed", "pt_get_fixed"};
        double *slots[4] = {&out->round_trip, &out->lookup, &out->insert, &out->pt_get};
        for (int k = 0; k < 4; k++)
            if (strncmp(lines[i], names[k], strlen(names[k])) == 0 && field(lines[i], names[k], slots[k]))
                seen++;
    }
    if (seen != 4) {
        fprintf(stderr, "%s: --vm: the VM's fixed costs are incomplete\n", vm->prog);
        return false;
    }
    return true;
}

/* Reads the "key value" pairs of `line` named by `keys` into the doubles at `slots`; false
 * unless every key was there. */
static bool fields(const char *line, const char *const *keys, double *const *slots, int n)
{
    for (int i = 0; i < n; i++)
        if (!field(line, keys[i], slots[i]))
            return false;
    return true;
}

/* The word after the first `k` words of `line`, into out. */
static bool word_at(const char *line, int k, char *out, size_t size)
{
    for (int i = 0; i < k; i++) {
        line += strcspn(line, " ");
        line += strspn(line, " ");
    }
    size_t n = strcspn(line, " ");
    if (n == 0 || n >= size)
        return false;
    memcpy(out, line, n);
    out[n] = '\0';
    return true;
}

bool tc_vm_account_point(tc_vm *vm, const char *payload, long len, long n, tc_vm_account *out)
{
    char cmd[4200];
    static char lines[1 + TC_VM_ACCOUNT_PASSES + TC_VM_ACCOUNT_PRICES][LINE];
    int got;
    if (snprintf(cmd, sizeof cmd, "account %s %ld %ld\n", payload, len, n) >= (int)sizeof cmd) {
        fprintf(stderr, "%s: --vm: the payload's name is too long\n", vm->prog);
        return false;
    }
    if (!ask(vm, cmd, lines, (int)(sizeof lines / sizeof *lines), &got))
        return false;
    memset(out, 0, sizeof *out);
    bool words = false;
    for (int i = 0; i < got; i++) {
        const char *l = lines[i];
        double w;
        if (strncmp(l, "payload words ", 14) == 0 && field(l, "words", &w)) {
            out->words = (uint64_t)w;
            words = true;
        } else if (strncmp(l, "pass ", 5) == 0 && out->npasses < TC_VM_ACCOUNT_PASSES) {
            tc_vm_pass *p = &out->pass[out->npasses];
            static const char *const keys[] = {"cpu_us", "cpu_lo_us", "cpu_hi_us", "testers", "wall_us", "traced_us", "faults",
                                               "gcs", "carriers", "unmapped", "dirty_carriers", "dirty_cpu_us", "minor", "major",
                                               "dirty", "copied", "moved", "mbuf", "gc_us", "heap", "sleeps"};
            double *const slots[] = {&p->cpu_us, &p->cpu_lo_us, &p->cpu_hi_us, &p->testers, &p->wall_us, &p->traced_us, &p->faults,
                                     &p->gcs, &p->carriers, &p->unmapped, &p->dirty_carriers, &p->dirty_cpu_us, &p->minor, &p->major,
                                     &p->dirty, &p->copied, &p->moved, &p->mbuf, &p->gc_us, &p->heap, &p->sleeps};
            if (!word_at(l, 1, p->test, sizeof p->test) || !fields(l, keys, slots, (int)(sizeof keys / sizeof *keys)))
                break;
            out->npasses++;
        } else if (strncmp(l, "price ", 6) == 0 && out->nprices < TC_VM_ACCOUNT_PRICES) {
            tc_vm_price *p = &out->price[out->nprices];
            static const char *const keys[] = {"cpu_ns", "wall_ns", "faults", "gcs", "words", "ops", "sleeps"};
            double *const slots[] = {&p->cpu_ns, &p->wall_ns, &p->faults, &p->gcs, &p->words, &p->ops, &p->sleeps};
            if (!word_at(l, 1, p->loop, sizeof p->loop) || !word_at(l, 2, p->unit, sizeof p->unit) ||
                !fields(l, keys, slots, 7))
                break;
            out->nprices++;
        }
    }
    if (!words || out->npasses != TC_VM_ACCOUNT_PASSES || out->nprices == 0) {
        fprintf(stderr, "%s: --vm: the VM's account of %s L = %ld is incomplete\n", vm->prog, payload, len);
        return false;
    }
    return true;
}
