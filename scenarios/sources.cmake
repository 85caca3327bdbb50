# scenarios/: the workloads as processes of the model (eptest's tester and server, the lookup
# loop, the 2009 loops), their runners on the real VM, and the clock they time themselves with.
set(TC_SCENARIOS_SOURCES
  scenarios/account.c scenarios/erasep.c scenarios/etsloops.c scenarios/lookuploop.c scenarios/progress.c scenarios/timing.c
  scenarios/vmoverhead.c scenarios/vmside.c
  scenarios/workload.c)
