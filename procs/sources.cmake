# procs/: processes, HAlloc and fragments, the GC, send/receive, the scheduler, the process
# dictionary, the policy, the heap verifier.
set(TC_PROCS_SOURCES
  procs/gc.c procs/heapsize.c procs/pdict.c procs/policy.c procs/proc.c procs/sched.c procs/send.c procs/verify.c)
