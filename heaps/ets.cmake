# heaps/ets: the ETS set table, its lock modes, and the process dictionary.
list(APPEND TC_HEAPS_SOURCES heaps/ets.c heaps/ets_lock.c heaps/pdict.c)
