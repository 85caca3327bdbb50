#include "progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

void tc_progress_line(const char *fmt, ...)
{
    if (!isatty(STDERR_FILENO))
        return;
    fputs("\r\033[K", stderr);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized): va_start is the line above
    va_end(ap);
    (void)fflush(stderr); /* a progress line: nothing to do if it is lost */
}

void tc_progress_end(void)
{
    if (isatty(STDERR_FILENO))
        fputs("\r\033[K", stderr);
}
