#include "policy.h"

#include <stdlib.h>
#include <string.h>

tc_policy tc_policy_r10b(void)
{
    tc_policy p = {
        .name = "r10b",
        .heap_table = TC_HEAP_TABLE_R10B,
        .frag_rule = TC_FRAG_R10B,
        .trigger = TC_GC_AT_SCHEDULE,
        .gc_rules = TC_GC_RULES_R10B,
        .bif_gc_test = TC_BIF_GC_WORDS, /* unused: R10B collects at schedule */
        .long_gc_words = 0,             /* no dirty schedulers */
        .move_live_frags = false,
        .redzone = 0,  /* R10B-2 has neither S_REDZONE nor S_RESERVED */
        .reserved = 0,
        .gc_call_words = 0, /* the interpreter calls the GC from C, no stack word */
        .receive_delays_gc = false,
        .gc_after_send = false,
        .shrink = true,
        .bin_vheap = false, /* R10B-2 weighs binaries into MSO(p).overhead instead (proc.h) */
        .min_bin_vheap_size = 0,
        .context_reds = 1000,
        .min_heap_size = 233,
        .fullsweep_after = 65535,
        .send_path = TC_SEND_DIRECT,
        .copy_out = TC_COPY_OUT_SHALLOW,
        .mem = tc_mseg_default_config(),
    };
    /* erts 5.4.3 (R10B-2) erl_mseg.h ERTS_MSEG_INIT_DEFAULT_INITIALIZER: mcs 5 (OTP 25: 10);
     * amcbf 4 MiB, rmcbf 20 and the eheap sbct 512 KiB (erl_alloc_util.h) as today. */
    p.mem.cache_slots = 5;
    return p;
}

tc_policy tc_policy_otp25(void)
{
    tc_policy p = {
        .name = "otp25",
        .heap_table = TC_HEAP_TABLE_MODERN,
        .frag_rule = TC_FRAG_MODERN,
        .trigger = TC_GC_AFTER_BIF,
        .gc_rules = TC_GC_RULES_MODERN,
        .bif_gc_test = TC_BIF_GC_X86_JIT,
        .long_gc_words = 128 * 1024,
        .move_live_frags = true,
        .redzone = 3,  /* S_REDZONE: CP_SIZE * 3 on the x86-64 JIT with the native stack */
        .reserved = 4, /* S_RESERVED: CP_SIZE + S_REDZONE */
        .gc_call_words = 1, /* fragment_call's return address (native stack) */
        .receive_delays_gc = true,
        .gc_after_send = true,
        .shrink = true,
        .bin_vheap = true,
        .min_bin_vheap_size = 32768, /* VH_DEFAULT_SIZE */
        .context_reds = 4000,
        .min_heap_size = 233,
        .fullsweep_after = 65535,
        .send_path = TC_SEND_HEAP_OR_FRAG,
        .copy_out = TC_COPY_OUT_SHALLOW,
        .mem = tc_mseg_default_config(),
    };
    return p;
}

tc_result tc_policy_preset(const char *name, tc_policy *out)
{
    if (name && strcmp(name, "r10b") == 0)
        *out = tc_policy_r10b();
    else if (name && strcmp(name, "otp25") == 0)
        *out = tc_policy_otp25();
    else
        return TC_EBADARG;
    return TC_OK;
}

tc_result tc_send_path_parse(const char *name, tc_send_path *out)
{
    if (name && strcmp(name, "direct") == 0)
        *out = TC_SEND_DIRECT;
    else if (name && strcmp(name, "heap_or_frag") == 0)
        *out = TC_SEND_HEAP_OR_FRAG;
    else
        return TC_EBADARG;
    return TC_OK;
}

const char *tc_send_path_name(tc_send_path path) { return path == TC_SEND_DIRECT ? "direct" : "heap_or_frag"; }

void tc_policy_apply_env(tc_policy *p)
{
    const char *s = getenv("TC_GC_STRESS");
    if (s && *s && strcmp(s, "0") != 0)
        p->gc_stress = true;
}
