#!/usr/bin/env bash
# report/eras.sh ERAS_CSV DERIVED
#
# The tables of the report's section "The seeds' own VMs", from report/data/eras.csv
# (experiments/beam/eras/run.sh: the seeds' benchmarks on R10B-2, R13B01 and OTP 25, each
# beside the model's run of the same benchmark) and the seeds' transcribed numbers
# (report/data/seed2005.csv, seed2009.csv). Only arithmetic on measured rows: round trips
# (the median of the three proc passes), ratios, differences. Called by report/derive.sh.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: report/eras.sh ERAS_CSV DERIVED" >&2; exit 2; }
eras="$1" der="$2"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
data=$here/data
lib="$(cat "$here/csv.awk" "$here/stats.awk")
BEGIN { csv_who = \"eras\" }
"

# ---- 2005: per VM and length, the round trip, the lookup, the ratio and the tester's GCs -------
# ratio: the VM's own (per run, lookup over that run's round trip, median of the runs);
# model_ratio likewise; gcs_equal: of the 7 passes, how many have the model's tester count;
# within_15: |model_ratio / ratio - 1| <= 0.15 (for the build whose word size the r10b preset
# models, r10b-2-64, and OTP 25; '-' for the 32-bit build, compared for its counts only).
awk "$lib"'
    !csv_row() { next }
    csv_get("benchmark") == "eptest" && csv_get("variant") == "base" {
        vm = csv_get("vm"); L = csv_get("payload_len"); t = csv_get("test"); k = vm SUBSEP L
        if (!(k in seen)) { seen[k] = 1; order[++n] = k }
        us[k, t] = csv_get("median_us"); mus[k, t] = csv_get("model_median_us")
        g[k, t] = csv_get("gcs"); mg[k, t] = csv_get("model_gcs")
        if (t == "ets_lookup") { r[k] = csv_get("ratio"); mr[k] = csv_get("model_ratio") }
    }
    END {
        print "vm,payload_len,proc_us,lookup_us,ratio,model_ratio,ratio_diff_pct,within_15,proc_gcs,model_proc_gcs,lookup_gcs,model_lookup_gcs,insert_gcs,model_insert_gcs,gcs_equal"
        nt = split("proc1 proc2 proc3 ets_insert ets_overwrite ets_lookup empty", ts, " ")
        for (i = 1; i <= n; i++) {
            k = order[i]; split(k, p, SUBSEP)
            for (j = 1; j <= 3; j++) { a["p" j] = us[k, "proc" j] }
            eq = 0; for (j = 1; j <= nt; j++) eq += (g[k, ts[j]] == mg[k, ts[j]])
            d = (r[k] > 0) ? 100 * (mr[k] / r[k] - 1) : 0
            w = (p[1] == "r10b-2-32") ? "-" : ((d <= 15 && d >= -15) ? "yes" : "no")
            printf "%s,%s,%.0f,%.0f,%.2f,%.2f,%+.0f,%s,%s/%s/%s,%s/%s/%s,%s,%s,%s/%s,%s/%s,%d of %d\n", p[1], p[2],
                median3(us[k, "proc1"], us[k, "proc2"], us[k, "proc3"]), us[k, "ets_lookup"], r[k], mr[k], d, w,
                g[k, "proc1"], g[k, "proc2"], g[k, "proc3"], mg[k, "proc1"], mg[k, "proc2"], mg[k, "proc3"],
                g[k, "ets_lookup"], mg[k, "ets_lookup"], g[k, "ets_insert"], g[k, "ets_overwrite"],
                mg[k, "ets_insert"], mg[k, "ets_overwrite"], eq, nt
        }
    }
    function median3(a, b, c) { a += 0; b += 0; c += 0; return (a > b) ? ((b > c) ? b : (a > c ? c : a)) : ((a > c) ? a : (b > c ? c : b)) }
' "$eras" | awk -F, 'NR == 1 { print; next } { o = ($1 == "r10b-2-32") ? 1 : ($1 == "r10b-2-64") ? 2 : 3; print o "," $0 }' |
    { IFS= read -r h; echo "$h"; sort -t, -k1,1n -k3,3n | cut -d, -f2-; } >"$der/eras-2005.csv"

# The faults beside the GCs: per VM and length, the OS process's minor faults in a round-trip
# pass (the median of the three), the lookup pass and the insert pass, the model's beside each
# (rows whose VM run counted them: a row kept from an earlier run has none).
awk "$lib"'
    !csv_row() { next }
    csv_get("benchmark") == "eptest" && csv_get("variant") == "base" && csv_has("faults") && csv_get("faults") != "" {
        vm = csv_get("vm"); L = csv_get("payload_len"); t = csv_get("test"); k = vm SUBSEP L
        if (!(k in seen)) { seen[k] = 1; order[++n] = k }
        f[k, t] = csv_get("faults"); mf[k, t] = csv_get("model_faults")
    }
    function median3(a, b, c) { a += 0; b += 0; c += 0; return (a > b) ? ((b > c) ? b : (a > c ? c : a)) : ((a > c) ? a : (b > c ? c : b)) }
    function m3(arr, k) { return (arr[k, "proc1"] == "") ? "" : median3(arr[k, "proc1"], arr[k, "proc2"], arr[k, "proc3"]) }
    END {
        print "vm,payload_len,proc_faults,model_proc_faults,lookup_faults,model_lookup_faults,insert_faults,model_insert_faults"
        for (i = 1; i <= n; i++) {
            k = order[i]; split(k, p, SUBSEP)
            printf "%s,%s,%s,%s,%s,%s,%s,%s\n", p[1], p[2], m3(f, k), m3(mf, k), f[k, "ets_lookup"], mf[k, "ets_lookup"],
                f[k, "ets_insert"], mf[k, "ets_insert"]
        }
    }
' "$eras" | awk -F, 'NR == 1 { print; next } { o = ($1 == "r10b-2-64") ? 1 : ($1 == "r13b01-plain") ? 2 : ($1 == "r13b01-smp") ? 3 : 4; print o "," $0 }' |
    { IFS= read -r h; echo "$h"; sort -t, -k1,1n -k3,3n | cut -d, -f2-; } >"$der/eras-faults.csv"

# The faults in one row: per pass kind, the rows whose model count is within 15 % of the VM's or
# 200 faults of it (the fidelity sweep's criterion), over the rows with both counts.
awk "$lib"'
    function near(t) { return sweep_near(csv_get("model_" t "_faults"), csv_get(t "_faults"), 0.15, 200) }
    !csv_row() { next }
    csv_get("model_insert_faults") != "" && csv_get("insert_faults") != "" { n++; i += near("insert"); p += near("proc"); l += near("lookup") }
    END { print "rows,insert_near,proc_near,lookup_near"; printf "%d,%d,%d,%d\n", n, i, p, l }' "$der/eras-faults.csv" >"$der/eras-faults-summary.csv"

# The bars in one row: R10B-2 (64-bit) lengths 1000..30000 within 15 %, passes with equal GCs;
# and every length's passes with equal GCs on R10B-2 (both builds) and on R13B01 (plain, SMP).
awk "$lib"'
    !csv_row() { next }
    csv_get("vm") == "r10b-2-64" && csv_get("payload_len") >= 1000 { n++; w += csv_get("within_15") == "yes"
        split(csv_get("gcs_equal"), e, " "); eq += e[1]; all += e[3] }
    csv_get("vm") ~ /^r10b/ { split(csv_get("gcs_equal"), e, " "); aeq += e[1]; aall += e[3] }
    csv_get("vm") ~ /^r13b01-(plain|smp)$/ { v = csv_get("vm"); split(csv_get("gcs_equal"), e, " "); req[v] += e[1]; rall[v] += e[3] }
    END { print "lengths,within_15,passes,passes_gcs_equal,all_r10b_passes,all_r10b_passes_gcs_equal,r13b_plain_passes,r13b_plain_passes_gcs_equal,r13b_smp_passes,r13b_smp_passes_gcs_equal"
          printf "%d,%d,%d,%d,%d,%d,%d,%d,%d,%d\n", n, w, all, eq, aall, aeq, rall["r13b01-plain"], req["r13b01-plain"], rall["r13b01-smp"], req["r13b01-smp"] }
' "$der/eras-2005.csv" >"$der/eras-2005-summary.csv"

# The seed beside R10B-2: its ratio at L = 10 and 1000 (the median of its five runs).
awk "$lib"'
    !csv_row() { next }
    { L = csv_get("payload_len"); k = ++n[L]
      for (j = 1; j <= 3; j++) v[L, "proc" j, k] = csv_get("proc" j); v[L, "ets_lookup", k] = csv_get("ets_lookup") }
    END { print "payload_len,seed_ratio"
          for (L in n) {
              for (t = 1; t <= 3; t++) { for (i = 1; i <= n[L]; i++) a[i] = v[L, "proc" t, i]; m[L, "proc" t] = median(a, n[L]) }
              for (i = 1; i <= n[L]; i++) a[i] = v[L, "ets_lookup", i]; m[L, "ets_lookup"] = median(a, n[L])
              printf "%s,%.2f\n", L, rt_ratio(m, L, "ets_lookup") } }
' "$data/seed2005.csv" | sort -t, -k1n >"$der/eras-seed2005.csv"

# ---- 2005, one variable at a time on R10B-2 (and R13B01's heap): each variant beside its base row --
# ratio_moved: down or up when the variant's ratio is more than 15 % from the base's (a ratio on
# this loaded machine moved by that much from round to round), else same.
awk "$lib"'
    !csv_row() { next }
    csv_get("benchmark") == "eptest" && csv_get("test") == "ets_lookup" && csv_get("vm") ~ /^(r10b|r13b01-plain$)/ {
        k = csv_get("vm") SUBSEP csv_get("payload_len"); va = csv_get("variant")
        r[k, va] = csv_get("ratio"); mr[k, va] = csv_get("model_ratio"); g[k, va] = csv_get("gcs"); mg[k, va] = csv_get("model_gcs")
        f[k, va] = csv_has("faults") ? csv_get("faults") : ""; mf[k, va] = csv_has("model_faults") ? csv_get("model_faults") : ""
        us[k, va] = csv_get("median_us"); mus[k, va] = csv_get("model_median_us")
        if (va != "base" && !((k, va) in seen)) { seen[k, va] = 1; order[++n] = k SUBSEP va }
    }
    END {
        print "vm,payload_len,variant,ratio,base_ratio,lookup_gcs,base_lookup_gcs,model_ratio,model_base_ratio,model_lookup_gcs,ratio_moved,lookup_faults,base_lookup_faults,model_lookup_faults,model_base_lookup_faults,lookup_us,base_lookup_us,model_lookup_us,model_base_lookup_us"
        for (i = 1; i <= n; i++) {
            split(order[i], p, SUBSEP); k = p[1] SUBSEP p[2]; va = p[3]
            printf "%s,%s,%s,%.2f,%.2f,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", p[1], p[2], va, r[k, va], r[k, "base"], g[k, va], g[k, "base"],
                mr[k, va] == "" ? "-" : sprintf("%.2f", mr[k, va]), mr[k, "base"] == "" ? "-" : sprintf("%.2f", mr[k, "base"]),
                mg[k, va] == "" ? "-" : mg[k, va], (r[k, va] < r[k, "base"] / 1.15) ? "down" : (r[k, va] > r[k, "base"] * 1.15) ? "up" : "same",
                dash(f[k, va]), dash(f[k, "base"]), dash(mf[k, va]), dash(mf[k, "base"]),
                dash(us[k, va]), dash(us[k, "base"]), dash(mus[k, va]), dash(mus[k, "base"])
        }
    }
    function dash(x) { return x == "" ? "-" : x }
' "$eras" >"$der/eras-variants.csv"

# ---- 2009: ns per operation on each VM, the model beside R13B01, the seed beside it too -----------
# The model executes the table (or the dictionary), not the emulator's loop around each call:
# that phase is the VM's own loop row (the same dotimes over a fun that does nothing), measured
# in the same worker, once per key a scheduler runs (the update without SMP: its two writers
# take turns on the one scheduler, two loops per key). model_total = model + that phase; rows
# of a file measured before the loop was have no loop and are compared without it. faults and
# model_faults: each side's minor faults over the whole loop (the update: both writers), the
# count that leads: a fault's price is the machine's, and moves with it.
awk "$lib"'
    !csv_row() { next }
    FILENAME ~ /seed2009/ { s = csv_get("vm") == "-smp disable" ? "r13b01-plain" : "r13b01-smp"; seed[s, csv_get("op")] = csv_get("ops_per_s"); next }
    csv_get("benchmark") != "eptest" && csv_get("variant") == "base" && csv_get("test") == "loop" {
        loop[csv_get("vm"), csv_get("benchmark"), csv_get("iterations")] = csv_get("ns_per_op"); next }
    csv_get("benchmark") != "eptest" && csv_get("variant") == "base" {
        vm = csv_get("vm"); b = csv_get("benchmark"); t = csv_get("test"); n = csv_get("iterations")
        if (!((vm, b, t, n) in seen)) { seen[vm, b, t, n] = 1; order[++nr] = vm SUBSEP b SUBSEP t SUBSEP n }
        ns[vm, b, t, n] = csv_get("ns_per_op"); ops[vm, b, t, n] = csv_get("ops_per_s"); cpu[vm, b, t, n] = csv_get("cpu_ms")
        mns[vm, b, t, n] = csv_get("model_ns_per_op"); cfg[vm, b, t, n] = csv_get("model_config")
        fa[vm, b, t, n] = csv_has("faults") ? csv_get("faults") : ""; mfa[vm, b, t, n] = csv_has("model_faults") ? csv_get("model_faults") : ""
    }
    END {
        print "vm,benchmark,test,keys,ns_per_op,ops_per_s,cpu_ns_per_op,model_config,model_ns_per_op,loop_ns_per_op,model_total_ns_per_op,model_over_vm,within_15,seed_ops_per_s,seed_ns_per_op,faults,model_faults"
        for (i = 1; i <= nr; i++) {
            split(order[i], p, SUBSEP); k = p[1] SUBSEP p[2] SUBSEP p[3] SUBSEP p[4]
            lk = p[1] SUBSEP p[2] SUBSEP p[4]
            lp = (lk in loop) ? loop[lk] * ((p[3] == "update" && p[1] == "r13b01-plain") ? 2 : 1) : ""
            m = mns[k]; tot = (m == "") ? "" : m + lp; sd = (p[2] == "ets_test" && ((p[1], p[3]) in seed)) ? seed[p[1], p[3]] : ""
            printf "%s,%s,%s,%s,%.0f,%.0f,%.0f,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", p[1], p[2], p[3], p[4], ns[k], ops[k], cpu[k] * 1e6 / p[4],
                cfg[k] == "" ? "-" : cfg[k], m == "" ? "-" : sprintf("%.0f", m), lp == "" ? "-" : sprintf("%.0f", lp),
                tot == "" ? "-" : sprintf("%.0f", tot), tot == "" ? "-" : sprintf("%.2f", tot / ns[k]),
                tot == "" ? "-" : ((tot / ns[k] <= 1.15 && tot / ns[k] >= 0.85) ? "yes" : "no"),
                sd == "" ? "-" : sprintf("%.0f", sd), sd == "" ? "-" : sprintf("%.0f", 1e9 / sd),
                fa[k] == "" ? "-" : fa[k], mfa[k] == "" ? "-" : mfa[k]
        }
    }
' "$data/seed2009.csv" "$eras" >"$der/eras-2009.csv"

# The seed's own lock experiment: -smp disable (no locks, one scheduler) against smp (the
# meta-table and table locks, two schedulers), per op, on R13B01 here and in the seed; and the
# process dictionary beside them. lock_share: (smp - plain) / smp.
awk "$lib"'
    !csv_row() { next }
    # the seed'"'"'s table size only (the smaller table is a variant, below)
    csv_get("keys") != keys { next }
    { k = csv_get("vm") SUBSEP csv_get("benchmark") SUBSEP csv_get("test"); ns[k] = csv_get("ns_per_op"); cpu[k] = csv_get("cpu_ns_per_op")
      if (csv_get("seed_ns_per_op") != "-") sd[k] = csv_get("seed_ns_per_op") }
    END {
        print "op,plain_ns,smp_ns,smp_minus_plain_ns,lock_share_pct,plain_cpu_ns,smp_cpu_ns,cpu_share_pct,pdict_plain_ns,pdict_plain_cpu_ns,seed_plain_ns,seed_smp_ns,seed_smp_minus_plain_ns,seed_lock_share_pct"
        split("insert lookup update", ops, " ")
        for (j = 1; j <= 3; j++) {
            o = ops[j]; pl = ns["r13b01-plain", "ets_test", o]; sm = ns["r13b01-smp", "ets_test", o]
            if (pl == "" || sm == "") continue
            a = sd["r13b01-plain", "ets_test", o]; b = sd["r13b01-smp", "ets_test", o]
            cp = cpu["r13b01-plain", "ets_test", o]; cs = cpu["r13b01-smp", "ets_test", o]
            printf "%s,%s,%s,%+.0f,%.0f,%s,%s,%.0f,%s,%s,%s,%s,%.0f,%.0f\n", o, pl, sm, sm - pl, 100 * (sm - pl) / sm,
                cp, cs, (cs > 0 ? 100 * (cs - cp) / cs : 0), ns["r13b01-plain", "pdict", o], cpu["r13b01-plain", "pdict", o], a, b, b - a, 100 * (b - a) / b
        }
    }
' keys="$(awk -F, 'NR > 1 && $4 > m { m = $4 } END { print m }' "$der/eras-2009.csv")" "$der/eras-2009.csv" >"$der/eras-locks.csv"

# 2009, one variable at a time on R13B01: the table without write_concurrency, a table of
# 20000 keys instead of the seed's, and a VM rebuilt with one change (grow1: the table splits
# past one object per bucket, not seven), each beside the base row; the model's same switch
# beside it where it has one (its table time, without the loop phase: the loop is the same in
# both rows).
awk "$lib"'
    !csv_row() { next }
    csv_get("vm") ~ /^r13b01/ && csv_get("benchmark") == "ets_test" && csv_get("test") != "loop" {
        vm = csv_get("vm"); t = csv_get("test"); va = csv_get("variant"); n = csv_get("iterations")
        if (va == "base" && (n > big[vm] || !(vm in big))) big[vm] = n
        ns[vm, t, va, n] = csv_get("ns_per_op"); mns[vm, t, va, n] = csv_get("model_ns_per_op")
        lo[vm, t, va, n] = csv_get("min_us") * 1000 / n; hi[vm, t, va, n] = csv_get("max_us") * 1000 / n  # the runs, ns/op
        if (!((vm, t, va, n) in seen)) { seen[vm, t, va, n] = 1; order[++nr] = vm SUBSEP t SUBSEP va SUBSEP n }
    }
    END {
        print "vm,op,variable,keys,ns_per_op,base_keys,base_ns_per_op,change_pct,model_ns_per_op,model_base_ns_per_op,model_change_pct,min_ns,max_ns,base_min_ns,base_max_ns"
        for (i = 1; i <= nr; i++) {
            split(order[i], p, SUBSEP); vm = p[1]; t = p[2]; va = p[3]; n = p[4]
            if (va == "base" && n == big[vm]) continue
            b = ns[vm, t, "base", big[vm]]; m = mns[vm, t, va, n]; mb = mns[vm, t, "base", big[vm]]
            bk = vm SUBSEP t SUBSEP "base" SUBSEP big[vm]
            printf "%s,%s,%s,%s,%.0f,%s,%.0f,%+.0f,%s,%s,%s,%.0f,%.0f,%.0f,%.0f\n", vm, t, (va == "base" ? "table_size" : va), n, ns[vm, t, va, n], big[vm], b,
                100 * (ns[vm, t, va, n] / b - 1), m == "" ? "-" : sprintf("%.0f", m), (m == "" || mb == "") ? "-" : sprintf("%.0f", mb),
                (m == "" || mb == "") ? "-" : sprintf("%+.0f", 100 * (m / mb - 1)), lo[vm, t, va, n], hi[vm, t, va, n], lo[bk], hi[bk]
        }
    }
' "$eras" >"$der/eras-2009-variants.csv"

# 2009, the two variables side by side on R13B01 without SMP: what the seed's table size costs
# a lookup (1,000,000 keys against 20000) and what SMP with its locks adds to it (smp - plain),
# ns per operation.
awk "$lib"'
    !csv_row() { next }
    FILENAME ~ /locks/ { lk[csv_get("op")] = csv_get("smp_minus_plain_ns") + 0; next }
    csv_get("vm") == "r13b01-plain" && csv_get("variable") == "table_size" { sz[csv_get("op")] = csv_get("base_ns_per_op") - csv_get("ns_per_op") }
    END { print "op,size_ns,lock_ns"; split("insert lookup", ops, " ")
          for (i = 1; i <= 2; i++) if ((ops[i] in sz) && (ops[i] in lk)) printf "%s,%.0f,%.0f\n", ops[i], sz[ops[i]], lk[ops[i]] }
' "$der/eras-locks.csv" "$der/eras-2009-variants.csv" >"$der/eras-2009-levers.csv"

# How many rows of the 2009 table (those with a model run) have the model within 15 % of the VM.
awk "$lib"'!csv_row() { next } csv_get("within_15") == "yes" || csv_get("within_15") == "no" { n++; w += csv_get("within_15") == "yes" }
    END { print "rows,within_15"; printf "%d,%d\n", n, w }' "$der/eras-2009.csv" >"$der/eras-2009-summary.csv"

# ---- 2005 priced: the loops' counts at their own VM's unit prices ------------------------------
# Per VM with prices (eras.csv's priced columns: R10B-2 and R13B01 without SMP) and length: the
# round trip (the median of the three proc passes) and the lookup, measured and priced from the
# VM's own counts (identity: priced over measured); the VM's ratio beside the model's counts at
# the same prices (model_priced_ratio) and its C code's ratio; the prices that differ between
# the loops (eras-prices.csv). within_15: |model_priced_ratio / ratio - 1| <= 0.15.
# lookup_identity_gc_word: the lookup priced with its fragment words at the collector's word
# price instead of their own (R13B01's fragment unit left out).
if grep -q '^# priced: ' "$eras"; then
awk "$lib"'
    function m3(a, b, c) { x[1] = a; x[2] = b; x[3] = c; return median(x, 3) }
    !csv_row() { next }
    csv_has("loop") { k = csv_get("vm") SUBSEP csv_get("payload_len") SUBSEP csv_get("loop")
        w[k] = csv_get("word_ns"); g[k] = csv_get("gc_minor_ns"); gw[k] = csv_get("gc_word_ns")
        fw[k] = csv_has("gc_frag_word_ns") ? csv_get("gc_frag_word_ns") : gw[k]; next }
    csv_get("benchmark") == "eptest" && csv_get("variant") == "base" && csv_get("priced_us") != "" {
        vm = csv_get("vm"); L = csv_get("payload_len"); t = csv_get("test"); k = vm SUBSEP L
        if (!(k in seen)) { seen[k] = 1; order[++n] = k }
        us[k, t] = csv_get("median_us"); pr[k, t] = csv_get("priced_us"); mp[k, t] = csv_get("model_priced_us")
        if (t == "ets_lookup") { r[k] = csv_get("ratio"); mpr[k] = csv_get("model_priced_ratio"); mr[k] = csv_get("model_ratio")
            fr = csv_get("frag_words") + 0; gw_ = csv_get("gc_words") + 0; fwords[k] = (fr < gw_) ? fr : gw_ }
    }
    END {
        print "vm,payload_len,proc_us,proc_priced_us,proc_identity,lookup_us,lookup_priced_us,lookup_identity,ratio,model_priced_ratio,priced_diff_pct,within_15,model_ratio,model_proc_priced_us,model_lookup_priced_us,word_rt_ns,word_lookup_ns,gc_rt_ns,gc_lookup_ns,gc_word_lookup_ns,frag_word_lookup_ns,lookup_identity_gc_word"
        for (i = 1; i <= n; i++) {
            k = order[i]; split(k, p, SUBSEP)
            rt = m3(us[k, "proc1"], us[k, "proc2"], us[k, "proc3"]); prt = m3(pr[k, "proc1"], pr[k, "proc2"], pr[k, "proc3"])
            mrt = m3(mp[k, "proc1"], mp[k, "proc2"], mp[k, "proc3"])
            d = 100 * (mpr[k] / r[k] - 1)
            printf "%s,%s,%.0f,%.0f,%.2f,%.0f,%.0f,%.2f,%.2f,%.2f,%+.0f,%s,%.2f,%.0f,%.0f,%.3f,%.3f,%.0f,%.0f,%.3f,%.3f,%.2f\n", p[1], p[2],
                rt, prt, prt / rt, us[k, "ets_lookup"], pr[k, "ets_lookup"], pr[k, "ets_lookup"] / us[k, "ets_lookup"],
                r[k], mpr[k], d, (d <= 15 && d >= -15) ? "yes" : "no", mr[k], mrt, mp[k, "ets_lookup"],
                w[p[1], p[2], "rt"], w[p[1], p[2], "lookup"], g[p[1], p[2], "rt"], g[p[1], p[2], "lookup"],
                gw[p[1], p[2], "lookup"], fw[p[1], p[2], "lookup"],
                (pr[k, "ets_lookup"] - fwords[k] * (fw[p[1], p[2], "lookup"] - gw[p[1], p[2], "lookup"]) / 1000) / us[k, "ets_lookup"]
        }
    }
' "${eras%.csv}-prices.csv" "$eras" | awk -F, 'NR == 1 { print; next } { o = ($1 == "r10b-2-32") ? 1 : ($1 == "r10b-2-64") ? 2 : 3; print o "," $0 }' |
    { IFS= read -r h; echo "$h"; sort -t, -k1,1n -k3,3n | cut -d, -f2-; } >"$der/eras-priced.csv"

# In one row: per priced VM, the lengths from 1000 whose model priced ratio is within 15 % of the
# VM's, and the loops (round trip, lookup) whose priced time is within 15 % of the measured one.
awk "$lib"'
    function near(x) { return x >= 0.85 && x <= 1.15 }
    !csv_row() { next }
    { v = csv_get("vm"); if (!(v in seen)) { seen[v] = 1; order[++nv] = v }
      loops[v] += 2; ident[v] += near(csv_get("proc_identity")) + near(csv_get("lookup_identity"))
      if (csv_get("payload_len") >= 1000) { n[v]++; w[v] += csv_get("within_15") == "yes" } }
    END { print "vm,lengths,within_15,loops,identity_within_15"
          for (i = 1; i <= nv; i++) { v = order[i]; printf "%s,%d,%d,%d,%d\n", v, n[v], w[v], loops[v], ident[v] } }
' "$der/eras-priced.csv" >"$der/eras-priced-summary.csv"
fi
