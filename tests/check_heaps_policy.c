/*
 * The policy table (heaps/policy.h): every field fully described, every preset built from it,
 * every allowed value set by name and every other refused with the allowed values named, and
 * the presets read back from the table's CSV.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"

static bool is_name(const char *s)
{
    if (!s || !*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

START_TEST(every_field_is_described)
{
    unsigned n = tc_policy_field_count();
    ck_assert_uint_ge(n, 30);
    ck_assert_ptr_null(tc_policy_field_at(n));
    for (unsigned i = 0; i < n; i++) {
        const tc_policy_field *f = tc_policy_field_at(i);
        ck_assert_msg(is_name(f->name), "field %u: bad name", i);
        ck_assert_ptr_eq(tc_policy_field_find(f->name), f); /* names are unique */
        ck_assert_msg(f->erts && strlen(f->erts) > 10, "%s: no erts citation", f->name);
        ck_assert_msg(f->what && strlen(f->what) > 10, "%s: no description", f->name);
        ck_assert_uint_le(f->offset + f->size, sizeof(tc_policy));
        switch (f->type) {
        case TC_POLICY_BOOL:
            ck_assert_uint_eq(f->size, sizeof(bool));
            break;
        case TC_POLICY_ENUM: {
            ck_assert_ptr_nonnull(f->names);
            unsigned k = 0;
            for (; f->names[k]; k++)
                ck_assert_msg(is_name(f->names[k]), "%s: bad value name %u", f->name, k);
            ck_assert_msg(k >= 2, "%s: an enum of fewer than two values", f->name);
            ck_assert_uint_eq(f->size, sizeof(tc_gc_trigger));
            ck_assert_uint_eq(f->proposal >> k, 0); /* marks only names it has */
            break;
        }
        case TC_POLICY_UINT:
            ck_assert_uint_le(f->lo, f->hi);
            ck_assert(f->size == 4 || f->size == 8);
            ck_assert(f->size == 8 || f->hi <= UINT32_MAX);
            ck_assert_ptr_null(f->names);
            break;
        default:
            ck_abort_msg("%s: unknown type", f->name);
        }
        /* a value per era that is a preset; an era that is not has no value at all yet */
        for (unsigned e = 0; e < TC_POLICY_ERAS; e++) {
            if (tc_policy_era_ready(e)) {
                ck_assert_msg(f->era[e] != NULL, "%s: no value for %s", f->name, tc_policy_era_at(e)->name);
                tc_policy p = {0};
                char err[512];
                ck_assert_msg(tc_policy_set_field(&p, f, f->era[e], err, sizeof err) == TC_OK, "%s", err);
            }
        }
    }
    unsigned g = tc_policy_field_find("gc_trigger")->type;
    ck_assert_uint_eq(g, TC_POLICY_ENUM);
    ck_assert_ptr_null(tc_policy_field_find("gc_rules")); /* split into mechanisms */
    ck_assert_ptr_null(tc_policy_field_find(NULL));
}
END_TEST

START_TEST(the_eras_are_presets_or_empty_columns)
{
    unsigned ready = 0, native = 0;
    for (unsigned e = 0; e < TC_POLICY_ERAS; e++) {
        const tc_policy_era *era = tc_policy_era_at(e);
        ck_assert(is_name(era->name) && era->vm && *era->vm);
        ck_assert_ptr_eq(tc_policy_era_find(era->name), era);
        unsigned given = 0;
        for (unsigned i = 0; i < tc_policy_field_count(); i++)
            given += tc_policy_field_at(i)->era[e] != NULL;
        /* a column is whole or empty: an era is added all at once */
        ck_assert_msg(given == 0 || given == tc_policy_field_count(), "%s: %u of %u values", era->name, given,
                      tc_policy_field_count());
        tc_policy p;
        ck_assert_int_eq(tc_policy_preset(era->name, &p), tc_policy_era_ready(e) ? TC_OK : TC_EBADARG);
        if (tc_policy_era_ready(e)) {
            ready++;
            ck_assert_str_eq(p.name, era->name);
            ck_assert_int_ge(era->gap_len, 10);
        }
        native += era->native;
        if (era->native)
            ck_assert(tc_policy_era_ready(e));
    }
    ck_assert_uint_eq(ready, 3); /* r10b, r13b, otp25 */
    ck_assert_uint_eq(native, 1);
    ck_assert_str_eq(tc_policy_native().name, "otp25");
    ck_assert_ptr_null(tc_policy_era_at(TC_POLICY_ERAS));
    tc_policy p;
    ck_assert_int_eq(tc_policy_preset("r9c", &p), TC_EBADARG);
    ck_assert_int_eq(tc_policy_preset(NULL, &p), TC_EBADARG);
    char names[128];
    tc_policy_preset_names(names, sizeof names);
    for (unsigned e = 0; e < TC_POLICY_ERAS; e++) /* the presets, and only they */
        ck_assert(!strstr(names, tc_policy_era_at(e)->name) == !tc_policy_era_ready(e));
    ck_assert(strstr(names, "r10b") == names && strstr(names, " or ") != NULL);
}
END_TEST

/* The presets as the model had them before the table (the values the erts sources give). */
START_TEST(the_presets_hold_the_eras_values)
{
    tc_policy r = tc_preset_ok("r10b"), o = tc_preset_ok("otp25");
    ck_assert(r.heap_table == TC_HEAP_TABLE_FIB_SLOW && o.heap_table == TC_HEAP_TABLE_FIB_PLUS1);
    ck_assert(r.frag_rule == TC_FRAG_ARITH && o.frag_rule == TC_FRAG_EXACT);
    ck_assert(r.gc_trigger == TC_GC_AT_SCHEDULE && o.gc_trigger == TC_GC_AFTER_BIF);
    ck_assert(r.send_path == TC_SEND_DIRECT && o.send_path == TC_SEND_HEAP_OR_FRAG);
    ck_assert(!r.send_litopt && !r.send_reds && o.send_litopt && o.send_reds);
    ck_assert(r.mem.mmsbc == 256 && o.mem.mmsbc == 256);
    ck_assert(r.shrink_min_words == 300 && o.shrink_min_words == 3000);
    ck_assert(!r.shrink_old_floor && o.shrink_old_floor);
    ck_assert(r.tenure == TC_TENURE_FLIP && o.tenure == TC_TENURE_SECOND_SURVIVAL);
    ck_assert(r.context_reds == 1000 && o.context_reds == 4000);
    ck_assert(r.call_reds == 1 && o.call_reds == 2);
    ck_assert(r.input_reductions == 2000 && o.input_reductions == 0);
    ck_assert(r.receive_gc_reds == 0 && o.receive_gc_reds == 5);
    ck_assert(r.redzone == 0 && o.redzone == 3 && r.reserved == 0 && o.reserved == 4);
    ck_assert(r.long_gc_words == 0 && o.long_gc_words == 128 * 1024);
    ck_assert(r.mem.cache_slots == 5 && o.mem.cache_slots == 10);
    ck_assert(r.mem.sbct == 512 * 1024 && o.mem.sbct == 512 * 1024);
    ck_assert(r.mem.fit == TC_MSEG_FIT_BEST_WHOLE && o.mem.fit == TC_MSEG_FIT_NEWEST_SPLIT);
    ck_assert(r.mem.sbc_unit == 4096 && o.mem.sbc_unit == 16384);
    ck_assert(r.min_heap_size == 233 && o.fullsweep_after == 65535);
    ck_assert(r.copy_out == TC_COPY_OUT_SHALLOW && !r.gc_stress && !o.gc_stress);
    /* R13B01 (erts 5.7.2): R10B-2's collector with OTP 25's shrink rules, its own heap table,
     * fragment rule, GC-after-BIF and old-heap size (check_heaps_r13b.c pins each) */
    tc_policy t = tc_preset_ok("r13b");
    ck_assert(t.heap_table == TC_HEAP_TABLE_FIB_SLOW_FLOOR && t.frag_rule == TC_FRAG_FILL && !t.frag_yield);
    ck_assert(t.msg_frag == TC_MSG_FRAG_COPY && t.gc_trigger == TC_GC_AFTER_BIF && t.bif_gc_test == TC_BIF_GC_ANY_FRAG);
    ck_assert(t.sched_gc_test == TC_SCHED_GC_HEAP_SIZE && r.sched_gc_test == TC_SCHED_GC_HEAP_SIZE &&
              o.sched_gc_test == TC_SCHED_GC_DESIRED);
    ck_assert(t.send_path == TC_SEND_DIRECT && t.gc_after_send && !t.move_live_frags && t.long_gc_words == 0);
    ck_assert(!t.send_litopt && !t.send_reds);
    ck_assert(t.redzone == 0 && t.reserved == 0 && t.shrink && t.shrink_min_words == 3000 && t.shrink_old_floor);
    ck_assert(t.old_heap_size == TC_OLD_HEAP_HEAP_USE && t.minor_needs_old_heap && t.minor_heap_size == TC_GC_SIZE_HEAP);
    ck_assert(t.minor_short == TC_MINOR_SHORT_FULLSWEEP && t.major_heap_size == TC_GC_SIZE_HEAP && !t.major_stack);
    ck_assert(r.major_stack && o.major_stack);
    ck_assert(t.tenure == TC_TENURE_FLIP && t.gc_cost == TC_GC_COST_LIVE && !t.bin_vheap && t.min_bin_vheap_size == 0);
    ck_assert(t.context_reds == 2000 && t.call_reds == 1 && t.input_reductions == 4000 && t.receive_gc_reds == 0);
    ck_assert(t.min_heap_size == 233 && t.fullsweep_after == 65535 && t.mem.sbct == 512 * 1024 && t.mem.cache_slots == 5);
    ck_assert(t.copy_out == TC_COPY_OUT_SHALLOW && !t.gc_stress);
    /* the locks of the allocators: R13B01's mseg_mutex in both its emulators, no allocator lock
     * in its plain one (the SMP one's, alloc_lock, is a --set); none in R10B-2 or OTP 25 */
    ck_assert(t.mem.seg_lock && !t.mem.thread_safe && !r.mem.seg_lock && !r.mem.thread_safe);
    ck_assert(!o.mem.seg_lock && !o.mem.thread_safe);
    char err[256];
    ck_assert_msg(tc_policy_set(&t, "alloc_lock=on", err, sizeof err) == TC_OK, "%s", err);
    ck_assert(t.mem.thread_safe && t.mem.seg_lock);
    /* the allocator's settings the table does not hold are its defaults in every era */
    tc_mseg_config d = tc_mseg_default_config();
    ck_assert(r.mem.rmcbf == d.rmcbf && r.mem.amcbf == d.amcbf && o.mem.instances == d.instances);
}
END_TEST

/* Every value a field allows, as text: enum names, on/off, the range's ends and a middle. */
static int allowed(const tc_policy_field *f, char out[][32], int cap)
{
    int n = 0;
    if (f->type == TC_POLICY_BOOL) {
        (void)snprintf(out[n++], 32, "on");
        (void)snprintf(out[n++], 32, "off");
    } else if (f->type == TC_POLICY_ENUM) {
        for (unsigned k = 0; f->names[k] && n < cap; k++)
            (void)snprintf(out[n++], 32, "%s", f->names[k]);
    } else {
        (void)snprintf(out[n++], 32, "%llu", (unsigned long long)f->lo);
        (void)snprintf(out[n++], 32, "%llu", (unsigned long long)f->lo + ((unsigned long long)f->hi - f->lo) / 2);
        (void)snprintf(out[n++], 32, "%llu", (unsigned long long)f->hi);
    }
    return n;
}

START_TEST(set_takes_every_allowed_value)
{
    for (unsigned i = 0; i < tc_policy_field_count(); i++) {
        const tc_policy_field *f = tc_policy_field_at(i);
        char values[16][32];
        int n = allowed(f, values, 16);
        for (int k = 0; k < n; k++) {
            tc_policy p = tc_preset_ok("otp25");
            char assign[640], err[512], text[32];
            (void)snprintf(assign, sizeof assign, "%s=%s", f->name, values[k]);
            ck_assert_msg(tc_policy_set(&p, assign, err, sizeof err) == TC_OK, "%s: %s", assign, err);
            ck_assert_str_eq(tc_policy_value_text(&p, f, text, sizeof text), values[k]);
            /* nothing else moved */
            tc_policy o = tc_preset_ok("otp25");
            for (unsigned j = 0; j < tc_policy_field_count(); j++)
                if (j != i)
                    ck_assert_uint_eq(tc_policy_get(&p, tc_policy_field_at(j)), tc_policy_get(&o, tc_policy_field_at(j)));
        }
    }
    /* and the C value behind a name */
    tc_policy p = tc_preset_ok("r10b");
    ck_assert_int_eq(tc_policy_set(&p, "gc_trigger=bif", NULL, 0), TC_OK);
    ck_assert_int_eq(tc_policy_set(&p, "sbct=2097152", NULL, 0), TC_OK);
    ck_assert_int_eq(tc_policy_set(&p, "copy_out=shallow_fast", NULL, 0), TC_OK);
    ck_assert_int_eq(tc_policy_set(&p, "context_reds=4000", NULL, 0), TC_OK);
    ck_assert(p.gc_trigger == TC_GC_AFTER_BIF && p.mem.sbct == 2097152 && p.copy_out == TC_COPY_OUT_SHALLOW_FAST &&
              p.context_reds == 4000);
}
END_TEST

START_TEST(set_refuses_the_rest_naming_what_it_takes)
{
    for (unsigned i = 0; i < tc_policy_field_count(); i++) {
        const tc_policy_field *f = tc_policy_field_at(i);
        char expected[256];
        tc_policy_field_expected(f, expected, sizeof expected);
        char bad[8][32] = {"", "x", " 1", "+1", "-1", "1x", "on ", "ON"};
        int nbad = 8;
        if (f->type == TC_POLICY_UINT) {
            (void)snprintf(bad[0], 32, "%llu", (unsigned long long)f->hi + 1);
            if (f->lo > 0)
                (void)snprintf(bad[1], 32, "%llu", (unsigned long long)f->lo - 1);
        }
        for (int k = 0; k < nbad; k++) {
            tc_policy p = tc_preset_ok("otp25"), o = p;
            char assign[640], err[512];
            (void)snprintf(assign, sizeof assign, "%s=%s", f->name, bad[k]);
            ck_assert_msg(tc_policy_set(&p, assign, err, sizeof err) == TC_EBADARG, "%s was taken", assign);
            ck_assert_msg(strstr(err, expected) && strstr(err, f->name), "%s: message '%s'", assign, err);
            ck_assert_uint_eq(tc_policy_get(&p, f), tc_policy_get(&o, f)); /* left as it was */
        }
    }
    char err[2048];
    tc_policy p = tc_preset_ok("otp25");
    ck_assert_int_eq(tc_policy_set(&p, "gc_trigger=later", err, sizeof err), TC_EBADARG);
    ck_assert_str_eq(err, "gc_trigger: expected schedule or bif, got 'later'");
    ck_assert_int_eq(tc_policy_set(&p, "shrink=1", err, sizeof err), TC_EBADARG);
    ck_assert_str_eq(err, "shrink: expected on or off, got '1'");
    ck_assert_int_eq(tc_policy_set(&p, "mseg_cache=1001", err, sizeof err), TC_EBADARG);
    ck_assert_str_eq(err, "mseg_cache: expected an integer in 0..1000, got '1001'");
    ck_assert_int_eq(tc_policy_set(&p, "sbct=99999999999999999999999", err, sizeof err), TC_EBADARG);
    ck_assert_int_eq(tc_policy_set(&p, "gc_rules=r10b", err, sizeof err), TC_EBADARG);
    for (unsigned i = 0; i < tc_policy_field_count(); i++) /* names every field */
        ck_assert_ptr_nonnull(strstr(err, tc_policy_field_at(i)->name));
    ck_assert_ptr_nonnull(strstr(err, "got 'gc_rules=r10b'"));
    ck_assert_int_eq(tc_policy_set(&p, "shrink", err, sizeof err), TC_EBADARG);
    ck_assert_int_eq(tc_policy_set(&p, "=on", err, sizeof err), TC_EBADARG);
    ck_assert_int_eq(tc_policy_set(&p, "copy_out=\x01", err, sizeof err), TC_EBADARG);
    ck_assert_ptr_nonnull(strstr(err, "got '\\x01'")); /* a control byte is quoted */
}
END_TEST

START_TEST(flip_switches_two_valued_fields_only)
{
    for (unsigned i = 0; i < tc_policy_field_count(); i++) {
        const tc_policy_field *f = tc_policy_field_at(i);
        tc_policy p = tc_preset_ok("r10b");
        uint64_t before = tc_policy_get(&p, f);
        bool two = f->type == TC_POLICY_BOOL || (f->type == TC_POLICY_ENUM && f->names[2] == NULL);
        ck_assert_int_eq(tc_policy_flip(&p, f), two ? TC_OK : TC_EBADARG);
        if (two) {
            ck_assert_uint_ne(tc_policy_get(&p, f), before);
            ck_assert_int_eq(tc_policy_flip(&p, f), TC_OK);
        }
        ck_assert_uint_eq(tc_policy_get(&p, f), before);
    }
}
END_TEST

START_TEST(format_names_every_field_and_the_changes)
{
    tc_policy p = tc_preset_ok("r10b");
    char all[4096], changed[512];
    tc_policy_format(&p, all, sizeof all, changed, sizeof changed);
    ck_assert(strncmp(all, "r10b (heap_table=fib_slow, frag_rule=arith, ", 44) == 0);
    ck_assert_str_eq(changed, "none");
    for (unsigned i = 0; i < tc_policy_field_count(); i++) {
        char want[96], v[32];
        const tc_policy_field *f = tc_policy_field_at(i);
        (void)snprintf(want, sizeof want, "%s=%s", f->name, tc_policy_value_text(&p, f, v, sizeof v));
        ck_assert_msg(strstr(all, want) != NULL, "no '%s' in '%s'", want, all);
    }
    ck_assert_int_eq(tc_policy_set(&p, "min_heap_size=4096", NULL, 0), TC_OK);
    ck_assert_int_eq(tc_policy_set(&p, "copy_out=shallow_fast", NULL, 0), TC_OK);
    tc_policy_format(&p, NULL, 0, changed, sizeof changed);
    ck_assert_str_eq(changed, "min_heap_size=4096, copy_out=shallow_fast: a PROPOSAL, not the VM");
    /* a short buffer is cut, never overrun */
    char tiny[8];
    tc_policy_format(&p, tiny, sizeof tiny, NULL, 0);
    ck_assert_str_eq(tiny, "r10b (h");
}
END_TEST

/* Splits one CSV line (RFC 4180 quotes) into at most cap fields; returns the count. */
static int csv_split(char *line, char **f, int cap)
{
    int n = 0;
    char *w = line, *r = line;
    while (n < cap) {
        f[n++] = w;
        bool quoted = *r == '"';
        r += quoted;
        for (; *r; r++) {
            if (quoted && *r == '"' && r[1] == '"')
                *w++ = *r++;
            else if (quoted && *r == '"')
                quoted = false;
            else if (!quoted && (*r == ',' || *r == '\n'))
                break;
            else
                *w++ = *r;
        }
        char end = *r;
        *w++ = '\0';
        if (end != ',')
            break;
        r++;
    }
    return n;
}

START_TEST(presets_round_trip_through_the_csv)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    tc_policy_write_table(f, true);
    rewind(f);
    char line[4096];
    bool native = false;
    do { /* the metadata lines, then the header */
        ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
        native |= strcmp(line, "# native: otp25\n") == 0;
    } while (line[0] == '#');
    ck_assert(native);
    ck_assert_str_eq(line, "name,type,values,r10b,r13b,otp25,erts,what\n");
    tc_policy built[TC_POLICY_ERAS];
    for (unsigned e = 0; e < TC_POLICY_ERAS; e++)
        built[e] = (tc_policy){.name = tc_policy_era_at(e)->name, .mem = tc_mseg_default_config()};
    unsigned rows = 0;
    while (fgets(line, sizeof line, f)) {
        char *col[16];
        ck_assert_int_eq(csv_split(line, col, 16), 3 + TC_POLICY_ERAS + 2);
        const tc_policy_field *fd = tc_policy_field_at(rows++);
        ck_assert_ptr_nonnull(fd);
        ck_assert_str_eq(col[0], fd->name);
        ck_assert_str_eq(col[1], fd->type == TC_POLICY_BOOL ? "bool" : fd->type == TC_POLICY_ENUM ? "enum" : "uint");
        ck_assert_str_eq(col[3 + TC_POLICY_ERAS], fd->erts);
        ck_assert_str_eq(col[4 + TC_POLICY_ERAS], fd->what);
        for (unsigned e = 0; e < TC_POLICY_ERAS; e++) {
            char *v = col[3 + e], assign[128], err[512];
            if (!tc_policy_era_ready(e)) {
                ck_assert_str_eq(v, "");
                continue;
            }
            (void)snprintf(assign, sizeof assign, "%s=%s", col[0], v);
            ck_assert_msg(tc_policy_set(&built[e], assign, err, sizeof err) == TC_OK, "%s", err);
        }
    }
    ck_assert_uint_eq(rows, tc_policy_field_count());
    (void)fclose(f);
    for (unsigned e = 0; e < TC_POLICY_ERAS; e++) {
        if (!tc_policy_era_ready(e))
            continue;
        tc_policy p = tc_preset_ok(tc_policy_era_at(e)->name);
        for (unsigned i = 0; i < tc_policy_field_count(); i++)
            ck_assert_uint_eq(tc_policy_get(&built[e], tc_policy_field_at(i)), tc_policy_get(&p, tc_policy_field_at(i)));
        /* field by field: the structs' padding is not a value (valgrind sees it uninitialised) */
        const tc_mseg_config *a = &built[e].mem, *b = &p.mem;
        ck_assert(a->sbct == b->sbct && a->cache_slots == b->cache_slots && a->rmcbf == b->rmcbf &&
                  a->amcbf == b->amcbf && a->rsbcst == b->rsbcst && a->asbcst == b->asbcst &&
                  a->rsbcmt == b->rsbcmt && a->mbc_bytes == b->mbc_bytes && a->smbcs == b->smbcs &&
                  a->lmbcs == b->lmbcs && a->mbcgs == b->mbcgs && a->instances == b->instances &&
                  a->thread_safe == b->thread_safe);
    }
}
END_TEST

START_TEST(the_text_table_lists_every_field_and_era)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    tc_policy_write_table(f, false);
    long size = ftell(f);
    ck_assert_int_gt(size, 0);
    rewind(f);
    char *text = calloc(1, (size_t)size + 1);
    ck_assert_ptr_nonnull(text);
    ck_assert_uint_eq(fread(text, 1, (size_t)size, f), (size_t)size);
    (void)fclose(f);
    for (unsigned i = 0; i < tc_policy_field_count(); i++) {
        ck_assert_ptr_nonnull(strstr(text, tc_policy_field_at(i)->name));
        ck_assert_ptr_nonnull(strstr(text, tc_policy_field_at(i)->erts));
    }
    for (unsigned e = 0; e < TC_POLICY_ERAS; e++)
        ck_assert_ptr_nonnull(strstr(text, tc_policy_era_at(e)->vm));
    free(text);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("heaps_policy");
    TCase *tc = tcase_create("table");
    tcase_add_test(tc, every_field_is_described);
    tcase_add_test(tc, the_eras_are_presets_or_empty_columns);
    tcase_add_test(tc, the_presets_hold_the_eras_values);
    tcase_add_test(tc, set_takes_every_allowed_value);
    tcase_add_test(tc, set_refuses_the_rest_naming_what_it_takes);
    tcase_add_test(tc, flip_switches_two_valued_fields_only);
    tcase_add_test(tc, format_names_every_field_and_the_changes);
    tcase_add_test(tc, presets_round_trip_through_the_csv);
    tcase_add_test(tc, the_text_table_lists_every_field_and_era);
    suite_add_tcase(s, tc);
    return tc_run_suite(s);
}
