#define _GNU_SOURCE /* syscall */
#include "perf.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct {
    const char *name;
    uint64_t config;
} events[TC_PERF_NEVENTS] = {
    [TC_PERF_CYCLES] = {"cycles", PERF_COUNT_HW_CPU_CYCLES},
    [TC_PERF_INSTRUCTIONS] = {"instructions", PERF_COUNT_HW_INSTRUCTIONS},
    [TC_PERF_CACHE_MISSES] = {"cache_misses", PERF_COUNT_HW_CACHE_MISSES},
};

const char *tc_perf_event_name(tc_perf_event e) { return e < TC_PERF_NEVENTS ? events[e].name : "?"; }

static int open_event(tc_perf_event e, int group, bool kernel)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_HARDWARE;
    a.config = events[e].config;
    a.disabled = group < 0; /* the leader starts and stops the whole group */
    a.exclude_kernel = !kernel;
    a.exclude_hv = 1;
    a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

void tc_perf_close(tc_perf *p)
{
    for (int e = TC_PERF_NEVENTS - 1; e >= 0; e--) {
        if (p->fd[e] >= 0)
            close(p->fd[e]);
        p->fd[e] = -1;
    }
    p->available = false;
}

/* All three in one group, so that they count exactly the same instructions. */
static int open_group(tc_perf *p, bool kernel, tc_perf_event *failed)
{
    for (int e = 0; e < TC_PERF_NEVENTS; e++) {
        p->fd[e] = open_event((tc_perf_event)e, e == 0 ? -1 : p->fd[0], kernel);
        if (p->fd[e] < 0) {
            int err = errno;
            *failed = (tc_perf_event)e;
            tc_perf_close(p);
            return err;
        }
    }
    return 0;
}

bool tc_perf_open(tc_perf *p)
{
    memset(p, 0, sizeof *p);
    for (int e = 0; e < TC_PERF_NEVENTS; e++)
        p->fd[e] = -1;
    tc_perf_event failed = TC_PERF_CYCLES;
    /* Kernel mode too if perf_event_paranoid allows it: page faults are kernel work. */
    int err = open_group(p, true, &failed);
    p->kernel = err == 0;
    if (err == EACCES || err == EPERM)
        err = open_group(p, false, &failed);
    if (err != 0) {
        /* truncated is fine: it is a message */
        (void)snprintf(p->why, sizeof p->why, "%s: %s (errno %d)%s", events[failed].name, strerror(err), err,
                       err == ENOENT ? ", no hardware PMU (a VM without one?)" : "");
        return false;
    }
    p->available = true;
    return true;
}

void tc_perf_start(tc_perf *p)
{
    if (!p->available)
        return;
    ioctl(p->fd[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
    ioctl(p->fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
}

tc_perf_counts tc_perf_stop(tc_perf *p)
{
    tc_perf_counts c = {0};
    if (!p->available)
        return c;
    ioctl(p->fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
    struct {
        uint64_t nr, enabled, running, value[TC_PERF_NEVENTS];
    } r;
    if (read(p->fd[0], &r, sizeof r) != (ssize_t)sizeof r || r.nr != TC_PERF_NEVENTS)
        return c;
    /* Multiplexed for part of the region: the counts cover an unknown part of it. */
    c.measured = r.running > 0 && r.running == r.enabled;
    if (c.measured)
        memcpy(c.value, r.value, sizeof c.value);
    return c;
}

void tc_perf_csv_values(FILE *f, const tc_perf_counts *c)
{
    for (int e = 0; e < TC_PERF_NEVENTS; e++) {
        if (e > 0)
            fputc(',', f);
        if (c->measured)
            fprintf(f, "%llu", (unsigned long long)c->value[e]);
        else
            fputs("n/a", f);
    }
}

void tc_perf_meta(FILE *f, const tc_perf *p)
{
    if (p->available)
        fprintf(f, "# perf_counters: %s, %s mode, this thread; n/a where the group was multiplexed\n",
                TC_PERF_CSV_HEADER, p->kernel ? "user and kernel" : "user");
    else
        fprintf(f, "# perf_counters: not measured (n/a): %s\n", p->why);
}
