# heaps/: processes, HAlloc and fragments, the GC, send/receive, the scheduler, the process
# dictionary, the policy, the heap verifier.
set(TC_HEAPS_SOURCES
  heaps/gc.c heaps/heapsize.c heaps/pdict.c heaps/policy.c heaps/proc.c heaps/sched.c heaps/send.c heaps/verify.c)
