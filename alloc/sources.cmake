# alloc/: the memory source (carriers, sbct, the segment cache) and the page-fault counter.
set(TC_ALLOC_SOURCES alloc/faults.c alloc/mseg.c)
