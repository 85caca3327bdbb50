# report/stats.awk: the medians and the round trip of the pipeline. Goes after report/csv.awk
# (its errors are csv_die's) before the program of every awk that computes them
# (report/derive.sh, experiments/beam/fidelity.sh). POSIX awk (mawk on Debian).

# Sorts a[1..n] into increasing numeric order.
function sort(a, n,    i, j, t) {
    for (i = 2; i <= n; i++) {
        t = a[i]
        for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]
        a[j + 1] = t
    }
}

# The median of a[1..n] (sorts a).
function median(a, n) {
    if (n < 1) csv_die(csv_files() ": the median of no values")
    sort(a, n)
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}

# The fidelity sweep's bounds (experiments/beam/sweep.sh, report/derive.sh): x within the
# fraction r of v, or within a of it.
function sweep_near(x, v, r, a,    d) { d = x - v; if (d < 0) d = -d; return d <= r * v || d <= a }

# The current sweep row's model count K (model_K) inside the range of the VM's runs (vm_K_lo to
# vm_K_hi) widened at each end by r of that end, or by a.
function sweep_in_runs(k, r, a,    m, lo, hi, t) {
    m = csv_get("model_" k) + 0; lo = csv_get("vm_" k "_lo") + 0; hi = csv_get("vm_" k "_hi") + 0
    t = r * lo > a ? r * lo : a; if (m < lo - t) return 0
    t = r * hi > a ? r * hi : a; return m <= hi + t
}

# KEY as errors show it: its SUBSEP-joined parts separated by spaces.
function _stats_key(key) { gsub(SUBSEP, " ", key); return key }

# The round trip, the report's one definition of it: the median of the three proc passes of an
# eptest run, the rows proc1, proc2 and proc3 (each pass's own number is already the median
# over the run's repeats). v[KEY, "proc1"] .. v[KEY, "proc3"] hold the passes' values (a
# time, or any per-pass count); a pass that is not there is an error naming KEY.
function round_trip(v, key,    p, i) {
    for (i = 1; i <= 3; i++) {
        if (!((key, "proc" i) in v))
            csv_die(csv_files() ": no proc" i " pass for " _stats_key(key) " (the round trip is the median of proc1, proc2 and proc3)")
        p[i] = v[key, "proc" i]
    }
    return median(p, 3)
}

# A test over the round trip of the same run: v[KEY, TEST] / round_trip(v, KEY), the report's
# lookup / round-trip ratio when TEST is ets_lookup (above 1: the lookup loses). Call it before
# reading v[KEY, TEST] otherwise: awk creates an element it reads, and the check would pass.
function rt_ratio(v, key, test,    rt) {
    if (!((key, test) in v)) csv_die(csv_files() ": no " test " row for " _stats_key(key))
    rt = round_trip(v, key)
    if (rt + 0 <= 0) csv_die(csv_files() ": the round trip of " _stats_key(key) " is " rt ": no ratio to it")
    return v[key, test] / rt
}

# The 95 % interval of a median: the order-statistic (distribution-free) confidence interval.
# For n independent values of a quantity, the k-th smallest and the k-th largest bracket its
# median with probability 1 - 2 P(B < k), B binomial(n, 1/2); median_ci takes the largest k
# whose probability is at least 0.95 (n = 6 to 8: the smallest and the largest value, 9 to 11:
# the second, ...). It sorts a[1..n], sets ci_lo, ci_hi and ci_cover (that probability) and
# returns the median. Fewer than 6 values have no 95 % interval: ci_lo and ci_hi are then the
# smallest and largest value and ci_cover their lower probability (5 values: 0.9375).
function median_ci(a, n,    m, k, tail, c) {
    m = median(a, n)
    # tail = P(B < k) = sum of C(n, i) / 2^n for i < k; c = C(n, k) as k grows
    k = 1; tail = 0.5 ^ n; c = n
    while (k + 1 <= (n + 1) / 2 && 1 - 2 * (tail + c * 0.5 ^ n) >= 0.95) { tail += c * 0.5 ^ n; c = c * (n - k) / (k + 1); k++ }
    ci_cover = 1 - 2 * tail
    ci_lo = a[k]; ci_hi = a[n + 1 - k]
    return m
}

# eptest --prices's passes, one line each for run.sh and recompute.sh: VM,TEST,L,priced_us and,
# on the lookup's line, its ratio to the median of the three proc passes (p[test]: priced_us).
function eptest_priced_rows(vm, L, p,    a, rt, ts, i) {
    a[1] = p["proc1"]; a[2] = p["proc2"]; a[3] = p["proc3"]; rt = median(a, 3)
    split("proc1 proc2 proc3 ets_lookup", ts, " ")
    for (i = 1; i <= 4; i++)
        printf "%s,%s,%s,%.1f,%s\n", vm, ts[i], L, p[ts[i]], (ts[i] == "ets_lookup" && rt > 0) ? sprintf("%.4f", p[ts[i]] / rt) : ""
}
