# stores/: the ETS set table and its lock modes.
set(TC_STORES_SOURCES stores/ets.c stores/ets_lock.c)
