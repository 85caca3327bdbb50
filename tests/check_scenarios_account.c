/*
 * check_scenarios_account — the time account's arithmetic (scenarios/account.h): counts times
 * prices phase by phase, a major GC's copy of Data charged once, the model's and the VM's
 * counts in the account's units, the prices derived from calibration rows (faults taken out,
 * per-word differences, the [] loop's own GCs out of the fixed cost, the collector's word price
 * where no message move was calibrated), a prices CSV written and read back at the nearest
 * length, and the probe's prices positive. Nothing here asserts how long anything took.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixtures.h"
#include "scenarios/account.h"
#include "workload_fixture.h"

static const tc_account_prices prices = {.fixed = 100,
                                         .word = 2,
                                         .gc_minor = 1000,
                                         .gc_major = 5000,
                                         .gc_word = 3,
                                         .gc_move_word = 1,
                                         .gc_frag_word = 4,
                                         .gc_dirty = 20000,
                                         .fault = 1500,
                                         .carrier = 6000,
                                         .carrier_dirty = 200000,
                                         .sleep = 16000,
                                         .fixed_sleeps = 0.001,
                                         .dirty_sleeps = 0.5};

START_TEST(phases_are_counts_times_prices)
{
    tc_account_counts c = {.ops = 1000, .words = 500, .minor = 10, .major = 1, .dirty = 2,
                           .gc_copied = 700, /* 500 of them the major's copy of Data */
                           .gc_moved = 4000, .faults = 30, .carriers = 2, .sleeps = 3};
    tc_account_phases ph = tc_account_price(&c, &prices);
    ck_assert_double_eq_tol(ph.fixed_us, 100.0, 1e-9);
    ck_assert_double_eq_tol(ph.copy_us, 1000.0, 1e-9); /* 1000 x 500 x 2 ns */
    /* 10 minors, 1 major with Data, the other 200 words, 4000 moved, 2 dirty trips */
    ck_assert_double_eq_tol(ph.gc_us, (10 * 1000 + 5000 + 200 * 3 + 4000 * 1 + 2 * 20000) / 1000.0, 1e-9);
    ck_assert_double_eq_tol(ph.fault_us, 45.0, 1e-9);
    ck_assert_double_eq_tol(ph.mmap_us, 12.0, 1e-9);
    /* a carrier a dirty scheduler mapped (a long GC's heap) at the dirty price, the other at its own */
    c.dirty_carriers = 1;
    ck_assert_double_eq_tol(tc_account_price(&c, &prices).mmap_us, (6000 + 200000) / 1000.0, 1e-9);
    c.dirty_carriers = 0;
    /* the loop's long GCs calibrated: each at that price instead of a minor's and a trip's,
     * the dirty instance's carrier within it */
    tc_account_prices own = prices;
    own.gc_long = 300000;
    own.gc_long_gcs = 12;
    c.dirty_carriers = 1;
    tc_account_phases po = tc_account_price(&c, &own);
    ck_assert_double_eq_tol(po.gc_us, (8 * 1000 + 5000 + 200 * 3 + 4000 * 1 + 2 * 300000) / 1000.0, 1e-9);
    ck_assert_double_eq_tol(po.mmap_us, 6.0, 1e-9);
    c.dirty_carriers = 0;
    /* 3 sleeps: 1 the [] loop's rate, 1 the two dirty trips' (half a sleep each), 1 at 16 us */
    ck_assert_double_eq_tol(ph.sleep_us, 16.0, 1e-9);
    /* the loop's own long GCs' calibration holds no trip's sleeps: 2 at 16 us */
    ck_assert_double_eq_tol(po.sleep_us, 32.0, 1e-9);
    ck_assert_double_eq_tol(ph.total_us, ph.fixed_us + ph.copy_us + ph.gc_us + ph.fault_us + ph.mmap_us + ph.sleep_us,
                            1e-9);
    /* a major whose copy is all of what the GCs copied leaves no word to charge twice */
    c.gc_copied = 300;
    ck_assert_double_eq_tol(tc_account_price(&c, &prices).gc_us, (10 * 1000 + 5000 + 4000 + 40000) / 1000.0, 1e-9);
}
END_TEST

START_TEST(model_counts_in_account_units)
{
    tc_ep_counts e = {0};
    e.minor_gcs = 7;
    e.major_gcs = 2;
    e.long_gcs = 1;
    e.gc_words = 900;
    e.gc_moved = 600;
    e.faults = 12;
    e.carriers_mapped = 3;
    e.dirty_carriers = 1;
    tc_account_counts c = tc_account_of_model(&e, 1000, 250);
    ck_assert(c.ops == 1000 && c.words == 250 && c.minor == 7 && c.major == 2 && c.dirty == 1);
    ck_assert(c.gc_copied == 300 && c.gc_moved == 600 && c.faults == 12 && c.carriers == 3 && c.dirty_carriers == 1);
}
END_TEST

START_TEST(vm_counts_take_the_untraced_gc_count)
{
    tc_vm_pass p = {.gcs = 250, .minor = 400, .major = 3, .dirty = 5, .copied = 10, .moved = 20, .faults = 9,
                    .carriers = 4, .dirty_carriers = 3};
    tc_account_counts c = tc_account_of_vm(&p, 1000, 2000);
    ck_assert(c.minor == 247 && c.major == 3); /* the traced run's extra collections left out */
    ck_assert(c.dirty == 5 && c.gc_copied == 10 && c.gc_moved == 20 && c.faults == 9 && c.carriers == 4 &&
              c.dirty_carriers == 3);
}
END_TEST

static void add(tc_vm_account *a, const char *loop, const char *unit, double cpu, double faults, double gcs,
                double words)
{
    tc_vm_price *p = &a->price[a->nprices++];
    (void)snprintf(p->loop, sizeof p->loop, "%s", loop);
    (void)snprintf(p->unit, sizeof p->unit, "%s", unit);
    p->cpu_ns = cpu;
    p->wall_ns = cpu;
    p->faults = faults;
    p->gcs = gcs;
    p->words = words;
    p->ops = 10;
}

START_TEST(prices_from_calibration_rows)
{
    static tc_vm_account a;
    memset(&a, 0, sizeof a);
    a.words = 1000;
    add(&a, "rt", "rt_fixed", 700, 0, 0.1, 0);
    add(&a, "rt", "send", 2600 + 2 * 1500, 2, 0, 1000); /* 2 faults in the run, at 1500 ns */
    add(&a, "rt", "send_nil", 600, 0, 0, 0);
    add(&a, "rt", "gc_minor", 3000 + 4096 * 2.5, 0, 0, 4096);
    add(&a, "rt", "gc_minor_nil", 3000, 0, 0, 0);
    add(&a, "rt", "gc_minor_bif", 2000, 0, 0, 0); /* where a loop collects: cheaper than forced */
    add(&a, "rt", "gc_major", 9000, 0, 0, 5096);
    add(&a, "rt", "gc_major_nil", 6000, 0, 0, 1000);
    add(&a, "rt", "gc_dirty", 43000, 0, 0, 0);
    add(&a, "rt", "gc_dirty_nil", 3000, 0, 0, 0);
    add(&a, "rt", "carrier", 7000 + 1500, 1, 0, 0); /* its page's fault at the fault price */
    add(&a, "rt", "carrier_dirty", 190000 + 1500, 1, 0, 0);
    add(&a, "lookup", "gc_long", 250000 + 2 * 1500, 2, 0, 0); /* the lookup loop's long GC: not the rt loop's */
    add(&a, "rt", "gc_move", 3000 + 2000 * 1.5, 0, 0, 2003);
    add(&a, "rt", "gc_move_nil", 3000, 0, 0, 3);
    tc_account_prices p;
    ck_assert(tc_account_prices_of_vm(&a, TC_ACCOUNT_RT, 1500, &p));
    ck_assert_double_eq_tol(p.fixed, 700 - 0.1 * 2000, 1e-9); /* the [] loop's own GCs are the gc phase's */
    ck_assert_double_eq_tol(p.word, 2.0, 1e-9);               /* (2600 - 600) / 1000 */
    ck_assert_double_eq_tol(p.gc_minor, 2000, 1e-9); /* the after-BIF GC's, not the forced one's */
    ck_assert_double_eq_tol(p.gc_word, 2.5, 1e-9);     /* the forced pair's difference over its words */
    ck_assert_double_eq_tol(p.gc_major, 6000, 1e-9);
    ck_assert_double_eq_tol(p.gc_dirty, 40000, 1e-9);
    ck_assert_double_eq_tol(p.gc_move_word, 1.5, 1e-9); /* 3000 ns over the 2000 words between */
    ck_assert(p.fault == 1500);
    ck_assert_double_eq_tol(p.carrier, 7000, 1e-9);
    ck_assert_double_eq_tol(p.carrier_dirty, 190000, 1e-9);
    ck_assert(p.gc_long == 0 && p.gc_long_gcs == 0);
    /* without the after-BIF GC's row the minor price is not the forced one's: no prices */
    a.price[5].unit[0] = 'x';
    ck_assert(!tc_account_prices_of_vm(&a, TC_ACCOUNT_RT, 1500, &p));
    a.price[5].unit[0] = 'g';
    /* no message move calibrated (the loop moved none per GC): the collector's word price */
    a.nprices -= 2;
    ck_assert(tc_account_prices_of_vm(&a, TC_ACCOUNT_RT, 1500, &p));
    ck_assert_double_eq_tol(p.gc_move_word, 2.5, 1e-9);
    /* a sleep row: a calibration's own sleeps come out at its price, as its faults, but for
     * the fixed unit's, which it keeps; the sleep phase is a loop's sleeps beyond their rate */
    add(&a, "rt", "sleep", 16000, 0, 0, 0);
    a.price[0].sleeps = 0.01;                   /* rt_fixed: one sleep in 100 round trips */
    a.price[5].sleeps = 0.1;                    /* gc_minor_bif: one in ten GCs */
    ck_assert(tc_account_prices_of_vm(&a, TC_ACCOUNT_RT, 1500, &p));
    ck_assert_double_eq_tol(p.sleep, 16000, 1e-9);
    ck_assert_double_eq_tol(p.fixed_sleeps, 0.01, 1e-12);
    ck_assert_double_eq_tol(p.gc_minor, 2000 - 0.1 * 16000, 1e-9);
    /* the dirty trip keeps its sleeps in its price, and says how many: its own less the
     * same GC's on its scheduler */
    a.price[8].sleeps = 2.25; /* gc_dirty */
    a.price[9].sleeps = 0.25; /* gc_dirty_nil */
    ck_assert(tc_account_prices_of_vm(&a, TC_ACCOUNT_RT, 1500, &p));
    ck_assert_double_eq_tol(p.gc_dirty, 40000, 1e-9);
    ck_assert_double_eq_tol(p.dirty_sleeps, 2, 1e-12);
    ck_assert_double_eq_tol(p.fixed, 700 - 0.1 * p.gc_minor, 1e-9);
    tc_account_counts c = {.ops = 1000, .words = 0, .sleeps = 250};
    ck_assert_double_eq_tol(tc_account_price(&c, &p).sleep_us, 240 * 16.0, 1e-9); /* 250 - 1000 x 0.01 */
    ck_assert_double_eq_tol(tc_account_price(&c, &p).total_us, 1000 * p.fixed / 1000 + 240 * 16.0, 1e-9);
    c.sleeps = 4; /* fewer than the [] loop's rate: the phase takes them back */
    ck_assert_double_eq_tol(tc_account_price(&c, &p).sleep_us, -6 * 16.0, 1e-9);
    c.sleeps = -1; /* not counted (the model's): no sleep phase, the fixed price as it is */
    ck_assert_double_eq_tol(tc_account_price(&c, &p).sleep_us, 0, 1e-12);
    /* the lookup loop has only its own GC's row here: one line on stderr, false */
    ck_assert(!tc_account_prices_of_vm(&a, TC_ACCOUNT_LOOKUP, 1500, &p));
    /* given the unit rows too, its own GC's price is the row's, net of its faults, and the
     * GCs its calibration saw */
    static const char *const units[] = {"lookup_fixed", "lookup",       "lookup_nil", "gc_minor",
                                        "gc_minor_nil", "gc_major",     "gc_major_nil", "gc_dirty",
                                        "gc_dirty_nil", "carrier",      "carrier_dirty", "gc_minor_bif"};
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        add(&a, "lookup", units[i], 1000, 0, 0, 0);
    ck_assert(tc_account_prices_of_vm(&a, TC_ACCOUNT_LOOKUP, 1500, &p));
    ck_assert_double_eq_tol(p.gc_long, 250000, 1e-9);
    ck_assert_double_eq_tol(p.gc_long_gcs, 10, 1e-9);
}
END_TEST

/* `text` written to `path`, then read back as a prices CSV for ints at 1000, rt. */
static tc_result read_text(const char *path, const char *text, tc_account_prices *got)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_ge(fputs(text, f), 0);
    ck_assert_int_eq(fclose(f), 0);
    long used;
    return tc_account_prices_read(path, "ints", 1000, TC_ACCOUNT_RT, got, &used);
}

START_TEST(prices_csv_round_trip_nearest_length)
{
    char path[] = "/tmp/check_account_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    ck_assert_ptr_nonnull(f);
    fputs("# experiment: account\n" TC_ACCOUNT_PRICES_HEADER "\n", f);
    tc_account_prices a = prices, b = prices;
    b.word = 4;
    tc_account_prices_write(f, "ints", 1000, TC_ACCOUNT_LOOKUP, &a);
    tc_account_prices_write(f, "ints", 10000, TC_ACCOUNT_LOOKUP, &b);
    tc_account_prices_write(f, "ints", 10000, TC_ACCOUNT_RT, &a);
    ck_assert_int_eq(fclose(f), 0);
    tc_account_prices got;
    long used = 0;
    ck_assert_int_eq(tc_account_prices_read(path, "ints", 2500, TC_ACCOUNT_LOOKUP, &got, &used), TC_OK);
    ck_assert(used == 1000 && got.word == 2); /* 2500 is nearer 1000 than 10000 by ratio */
    ck_assert_int_eq(tc_account_prices_read(path, "ints", 4000, TC_ACCOUNT_LOOKUP, &got, &used), TC_OK);
    ck_assert(used == 10000 && got.word == 4);
    ck_assert(got.gc_dirty == prices.gc_dirty && got.carrier == prices.carrier &&
              got.carrier_dirty == prices.carrier_dirty && got.sleep == prices.sleep &&
              got.fixed_sleeps == prices.fixed_sleeps && got.dirty_sleeps == prices.dirty_sleeps &&
              got.gc_frag_word == prices.gc_frag_word);
    ck_assert_int_eq(tc_account_prices_read(path, "tuple", 1000, TC_ACCOUNT_RT, &got, &used), TC_EBADARG);
    ck_assert_int_eq(tc_account_prices_read("/nonexistent/prices.csv", "ints", 1, TC_ACCOUNT_RT, &got, &used),
                     TC_EIO);
    ck_assert_int_eq(read_text(path, "shape,payload_len\nints,1000\n", &got), TC_EIO); /* not a prices CSV */
    /* rows a field-by-field scan would half-read: a number with a tail, a field too many or too few */
    static const char *const bad[] = {"ints,1000,rt,100,2x,1000,5000,3,1,20000,250000,12,1500,6000,9000,16000,0.01,2,3",
                                      "ints,1000,rt,100,2,1000,5000,3,1,20000,250000,12,1500,6000,9000,16000,0.01,2,3,7",
                                      "ints,1000,rt,100,2,1000,5000,3,1,20000,250000,12,1500,6000,9000,16000,0.01,2",
                                      "ints,1000.5,rt,100,2,1000,5000,3,1,20000,250000,12,1500,6000,9000,16000,0.01,2,3",
                                      "ints,1000,rt,100,,1000,5000,3,1,20000,250000,12,1500,6000,9000,16000,0.01,2,3"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[512];
        (void)snprintf(text, sizeof text, TC_ACCOUNT_PRICES_HEADER "\n%s\n", bad[i]);
        ck_assert_msg(read_text(path, text, &got) == TC_EIO, "%s", bad[i]);
    }
    /* a file of the first header: fifteen prices, the fragment word the collector's; sixteen
     * there are a field too many */
    ck_assert_int_eq(read_text(path,
                               TC_ACCOUNT_PRICES_HEADER_V1
                               "\nints,1000,rt,100,2,1000,5000,3,1,20000,250000,12,1500,6000,9000,16000,0.01,2\n",
                               &got),
                     TC_OK);
    ck_assert(got.gc_word == 3 && got.gc_frag_word == 3 && got.dirty_sleeps == 2);
    ck_assert_int_eq(read_text(path,
                               TC_ACCOUNT_PRICES_HEADER_V1
                               "\nints,1000,rt,100,2,1000,5000,3,1,20000,250000,12,1500,6000,9000,16000,0.01,2,7\n",
                               &got),
                     TC_EIO);
    ck_assert_int_eq(unlink(path), 0);
}
END_TEST

/* At L = 30000 the lookups' GCs go to a dirty scheduler (a young heap past 128 Ki words), and
 * the heaps they make are the dirty instance's carriers; with one instance (R10B) none is. */
START_TEST(model_counts_dirty_carriers)
{
    tc_ep_config cfg = ep_config("otp25", TC_EP_INTS, 30000, 16);
    tc_ep_counts c[TC_EP_TESTS];
    ck_assert_int_eq(tc_ep_run(&cfg, c), TC_OK);
    const tc_ep_counts *l = &c[TC_EP_LOOKUP];
    ck_assert_uint_gt(l->long_gcs, 0);
    ck_assert_uint_gt(l->dirty_carriers, 0);
    ck_assert_uint_le(l->dirty_carriers, l->carriers_mapped);
    ck_assert(tc_account_of_model(l, 16, 60000).dirty_carriers == (double)l->dirty_carriers);
    cfg = ep_config("r10b", TC_EP_INTS, 30000, 16);
    ck_assert_int_eq(tc_ep_run(&cfg, c), TC_OK);
    for (int t = 0; t < TC_EP_TESTS; t++)
        ck_assert_uint_eq(c[t].dirty_carriers, 0);
}
END_TEST

/* R13B01 collects after every BIF that left a fragment (POST_BIF_GC_SWAPIN): each lookup GC
 * takes one result, [{I, Data}] (2 + 3 + 2L words), out of its fragment and sweeps it again with
 * the heap, a unit of its own (gc_frag). OTP 25 moves the fragment whole (move_live_frags):
 * no fragment is traced there. */
START_TEST(model_counts_traced_fragments)
{
    tc_ep_config cfg = ep_config("r13b", TC_EP_INTS, 1000, 60);
    tc_ep_counts c[TC_EP_TESTS];
    ck_assert_int_eq(tc_ep_run(&cfg, c), TC_OK);
    const tc_ep_counts *l = &c[TC_EP_LOOKUP];
    ck_assert_uint_gt(l->tester_gcs, 0);
    ck_assert_uint_eq(l->frag_traced, l->tester_gcs * 2005);
    tc_account_counts a = tc_account_of_model(l, 60, 2000);
    ck_assert(a.gc_frag == (double)l->frag_traced);
    ck_assert(a.gc_copied == (double)(l->gc_words - l->gc_moved - l->frag_traced));
    /* priced at their own unit: 1 ns a fragment word more, 1 ns x those words more */
    tc_account_prices p = prices, q = prices;
    q.gc_frag_word = p.gc_frag_word + 1;
    ck_assert_double_eq_tol(tc_account_price(&a, &q).gc_us - tc_account_price(&a, &p).gc_us, a.gc_frag / 1000, 1e-6);
    cfg = ep_config("otp25", TC_EP_INTS, 1000, 60);
    ck_assert_int_eq(tc_ep_run(&cfg, c), TC_OK);
    ck_assert_uint_eq(c[TC_EP_LOOKUP].frag_traced, 0);
}
END_TEST

/* R13B01's loop_rec copies a message out of its fragment onto the heap when there is room, with
 * no collection (tc_proc_loop_rec_maybe_gc): those words are not the collector's, so they are
 * counted apart (rec_moved) and the collector's own copies stay gc_words less its moves. With
 * the send into a fragment (send_path heap_or_frag: ablate's send_path at R13B) the round
 * trips take such moves; the account prices them as moved words. Counting them with the
 * GC's moves took gc_copied below zero: 2^64 words at the GC word's price. */
START_TEST(model_counts_loop_rec_moves_apart)
{
    tc_ep_config cfg = ep_config("r13b", TC_EP_INTS, 1000, 50);
    ck_assert_int_eq(tc_policy_set(&cfg.policy, "send_path=heap_or_frag", NULL, 0), TC_OK);
    tc_ep_counts c[TC_EP_TESTS];
    ck_assert_int_eq(tc_ep_run(&cfg, c), TC_OK);
    const tc_ep_counts *rt = &c[TC_EP_PROC2];
    ck_assert_uint_gt(rt->rec_moved, 0);
    for (int t = 0; t < TC_EP_TESTS; t++) {
        ck_assert_uint_le(c[t].gc_moved, c[t].gc_words);
        tc_account_counts a = tc_account_of_model(&c[t], 50, 2000);
        ck_assert(a.gc_copied + a.gc_frag == (double)(c[t].gc_words - c[t].gc_moved));
        ck_assert(a.gc_moved == (double)(c[t].gc_moved + c[t].rec_moved));
    }
    /* OTP 25 has no such move */
    cfg = ep_config("otp25", TC_EP_INTS, 1000, 50);
    ck_assert_int_eq(tc_ep_run(&cfg, c), TC_OK);
    for (int t = 0; t < TC_EP_TESTS; t++)
        ck_assert_uint_eq(c[t].rec_moved, 0);
}
END_TEST

START_TEST(probe_prices_are_positive)
{
    double fault = 0;
    ck_assert(tc_account_probe(tc_account_probe_region(10), &fault));
    ck_assert(fault > 0 && isfinite(fault));
    ck_assert_uint_eq(tc_account_probe_region(10), (size_t)1 << 20);
    ck_assert_uint_eq(tc_account_probe_region(1e9), (size_t)64 << 20);
}
END_TEST

START_TEST(loops_of_tests)
{
    ck_assert_int_eq(tc_account_loop_of_test(TC_EP_PROC1), TC_ACCOUNT_RT);
    ck_assert_int_eq(tc_account_loop_of_test(TC_EP_PROC3), TC_ACCOUNT_RT);
    ck_assert_int_eq(tc_account_loop_of_test(TC_EP_LOOKUP), TC_ACCOUNT_LOOKUP);
    ck_assert_str_eq(tc_account_loop_names[TC_ACCOUNT_LOOKUP], "lookup");
}
END_TEST

/* The rounds' medians, field by field: each field its own rounds' middle value (a slow spell
 * in one round's copy price and another's GC price leaves both out), from an array or from a
 * member of an array of structs. */
START_TEST(medians_of_rounds_field_by_field)
{
    tc_account_prices p[3] = {{.fixed = 500, .word = 1.7, .gc_minor = 900},
                              {.fixed = 700, .word = 2.6, .gc_minor = 160},
                              {.fixed = 450, .word = 1.8, .gc_minor = 170}};
    tc_account_prices m;
    tc_account_prices_median(p, sizeof *p, 3, &m);
    ck_assert_double_eq(m.fixed, 500);
    ck_assert_double_eq(m.word, 1.8);
    ck_assert_double_eq(m.gc_minor, 170);
    ck_assert_double_eq(m.sleep, 0);
    tc_account_prices_median(p, sizeof *p, 1, &m);
    ck_assert_double_eq(m.gc_minor, 900);
    struct round {
        double before;
        tc_account_counts c;
        int after;
    } r[4] = {{1, {.minor = 250, .faults = 10}, 1}, {2, {.minor = 251, .faults = 900}, 2},
              {3, {.minor = 249, .faults = 12}, 3}, {4, {.minor = 250, .faults = 14}, 4}};
    tc_account_counts c;
    tc_account_counts_median(&r[0].c, sizeof *r, 4, &c);
    ck_assert_double_eq(c.minor, 250);
    ck_assert_double_eq(c.faults, 13); /* of an even count, the mean of the middle two */
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("scenarios_account");
    TCase *tc = tcase_create("account");
    tcase_set_timeout(tc, 60); /* two eptest runs at L = 30000 (model_counts_dirty_carriers) */
    tcase_add_test(tc, phases_are_counts_times_prices);
    tcase_add_test(tc, model_counts_in_account_units);
    tcase_add_test(tc, vm_counts_take_the_untraced_gc_count);
    tcase_add_test(tc, prices_from_calibration_rows);
    tcase_add_test(tc, prices_csv_round_trip_nearest_length);
    tcase_add_test(tc, model_counts_dirty_carriers);
    tcase_add_test(tc, model_counts_traced_fragments);
    tcase_add_test(tc, model_counts_loop_rec_moves_apart);
    tcase_add_test(tc, probe_prices_are_positive);
    tcase_add_test(tc, loops_of_tests);
    tcase_add_test(tc, medians_of_rounds_field_by_field);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tc_run_suite(suite()); }
