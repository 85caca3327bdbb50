# heaps/: process heaps, the memory source, the GC (files listed as they are added).
set(TC_HEAPS_SOURCES)
