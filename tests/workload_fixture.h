/*
 * workload_fixture.h — an era's eptest configuration for the scenario tests
 * (scenarios/workload.h), the shape, length and calls per pass set.
 */
#ifndef TC_TESTS_WORKLOAD_FIXTURE_H
#define TC_TESTS_WORKLOAD_FIXTURE_H

#include <check.h>

#include "scenarios/workload.h"

static inline tc_ep_config ep_config(const char *era, tc_ep_shape shape, long len, long calls)
{
    tc_ep_config cfg;
    ck_assert_int_eq(tc_ep_config_for_era(era, &cfg), TC_OK);
    cfg.shape = shape;
    cfg.len = len;
    cfg.iterations = calls;
    return cfg;
}

#endif
