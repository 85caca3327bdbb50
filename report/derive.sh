#!/usr/bin/env bash
# report/derive.sh RESULTS DERIVED QUICK
#
# From the experiments' CSVs in RESULTS, writes the tables the figures and the report read
# (DERIVED/*.csv) and the calibration of `termcopy predict` (RESULTS/calibration.tsv).
# Only arithmetic on measured rows happens here: medians, ratios, pivots, cumulative sums and
# one least-squares line per era; each output says where its numbers come from.
# POSIX awk (mawk) only. QUICK is 1 for ./run report --quick.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: report/derive.sh RESULTS DERIVED QUICK" >&2; exit 2; }
res="$1" der="$2" quick="$3"
data=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/data

# Shared awk helpers: header-indexed CSV access and a median.
lib='
function header(line,    i, n, f) { n = split(line, f, ","); for (i = 1; i <= n; i++) c[f[i]] = i }
function sort(a, n,    i, j, t) {
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
}
function median(a, n) {
    sort(a, n)
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
'

# ---- the run: mode and the machine, for the report's header ---------------------------------
{
    echo "# mode: $([ "$quick" = 1 ] && echo 'quick (./run report --quick: smallest sizes, one run per point, noisy)' || echo 'default (./run report)')"
    grep -m1 '^# date:' "$res/eptest.csv"
    grep -m1 '^# git:' "$res/eptest.csv"
    grep -m1 '^# compiler:' "$res/eptest.csv"
    grep -m1 '^# flags:' "$res/eptest.csv"
    grep -m1 '^# cpu:' "$res/eptest.csv"
    grep -m1 '^# kernel:' "$res/eptest.csv"
    grep -m1 '^# fault_ns:' "$res/eptest.csv"
    echo "key,value"
    echo "fault_ns,$(sed -n 's/^# fault_ns: \([0-9.]*\).*/\1/p' "$res/eptest.csv" | head -1)"
} >"$der/run.csv"

# ---- term sizes against the VM's golden vectors (written by ./run report before the pipeline) --
if [ -f "$res/terms_fidelity.csv" ]; then
    awk -F, '/^#/ { next } !h { h = 1; next } { n++ } /,yes$/ { m++ } END { print "total,matched"; print n "," m + 0 }' \
        "$res/terms_fidelity.csv" >"$der/fidelity.csv"
fi

# ---- the brief's VM observation (transcribed, for the report's comparisons) --------------------
cp "$data/brief-vm.csv" "$der/brief-vm.csv"

# ---- the interventions on the real VM (committed: ./run report --interventions reruns them) ---
# The rows as measured, and per variant and length how each side moved: the VM against the VM
# as shipped, the model's switch against its baseline. A move is "up" or "down" when it is more
# than 15 % (counts: and more than 20 per 1000), else "same"; agree says whether both sides
# moved the same way.
if [ -f "$data/vm-interventions.csv" ]; then
    cp "$data/vm-interventions.csv" "$der/vm-interventions.csv"
    awk -F, '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
        function arrow(x, y) { return x " → " y }
        function way(x, base, floor) { return x - base > floor && x > 1.15 * base ? "up" : base - x > floor && x < base / 1.15 ? "down" : "same" }
        { k = $c["variant"] SUBSEP $c["payload_len"]; for (n in c) v[k, n] = $c[n]; rows[++nr] = k }
        END {
            print "variant,payload_len,vm_gcs,model_gcs,gcs_vm_move,gcs_model_move,gcs_agree,vm_faults,model_faults,faults_vm_move,faults_model_move,faults_agree,vm_ratio,model_ratio,ratio_vm_move,ratio_model_move,ratio_agree"
            for (i = 1; i <= nr; i++) {
                k = rows[i]; split(k, kk, SUBSEP); b = "shipped" SUBSEP kk[2]; m = "rebuilt" SUBSEP kk[2]
                if (kk[1] == "shipped" || kk[1] == "rebuilt" || !((b, "vm_lookup_gcs") in v) || !((m, "model_lookup_gcs") in v)) continue
                g1 = way(v[k, "vm_lookup_gcs"], v[b, "vm_lookup_gcs"], 20); g2 = way(v[k, "model_lookup_gcs"], v[m, "model_lookup_gcs"], 20)
                f1 = way(v[k, "vm_lookup_faults"], v[b, "vm_lookup_faults"], 20); f2 = way(v[k, "model_lookup_faults"], v[m, "model_lookup_faults"], 20)
                r1 = way(v[k, "vm_ratio"], v[b, "vm_ratio"], 0); r2 = way(v[k, "model_ratio"], v[m, "model_ratio"], 0)
                printf "%s,%s,%s,%s,%s,%s,%s,", kk[1], kk[2], arrow(v[b, "vm_lookup_gcs"], v[k, "vm_lookup_gcs"]),
                    arrow(v[m, "model_lookup_gcs"], v[k, "model_lookup_gcs"]), g1, g2, g1 == g2 ? "yes" : "no"
                printf "%s,%s,%s,%s,%s,", arrow(v[b, "vm_lookup_faults"], v[k, "vm_lookup_faults"]),
                    arrow(v[m, "model_lookup_faults"], v[k, "model_lookup_faults"]), f1, f2, f1 == f2 ? "yes" : "no"
                printf "%s,%s,%s,%s,%s\n", arrow(v[b, "vm_ratio"], v[k, "vm_ratio"]), arrow(v[m, "model_ratio"], v[k, "model_ratio"]),
                    r1, r2, r1 == r2 ? "yes" : "no"
            }
        }' "$data/vm-interventions.csv" >"$der/vm-interventions-moves.csv"
    # Per variant: in how many lengths each side moved the same way.
    awk -F, '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
        { v = $c["variant"]; if (!(v in n)) order[++nv] = v; n[v]++; g[v] += $c["gcs_agree"] == "yes"; f[v] += $c["faults_agree"] == "yes"; r[v] += $c["ratio_agree"] == "yes" }
        END { print "variant,lengths,gcs_agree,faults_agree,ratio_agree"
              for (i = 1; i <= nv; i++) { v = order[i]; printf "%s,%d,%d,%d,%d\n", v, n[v], g[v], f[v], r[v] } }' \
        "$der/vm-interventions-moves.csv" >"$der/vm-interventions-agree.csv"
    # The rebuild check: the rebuilt VM's counts against the shipped VM's at every length.
    awk -F, '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
        { k = $c["payload_len"]; if ($c["variant"] == "shipped") { sg[k] = $c["vm_lookup_gcs"]; sf[k] = $c["vm_lookup_faults"]; if (!(k in seen)) { seen[k] = 1; lens_[++nl] = k } }
          if ($c["variant"] == "rebuilt") { rg[k] = $c["vm_lookup_gcs"]; rf[k] = $c["vm_lookup_faults"] } }
        END { print "payload_len,shipped_gcs,rebuilt_gcs,gcs_equal,shipped_faults,rebuilt_faults,faults_change_pct"
              for (i = 1; i <= nl; i++) { k = lens_[i]; if (!(k in rg)) continue
                  printf "%s,%s,%s,%s,%s,%s,%+.0f\n", k, sg[k], rg[k], sg[k] == rg[k] ? "yes" : "no", sf[k], rf[k], (sf[k] > 0 ? 100 * (rf[k] - sf[k]) / sf[k] : 0) } }' \
        "$data/vm-interventions.csv" >"$der/vm-interventions-rebuild.csv"
fi

# ---- figure 1 and the 2005 table: per 1000 operations, proc = median of the three passes ------
{
    echo "# per 1000 operations; proc_us is the median of the proc1..3 medians; seed rows: the median of its 5 runs"
    echo "# ratio: lookup_us / proc_us; faults: minor page faults per 1000 (model: its first run; VM: median over repeats)"
    echo "source,payload_len,label,proc_us,insert_us,overwrite_us,lookup_us,empty_us,ratio,proc_faults,lookup_faults,lookup_gcs"
    {
        awk -F, "$lib"'
            /^#/ { next } !h { header($0); h = 1; next }
            { n[$2]++; for (k = 3; k <= 9; k++) v[$2, k, n[$2]] = $k; lens[$2] = 1 }
            END {
                for (L in lens) {
                    for (k = 3; k <= 9; k++) { for (i = 1; i <= n[L]; i++) a[i] = v[L, k, i]; m[k] = median(a, n[L]) }
                    p[1] = m[3]; p[2] = m[4]; p[3] = m[5]; pr = median(p, 3)
                    printf "0,seed-r10b,%d,seed R10B L=%d,%.0f,%.0f,%.0f,%.0f,%.0f,%.2f,,,\n", L, L, pr, m[6], m[7], m[8], m[9], m[8] / pr
                }
            }' "$data/seed2005.csv"
        for f in "$res/eptest.csv" "$res/vm-eptest.csv"; do
            [ -f "$f" ] || continue
            awk -F, "$lib"'
                /^#/ { next } !h { header($0); h = 1; next }
                $c["shape"] == "ints" {
                    key = $c["era"] SUBSEP $c["payload_len"]; keys[key] = 1
                    s = 1000 / $c["iterations"]
                    us[key, $c["test"]] = $c["median_us"] * s
                    faults[key, $c["test"]] = $c["faults"] * s; gcs[key, $c["test"]] = $c["gcs"] * s
                }
                END {
                    for (key in keys) {
                        split(key, k, SUBSEP)
                        p[1] = us[key, "proc1"]; p[2] = us[key, "proc2"]; p[3] = us[key, "proc3"]; pr = median(p, 3)
                        f[1] = faults[key, "proc1"]; f[2] = faults[key, "proc2"]; f[3] = faults[key, "proc3"]
                        src = k[1] ~ /^vm/ ? "vm" : "model-" k[1]
                        printf "%d,%s,%d,%s L=%d,%.0f,%.0f,%.0f,%.0f,%.1f,%.2f,%.0f,%.0f,%.0f\n", (src == "vm" ? 3 : k[1] == "r10b" ? 1 : 2), src, k[2],
                            (src == "vm" ? "VM OTP 25" : (k[1] == "r10b" ? "model R10B" : "model OTP 25")), k[2],
                            pr, us[key, "ets_insert"], us[key, "ets_overwrite"], us[key, "ets_lookup"], us[key, "empty"],
                            us[key, "ets_lookup"] / pr, median(f, 3), faults[key, "ets_lookup"], gcs[key, "ets_lookup"]
                    }
                }' "$f"
        done
    } | sort -t, -k3n -k1n | cut -d, -f2-
} >"$der/table2005.csv"

# ---- the VM's variant runs (experiments/beam/run.sh): lookup against round trip per variant ------
# Files eptest_ints_L[_VARIANT].csv; a variant's test names carry its suffix (proc1_s1, ...).
vmfiles=$(ls "$res"/vm/eptest_ints_*.csv 2>/dev/null || true)
if [ -n "$vmfiles" ]; then
    {
        echo "# the real VM per 1000 operations; proc_us: median of proc1..3; ratio: lookup_us / proc_us"
        echo "variant,payload_len,lookup,lookup_us,proc_us,ratio,lookup_faults,proc_faults,lookup_gcs,flags"
        for f in $vmfiles; do
            v=$(basename "$f" .csv | sed -E 's/^eptest_ints_[0-9]+_?//')
            awk -F, -v variant="${v:-as_shipped}" -v suffix="${v:+_$v}" "$lib"'
                /^# emulator_flags:/ { flags = $0; sub(/^# emulator_flags: */, "", flags) }
                /^# tester:/ && /min_heap/ { flags = flags " + min_heap_size 200000" }
                /^#/ { next } !h { header($0); h = 1; next }
                { t = $c["test"]; if (suffix != "" && substr(t, length(t) - length(suffix) + 1) == suffix) t = substr(t, 1, length(t) - length(suffix))
                  s = 1000 / $c["iterations"]; L = $c["payload_len"]
                  us[t] = $c["median_us"] * s; fl[t] = $c["faults"] * s; g[t] = $c["gcs"] * s }
                END {
                    p[1] = us["proc1"]; p[2] = us["proc2"]; p[3] = us["proc3"]; pr = median(p, 3)
                    q[1] = fl["proc1"]; q[2] = fl["proc2"]; q[3] = fl["proc3"]; pf = median(q, 3)
                    for (t in us) if (t ~ /^ets_lookup/)
                        printf "%s,%d,%s,%.0f,%.0f,%.2f,%.0f,%.0f,%.0f,%s\n", variant, L, t, us[t], pr, us[t] / pr, fl[t], pf, g[t], flags
                }' "$f"
        done | sort -t, -k2n -k1,1 -k3,3
    } >"$der/vm-variants.csv"
fi

# ---- the VM at the brief's size: the plain run with the largest L <= 10000 ----------------------
vmbase=$(ls "$res"/vm/eptest_ints_*.csv 2>/dev/null | grep -E '/eptest_ints_[0-9]+\.csv$' |
    sed -E 's/.*_([0-9]+)\.csv$/\1 &/' | awk '$1 <= 10000' | sort -n | tail -n 1 | cut -d' ' -f2 || true)
if [ -n "$vmbase" ]; then
    awk -F, "$lib"'
        /^# vm_counts: ets_lookup / { for (i = 1; i <= split($0, w, " "); i++) if (split(w[i], kv, "=") == 2) lk[kv[1]] = kv[2] }
        /^# vm_counts: proc2 / { for (i = 1; i <= split($0, w, " "); i++) if (split(w[i], kv, "=") == 2) pc[kv[1]] = kv[2] }
        /^#/ { next } !h { header($0); h = 1; next }
        { s = 1000 / $c["iterations"]; L = $c["payload_len"]; t = $c["test"]
          us[t] = $c["median_us"] * s; iqr[t] = $c["iqr_us"] * s
          fl[t] = $c["faults"] * s; g[t] = $c["gcs"] * s; cm[t] = $c["carriers_mapped"] * s }
        END {
            p[1] = us["proc1"]; p[2] = us["proc2"]; p[3] = us["proc3"]; pr = median(p, 3)
            print "# the real VM, plain run (experiments/beam/run.sh eptest_ints_L.csv), per 1000 operations"
            print "payload_len,proc_us,lookup_us,ratio,proc_faults,lookup_faults,proc_gcs,lookup_gcs,lookup_carriers_mapped,lookup_heap_max,proc_heap_max,lookup_mseg_cache_hits,lookup_iqr_us,proc2_iqr_us,lookup_element_us,lookup_hot_key_us"
            printf "%d,%.0f,%.0f,%.2f,%.0f,%.0f,%.0f,%.0f,%.0f,%s,%s,%s,%.0f,%.0f,%.0f,%.0f\n", L, pr, us["ets_lookup"], us["ets_lookup"] / pr,
                fl["proc2"], fl["ets_lookup"], g["proc2"], g["ets_lookup"], cm["ets_lookup"],
                lk["tester_heap_block_max"], pc["tester_heap_block_max"], lk["mseg_cache_hits"], iqr["ets_lookup"], iqr["proc2"],
                us["ets_lookup_element"], us["ets_lookup_hot_key"]
        }' "$vmbase" >"$der/vm-summary.tmp"
    # The lookup faults of the sbct and min_heap variant runs at the same L (their own files).
    variant_faults() {
        local f="${vmbase%.csv}_$1.csv"
        [ -f "$f" ] && awk -F, -v t="ets_lookup_$1" '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
            $c["test"] == t { printf "%.0f", $c["faults"] * 1000 / $c["iterations"] }' "$f"
    }
    sbct=$(variant_faults sbct2048) minheap=$(variant_faults min_heap)
    awk -v a="$sbct" -v b="$minheap" '/^#/ { print; next } !h { h = 1; print $0 ",sbct2048_lookup_faults,min_heap_lookup_faults"; next }
        { print $0 "," a "," b }' "$der/vm-summary.tmp" >"$der/vm-summary.csv"
    rm -f "$der/vm-summary.tmp"
fi

# ---- figure 5: the ablation ratios, one column per era ------------------------------------
awk -F, "$lib"'
    /^#/ { next } !h { header($0); h = 1; next }
    { if (!($c["ablation"] in seen)) { seen[$c["ablation"]] = 1; order[++n] = $c["ablation"] }
      r[$c["ablation"], $c["era"]] = $c["ratio"] }
    END { print "ablation,r10b,otp25"; for (i = 1; i <= n; i++) print order[i] "," r[order[i], "r10b"] "," r[order[i], "otp25"] }
' "$res/ablate.csv" >"$der/ablate-wide.csv"

# ---- figure 4: phase shares per test, counters and profiler side by side ------------------
awk -F, "$lib"'
    /^#/ { next } !h { header($0); h = 1; next }
    { t = $c["era"] " " $c["test"]; if (!(t in seen)) { seen[t] = 1; order[++n] = t }
      if (!($c["phase"] in ph)) { ph[$c["phase"]] = 1; phases[++np] = $c["phase"] }
      cs[t, $c["phase"]] = $c["counter_share"]; ps[t, $c["phase"]] = $c["profiler_share"] }
    END {
        printf "label"; for (j = 1; j <= np; j++) printf ",%s", phases[j]; print ""
        for (i = 1; i <= n; i++) {
            printf "%s c", order[i]; for (j = 1; j <= np; j++) printf ",%s", cs[order[i], phases[j]]; print ""
            printf "%s p", order[i]; for (j = 1; j <= np; j++) printf ",%s", ps[order[i], phases[j]]; print ""
        }
    }' "$res/breakdown.csv" >"$der/breakdown-wide.csv"

# ---- figure 7: ops/s per lock mode and threads, the process dictionary, the 2009 seed -----
{
    echo "config,insert,lookup,update,update_counter"
    awk -F, "$lib"'
        /^#/ { next } !h { header($0); h = 1; next }
        { op = $c["op"]; if (op == "put") op = "insert"; if (op == "get") op = "lookup"
          cf = $c["lock_mode"] "/" $c["threads"] "t"; if (!(cf in seen)) { seen[cf] = 1; order[++n] = cf }
          v[cf, op] = $c["ops_per_s"] }
        END { for (i = 1; i <= n; i++) { cf = order[i]
                printf "%s,%s,%s,%s,%s\n", cf, v[cf, "insert"], v[cf, "lookup"], v[cf, "update"], v[cf, "update_counter"] } }
    ' "$res/etsbench.csv"
    awk -F, '/^#/ { next } !h { h = 1; next }
        { if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } v[$1, $2] = $3 }
        END { for (i = 1; i <= n; i++) printf "seed R13B01 %s,%s,%s,%s,\n", order[i], v[order[i], "insert"], v[order[i], "lookup"], v[order[i], "update"] }
    ' "$data/seed2009.csv"
} >"$der/etsbench-wide.csv"

# ---- figure 8: crossover length per shape and era ------------------------------------------
{
    echo "shape,r10b,otp25,vm,otp25_vs_vm"
    cat "$res/crossover-summary.csv" $([ -f "$res/vm-crossover.csv" ] && echo "$res/vm-crossover.csv") \
        $([ -f "$res/vm-crossover-fine.csv" ] && echo "$res/vm-crossover-fine.csv") |
        awk -F, '/^#/ { next } $1 == "shape" { hdr = $0; next }
            hdr ~ /crossover_len/ { if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } x[$1, $2] = $3 }
            hdr ~ /proc_us/ { # a VM grid: its crossover is the smallest length where the lookup loses
                if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
                if ($7 > 1 && (!(($1, "vm") in x) || $2 < x[$1, "vm"])) x[$1, "vm"] = $2 }
            END { for (i = 1; i <= n; i++) { s = order[i]; m = x[s, "otp25"]; v = ((s, "vm") in x ? x[s, "vm"] : "")
                # within 2x: both cross and the lengths differ by at most a factor of 2
                cmp = v == "" ? "" : (m + 0 > 0 && m / v >= 0.5 && m / v <= 2) ? "within 2x" : "no"
                if (v == "" && m == "none" && hasvm) cmp = "neither crosses"
                printf "%s,%s,%s,%s,%s\n", s, x[s, "r10b"], m, v, cmp } }' hasvm=$([ -f "$res/vm-crossover.csv" ] && echo 1 || echo 0)
} >"$der/crossover-wide.csv"

# ---- the ints grid, model against VM point by point: does the lookup lose at the same lengths? --
vmgrid=$([ -f "$res/vm-crossover-fine.csv" ] && echo "$res/vm-crossover-fine.csv" || echo "$res/vm-crossover.csv")
if [ -f "$vmgrid" ]; then
    awk -F, "$lib"'
        FNR == 1 { file++; h = 0 } /^#/ { next } !h { header($0); h = 1; next }
        $c["shape"] != "ints" { next }
        file == 1 && $c["era"] == "otp25" { m[$c["payload_len"]] = $c["ratio"] }
        file == 2 { v[$c["payload_len"]] = $c["ratio"] }
        END {
            n = 0
            for (l in m) if (l in v) ls[++n] = l + 0
            sort(ls, n)
            print "payload_len,model_ratio,vm_ratio,same_side" > (der "/crossover-agreement.csv")
            for (i = 1; i <= n; i++) { l = ls[i]; same = (m[l] > 1) == (v[l] > 1); k += same
                printf "%d,%s,%s,%s\n", l, m[l], v[l], same ? "yes" : "no" > (der "/crossover-agreement.csv") }
            print "points,same_side,first_len,last_len"
            printf "%d,%d,%d,%d\n", n, k, ls[1], ls[n]
        }' der="$der" "$res/crossover.csv" "$vmgrid" >"$der/crossover-agreement-summary.csv"
fi

# ---- R10B at the seed's prices: the model's per-operation word counts priced per word --------
# The seed's rows that are not the lookup give what one word cost in 2005: heap to heap
# (proc, L = 1000 against L = 10) and into ETS (overwrite, likewise). The model's R10B run says
# how many words each operation moves (copies and GC copies, per operation). The lookup rows of
# the seed are held out: the projection predicts them. The R10B mechanisms that are not words
# (forced yields, I/O polls, GCs with nothing live) are counted but not priced: no seed row
# isolates them, and pricing them could only make the projected lookup slower.
awk -F, "$lib"'
    FNR == 1 { file++; h = 0 } /^#/ { next } !h { header($0); h = 1; next }
    file == 1 {
        L = $c["payload_len"]; n[L]++
        for (k = 3; k <= 9; k++) sv[L, k, n[L]] = $k
        next
    }
    $c["era"] == "r10b" && $c["shape"] == "ints" {
        L = $c["payload_len"]; t = $c["test"]; it = $c["iterations"]; ml[L] = 1
        words[L, t] = $c["words_copied"] / it; gcw[L, t] = $c["gc_words_copied"] / it
        us[L, t] = $c["median_us"] * 1000 / it; gcs[L, t] = $c["gcs"] / it; polls[L, t] = $c["io_polls"] / it
        calls[L] = it
    }
    END {
        for (L in n) {
            for (k = 3; k <= 9; k++) { for (i = 1; i <= n[L]; i++) a[i] = sv[L, k, i]; m[L, k] = median(a, n[L]) }
            p[1] = m[L, 3]; p[2] = m[L, 4]; p[3] = m[L, 5]; sp[L] = median(p, 3); so[L] = m[L, 7]; sl[L] = m[L, 8]
        }
        if (!((10, "proc2") in words) || !((1000, "proc2") in words)) { print "derive: no R10B eptest rows at L = 10 and 1000" > "/dev/stderr"; exit 1 }
        wp10 = words[10, "proc2"] + gcw[10, "proc2"]
        hot = (sp[1000] - sp[10]) / (words[1000, "proc2"] + gcw[1000, "proc2"] - wp10)
        ets = (so[1000] - so[10]) / (words[1000, "ets_overwrite"] - words[10, "ets_overwrite"])
        print "# R10B at the seed'"'"'s prices: the seed'"'"'s per-word costs (ns per word, from its proc and overwrite rows at L = 10 and 1000)"
        print "# times the words the model'"'"'s R10B run moves per operation; the seed'"'"'s lookup rows are held out"
        printf "# ns_per_word_heap_to_heap: %.2f\n# ns_per_word_into_ets: %.2f\n", hot, ets
        # The ETS table the lookups read at L = 1000: one stored object per call.
        table = words[1000, "ets_lookup"] * calls[1000] / 1048576
        printf "# table_mib_32bit: %.1f\n# table_mib_64bit: %.1f\n", table * 4, table * 8
        print "source,payload_len,proc_us,lookup_us,ratio,lookup_words_per_op,lookup_gc_words_per_op,lookup_gcs_per_op,lookup_polls_per_op,proc_ns_per_word,lookup_ns_per_word"
        for (L = 10; L <= 10000; L *= 10) {
            if (L == 10) printf "seed,%d,%.0f,%.0f,%.2f,,,,,,\n", L, sp[L], sl[L], sl[L] / sp[L]
            else if (L in n) printf "seed,%d,%.0f,%.0f,%.2f,,,,,%.2f,%.2f\n", L, sp[L], sl[L], sl[L] / sp[L], \
                (sp[L] - sp[10]) / (words[L, "proc2"] + gcw[L, "proc2"] - wp10), \
                (sl[L] - sl[10]) / (words[L, "ets_lookup"] + gcw[L, "ets_lookup"] - words[10, "ets_lookup"] - gcw[10, "ets_lookup"])
            if (!(L in ml)) continue
            mp = median3(us[L, "proc1"], us[L, "proc2"], us[L, "proc3"])
            printf "model-here,%d,%.0f,%.0f,%.2f,%.0f,%.0f,%.3f,%.3f,%.2f,%.2f\n", L, mp, us[L, "ets_lookup"], us[L, "ets_lookup"] / mp, \
                words[L, "ets_lookup"], gcw[L, "ets_lookup"], gcs[L, "ets_lookup"], polls[L, "ets_lookup"], \
                mp / (words[L, "proc2"] + gcw[L, "proc2"]), us[L, "ets_lookup"] / (words[L, "ets_lookup"] + gcw[L, "ets_lookup"])
            if (L == 10) continue
            pp = sp[10] + (words[L, "proc2"] + gcw[L, "proc2"] - wp10) * hot
            pl = sl[10] + (words[L, "ets_lookup"] - words[10, "ets_lookup"]) * ets + (gcw[L, "ets_lookup"] - gcw[10, "ets_lookup"]) * hot
            printf "projection,%d,%.0f,%.0f,%.2f,%.0f,%.0f,%.3f,%.3f,%.2f,%.2f\n", L, pp, pl, pl / pp, \
                words[L, "ets_lookup"], gcw[L, "ets_lookup"], gcs[L, "ets_lookup"], polls[L, "ets_lookup"], hot, ets
        }
    }
    function median3(x, y, z,    q) { q[1] = x; q[2] = y; q[3] = z; return median(q, 3) }
' "$data/seed2005.csv" "$res/eptest.csv" >"$der/r10b-2005.csv"

# ---- fidelity: the model's OTP 25 lookup/proc ratio against the VM's ---------------------------
# From experiments/beam/fidelity.sh: model and VM runs alternated, several rounds; per length the
# median of each side's per-round ratios, the range over rounds, and whether the model's median
# is within 30 % of the VM's.
if [ -f "$res/fidelity.csv" ]; then
    awk -F, "$lib"'
        /^#/ { next } !h { header($0); h = 1; next }
        { L = $c["payload_len"]; s = $c["source"]; k = ++n[L, s]; r[L, s, k] = $c["ratio"]; lens[L] = 1 }
        END {
            print "payload_len,model_ratio,vm_ratio,model_over_vm,within_30,model_range,vm_range,rounds"
            m = 0
            for (L in lens) ls[++m] = L + 0
            sort(ls, m)
            for (i = 1; i <= m; i++) {
                L = ls[i]
                for (side = 1; side <= 2; side++) {
                    s = side == 1 ? "model" : "vm"; lo = ""; hi = ""
                    for (k = 1; k <= n[L, s]; k++) { a[k] = r[L, s, k]; if (lo == "" || a[k] < lo) lo = a[k]; if (hi == "" || a[k] > hi) hi = a[k] }
                    med[s] = median(a, n[L, s]); range[s] = sprintf("%.2f-%.2f", lo, hi)
                }
                q = med["model"] / med["vm"]
                printf "%d,%.2f,%.2f,%.2f,%s,%s,%s,%d\n", L, med["model"], med["vm"], q, (q >= 0.7 && q <= 1.3) ? "yes" : "no",
                    range["model"], range["vm"], n[L, "model"]
            }
        }' "$res/fidelity.csv" >"$der/ratio-fidelity.csv"
fi

# ---- figure 6: the heap trajectory, cumulative faults, and its summary --------------------
awk -F, "$lib"'
    FNR == 1 { file++; h = 0 } /^#/ { next } !h { header($0); h = 1; next }
    { l = $c["lookup"]; n = l > n ? l : n
      cum[file] += $c["minor_faults"]; cf[file, l] = cum[file]; heap[file, l] = $c["heap_words"]
      nh[file, l] = $c["new_heap_words"]; gcs[file] += $c["gcs"]; gcw[file] += $c["gc_words_copied"]
      mapped[file] += $c["carriers_mapped"]; hits[file] += $c["cache_hits"]; last[file] = $c["heap_words"]
      if ($c["new_heap_words"] > mx[file]) mx[file] = $c["new_heap_words"] }
    END {
        print "lookup,heap_words,new_heap_words,faults_cum,faults_cum_nocache,heap_words_nocache" > (der "/heaptrace-cum.csv")
        for (l = 1; l <= n; l++) printf "%d,%s,%s,%s,%s,%s\n", l, heap[1, l], nh[1, l], cf[1, l], cf[2, l], heap[2, l] > (der "/heaptrace-cum.csv")
        print "variant,lookups,steady_heap_words,max_new_heap_words,gcs,gc_words_copied,carriers_mapped,cache_hits,faults,faults_per_1000"
        for (f = 1; f <= 2; f++)
            printf "%s,%d,%d,%d,%d,%d,%d,%d,%d,%.0f\n", (f == 1 ? "cache" : "nocache"), n, last[f], mx[f], gcs[f], gcw[f],
                mapped[f], hits[f], cum[f], cum[f] * 1000 / n
    }' der="$der" "$res/heaptrace.csv" "$res/heaptrace-nocache.csv" >"$der/heaptrace-summary.csv"

# ---- copy strategies: median ns/word over every shape at the largest size of each ------------
awk -F, "$lib"'
    /^#/ { next } !h { header($0); h = 1; next }
    { s = $c["strategy"]; if (!(s in seen)) { seen[s] = 1; order[++n] = s }
      if ($c["payload_words"] + 0 > big[$c["shape"]]) big[$c["shape"]] = $c["payload_words"] + 0
      row[++nr] = $0 }
    END {
        print "strategy,shapes,ns_per_word,ratio_to_memcpy,ns_per_op"
        for (i = 1; i <= n; i++) {
            m = 0; k = 0; no = 0
            for (r = 1; r <= nr; r++) {
                split(row[r], f, ",")
                if (f[c["strategy"]] != order[i]) continue
                o[++no] = f[c["ns_per_word"]] * f[c["payload_words"]]
                if (f[c["payload_words"]] + 0 != big[f[c["shape"]]]) continue
                a[++m] = f[c["ns_per_word"]]; b[++k] = f[c["ratio"]]
            }
            printf "%s,%d,%.3f,%.2f,%.1f\n", order[i], m, median(a, m), median(b, k), median(o, no)
        }
    }' "$res/copysweep.csv" >"$der/copysweep-summary.csv"

# ---- figure 3: ns/word per strategy and size, lists of integers --------------------------------
awk -F, "$lib"'
    /^#/ { next } !h { header($0); h = 1; next }
    $c["shape"] == "ints" { w = $c["payload_words"]; if (!(w in seen)) { seen[w] = 1; ws[++n] = w }; v[w, $c["strategy"]] = $c["ns_per_word"] }
    END {
        ns = split("memcpy copy_struct compact_in compact_out lookup copy_shared literal_put literal_get", st, " ")
        printf "payload_words"; for (j = 1; j <= ns; j++) printf ",%s", st[j]; print ""
        for (i = 1; i <= n; i++) { printf "%s", ws[i]; for (j = 1; j <= ns; j++) printf ",%s", v[ws[i], st[j]]; print "" }
    }' "$res/copysweep.csv" | sort -t, -k1n >"$der/copysweep-ints.csv"

# ---- the calibration of termcopy predict ----------------------------------------------------
# Lines KEY, WORDS, VALUE, SOURCE. Per era, the lookup and round-trip cost per operation at each
# ints length of the crossover grid (WORDS = the payload's flat size, 2L for lists:seq(1, L));
# predict interpolates between them. Scalars have WORDS '-'.
{
    printf '# termcopy predict calibration, written by report/derive.sh from %s\n' "$res"
    grep -m1 '^# date:' "$res/crossover.csv"
    grep -m1 '^# git:' "$res/crossover.csv"
    grep -m1 '^# cpu:' "$res/crossover.csv"
    grep -m1 '^# compiler:' "$res/crossover.csv"
    printf '# mode: %s\n' "$([ "$quick" = 1 ] && echo quick || echo default)"
    printf 'key\twords\tvalue\tsource\n'
    awk -F, 'NR > 1 && $1 != "literal_get" { printf "%s_ns_per_word\t-\t%s\tcopysweep: median over the shapes at the largest size\n", $1, $3 }
        $1 == "literal_get" { printf "literal_get_ns\t-\t%s\tcopysweep: persistent_term get, median ns per get over every shape and size\n", $5 }' \
        "$der/copysweep-summary.csv"
    sed -n 's/^# fault_ns: \([0-9.]*\).*/fault_ns\t-\t\1\tharness: one first-touch minor fault/p' "$res/crossover.csv" | head -1
    awk -F, "$lib"'
        /^#/ { next } !h { header($0); h = 1; next }
        $c["shape"] == "ints" {
            s = 1000 / $c["iterations"]
            printf "round_trip_ns.%s\t%d\t%.0f\tcrossover: ints L=%d\n", $c["era"], 2 * $c["payload_len"], $c["proc_us"] * s, $c["payload_len"]
            printf "lookup_ns.%s\t%d\t%.0f\tcrossover: ints L=%d\n", $c["era"], 2 * $c["payload_len"], $c["lookup_us"] * s, $c["payload_len"]
        }' "$res/crossover.csv" | sort -t"$(printf '\t')" -k1,1 -k2n
} >"$res/calibration.tsv"
