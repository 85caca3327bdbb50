#include "vmside.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct tc_vm {
    const char *prog;
    pid_t pid;
    FILE *to, *from; /* the VM's standard input and output */
    char dir[64];    /* the temporary directory of the .beam files */
};

bool tc_vm_on_path(const char *name)
{
    const char *path = getenv("PATH");
    char file[4096];
    while (path && *path) {
        size_t n = strcspn(path, ":");
        if (n > 0 && snprintf(file, sizeof file, "%.*s/%s", (int)n, path, name) < (int)sizeof file &&
            access(file, X_OK) == 0)
            return true;
        path += n + (path[n] == ':');
    }
    return false;
}

bool tc_vm_installed(void) { return tc_vm_on_path("erl") && tc_vm_on_path("erlc"); }

static const char *const beams[] = {"eptest.beam", "unitcost.beam"};

static void remove_dir(tc_vm *vm)
{
    if (!vm->dir[0])
        return;
    char file[128];
    for (size_t i = 0; i < sizeof beams / sizeof *beams; i++) {
        (void)snprintf(file, sizeof file, "%s/%s", vm->dir, beams[i]); /* dir is short */
        (void)unlink(file);                                           /* absent is fine */
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

tc_vm *tc_vm_start(const char *prog, const char *beam_dir)
{
    tc_vm *vm = calloc(1, sizeof *vm);
    if (!vm) {
        fprintf(stderr, "%s: --vm: out of memory\n", prog);
        return NULL;
    }
    vm->prog = prog;
    if (!tc_vm_installed())
        return start_fail(vm, "needs erl and erlc on PATH (install Erlang/OTP: apt-get install erlang-nox)");
    if (!beam_dir)
        beam_dir = TC_BENCH_SOURCE_DIR "/experiments/beam";
    char src[2][4096];
    static const char *const names[] = {"eptest.erl", "unitcost.erl"};
    for (int i = 0; i < 2; i++)
        if (snprintf(src[i], sizeof src[i], "%s/%s", beam_dir, names[i]) >= (int)sizeof src[i] ||
            access(src[i], R_OK) != 0)
            return start_fail(vm, "cannot find eptest.erl and unitcost.erl");
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp || strlen(tmp) > 32)
        tmp = "/tmp";
    (void)snprintf(vm->dir, sizeof vm->dir, "%s/termcopy-vm.XXXXXX", tmp);
    if (!mkdtemp(vm->dir)) {
        vm->dir[0] = '\0';
        return start_fail(vm, "cannot make a temporary directory");
    }
    char *erlc[] = {"erlc", "-o", vm->dir, src[0], src[1], NULL};
    if (run_wait(erlc) != 0)
        return start_fail(vm, "erlc failed on eptest.erl and unitcost.erl");

    int in[2], out[2];
    if (pipe(in) != 0)
        return start_fail(vm, "no pipe");
    if (pipe(out) != 0) {
        (void)close(in[0]);
        (void)close(in[1]);
        return start_fail(vm, "no pipe");
    }
    posix_spawn_file_actions_t fa;
    char *erl[] = {"erl", "-noshell", "+S", "2:2", "-pa", vm->dir, "-s", "unitcost", "main", NULL};
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
static bool ask(tc_vm *vm, const char *cmd, char lines[][128], int max, int *n)
{
    if (fputs(cmd, vm->to) == EOF || fflush(vm->to) == EOF) {
        char why[128] = "unknown error"; /* strerror_r: library code may run on any thread */
        (void)strerror_r(errno, why, sizeof why);
        fprintf(stderr, "%s: --vm: the VM is gone (%s)\n", vm->prog, why);
        return false;
    }
    char line[256];
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
        (void)snprintf(lines[(*n)++], 128, "%.127s", line); /* answers are short */
    }
    fprintf(stderr, "%s: --vm: the VM ended during '%.*s' (its error is above)\n", vm->prog,
            (int)strcspn(cmd, "\n"), cmd);
    return false;
}

/* The number after `key` and a space in `line`; false when there is none. */
static bool field(const char *line, const char *key, double *out)
{
    const char *p = strstr(line, key);
    if (!p || p[strlen(key)] != ' ')
        return false;
    p += strlen(key) + 1;
    char *end;
    *out = strtod(p, &end);
    return end != p;
}

bool tc_vm_point(tc_vm *vm, const char *unit, const char *shape, long len, int reps, double *ns, double *faults)
{
    char cmd[160], lines[1][128];
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
    char cmd[64], lines[4][128];
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
