#include "workload_cli.h"

tc_result tc_ep_cli_config(const tc_bench_cli *c, int era, long default_len, long default_iterations, tc_ep_config *out)
{
    tc_result r = tc_ep_config_for_era(c->eras[era], out);
    if (r != TC_OK)
        return r;
    out->len = c->len ? c->len : default_len;
    out->iterations = c->iterations ? c->iterations : default_iterations;
    if (c->shape >= 0)
        out->shape = (tc_ep_shape)c->shape;
    tc_bench_cli_policy(c, &out->policy);
    return TC_OK;
}

void tc_ep_meta_config(FILE *f, const tc_ep_config *c)
{
    tc_bench_meta_policy(f, &c->policy);
    char text[256];
    size_t used = 0;
    for (int k = 0; k < TC_EP_SWITCHES && used < sizeof text; k++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%s=%s", k ? ", " : "", tc_ep_switches[k].name,
                                 tc_ep_switch_get(c, &tc_ep_switches[k]) ? "on" : "off");
    tc_bench_meta(f, "workload", "%s", text);
}
