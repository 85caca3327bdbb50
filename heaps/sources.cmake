# heaps/: process heaps, the memory source, the GC (files listed as they are added).
set(TC_HEAPS_SOURCES
  heaps/faults.c heaps/gc.c heaps/mseg.c heaps/policy.c heaps/proc.c heaps/sched.c heaps/verify.c)
include(${CMAKE_CURRENT_LIST_DIR}/ets.cmake OPTIONAL)
