/*
 * progress.h — one progress line on stderr for a long run (tc_progress_*), overwritten in
 * place, and only when stderr is a terminal (so logs and pipes get nothing).
 *
 * Models no erts mechanism: what `termcopy explain` and every experiment binary print
 * while a scenario runs.
 */
#ifndef TC_SCENARIOS_PROGRESS_H
#define TC_SCENARIOS_PROGRESS_H

#include "../terms/base.h"

TC_BEGIN_DECLS

/* Overwrites the progress line. */
void tc_progress_line(const char *fmt, ...) TC_PRINTF(1, 2);
/* Clears it. */
void tc_progress_end(void);

TC_END_DECLS

#endif
