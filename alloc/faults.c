#define _GNU_SOURCE /* RUSAGE_THREAD */
#include "faults.h"

#include <sys/resource.h>

uint64_t tc_faults_minor(void)
{
    struct rusage ru;
#ifdef RUSAGE_THREAD
    if (getrusage(RUSAGE_THREAD, &ru) == 0)
        return (uint64_t)ru.ru_minflt;
#endif
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        return (uint64_t)ru.ru_minflt;
    return 0;
}
