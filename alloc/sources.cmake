# alloc/: the memory source (carriers, sbct, the segment cache), temp_alloc's term-walk stack and the page-fault counter.
set(TC_ALLOC_SOURCES alloc/estack.c alloc/faults.c alloc/mseg.c)
