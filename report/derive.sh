#!/usr/bin/env bash
# report/derive.sh RESULTS DERIVED QUICK
#
# From the experiments' CSVs in RESULTS, writes the tables the figures and the report read
# (DERIVED/*.csv).
# Only arithmetic on measured rows happens here: medians, ratios, pivots, cumulative sums and
# one least-squares line per era; each output says where its numbers come from.
# Every CSV is read through report/csv.awk (columns by their header names; a missing column,
# metadata line or row, or an empty CSV, stops with a message naming the file) and every
# round trip is report/stats.awk's round_trip(). POSIX awk (mawk) only. QUICK is 1 for
# ./run report --quick.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: report/derive.sh RESULTS DERIVED QUICK" >&2; exit 2; }
res="$1" der="$2" quick="$3"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
data=$res/data

# The eras by name, from the data: the native one (the VM installed here: the policy table's
# '# native:' line, results/policy.csv) and the 2005 seed's (its CSV's '# era: seed-NAME').
native=$("$here/csv.sh" meta "$res/policy.csv" native) || exit 1
seed_era=$("$here/csv.sh" meta "$data/seed2005.csv" era | sed -n 's/^seed-\([a-z0-9_]*\).*/\1/p')
[ -n "$seed_era" ] || { echo "derive: $data/seed2005.csv: its '# era:' line names no seed-ERA" >&2; exit 1; }

# Prepended to every awk program: the CSV reader, the medians and the round trip.
lib="$(cat "$here/csv.awk" "$here/stats.awk")
BEGIN { csv_who = \"derive\" }
"

# ---- the run: mode and the machine, for the report's header ---------------------------------
{
    echo "# mode: $([ "$quick" = 1 ] && echo 'quick (./run report --quick: smallest sizes, one run per point, noisy)' || echo 'default (./run report)')"
    awk "$lib"'
        !csv_row() { next }
        END {
            n = split("date git compiler flags cpu kernel fault_ns", k, " ")
            for (i = 1; i <= n; i++) print "# " k[i] ": " csv_meta_of(FILENAME, k[i])
            f = csv_meta_of(FILENAME, "fault_ns")
            if (!match(f, /^[0-9.]+/)) csv_die(FILENAME ": its \"# fault_ns:\" line does not start with a number")
            print "key,value"
            print "fault_ns," substr(f, 1, RLENGTH)
        }' "$res/eptest.csv"
} >"$der/run.csv"

# ---- term sizes against the VM's golden vectors (written by ./run report before the pipeline) --
if [ -f "$res/terms_fidelity.csv" ]; then
    awk "$lib"'
        !csv_row() { next }
        { if (csv_get("match") == "atom-indexed") { x++; next } n++; if (csv_get("match") == "yes") m++ }
        END { print "total,matched,atom_indexed"; print n "," m + 0 "," x + 0 }' "$res/terms_fidelity.csv" >"$der/fidelity.csv"
fi

# ---- the interventions on the real VM (committed: ./run report --interventions reruns them) ---
# The rows as measured, and per variant and length how each side moved: the VM against the VM
# as shipped, the model's switch against its baseline. A move is "up" or "down" when it is more
# than 15 % (counts: and more than 20 per 1000), else "same"; agree says whether both sides
# moved the same way. These are the installed VM's source (the source of the shipped rows) at
# the interventions' lengths; every source's word test at every length is the table after them.
awk "$lib"'
    /^#/ { print; next }
    !csv_row() { print; next }
    { r[++n] = $0; s[n] = csv_get("source"); k[n] = csv_get("lens_set"); if (csv_get("variant") == "shipped") inst = s[n] }
    END { if (inst == "") csv_die(csv_files() ": no shipped rows"); for (i = 1; i <= n; i++) if (s[i] == inst && k[i] == "interventions") print r[i] }' \
    "$data/vm-interventions.csv" >"$der/vm-interventions.csv"
inst=$(awk "$lib"' !csv_row() { next } csv_get("variant") == "shipped" { print csv_get("source"); exit }' "$der/vm-interventions.csv")
# Each row's ratios with the interval of its rounds (report/data/vm-interventions-rounds.csv:
# the VM's rounds of the variant on the installed VM's source, the model's of its switch).
awk "$lib"'
    function ci(k,    a, j) { for (j = 1; j <= nr[k]; j++) a[j] = r[k, j] + 0; return median_ci(a, nr[k]) }
    FILENAME ~ /rounds/ { if (!csv_row()) next
        if (csv_get("side") == "vm" && csv_get("source") != inst) next
        k = csv_get("side") SUBSEP csv_get("variant") SUBSEP csv_get("payload_len"); r[k, ++nr[k]] = csv_get("ratio"); next }
    /^#/ { print; next }
    !csv_row() { if ($0 !~ /^[ \t]*$/) print $0 ",vm_ratio_lo,vm_ratio_hi,model_ratio_lo,model_ratio_hi,ratio_cover"; next }
    { kv = "vm" SUBSEP csv_get("variant") SUBSEP csv_get("payload_len"); km = "model" SUBSEP csv_get("model_ablation") SUBSEP csv_get("payload_len")
      if (!(kv in nr) || !(km in nr)) csv_die(FILENAME ": no rounds for " csv_get("variant") " at L = " csv_get("payload_len"))
      ci(kv); vl = ci_lo; vh = ci_hi; c = ci_cover; ci(km)
      printf "%s,%s,%s,%s,%s,%.4f\n", $0, vl, vh, ci_lo, ci_hi, c }' \
    inst="$inst" "$data/vm-interventions-rounds.csv" "$der/vm-interventions.csv" >"$der/vm-interventions.tmp" && mv "$der/vm-interventions.tmp" "$der/vm-interventions.csv"
awk "$lib"'
    function arrow(x, y) { return x " → " y }
    function way(x, base, floor) { return x - base > floor && x > 1.15 * base ? "up" : base - x > floor && x < base / 1.15 ? "down" : "same" }
    function ciway(s, k, b) { return v[k, s "_ratio_hi"] + 0 < v[b, s "_ratio_lo"] + 0 ? "down" : v[k, s "_ratio_lo"] + 0 > v[b, s "_ratio_hi"] + 0 ? "up" : "same" }
    !csv_row() { next }
    {
        k = csv_get("variant") SUBSEP csv_get("payload_len"); rows[++nr] = k
        n = split("vm_lookup_gcs model_lookup_gcs vm_lookup_faults model_lookup_faults vm_ratio model_ratio vm_ratio_lo vm_ratio_hi model_ratio_lo model_ratio_hi", col, " ")
        for (i = 1; i <= n; i++) v[k, col[i]] = csv_get(col[i])
    }
    END {
        print "variant,payload_len,vm_gcs,model_gcs,gcs_vm_move,gcs_model_move,gcs_agree,vm_faults,model_faults,faults_vm_move,faults_model_move,faults_agree,vm_ratio,model_ratio,ratio_vm_move,ratio_model_move,ratio_agree"
        for (i = 1; i <= nr; i++) {
            k = rows[i]; split(k, kk, SUBSEP); b = "shipped" SUBSEP kk[2]; m = "rebuilt" SUBSEP kk[2]
            if (kk[1] == "shipped" || kk[1] == "rebuilt" || !((b, "vm_lookup_gcs") in v) || !((m, "model_lookup_gcs") in v)) continue
            g1 = way(v[k, "vm_lookup_gcs"], v[b, "vm_lookup_gcs"], 20); g2 = way(v[k, "model_lookup_gcs"], v[m, "model_lookup_gcs"], 20)
            f1 = way(v[k, "vm_lookup_faults"], v[b, "vm_lookup_faults"], 20); f2 = way(v[k, "model_lookup_faults"], v[m, "model_lookup_faults"], 20)
            r1 = ciway("vm", k, b); r2 = ciway("model", k, m)
            printf "%s,%s,%s,%s,%s,%s,%s,", kk[1], kk[2], arrow(v[b, "vm_lookup_gcs"], v[k, "vm_lookup_gcs"]),
                arrow(v[m, "model_lookup_gcs"], v[k, "model_lookup_gcs"]), g1, g2, g1 == g2 ? "yes" : "no"
            printf "%s,%s,%s,%s,%s,", arrow(v[b, "vm_lookup_faults"], v[k, "vm_lookup_faults"]),
                arrow(v[m, "model_lookup_faults"], v[k, "model_lookup_faults"]), f1, f2, f1 == f2 ? "yes" : "no"
            printf "%s,%s,%s,%s,%s\n", arrow(v[b, "vm_ratio"], v[k, "vm_ratio"]), arrow(v[m, "model_ratio"], v[k, "model_ratio"]),
                r1, r2, r1 == r2 ? "yes" : "no"
        }
    }' "$der/vm-interventions.csv" >"$der/vm-interventions-moves.csv"
# Per variant: in how many lengths each side moved the same way.
awk "$lib"'
    !csv_row() { next }
    { v = csv_get("variant"); if (!(v in n)) order[++nv] = v; n[v]++
      g[v] += csv_get("gcs_agree") == "yes"; f[v] += csv_get("faults_agree") == "yes"; r[v] += csv_get("ratio_agree") == "yes" }
    END { print "variant,lengths,gcs_agree,faults_agree,ratio_agree"
          for (i = 1; i <= nv; i++) { v = order[i]; printf "%s,%d,%d,%d,%d\n", v, n[v], g[v], f[v], r[v] } }' \
    "$der/vm-interventions-moves.csv" >"$der/vm-interventions-agree.csv"
# Where each intervention's VM counts and its model switch's differ: the lookup loop's GCs by
# more than 3 %, its minor faults by more than 15 % and 200 per 1000, its carriers by more than
# 2 per 1000 (the fidelity sweep's bounds).
awk "$lib"'
    function off(m, v, rel, abs_) { d = m - v; if (d < 0) d = -d; return d > abs_ && d > rel * v }
    !csv_row() { next }
    { n++; vg = csv_get("vm_lookup_gcs"); mg = csv_get("model_lookup_gcs"); vf = csv_get("vm_lookup_faults"); mf = csv_get("model_lookup_faults")
      vc = csv_get("vm_carriers"); mc = csv_get("model_carriers"); what = ""
      if (off(mg, vg, 0.03, 0)) what = "GCs"
      if (off(mf, vf, 0.15, 200)) what = what (what == "" ? "" : "; ") "faults"
      if (off(mc, vc, 0, 2)) what = what (what == "" ? "" : "; ") "carriers"
      if (what != "") { w++; row[w] = sprintf("%s,%s,%s,%s,%s,%s,%s,%s,%s", csv_get("variant"), csv_get("payload_len"), vg, mg, vf, mf, vc, mc, what) } }
    END { print "variant,payload_len,vm_gcs,model_gcs,vm_faults,model_faults,vm_carriers,model_carriers,what"
          if (!w) print "-,-,-,-,-,-,-,-,none"
          for (i = 1; i <= w; i++) print row[i]
          printf "rows,differ\n%d,%d\n", n, w > sumf }' sumf="$der/vm-interventions-differ-summary.csv" \
    "$der/vm-interventions.csv" >"$der/vm-interventions-differ.csv"
# The interventions priced (experiments/beam/interventions/priced.sh): each rebuilt VM's ratio
# at its own prices beside the model's counts with the matching switch at those prices, per
# variant and length, and whether the model's effect has the VM's sign.
awk -v meta=1 -v summary_csv="$der/vm-interventions-priced-summary.csv" "$lib$(cat "$here/../experiments/beam/interventions/priced.awk")" \
    "$data/vm-interventions-priced.csv" >"$der/vm-interventions-priced.csv"
# The same on one scheduler (priced.sh --schedulers 1), where the model's one run queue is the VM's.
if [ -f "$data/vm-interventions-priced-s1.csv" ]; then
    awk -v meta=1 -v summary_csv="$der/vm-interventions-priced-s1-summary.csv" \
        "$lib$(cat "$here/../experiments/beam/interventions/priced.awk")" \
        "$data/vm-interventions-priced-s1.csv" >"$der/vm-interventions-priced-s1.csv"
fi
# Per variant and scheduler count: at how many lengths the model's priced effect has the VM's sign
# (all of them, and those the VM's rounds resolve), and its priced proc2's change against
# rebuilt's has the sign of the VM's proc2 time's (proc_agree).
awk "$lib"'
    FNR == 1 { s = FILENAME ~ /-s1[.]csv$/ ? 1 : 2 }
    !csv_row() { next }
    csv_get("agree") == "yes" || csv_get("agree") == "no" {
        k = csv_get("variant") SUBSEP s; if (!(k in n)) key[++nk] = k
        n[k]++; a[k] += csv_get("agree") == "yes"
        if (csv_get("vm_resolved") == "yes") { r[k]++; ra[k] += csv_get("agree") == "yes" }
        pa[k] += (csv_get("vm_proc_change_pct") + 0 > 0) == (csv_get("model_proc_change_pct") + 0 > 0) }
    END { print "variant,schedulers,lengths,agree,resolved,resolved_agree,proc_agree"
          for (i = 1; i <= nk; i++) { split(key[i], p, SUBSEP)
              printf "%s,%s,%d,%d,%d,%d,%d\n", p[1], p[2], n[key[i]], a[key[i]], r[key[i]], ra[key[i]], pa[key[i]] } }' \
    "$der/vm-interventions-priced.csv" $([ -f "$der/vm-interventions-priced-s1.csv" ] && echo "$der/vm-interventions-priced-s1.csv") \
    >"$der/vm-interventions-priced-variants.csv"
# Where the rebuilt VMs' round trip spends its CPU time (experiments/beam/interventions/
# perfsplit.sh): per length and mechanism group, the median over the rounds of each variant's ns
# per call, rebuilt's and the word test's side by side, and the change.
if [ -f "$data/vm-interventions-perf.csv" ]; then
    awk -v meta=1 "$lib"'
        /^#/ { if (meta) print; next }
        !csv_row() { next }
        { k = csv_get("payload_len") SUBSEP csv_get("group"); v = csv_get("variant")
          if (!(k in seen)) { seen[k] = 1; key[++nk] = k }
          ns[k, v] = ns[k, v] " " csv_get("ns_per_call"); sh[k, v] = sh[k, v] " " csv_get("share_pct") }
        function med(s,    x, n) { n = split(s, x, " "); return n ? median(x, n) : "" }
        END { print "payload_len,group,rebuilt_ns,word_gc_test_ns,change_ns,rebuilt_share_pct,word_gc_test_share_pct"
              for (i = 1; i <= nk; i++) {
                  split(key[i], p, SUBSEP); a = med(ns[key[i], "rebuilt"]); b = med(ns[key[i], "word_gc_test"])
                  if (a == "" || b == "") csv_die("vm-interventions-perf.csv: no rebuilt or word_gc_test rows for " p[1] " " p[2])
                  printf "%s,%s,%.0f,%.0f,%+.0f,%.1f,%.1f\n", p[1], p[2], a, b, b - a,
                         med(sh[key[i], "rebuilt"]), med(sh[key[i], "word_gc_test"]) } }' \
        "$data/vm-interventions-perf.csv" >"$der/vm-interventions-perf.csv"
fi
# The rebuild check: the rebuilt VM's counts against the shipped VM's at every length; the minor
# faults, a count of the whole OS process, vary by round, so beside their medians go the
# rounds' range (vm-interventions-rounds.csv) and whether each median lies within the other's.
awk "$lib"'
    !csv_row() { next }
    csv_file == 1 { if (csv_get("side") != "vm" || csv_get("source") != inst) next
                    k = csv_get("variant") SUBSEP csv_get("payload_len"); f = csv_get("lookup_faults") + 0
                    if (!(k in lo) || f < lo[k]) lo[k] = f; if (!(k in hi) || f > hi[k]) hi[k] = f; next }
    { k = csv_get("payload_len")
      if (csv_get("variant") == "shipped") { sg[k] = csv_get("vm_lookup_gcs"); sf[k] = csv_get("vm_lookup_faults"); if (!(k in seen)) { seen[k] = 1; lens_[++nl] = k } }
      if (csv_get("variant") == "rebuilt") { rg[k] = csv_get("vm_lookup_gcs"); rf[k] = csv_get("vm_lookup_faults") } }
    END { print "payload_len,shipped_gcs,rebuilt_gcs,gcs_equal,shipped_faults,rebuilt_faults,faults_change_pct,shipped_faults_range,rebuilt_faults_range,faults_within_rounds"
          for (i = 1; i <= nl; i++) { k = lens_[i]; if (!(k in rg)) continue
              s = "shipped" SUBSEP k; r = "rebuilt" SUBSEP k
              within = (sf[k] >= lo[r] && sf[k] <= hi[r]) || (rf[k] >= lo[s] && rf[k] <= hi[s])
              printf "%s,%s,%s,%s,%s,%s,%+.0f,%d-%d,%d-%d,%s\n", k, sg[k], rg[k], sg[k] == rg[k] ? "yes" : "no", sf[k], rf[k],
                  (sf[k] > 0 ? 100 * (rf[k] - sf[k]) / sf[k] : 0), lo[s], hi[s], lo[r], hi[r], within ? "yes" : "no" } }' \
    inst="$inst" "$data/vm-interventions-rounds.csv" "$der/vm-interventions.csv" >"$der/vm-interventions-rebuild.csv"
awk "$lib"'!csv_row() { next } { n++; g += csv_get("gcs_equal") == "yes"; c = csv_get("faults_change_pct") + 0; f += (c <= 15 && c >= -15) }
    END { print "lengths,gcs_equal,faults_within_15"; printf "%d,%d,%d\n", n, g, f }' "$der/vm-interventions-rebuild.csv" >"$der/vm-interventions-rebuild-summary.csv"
# The word test on every source, at every length (the interventions' and the band edges): the
# source as built (rebuilt) against word_gc_test, the medians of the rounds and their range;
# the interpreter of the same source (emu) where it ran, whose test is the C macro's; *_repro_*
# are the reproducer's (a fresh process, traced: exact counts).
awk "$lib"'
    function spread(k, c, fmt) { return sprintf(fmt " (" fmt "-" fmt ")", v[k, c], v[k, c "_min"], v[k, c "_max"]) }
    function get(k, c) { return ((k, "vm_ratio") in v) ? v[k, c] : "-" }
    !csv_row() { next }
    { w = csv_get("variant"); if (w != "rebuilt" && w != "word_gc_test" && w != "emu") next
      s = csv_get("source"); l = csv_get("payload_len"); k = s SUBSEP l SUBSEP w
      if (!((s, l) in seen)) { seen[s, l] = 1; key[++n] = s SUBSEP l; set[s, l] = csv_get("lens_set") }
      m = split("vm_lookup_gcs vm_lookup_faults vm_ratio vm_ratio_min vm_ratio_max vm_lookup_us vm_lookup_us_min vm_lookup_us_max vm_proc_us vm_repro_gcs vm_min_mbuf_per_free", c, " ")
      for (i = 1; i <= m; i++) v[k, c[i]] = csv_get(c[i]) }
    END {
        print "source,payload_len,lens_set,built_gcs,word_gcs,built_faults,word_faults,built_ratio,word_ratio,built_ratio_range,word_ratio_range,built_lookup_us,word_lookup_us,built_proc_us,word_proc_us,built_min_mbuf_per_free,word_min_mbuf_per_free,gcs_change_pct,built_loses,word_loses,built_loses_all,word_loses_all,built_repro_gcs,word_repro_gcs,emu_repro_gcs,emu_gcs,emu_min_mbuf_per_free"
        for (i = 1; i <= n; i++) {
            split(key[i], sl, SUBSEP); b = key[i] SUBSEP "rebuilt"; w = key[i] SUBSEP "word_gc_test"; e = key[i] SUBSEP "emu"
            if (!((b, "vm_ratio") in v) || !((w, "vm_ratio") in v)) continue
            printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,", sl[1], sl[2], set[key[i]], v[b, "vm_lookup_gcs"], v[w, "vm_lookup_gcs"],
                v[b, "vm_lookup_faults"], v[w, "vm_lookup_faults"], v[b, "vm_ratio"], v[w, "vm_ratio"]
            printf "%s,%s,%s,%s,%s,%s,%s,%s,%+.0f,", spread(b, "vm_ratio", "%.2f"), spread(w, "vm_ratio", "%.2f"),
                spread(b, "vm_lookup_us", "%.0f"), spread(w, "vm_lookup_us", "%.0f"), v[b, "vm_proc_us"], v[w, "vm_proc_us"],
                v[b, "vm_min_mbuf_per_free"], v[w, "vm_min_mbuf_per_free"],
                (v[b, "vm_lookup_gcs"] > 0 ? 100 * (v[w, "vm_lookup_gcs"] - v[b, "vm_lookup_gcs"]) / v[b, "vm_lookup_gcs"] : 0)
            printf "%s,%s,%s,%s,%s,%s,%s,%s,%s\n", (v[b, "vm_ratio"] > 1 ? "yes" : "no"), (v[w, "vm_ratio"] > 1 ? "yes" : "no"),
                (v[b, "vm_ratio_min"] > 1 ? "yes" : "no"), (v[w, "vm_ratio_min"] > 1 ? "yes" : "no"),
                v[b, "vm_repro_gcs"], v[w, "vm_repro_gcs"], get(e, "vm_repro_gcs"), get(e, "vm_lookup_gcs"), get(e, "vm_min_mbuf_per_free")
        }
    }' "$data/vm-interventions.csv" >"$der/vm-interventions-word.csv"
# Per source: at how many lengths the lookup lost to the round trip (its median ratio over 1;
# in every round), as built and patched; the range over the lengths of the reproducer's
# smallest fragments / free heap at a GC's start; at how many lengths the patched JIT's
# reproducer collected exactly as often as the interpreter's, and the source's reproducer
# (as built and patched) as the first source's (the installed VM's).
awk "$lib"'
    function lohi(t, x) { if (!((s, t "lo") in r) || x < r[s, t "lo"]) r[s, t "lo"] = x; if (!((s, t "hi") in r) || x > r[s, t "hi"]) r[s, t "hi"] = x }
    !csv_row() { next }
    { s = csv_get("source"); l = csv_get("payload_len"); if (!(s in n)) order[++ns] = s; n[s]++
      b[s] += csv_get("built_loses") == "yes"; w[s] += csv_get("word_loses") == "yes"
      ba[s] += csv_get("built_loses_all") == "yes"; wa[s] += csv_get("word_loses_all") == "yes"
      if (csv_get("emu_repro_gcs") != "-") { ne[s]++; eq[s] += csv_get("emu_repro_gcs") == csv_get("word_repro_gcs") }
      rep[s, l] = csv_get("built_repro_gcs") " " csv_get("word_repro_gcs")
      lohi("b", csv_get("built_min_mbuf_per_free") + 0); lohi("w", csv_get("word_min_mbuf_per_free") + 0) }
    END { print "source,lengths,built_loses,word_loses,built_loses_all,word_loses_all,built_mbuf_lo,built_mbuf_hi,word_mbuf_lo,word_mbuf_hi,emu_lengths,word_repro_as_emu,repro_lengths_as_first"
          for (i = 1; i <= ns; i++) { s = order[i]; same = 0
              for (k in rep) { split(k, kk, SUBSEP); if (kk[1] == s && ((order[1], kk[2]) in rep) && rep[k] == rep[order[1], kk[2]]) same++ }
              printf "%s,%d,%d,%d,%d,%d,%.2f,%.2f,%.2f,%.2f,%d,%d,%d\n", s, n[s], b[s], w[s], ba[s], wa[s],
                  r[s, "blo"], r[s, "bhi"], r[s, "wlo"], r[s, "whi"], ne[s], eq[s], same } }' \
    "$der/vm-interventions-word.csv" >"$der/vm-interventions-word-sum.csv"

# ---- figure 1 and the 2005 table: per 1000 operations, proc = the round trip -----------------
{
    echo "# per 1000 operations; proc_us is the median of the proc1..3 medians; seed rows: the median of its 5 runs"
    echo "# ratio: lookup_us / proc_us; faults: minor page faults per 1000 (model: its first run; VM: median over repeats)"
    echo "source,payload_len,label,proc_us,insert_us,overwrite_us,lookup_us,empty_us,ratio,proc_faults,lookup_faults,lookup_gcs"
    {
        awk "$lib"'
            BEGIN { nt = split("proc1 proc2 proc3 ets_insert ets_overwrite ets_lookup empty", tests, " ") }
            !csv_row() { next }
            { L = csv_get("payload_len"); k = ++n[L]; for (t = 1; t <= nt; t++) v[L, tests[t], k] = csv_get(tests[t]) }
            END {
                for (L in n) {
                    for (t = 1; t <= nt; t++) { for (i = 1; i <= n[L]; i++) a[i] = v[L, tests[t], i]; m[L, tests[t]] = median(a, n[L]) }
                    pr = round_trip(m, L); ratio = rt_ratio(m, L, "ets_lookup")
                    printf "0,seed-%s,%d,seed %s L=%d,%.0f,%.0f,%.0f,%.0f,%.0f,%.2f,,,\n", seed_era, L, toupper(seed_era), L, pr,
                        m[L, "ets_insert"], m[L, "ets_overwrite"], m[L, "ets_lookup"], m[L, "empty"], ratio
                }
            }' seed_era="$seed_era" "$data/seed2005.csv"
        # The model under the seed's era's rules beside the seed; the native era and the VM are
        # the canonical run's (derived/answer.csv), not a second measurement of the same thing.
        for f in "$res/eptest.csv"; do
            awk -v seed_era="$seed_era" "$lib"'
                !csv_row() { next }
                csv_get("shape") == "ints" && csv_get("era") == seed_era {
                    key = csv_get("era") SUBSEP csv_get("payload_len"); keys[key] = 1; t = csv_get("test")
                    s = 1000 / csv_get("iterations")
                    us[key, t] = csv_get("median_us") * s
                    faults[key, t] = csv_get("faults") * s; gcs[key, t] = csv_get("gcs") * s
                }
                END {
                    for (key in keys) {
                        # the round trip and the ratio first: a table element read below would exist
                        pr = round_trip(us, key); ratio = rt_ratio(us, key, "ets_lookup"); pf = round_trip(faults, key)
                        split(key, k, SUBSEP)
                        src = k[1] ~ /^vm/ ? "vm" : "model-" k[1]
                        printf "%d,%s,%d,%s L=%d,%.0f,%.0f,%.0f,%.0f,%.1f,%.2f,%.0f,%.0f,%.0f\n", (src == "vm" ? 3 : 1), src, k[2],
                            (src == "vm" ? "VM" : "model " toupper(k[1])), k[2],
                            pr, us[key, "ets_insert"], us[key, "ets_overwrite"], us[key, "ets_lookup"], us[key, "empty"],
                            ratio, pf, faults[key, "ets_lookup"], gcs[key, "ets_lookup"]
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
            awk -v variant="${v:-as_shipped}" -v suffix="${v:+_$v}" "$lib"'
                !csv_row() { next }
                { t = csv_get("test"); if (suffix != "" && substr(t, length(t) - length(suffix) + 1) == suffix) t = substr(t, 1, length(t) - length(suffix))
                  s = 1000 / csv_get("iterations"); L = csv_get("payload_len"); tests[t] = 1
                  us[variant, t] = csv_get("median_us") * s; fl[variant, t] = csv_get("faults") * s; g[t] = csv_get("gcs") * s }
                END {
                    # the emulator flags, and the tester'"'"'s min_heap_size when it set one
                    flags = csv_meta_of(FILENAME, "emulator_flags")
                    if (csv_meta_has(FILENAME, "tester") && match(csv_meta_of(FILENAME, "tester"), /min_heap_size, *[0-9]+/)) {
                        mh = substr(csv_meta_of(FILENAME, "tester"), RSTART, RLENGTH); sub(/^[^0-9]*/, "", mh)
                        flags = flags " + min_heap_size " mh
                    }
                    pr = round_trip(us, variant); pf = round_trip(fl, variant)
                    for (t in tests) if (t ~ /^ets_lookup/) {
                        ratio = rt_ratio(us, variant, t)
                        printf "%s,%d,%s,%.0f,%.0f,%.2f,%.0f,%.0f,%.0f,%s\n", variant, L, t, us[variant, t], pr, ratio, fl[variant, t], pf, g[t], flags
                    }
                }' "$f"
        done | sort -t, -k2n -k1,1 -k3,3
    } >"$der/vm-variants.csv"
fi

# The minimum-heap variant beside the plain run, at the longest length that has both.
if [ -f "$der/vm-variants.csv" ]; then
    awk "$lib"'
        !csv_row() { next }
        csv_get("lookup") == "ets_lookup" { L = csv_get("payload_len") + 0; r[csv_get("variant"), L] = csv_get("ratio")
            if ((("as_shipped", L) in r) && (("min_heap", L) in r) && L > best) best = L }
        END { if (!best) exit; print "payload_len,ratio,min_heap_ratio"; printf "%d,%s,%s\n", best, r["as_shipped", best], r["min_heap", best] }' \
        "$der/vm-variants.csv" >"$der/vm-min-heap.csv"
    [ -s "$der/vm-min-heap.csv" ] || rm -f "$der/vm-min-heap.csv"
fi

# ---- the VM's summary: the plain eptest run at the length run.sh ran its variants at ------------
vmbase="" vmlen=-1
for f in "$res"/vm/eptest_ints_*.csv; do
    [ -f "$f" ] || continue
    n=${f##*/eptest_ints_} && n=${n%.csv}
    case $n in '' | *[!0-9]*) continue ;; esac # a variant's run: eptest_ints_L_VARIANT.csv
    [ -f "${f%.csv}_sbct2048.csv" ] || continue # not the variants' length
    if [ "$n" -gt "$vmlen" ]; then vmbase=$f vmlen=$n; fi
done
if [ -n "$vmbase" ]; then
    # The lookup faults of the sbct and min_heap variant runs at the same L (their own files;
    # empty when they did not run).
    variant_faults() {
        local f="${vmbase%.csv}_$1.csv"
        if [ -f "$f" ]; then
            awk -v t="ets_lookup_$1" "$lib"'
                !csv_row() { next }
                csv_get("test") == t { printf "%.0f", csv_get("faults") * 1000 / csv_get("iterations") }' "$f"
        fi
    }
    sbct=$(variant_faults sbct2048)
    minheap=$(variant_faults min_heap)
    awk -v sbct="$sbct" -v minheap="$minheap" "$lib"'
        /^# vm_counts: ets_lookup / { for (i = 1; i <= split($0, w, " "); i++) if (split(w[i], kv, "=") == 2) lk[kv[1]] = kv[2] }
        /^# vm_counts: proc2 / { for (i = 1; i <= split($0, w, " "); i++) if (split(w[i], kv, "=") == 2) pc[kv[1]] = kv[2] }
        !csv_row() { next }
        { s = 1000 / csv_get("iterations"); L = csv_get("payload_len"); t = csv_get("test")
          us[L, t] = csv_get("median_us") * s; iqr[t] = csv_get("iqr_us") * s
          fl[t] = csv_get("faults") * s; g[t] = csv_get("gcs") * s; cm[t] = csv_get("carriers_mapped") * s }
        END {
            pr = round_trip(us, L); ratio = rt_ratio(us, L, "ets_lookup")
            print "# the real VM, plain run (experiments/beam/run.sh eptest_ints_L.csv), per 1000 operations"
            print "payload_len,proc_us,lookup_us,ratio,proc_faults,lookup_faults,proc_gcs,lookup_gcs,lookup_carriers_mapped,lookup_heap_max,proc_heap_max,lookup_mseg_cache_hits,lookup_iqr_us,proc2_iqr_us,lookup_element_us,lookup_hot_key_us,sbct2048_lookup_faults,min_heap_lookup_faults"
            printf "%d,%.0f,%.0f,%.2f,%.0f,%.0f,%.0f,%.0f,%.0f,%s,%s,%s,%.0f,%.0f,%.0f,%.0f,%s,%s\n", L, pr, us[L, "ets_lookup"], ratio,
                fl["proc2"], fl["ets_lookup"], g["proc2"], g["ets_lookup"], cm["ets_lookup"],
                lk["tester_heap_block_max"], pc["tester_heap_block_max"], lk["mseg_cache_hits"], iqr["ets_lookup"], iqr["proc2"],
                us[L, "ets_lookup_element"], us[L, "ets_lookup_hot_key"], sbct, minheap
        }' "$vmbase" >"$der/vm-summary.csv"
fi

# ---- the ablation: its runs' medians, their spread, and figure 5 ------------------------------
# results/ablate-rN.csv: ablate's runs (one repeat each, every switch in turn, run after run).
# derived/ablate.csv: per era and switch the median of the runs' times (µs per pass) and ratio
# with their interval (median_ci: with 3 runs, the smallest and the largest), and the medians of
# the counts per 1000 operations (the model's counts do not change from run to run); moved_* say how the lookup, the
# round trip and the ratio stand to the era's baseline: down or up when the intervals do not
# overlap (counts: when they differ), else same. ablate-wide.csv: figure 5's columns, with the
# real VM's interventions at the native era's length beside the switch each patches; one column
# and its interval per era ablate ran (ablate-eras.csv: each era's payload length), so a new era
# or a new variant needs nothing here.
awk "$lib"'
    function ci(k, c,    a, j) { for (j = 1; j <= nr[k]; j++) a[j] = v[k, j, c] + 0; return median_ci(a, nr[k]) }
    function mv(x, xl, xh, b, bl, bh) { return xh < bl ? "down" : xl > bh ? "up" : "same" }
    function shown(k, c, f) { return sprintf(f " (" f "–" f ")", m[k, c], l[k, c], h[k, c]) }
    !csv_row() { next }
    { k = csv_get("era") SUBSEP csv_get("ablation"); if (!(k in nr)) order[++n] = k; j = ++nr[k]
      nc = split("proc_us lookup_us ratio proc_faults lookup_faults lookup_gcs lookup_gc_words lookup_carriers_mapped proc_gcs proc_gc_words", cols, " ")
      # times per pass as measured; counts per 1000 operations, whatever the calls per pass
      for (i = 1; i <= nc; i++) v[k, j, cols[i]] = csv_get(cols[i]) * (i > 3 ? 1000 / csv_get("iterations") : 1)
      shape[k] = csv_get("shape"); len[k] = csv_get("payload_len"); it[k] = csv_get("iterations") }
    END {
        print "era,ablation,shape,payload_len,iterations,rounds,ci_cover,proc_us,proc_us_lo,proc_us_hi,lookup_us,lookup_us_lo,lookup_us_hi,ratio,ratio_lo,ratio_hi," \
              "proc_faults,lookup_faults,lookup_gcs,lookup_gc_words,lookup_carriers_mapped,proc_gcs,proc_gc_words,moved_lookup,moved_proc,moved_ratio,moved_lookup_gcs,moved_proc_gcs," \
              "lookup_shown,proc_shown,ratio_shown"
        for (o = 1; o <= n; o++) { k = order[o]
            for (i = 1; i <= 3; i++) { c = cols[i]; m[k, c] = ci(k, c); l[k, c] = ci_lo; h[k, c] = ci_hi }
            cover[k] = ci_cover
            for (i = 4; i <= nc; i++) { c = cols[i]; m[k, c] = ci(k, c) } }
        for (o = 1; o <= n; o++) { k = order[o]; split(k, p, SUBSEP); b = p[1] SUBSEP "baseline"
            if (!((b, "ratio") in m)) csv_die(csv_files() ": no baseline row for the era " p[1])
            printf "%s,%s,%s,%s,%s,%d,%.4f", p[1], p[2], shape[k], len[k], it[k], nr[k], cover[k]
            printf ",%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.3f,%.3f,%.3f", m[k, "proc_us"], l[k, "proc_us"], h[k, "proc_us"],
                m[k, "lookup_us"], l[k, "lookup_us"], h[k, "lookup_us"], m[k, "ratio"], l[k, "ratio"], h[k, "ratio"]
            for (i = 4; i <= nc; i++) printf ",%d", m[k, cols[i]]
            printf ",%s,%s,%s,%s,%s", mv(m[k, "lookup_us"], l[k, "lookup_us"], h[k, "lookup_us"], m[b, "lookup_us"], l[b, "lookup_us"], h[b, "lookup_us"]),
                mv(m[k, "proc_us"], l[k, "proc_us"], h[k, "proc_us"], m[b, "proc_us"], l[b, "proc_us"], h[b, "proc_us"]),
                mv(m[k, "ratio"], l[k, "ratio"], h[k, "ratio"], m[b, "ratio"], l[b, "ratio"], h[b, "ratio"]),
                mv(m[k, "lookup_gcs"], m[k, "lookup_gcs"], m[k, "lookup_gcs"], m[b, "lookup_gcs"], m[b, "lookup_gcs"], m[b, "lookup_gcs"]),
                mv(m[k, "proc_gcs"], m[k, "proc_gcs"], m[k, "proc_gcs"], m[b, "proc_gcs"], m[b, "proc_gcs"], m[b, "proc_gcs"])
            printf ",%s,%s,%s\n", shown(k, "lookup_us", "%.0f"), shown(k, "proc_us", "%.0f"), shown(k, "ratio", "%.2f")
        }
    }' "$res"/ablate-r*.csv >"$der/ablate.csv"
# The VM beside the model (figure 5): each intervention's lookup / round trip at the native
# era's ablation length, the median of its rounds and their smallest and largest, on the switch
# the patch makes (report/data/vm-interventions-rounds.csv, the installed VM's source).
awk "$lib"'
    function ci(k,    a, j) { for (j = 1; j <= nr[k]; j++) a[j] = r[k, j] + 0; return median_ci(a, nr[k]) }
    FILENAME ~ /ablate.csv$/ { if (!csv_row()) next
        a = csv_get("ablation"); e = csv_get("era"); if (!(a in seen)) { seen[a] = 1; order[++n] = a }
        if (!(e in eseen)) { eseen[e] = 1; eras[++ne] = e; len[e] = csv_get("payload_len") }
        m[a, e] = csv_get("ratio"); lo[a, e] = csv_get("ratio_lo"); hi[a, e] = csv_get("ratio_hi"); next }
    FILENAME ~ /rounds/ { if (!csv_row()) next
        if (csv_get("side") != "vm" || csv_get("source") != inst) next
        k = csv_get("variant") SUBSEP csv_get("payload_len"); r[k, ++nr[k]] = csv_get("ratio"); next }
    END {
        if (!(native in eseen)) csv_die(csv_files() ": ablate ran no " native " rows")
        L = len[native]
        # the patch that makes each switch in the VM
        vm["baseline"] = "shipped"; vm["word_gc_test"] = "word_gc_test"; vm["no_long_gc_delay"] = "no_long_gc_delay"; vm["fresh_pages"] = "mseg_no_cache"
        printf "ablation"; for (j = 1; j <= ne; j++) printf ",%s,%s_lo,%s_hi", eras[j], eras[j], eras[j]; print ",vm,vm_lo,vm_hi,vm_variant,x"
        for (i = 1; i <= n; i++) { a = order[i]; k = vm[a] SUBSEP L
            printf "%s", a; for (j = 1; j <= ne; j++) printf ",%s,%s,%s", m[a, eras[j]], lo[a, eras[j]], hi[a, eras[j]]
            if ((a in vm) && (k in nr)) printf ",%.3f,%.3f,%.3f,%s", ci(k), ci_lo, ci_hi, vm[a]; else printf ",,,,"
            printf ",%d\n", i - 1 }
        print "era,payload_len" > erasf
        for (j = 1; j <= ne; j++) print eras[j] "," len[eras[j]] > erasf
    }' native="$native" inst="$inst" erasf="$der/ablate-eras.csv" "$der/ablate.csv" "$data/vm-interventions-rounds.csv" >"$der/ablate-wide.csv"

# ---- figure 4: phase shares per test, counters and profiler side by side ------------------
# One round trip (proc2, the middle pass) and the three ETS tests of each era; the empty loop
# copies nothing and the profiler takes no sample in it, so it is left out of the figure.
awk "$lib"'
    BEGIN { name["proc2"] = "round trip"; name["ets_insert"] = "insert"; name["ets_overwrite"] = "overwrite"; name["ets_lookup"] = "lookup" }
    !csv_row() { next }
    { test = csv_get("test"); if (!(test in name)) next
      t = csv_get("era") SUBSEP test; if (!(t in seen)) { seen[t] = 1; order[++n] = t }
      p = csv_get("phase"); if (!(p in ph)) { ph[p] = 1; phases[++np] = p }
      cs[t, p] = csv_get("counter_share"); ps[t, p] = csv_get("profiler_share") }
    END {
        printf "era,label"; for (j = 1; j <= np; j++) printf ",%s", phases[j]; print ""
        print "era,payload_len,first,last" > erasf
        for (i = 1; i <= n; i++) {
            split(order[i], k, SUBSEP)
            printf "%s,%s: counters", k[1], name[k[2]]; for (j = 1; j <= np; j++) printf ",%s", cs[order[i], phases[j]]; print ""
            printf "%s,%s: profiler", k[1], name[k[2]]; for (j = 1; j <= np; j++) printf ",%s", ps[order[i], phases[j]]; print ""
            # each era a run of rows (breakdown runs the eras one after the other): figure 4 a panel each
            if (k[1] != last_era) { if (last_era != "") print last_era "," csv_meta_of(FILENAME, "payload_len_" last_era) "," first "," (row - 1) > erasf
                                    last_era = k[1]; first = row + 0 }
            row += 2
        }
        if (last_era != "") print last_era "," csv_meta_of(FILENAME, "payload_len_" last_era) "," first "," (row - 1) > erasf
    }' erasf="$der/breakdown-eras.csv" "$res/breakdown.csv" >"$der/breakdown-wide.csv"

# ---- figure 7: ops/s per lock mode and threads, the process dictionary, the 2009 seed -----
{
    echo "config,insert,lookup,update,update_counter"
    awk "$lib"'
        !csv_row() { next }
        { op = csv_get("op"); if (op == "put") op = "insert"; if (op == "get") op = "lookup"
          cf = csv_get("lock_mode") "/" csv_get("threads") "t"; if (!(cf in seen)) { seen[cf] = 1; order[++n] = cf }
          v[cf, op] = csv_get("ops_per_s") }
        END { for (i = 1; i <= n; i++) { cf = order[i]
                printf "%s,%s,%s,%s,%s\n", cf, v[cf, "insert"], v[cf, "lookup"], v[cf, "update"], v[cf, "update_counter"] } }
    ' "$res/etsbench.csv"
    awk "$lib"'
        !csv_row() { next }
        { vm = csv_get("vm"); if (!(vm in seen)) { seen[vm] = 1; order[++n] = vm } v[vm, csv_get("op")] = csv_get("ops_per_s") }
        END { for (i = 1; i <= n; i++) printf "seed R13B01 %s,%s,%s,%s,\n", order[i], v[order[i], "insert"], v[order[i], "lookup"], v[order[i], "update"] }
    ' "$data/seed2009.csv"
} >"$der/etsbench-wide.csv"

# ---- the 2009 question on both sides: the model's lock modes beside the VM's ----------------
# One row per VM table type and threads, with the model's mode that takes the same locks
# (OTP 25's plain set takes the table rwlock; the model's r13b adds R13B's meta-table lock, and
# none is the seed's -smp disable) and the seed's R13B01 number where it ran that
# configuration. ops/s per op; model_lock_ns: the model's measured lock phase per operation;
# vm_faults and model_faults: the minor faults of the operation's run (each side's repeats'
# median; each VM run in a VM of its own, experiments/beam/run.sh), "-" where a side has none.
if [ -f "$res/vm-etsbench.csv" ]; then
    awk "$lib"'
        !csv_row() { next }
        FILENAME ~ /seed2009/ { seed[csv_get("vm"), csv_get("op")] = csv_get("ops_per_s"); next }
        { op = csv_get("op"); if (op == "put") op = "insert"; if (op == "get") op = "lookup"
          side = FILENAME ~ /vm-etsbench/ ? "vm" : "model"; mode = csv_get("lock_mode"); th = csv_get("threads")
          v[side, mode, th, op] = csv_get("ops_per_s")
          f[side, mode, th, op] = csv_get("faults") ~ /^[0-9]+$/ ? csv_get("faults") : "-"
          if (side == "model") lk[mode, th, op] = csv_get("lock_ns")
          if (side == "vm" && !((mode, th) in seen)) { seen[mode, th] = 1; order[++n] = mode SUBSEP th } }
        END {
            print "config,vm_mode,model_mode,threads,op,vm_ops_per_s,model_ops_per_s,model_over_vm,model_lock_ns,seed_ops_per_s,vm_faults,model_faults"
            split("insert lookup update update_counter", ops, " ")
            for (i = 1; i <= n; i++) {
                split(order[i], k, SUBSEP); mode = k[1]; th = k[2]
                mm = mode == "default" ? "r13b" : mode
                # the seed: R13B01 with {write_concurrency, true}, one process on a 2-scheduler VM
                # for insert and lookup, two writers for the update
                sd = (mode == "write_concurrency") ? "smp:2" : ""
                for (j = 1; j <= 4; j++) {
                    op = ops[j]
                    if (!(("vm", mode, th, op) in v)) continue
                    m = (("model", mm, th, op) in v) ? v["model", mm, th, op] : ""
                    sv = (sd != "" && ((sd, op) in seed) && (th == (op == "update" ? 2 : 1))) ? seed[sd, op] : ""
                    printf "%s/%st,%s,%s,%d,%s,%.0f,%s,%s,%s,%s,%s,%s\n", mode, th, mode, (m == "" ? "-" : mm), th, op,
                        v["vm", mode, th, op], (m == "" ? "-" : sprintf("%.0f", m)),
                        (m == "" ? "-" : sprintf("%.2f", m / v["vm", mode, th, op])),
                        (m == "" ? "-" : lk[mm, th, op]), (sv == "" ? "-" : sprintf("%.0f", sv)),
                        f["vm", mode, th, op], (m == "" ? "-" : f["model", mm, th, op])
                }
            }
            # the seed without SMP: no locks at all, as the model mode none
            for (j = 1; j <= 3; j++) { op = ops[j]
                if (("-smp disable", op) in seed)
                    printf "none/1t,-,none,1,%s,-,%s,-,%s,%.0f,-,%s\n", op,
                        (("model", "none", 1, op) in v) ? sprintf("%.0f", v["model", "none", 1, op]) : "-",
                        (("model", "none", 1, op) in v) ? lk["none", 1, op] : "-", seed["-smp disable", op],
                        (("model", "none", 1, op) in v) ? f["model", "none", 1, op] : "-" }
        }' "$data/seed2009.csv" "$res/etsbench.csv" "$res/vm-etsbench.csv" >"$der/etsbench-compare.csv"
    # Figure 7's rows: one bar group per configuration and op, x its place within the op.
    awk "$lib"'
        !csv_row() { next }
        { op = csv_get("op"); if (op != "insert" && op != "lookup") next
          x = ++n[op]; num = "^[0-9.]+$"
          printf "%s,%d,%s,%s,%s,%s\n", op, x, csv_get("config"), csv_get("vm_ops_per_s") ~ num ? csv_get("vm_ops_per_s") : "",
              csv_get("model_ops_per_s") ~ num ? csv_get("model_ops_per_s") : "", csv_get("seed_ops_per_s") ~ num ? csv_get("seed_ops_per_s") : "" }
        BEGIN { print "op,x,config,vm,model,seed" }' "$der/etsbench-compare.csv" >"$der/etsbench-fig.csv"
fi
# The VM on a small and a large table (experiments/beam/run.sh etsbench_sizes.csv): what a
# lookup costs when the table fits the cache and when it does not, beside the process
# dictionary's get at the same sizes; ns per operation.
if [ -f "$res/vm-etsbench-sizes.csv" ]; then
    awk "$lib"'
        !csv_row() { next }
        { n = csv_get("objects") + 0; mode = csv_get("lock_mode"); op = csv_get("op")
          if (op != "lookup" && op != "get") next
          if (!(n in ns)) { ns[n] = 1; sizes[++k] = n }
          if (!(mode in ms)) { ms[mode] = 1; modes[++nm] = mode }
          t[n, mode] = csv_get("ns_per_op") }
        END {
            sort(sizes, k); small = sizes[1]; large = sizes[k]
            print "mode,small_objects,large_objects,small_ns,large_ns,large_minus_small_ns,small_minus_pdict_ns"
            for (i = 1; i <= nm; i++) { m = modes[i]
                printf "%s,%d,%d,%.1f,%.1f,%.1f,%s\n", m, small, large, t[small, m], t[large, m], t[large, m] - t[small, m],
                    m == "pdict" ? "-" : sprintf("%.1f", t[small, m] - t[small, "pdict"]) }
        }' "$res/vm-etsbench-sizes.csv" >"$der/etsbench-sizes.csv"
fi

# ---- the fidelity sweep (experiments/beam/sweep.sh, committed as report/data/fidelity-sweep.csv)
# Per shape and criterion, the lengths where the model misses the VM, as ranges of the grid,
# and the worst of them: GCs within 3 % (lookup and round trip), minor faults within 15 % or 200
# (both), carriers within 2 per 1000 operations (both), and the same side of the round trip
# where the VM is below 0.9 or above 1.1. A sweep whose VM side ran several times (vm_*_lo and
# vm_*_hi, sweep.sh --rounds) also gives, per criterion, the points where the VM's runs all meet
# it against their own median (vm_self: where the VM repeated itself in this sweep) and where the
# model lies inside the runs' range widened by it (model_in_runs); per miss, how many of its
# points are ones where the VM's runs disagree among themselves (vm_runs_disagree).
if [ -f "$data/fidelity-sweep.csv" ]; then
    awk "$lib"'
        function rel(m, v) { return v > 0 ? (m - v) / v : (m > 0 ? 1 : 0) }
        function run(k, e) { return csv_get("vm_" k "_" e) + 0 }
        # the VM runs of both loops within tolerance r (or a) of their median
        function agree(k, r, a) {
            return sweep_near(run("lookup_" k, "lo"), csv_get("vm_lookup_" k) + 0, r, a) && sweep_near(run("lookup_" k, "hi"), csv_get("vm_lookup_" k) + 0, r, a) &&
                   sweep_near(run("rt_" k, "lo"), csv_get("vm_rt_" k) + 0, r, a) && sweep_near(run("rt_" k, "hi"), csv_get("vm_rt_" k) + 0, r, a)
        }
        function inruns(k, r, a) { return sweep_in_runs("lookup_" k, r, a) && sweep_in_runs("rt_" k, r, a) }
        function miss(crit, L, how, m, v, badness,    k, n) {
            k = shape SUBSEP crit
            if (!(k in nmiss)) keys[++nk] = k
            if (runs && !ok[crit]) nracy[k]++
            n = ++nmiss[k]; ml[k, n] = L; mi[k, n] = pts[shape]
            if (badness >= worst[k]) { worst[k] = badness; worstat[k] = sprintf("L = %d: %s", L, how) }
        }
        # the missed lengths of key k as ranges of consecutive grid points: "250-1000 4250"
        function ranges(k,    j, out, start) {
            out = ""
            for (j = 1; j <= nmiss[k]; j++) {
                if (j == 1 || mi[k, j] != mi[k, j - 1] + 1) { if (j > 1) out = out (ml[k, j - 1] != start ? "-" ml[k, j - 1] : "") " "; start = ml[k, j]; out = out start }
            }
            return out (ml[k, nmiss[k]] != start ? "-" ml[k, nmiss[k]] : "")
        }
        !csv_row() { next }
        { shape = csv_get("shape"); L = csv_get("payload_len") + 0; pts[shape]++; if (!(shape in seen)) { seen[shape] = 1; shapes[++ns] = shape }
          mg = csv_get("model_lookup_gcs") + 0; vg = csv_get("vm_lookup_gcs") + 0
          mrg = csv_get("model_rt_gcs") + 0; vrg = csv_get("vm_rt_gcs") + 0
          mf = csv_get("model_lookup_faults") + 0; vf = csv_get("vm_lookup_faults") + 0
          mrf = csv_get("model_rt_faults") + 0; vrf = csv_get("vm_rt_faults") + 0
          mc = csv_get("model_lookup_carriers") + 0; vc = csv_get("vm_lookup_carriers") + 0
          mrc = csv_get("model_rt_carriers") + 0; vrc = csv_get("vm_rt_carriers") + 0
          # the side from the priced ratio of the model where the sweep has it (sweep.sh --prices)
          mr = (csv_has("model_priced_ratio") && csv_get("model_priced_ratio") != "" ? csv_get("model_priced_ratio") : csv_get("model_ratio")) + 0
          vr = csv_get("vm_ratio") + 0
          runs = csv_has("vm_rounds")
          if (runs) {
              ok["GCs within 3 %"] = agree("gcs", 0.03, 0); ok["faults within 15 % or 200"] = agree("faults", 0.15, 200)
              ok["carriers within 2"] = agree("carriers", 0, 2)
              ok["same side"] = (run("ratio", "lo") < 1) == (vr < 1) && (run("ratio", "hi") < 1) == (vr < 1)
              self["GCs within 3 %"] += ok["GCs within 3 %"]; self["faults within 15 % or 200"] += ok["faults within 15 % or 200"]
              self["carriers within 2"] += ok["carriers within 2"]
              if (vr < 0.9 || vr > 1.1) self["same side"] += ok["same side"]
              inr["GCs within 3 %"] += inruns("gcs", 0.03, 0); inr["faults within 15 % or 200"] += inruns("faults", 0.15, 200)
              inr["carriers within 2"] += inruns("carriers", 0, 2)
              if (vr < 0.9 || vr > 1.1) inr["same side"] += (mr < 1) == (run("ratio", "lo") < 1) || (mr < 1) == (run("ratio", "hi") < 1)
          }
          a = rel(mg, vg); b = rel(mrg, vrg); if (a < 0) a = -a; if (b < 0) b = -b
          if (a > 0.03 || b > 0.03)
              miss("GCs within 3 %", L, sprintf("lookup %d / %d, round trip %d / %d", mg, vg, mrg, vrg), 0, 0, a > b ? a : b)
          d1 = mf - vf; if (d1 < 0) d1 = -d1; d2 = mrf - vrf; if (d2 < 0) d2 = -d2
          if ((d1 > 200 && d1 > 0.15 * vf) || (d2 > 200 && d2 > 0.15 * vrf))
              miss("faults within 15 % or 200", L, sprintf("lookup %d / %d, round trip %d / %d", mf, vf, mrf, vrf), 0, 0, d1 > d2 ? d1 : d2)
          c1 = mc - vc; if (c1 < 0) c1 = -c1; c2 = mrc - vrc; if (c2 < 0) c2 = -c2
          if (c1 > 2 || c2 > 2)
              miss("carriers within 2", L, sprintf("lookup %d / %d, round trip %d / %d", mc, vc, mrc, vrc), 0, 0, c1 > c2 ? c1 : c2)
          total++; if (vr < 0.9 || vr > 1.1) clear++
          if ((vr < 0.9 || vr > 1.1) && ((vr < 1) != (mr < 1)))
              miss("same side", L, sprintf("ratio %.2f / %.2f", mr, vr), 0, 0, (mr - vr) * (mr - vr))
        }
        END {
            print "criterion,met,points,vm_self,model_in_runs" > sumf
            split("GCs within 3 %|faults within 15 % or 200|carriers within 2|same side", crit, "|")
            for (c = 1; c <= 4; c++) {
                missed = 0
                for (i = 1; i <= ns; i++) missed += nmiss[shapes[i], crit[c]]
                printf "%s,%d,%d,%s,%s\n", crit[c], (c == 4 ? clear : total) - missed, c == 4 ? clear : total,
                    runs ? self[crit[c]] + 0 : "n/a", runs ? inr[crit[c]] + 0 : "n/a" > sumf
            }
            print "shape,criterion,missed,vm_runs_disagree,points,lengths,worst"
            if (nk == 0) print "-,none,0,0,0,-,-"
            for (i = 1; i <= nk; i++) {
                k = keys[i]; split(k, p, SUBSEP); r = ranges(k)
                printf "%s,%s,%d,%s,%d,\"%s\",\"%s\"\n", p[1], p[2], nmiss[k], runs ? nracy[k] + 0 : "n/a", pts[p[1]], r, worstat[k]
            }
        }' sumf="$der/sweep-summary.csv" "$data/fidelity-sweep.csv" >"$der/sweep-wrong.csv"
fi
# ---- which scheduler runs the tester (experiments/beam/schedraw.sh, §5.1): per +scl setting,
# the runs, how many moved the tester between the normal schedulers, and the round trip's pass
# (proc2): its carriers and faults, the median of the runs that moved and of those that did not
# ("-" where none), and every run's least and most carriers.
if [ -f "$res/schedraw.csv" ]; then
    awk "$lib"'
        function med(k,    a, n) { n = split(v[k], a, " "); return n ? median(a, n) : "-" }
        function add(k, x) { v[k] = (k in v) ? v[k] " " x : x }
        !csv_row() { next }
        { s = csv_get("scl"); if (!(s in runs)) order[++ns] = s; runs[s]++
          m = csv_get("moved") == "yes"; moved[s] += m; c = csv_get("proc2_carriers") + 0
          add(s SUBSEP m SUBSEP "c", c); add(s SUBSEP m SUBSEP "f", csv_get("proc2_faults") + 0)
          if (!(s in lo) || c < lo[s]) lo[s] = c; if (!(s in hi) || c > hi[s]) hi[s] = c }
        END { print "scl,runs,moved,proc2_carriers_moved,proc2_carriers_stayed,proc2_faults_moved,proc2_faults_stayed,proc2_carriers_lo,proc2_carriers_hi"
              for (i = 1; i <= ns; i++) { s = order[i]
                  printf "%s,%d,%d,%s,%s,%s,%s,%d,%d\n", s, runs[s], moved[s], med(s SUBSEP 1 SUBSEP "c"), med(s SUBSEP 0 SUBSEP "c"),
                      med(s SUBSEP 1 SUBSEP "f"), med(s SUBSEP 0 SUBSEP "f"), lo[s], hi[s] } }' "$res/schedraw.csv" >"$der/schedraw-summary.csv"
fi
# ---- the sweep and the dirty-GC race (pipeline.sh: sweep.sh --remodel of every point with the
# race's other outcome, policy dirty_gc_first off): per point the model misses, the VM's median
# and its runs' range, the model as it is, the model with the other outcome and whether that one
# meets the VM (GCs within 3 %, both loops); then over the whole grid how many points each
# outcome meets, and how many only one of them.
if [ -f "$res/fidelity-sweep-serverfirst.csv" ]; then
    awk "$lib"'
        !csv_row() { next }
        { k = csv_get("shape") "," csv_get("payload_len") }
        csv_file == 1 { ol[k] = csv_get("model_lookup_gcs") + 0; ort[k] = csv_get("model_rt_gcs") + 0; next }
        !(k in ol) { next }
        { vl = csv_get("vm_lookup_gcs") + 0; vr = csv_get("vm_rt_gcs") + 0
          a = sweep_near(csv_get("model_lookup_gcs"), vl, 0.03, 0) && sweep_near(csv_get("model_rt_gcs"), vr, 0.03, 0)
          b = sweep_near(ol[k], vl, 0.03, 0) && sweep_near(ort[k], vr, 0.03, 0)
          pts++; ma += a; mb += b; oa += a && !b; ob += b && !a
          if (a) next
          n++; nb += b
          rows[n] = sprintf("%s,%.0f,%.0f,%.0f..%.0f,%.0f,%.0f,%.0f,%.0f,%s", k, vl, vr, csv_get("vm_rt_gcs_lo"), csv_get("vm_rt_gcs_hi"),
                            csv_get("model_lookup_gcs"), csv_get("model_rt_gcs"), ol[k], ort[k], b ? "yes" : "no") }
        END {
            print "points,met_by_model,met_by_other_outcome,met_by_model_only,met_by_other_only,missed,met_by_neither" > sumf
            printf "%d,%d,%d,%d,%d,%d,%d\n", pts, ma, mb, oa, ob, n, n - nb > sumf
            print "shape,payload_len,vm_lookup_gcs,vm_rt_gcs,vm_rt_gcs_runs,model_lookup_gcs,model_rt_gcs,other_lookup_gcs,other_rt_gcs,other_meets_vm"
            for (i = 1; i <= n; i++) print rows[i]
        }' sumf="$der/sweep-race-summary.csv" "$res/fidelity-sweep-serverfirst.csv" "$data/fidelity-sweep.csv" >"$der/sweep-race.csv"
    # no miss: no table (the summary says so)
    [ "$(grep -c . "$der/sweep-race.csv")" -gt 1 ] || rm -f "$der/sweep-race.csv"
fi

# ---- the time account (experiments/beam/account.sh): the identity and the verdicts ----------
# Per point: the VM's ratio (CPU time), the model's at the VM's prices and by its C code's own
# time (lookup over the median of proc1..3, as everywhere); then how many loops the prices
# account for within 15 %, and the model's priced time within 20 % where its counts match; and
# how far apart the untraced testers of a round came (vm_testers_hi_us over vm_testers_lo_us):
# the loops where the slowest took over 15 % more than the fastest, and the largest such ratio.
if [ -f "$res/account.csv" ]; then
    awk "$lib"'
        function med3(a, b, c) { return a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b)) }
        !csv_row() { next }
        { k = csv_get("shape") "," csv_get("payload_len"); if (!(k in seen)) { seen[k] = 1; key[++n] = k }
          ex[k, csv_get("loop")] = csv_get("model_exec_us") + 0
          vr[k] = csv_get("point_vm_ratio"); mr[k] = csv_get("point_model_ratio")
          loops++; within += csv_get("within_15") == "yes"; cm += csv_get("counts_match") == "yes"
          mw += csv_get("counts_match") == "yes" && csv_get("model_within_20") == "yes"
          s = csv_get("vm_testers_lo_us") > 0 ? csv_get("vm_testers_hi_us") / csv_get("vm_testers_lo_us") : 0
          apart += s > 1.15; smax = s > smax ? s : smax }
        END {
            print "shape,payload_len,vm_ratio,model_priced_ratio,model_exec_ratio,same_side"
            for (i = 1; i <= n; i++) {
                k = key[i]; e = ex[k, "ets_lookup"] / med3(ex[k, "proc1"], ex[k, "proc2"], ex[k, "proc3"])
                printf "%s,%s,%s,%.3f,%s\n", k, vr[k], mr[k], e, ((vr[k] < 1) == (mr[k] < 1)) ? "yes" : "no"
            }
            printf "loops,within_15,counts_match,model_within_20,testers_apart,testers_spread_max\n%d,%d,%d,%d,%d,%.2f\n", loops, within, cm, mw, apart, smax > (der "/account-summary.csv")
        }' der="$der" "$res/account.csv" >"$der/account-ratios.csv"
fi

# ---- termcopy explain --vm on five terms: each side's verdict and whether they agree ---------
# model_over_vm: the model's priced ratio over the VM's; within_25: within 25 % of it.
# The verdict of one run: the lookup is slower than a round trip when the ratio is above 1.1,
# faster below 0.9, else even (the fidelity sweep's band: one run is not a measurement of a
# difference within 10 %).
if [ -f "$res/explain.csv" ]; then
    awk "$lib"'
        function verdict(r) { return r > 1.1 ? "slower" : r < 0.9 ? "faster" : "even" }
        !csv_row() { next }
        { n++; m = verdict(csv_get("model_ratio")); v = verdict(csv_get("vm_ratio")); same = m == v; agree += same
          q = csv_get("vm_ratio") > 0 ? csv_get("model_ratio") / csv_get("vm_ratio") : 0
          w = q >= 0.75 && q <= 1.25; within += w
          row[n] = sprintf("%s,%s,%s,%.2f,%s,%s,%s,%s,%s,%s,%s,%s", csv_get("term"), csv_get("model_ratio"), csv_get("vm_ratio"),
                           q, w ? "yes" : "no", m, v, same ? "yes" : "no", csv_get("model_lookup_gcs"), csv_get("vm_lookup_gcs"),
                           csv_get("model_lookup_faults"), csv_get("vm_lookup_faults")) }
        END {
            print "term,model_ratio,vm_ratio,model_over_vm,within_25,model_verdict,vm_verdict,agree,model_lookup_gcs,vm_lookup_gcs,model_lookup_faults,vm_lookup_faults"
            for (i = 1; i <= n; i++) print row[i]
            printf "terms,agree,within_25\n%d,%d,%d\n", n, agree, within > (der "/explain-agree.csv")
        }' der="$der" "$res/explain.csv" >"$der/explain.csv"
fi

# ---- the external format: termcopy's codec beside the VM's and ei, per shape and size -------
# From copysweep --codec (termcopy), experiments/beam/codec.erl (the VM, when erl ran) and
# codecpeer (erl_interface's ei, when it was built): each side's fastest batch in ns per byte
# of the same encoding (min_ns_per_byte: on a loaded machine an interrupted batch is only ever
# slower), and termcopy over the VM. The ei column is ei_encode on an encode row, ei_decode
# (into C values) on a decode row; ei_skip (ei_skip_term) on decode rows only.
codec_files=("$res/codec.csv")
[ -f "$res/codec-vm.csv" ] && codec_files+=("$res/codec-vm.csv")
[ -f "$res/codec-ei.csv" ] && codec_files+=("$res/codec-ei.csv")
awk -v hasvm="$([ -f "$res/codec-vm.csv" ] && echo 1 || echo 0)" -v hasei="$([ -f "$res/codec-ei.csv" ] && echo 1 || echo 0)" "$lib"'
    # The size a payload was made for: its flat size is at or below it (binary: 8 bytes a word)
    function words(shape, len, w) { if (shape == "binary") w = len / 8; return w > 32768 ? "1 Mi" : w > 1024 ? "32 Ki" : "1 Ki" }
    !csv_row() { next }
    {
        op = csv_get("codec"); k = csv_get("shape") SUBSEP csv_get("payload_len")
        side = FILENAME ~ /codec-vm\.csv$/ ? "vm" : FILENAME ~ /codec-ei\.csv$/ ? "ei" : "tc"
        if (side == "ei") { sub(/^ei_/, "", op); if (op == "skip") { v[k, "decode", "skip"] = csv_get("min_ns_per_byte"); next } }
        v[k, op, side] = csv_get("min_ns_per_byte")
        if (side == "tc" && !((k, op) in seen)) {
            seen[k, op] = 1; order[++n] = k SUBSEP op
            size[k] = words(csv_get("shape"), csv_get("payload_len"), csv_get("flat_words")); bytes[k] = csv_get("ext_bytes")
        }
    }
    END {
        print "op,shape,words,ext_bytes,termcopy_ns,vm_ns,termcopy_over_vm,ei_ns,ei_skip_ns"
        for (i = 1; i <= n; i++) {
            split(order[i], f, SUBSEP); k = f[1] SUBSEP f[2]; op = f[3]
            tc = v[k, op, "tc"]; vm = hasvm && ((k, op, "vm") in v) ? v[k, op, "vm"] : ""
            ei = hasei && ((k, op, "ei") in v) ? v[k, op, "ei"] : ""
            sk = hasei && op == "decode" && ((k, op, "skip") in v) ? v[k, op, "skip"] : ""
            ratio = vm != "" && vm + 0 > 0 ? sprintf("%.2f", tc / vm) : ""
            printf "%s,%s,%s,%s,%.3f,%s,%s,%s,%s\n", op, f[1], size[k], bytes[k], tc, vm == "" ? "" : sprintf("%.3f", vm),
                ratio, ei == "" ? "" : sprintf("%.3f", ei), sk == "" ? "" : sprintf("%.3f", sk)
        }
    }' "${codec_files[@]}" >"$der/codec.csv"

# ---- figure 8: crossover length per shape and era ------------------------------------------
vmgrids=()
for f in "$res/vm-crossover.csv" "$res/vm-crossover-fine.csv"; do [ -f "$f" ] && vmgrids+=("$f"); done
# One column per era crossover ran (its summary's rows, in their order; crossover-eras.csv
# lists them for the figures), the VM's, and how the native era's (the VM's own) compares.
awk -v hasvm="$([ -f "$res/vm-crossover.csv" ] && echo 1 || echo 0)" -v native="$native" "$lib"'
    !csv_row() { next }
    { s = csv_get("shape"); if (!(s in seen)) { seen[s] = 1; order[++n] = s } }
    csv_file == 1 { e = csv_get("era"); if (!(e in eseen)) { eseen[e] = 1; eras[++ne] = e }
                    x[s, e] = csv_get("crossover_len"); next }
    { # a VM grid: its crossover is the smallest length where the lookup loses
      L = csv_get("payload_len")
      if (csv_get("ratio") + 0 > 1 && (!((s, "vm") in x) || L + 0 < x[s, "vm"] + 0)) x[s, "vm"] = L }
    END {
        printf "shape"; for (j = 1; j <= ne; j++) printf ",%s", eras[j]; print ",vm,model_vs_vm"
        print "era" > erasf
        for (j = 1; j <= ne; j++) print eras[j] > erasf
        for (i = 1; i <= n; i++) { s = order[i]; m = x[s, native]; v = ((s, "vm") in x ? x[s, "vm"] : "")
            # within 2x: both cross and the lengths differ by at most a factor of 2
            cmp = v == "" ? "" : (m + 0 > 0 && m / v >= 0.5 && m / v <= 2) ? "within 2x" : "no"
            if (v == "" && m == "none" && hasvm) cmp = "neither crosses"
            printf "%s", s; for (j = 1; j <= ne; j++) printf ",%s", x[s, eras[j]]; printf ",%s,%s\n", v, cmp } }' \
    erasf="$der/crossover-eras.csv" "$res/crossover-summary.csv" ${vmgrids[@]+"${vmgrids[@]}"} >"$der/crossover-wide.csv"

# ---- the ints grid, model against VM point by point: does the lookup lose at the same lengths? --
vmgrid=$([ -f "$res/vm-crossover-fine.csv" ] && echo "$res/vm-crossover-fine.csv" || echo "$res/vm-crossover.csv")
if [ -f "$vmgrid" ]; then
    awk -v native="$native" "$lib"'
        !csv_row() { next }
        csv_get("shape") != "ints" { next }
        csv_file == 1 && csv_get("era") == native { m[csv_get("payload_len")] = csv_get("ratio") }
        csv_file == 2 { v[csv_get("payload_len")] = csv_get("ratio") }
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

# ---- the canonical run: the model's OTP 25 loops against the VM's, alternated ---------------
# From experiments/beam/fidelity.sh: model and VM runs alternated round by round; per shape and
# length each side's lookup / round-trip ratio is the median of its per-round ratios with the
# 95 % interval of that median (report/stats.awk median_ci: the order-statistic interval), and
# the counts behind it are the medians of the rounds (per 1000 operations of each pass). A
# side "loses" (the lookup costs more than a round trip) when its interval lies above 1, "wins"
# when below, else it is "even". The report's opening table reads this file, and every later
# section that quotes an OTP 25 ratio quotes it or says what it measured instead.
# The model with the vm_overhead phase (the VM's fixed per-operation cost the model does not
# execute, measured once in this run by unitcost with the payload []: VM minus model, never
# below 0) is the model's own rounds with that phase added to each pass: answer-overhead.csv.
if [ -f "$res/fidelity.csv" ]; then
    oh_rt=0 oh_lk=0 oh_from=absent
    if [ -f "$res/unitcost.csv" ]; then
        read -r oh_rt oh_lk oh_from < <(awk "$lib"'
            !csv_row() { next }
            csv_get("shape") == "nil" && csv_get("vm_ns") ~ /^[0-9.]+$/ { d = csv_get("vm_ns") - csv_get("model_ns"); oh[csv_get("unit")] = d > 0 ? d : 0 }
            END { if (("round_trip_fixed" in oh) && ("lookup_fixed" in oh)) printf "%.1f %.1f unitcost\n", oh["round_trip_fixed"], oh["lookup_fixed"]
                  else print "0 0 absent" }' "$res/unitcost.csv")
    fi
    awk -v oh_rt="$oh_rt" -v oh_lk="$oh_lk" -v oh_from="$oh_from" -v ohf="$der/answer-overhead.csv" "$lib"'
        function med(key, s, col,    k, a) { for (k = 1; k <= n[key, s]; k++) a[k] = v[key, s, k, col]; return median(a, n[key, s]) }
        function pair(key, col) { return sprintf("%.0f / %.0f", med(key, "vm", col), med(key, "model", col)) }
        # the median of a side'"'"'s per-round ratios, its interval in lo[s], hi[s]
        function ci(key, s, col,    k, a) { for (k = 1; k <= n[key, s]; k++) a[k] = v[key, s, k, col] + 0
            r = median_ci(a, n[key, s]); lo[s] = ci_lo; hi[s] = ci_hi; cover = ci_cover; return r }
        function side(l, h) { return l > 1 ? "loses" : h < 1 ? "wins" : "even" }
        !csv_row() { next }
        { key = csv_get("shape") SUBSEP csv_get("payload_len"); s = csv_get("source"); k = ++n[key, s]; keys[key] = 1
          v[key, s, k, "ratio"] = csv_get("ratio")
          v[key, s, k, "proc_us"] = csv_get("proc_us"); v[key, s, k, "lookup_us"] = csv_get("lookup_us")
          v[key, s, k, "gcs"] = csv_get("lookup_gcs"); v[key, s, k, "faults"] = csv_get("lookup_faults")
          v[key, s, k, "carriers"] = csv_get("lookup_carriers"); v[key, s, k, "pgcs"] = csv_get("proc_gcs")
          v[key, s, k, "pfaults"] = csv_get("proc_faults")
          if (s == "model") { it = csv_meta("iterations") + 0
              v[key, s, k, "oh_ratio"] = (csv_get("lookup_us") + it * oh_lk / 1000) / (csv_get("proc_us") + it * oh_rt / 1000) } }
        END {
            print "shape,payload_len,model_ratio,model_ratio_lo,model_ratio_hi,vm_ratio,vm_ratio_lo,vm_ratio_hi,ci_cover,rounds," \
                  "model_side,vm_side,same_side,model_over_vm," \
                  "model_lookup_us,vm_lookup_us,model_proc_us,vm_proc_us," \
                  "model_lookup_gcs,vm_lookup_gcs,model_proc_gcs,vm_proc_gcs,model_lookup_faults,vm_lookup_faults," \
                  "model_lookup_carriers,vm_lookup_carriers,vm_shown,model_shown,gcs_shown,proc_gcs_shown," \
                  "faults_shown,carriers_shown"
            printf "# vm_overhead: %s ns per round trip, %s ns per lookup (the VM'"'"'s fixed cost minus the model'"'"'s, payload [], from %s)\n", oh_rt, oh_lk, oh_from > ohf
            print "shape,payload_len,model_ratio,model_ratio_lo,model_ratio_hi,oh_ratio,oh_ratio_lo,oh_ratio_hi,vm_ratio,vm_ratio_lo,vm_ratio_hi,rounds" > ohf
            m = 0
            for (key in keys) { split(key, p, SUBSEP); ord[++m] = (p[1] == "ints" ? 0 : 1) * 1e6 + p[2]; name[ord[m]] = key }
            sort(ord, m)
            for (i = 1; i <= m; i++) {
                key = name[ord[i]]; split(key, p, SUBSEP)
                if (n[key, "model"] != n[key, "vm"]) csv_die(csv_files() ": " p[1] " L = " p[2] ": " n[key, "model"] " model rounds and " n[key, "vm"] " VM rounds")
                rm = ci(key, "model", "ratio"); rv = ci(key, "vm", "ratio")
                ms = side(lo["model"], hi["model"]); vs = side(lo["vm"], hi["vm"])
                same = vs == "even" ? "even" : ms == vs ? "yes" : "no"
                printf "%s,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.4f,%d,%s,%s,%s,%.2f,", p[1], p[2], rm, lo["model"], hi["model"],
                    rv, lo["vm"], hi["vm"], cover, n[key, "model"], ms, vs, same, rm / rv
                printf "%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,",
                    med(key, "model", "lookup_us"), med(key, "vm", "lookup_us"), med(key, "model", "proc_us"), med(key, "vm", "proc_us"),
                    med(key, "model", "gcs"), med(key, "vm", "gcs"), med(key, "model", "pgcs"), med(key, "vm", "pgcs"),
                    med(key, "model", "faults"), med(key, "vm", "faults"), med(key, "model", "carriers"), med(key, "vm", "carriers")
                # the same numbers as the opening table shows them: VM first, then the model
                printf "%s,%s,%s,%s,%s,%s\n", sprintf("%.2f (%.2f–%.2f)", rv, lo["vm"], hi["vm"]),
                    sprintf("%.2f (%.2f–%.2f)", rm, lo["model"], hi["model"]),
                    pair(key, "gcs"), pair(key, "pgcs"), pair(key, "faults"), pair(key, "carriers")
                if (oh_from != "absent" && p[2] <= 1000) {
                    ml = lo["model"]; mh = hi["model"]
                    ro = ci(key, "model", "oh_ratio")
                    printf "%s,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%d\n", p[1], p[2], rm, ml, mh, ro, lo["model"], hi["model"],
                        rv, lo["vm"], hi["vm"], n[key, "model"] > ohf
                }
            }
        }' "$res/fidelity.csv" >"$der/answer.csv"
    # The VM's two lookup variants in the same testers (fidelity.sh --vm-variants): one hot key
    # instead of N distinct ones, and ets:lookup_element/3 (copy_struct) instead of
    # ets:lookup/2 (copy_shallow); per round each over the same tester's plain lookup, the
    # median of the rounds and its 95 % interval.
    awk "$lib"'
        function ci(k, c,    a, j) { for (j = 1; j <= n[k]; j++) a[j] = v[k, j, c] + 0; return median_ci(a, n[k]) }
        !csv_row() { next }
        csv_get("source") == "vm" && csv_get("hot_key_us") != "" {
            k = csv_get("shape") SUBSEP csv_get("payload_len"); if (!(k in n)) order[++m] = k; j = ++n[k]
            v[k, j, "lookup"] = csv_get("lookup_us"); v[k, j, "hot"] = csv_get("hot_key_us"); v[k, j, "element"] = csv_get("element_us")
            v[k, j, "hot_r"] = csv_get("hot_key_us") / csv_get("lookup_us"); v[k, j, "element_r"] = csv_get("element_us") / csv_get("lookup_us")
            v[k, j, "gcs"] = csv_get("lookup_gcs"); v[k, j, "faults"] = csv_get("lookup_faults")
            v[k, j, "hot_gcs"] = csv_get("hot_key_gcs"); v[k, j, "hot_faults"] = csv_get("hot_key_faults") }
        END {
            print "shape,payload_len,rounds,lookup_us,lookup_us_lo,lookup_us_hi,hot_key_us,hot_key_us_lo,hot_key_us_hi,element_us,element_us_lo,element_us_hi,hot_over_lookup,hot_over_lookup_lo,hot_over_lookup_hi,element_over_lookup,element_over_lookup_lo,element_over_lookup_hi,lookup_gcs,hot_key_gcs,lookup_faults,hot_key_faults"
            for (i = 1; i <= m; i++) { k = order[i]; split(k, p, SUBSEP); printf "%s,%d,%d", p[1], p[2], n[k]
                split("lookup hot element", c, " ")
                for (j = 1; j <= 3; j++) { x = ci(k, c[j]); printf ",%.0f,%.0f,%.0f", x, ci_lo, ci_hi }
                split("hot_r element_r", c, " ")
                for (j = 1; j <= 2; j++) { x = ci(k, c[j]); printf ",%.3f,%.3f,%.3f", x, ci_lo, ci_hi }
                split("gcs hot_gcs faults hot_faults", c, " ")
                for (j = 1; j <= 4; j++) printf ",%.0f", ci(k, c[j])
                print "" } }' "$res/fidelity.csv" >"$der/answer-variants.csv"
    # How often the canonical run's two sides agree, and every point where they do not: the
    # issue's bounds — lookup GCs within 3 %, minor faults within 15 % or 200 per 1000, the same
    # side wherever the VM is below 0.9 or above 1.1.
    awk "$lib"'
        function off(m, v, rel, abs_) { return (m - v > abs_ || v - m > abs_) && (v == 0 || (m - v) / v > rel || (v - m) / v > rel) }
        !csv_row() { next }
        { n++; g = csv_get("model_lookup_gcs") + 0; vg = csv_get("vm_lookup_gcs") + 0
          f = csv_get("model_lookup_faults") + 0; vf = csv_get("vm_lookup_faults") + 0; side = csv_get("same_side")
          gbad = off(g, vg, 0.03, 0); fbad = off(f, vf, 0.15, 200)
          if (!gbad) gok++; if (!fbad) fok++
          if (side == "even") even++; else { decided++; if (side == "yes") same++ }
          what = ""
          if (side == "no") what = "other side"
          if (gbad) what = what (what == "" ? "" : "; ") "GCs"
          if (fbad) what = what (what == "" ? "" : "; ") "faults"
          if (what != "")
              wrong[++w] = sprintf("%s,%s,%s,%s,%d,%d,%d,%d,%s", csv_get("shape"), csv_get("payload_len"), csv_get("vm_ratio"),
                                   csv_get("model_ratio"), vg, g, vf, f, what) }
        END {
            printf "points,decided,same_side,even,gcs_within_3pct,faults_within_15pct\n%d,%d,%d,%d,%d,%d\n", n, decided, same, even, gok, fok
            print "shape,payload_len,vm_ratio,model_ratio,vm_lookup_gcs,model_lookup_gcs,vm_lookup_faults,model_lookup_faults,what" > wrongf
            if (w == 0) print "-,-,-,-,-,-,-,-,none" > wrongf
            for (i = 1; i <= w; i++) print wrong[i] > wrongf
        }' wrongf="$der/answer-wrong.csv" "$der/answer.csv" >"$der/answer-summary.csv"
fi

# ---- figure 6: the heap trajectory, cumulative faults, and its summary --------------------
# sbct_bytes: the single-block carrier threshold of each run, from its '# policy:' line.
awk "$lib"'
    !csv_row() { next }
    !(csv_file in sbct) {
        if (!match(csv_meta("policy"), /(^| )sbct=[0-9]+/)) csv_die(FILENAME ": its \"# policy:\" line has no sbct=")
        sbct[csv_file] = substr(csv_meta("policy"), RSTART, RLENGTH); sub(/^ *sbct=/, "", sbct[csv_file])
    }
    { file = csv_file; l = csv_get("lookup"); n = l > n ? l : n
      cum[file] += csv_get("minor_faults"); cf[file, l] = cum[file]; heap[file, l] = csv_get("heap_words")
      nh[file, l] = csv_get("new_heap_words"); gcs[file] += csv_get("gcs"); gcw[file] += csv_get("gc_words_copied")
      mapped[file] += csv_get("carriers_mapped"); hits[file] += csv_get("cache_hits"); last[file] = csv_get("heap_words")
      if (csv_get("new_heap_words") > mx[file]) mx[file] = csv_get("new_heap_words") }
    END {
        print "lookup,heap_words,new_heap_words,faults_cum,faults_cum_nocache,heap_words_nocache" > (der "/heaptrace-cum.csv")
        for (l = 1; l <= n; l++) printf "%d,%s,%s,%s,%s,%s\n", l, heap[1, l], nh[1, l], cf[1, l], cf[2, l], heap[2, l] > (der "/heaptrace-cum.csv")
        print "variant,lookups,steady_heap_words,max_new_heap_words,gcs,gc_words_copied,carriers_mapped,cache_hits,faults,faults_per_1000,sbct_bytes"
        for (f = 1; f <= 2; f++)
            printf "%s,%d,%d,%d,%d,%d,%d,%d,%d,%.0f,%s\n", (f == 1 ? "cache" : "nocache"), n, last[f], mx[f], gcs[f], gcw[f],
                mapped[f], hits[f], cum[f], cum[f] * 1000 / n, sbct[f]
    }' der="$der" "$res/heaptrace.csv" "$res/heaptrace-nocache.csv" >"$der/heaptrace-summary.csv"

# ---- copy strategies: median ns/word over every shape at the largest size of each ------------
awk "$lib"'
    !csv_row() { next }
    { s = csv_get("strategy"); if (!(s in seen)) { seen[s] = 1; order[++n] = s }
      sh = csv_get("shape"); w = csv_get("payload_words") + 0
      if (w > big[sh]) big[sh] = w
      nr++; rs[nr] = s; rsh[nr] = sh; rw[nr] = w; rns[nr] = csv_get("ns_per_word"); rr[nr] = csv_get("ratio") }
    END {
        # median_ratio_to_memcpy: the median over shapes of the ratio each shape has at its
        # largest size (not the median ns/word over the median memcpy); ns per operation: the
        # median and the range over every shape and size
        print "strategy,shapes,ns_per_word,median_ratio_to_memcpy,ns_per_op,ns_per_op_min,ns_per_op_max"
        for (i = 1; i <= n; i++) {
            m = 0; k = 0; no = 0; lo = ""; hi = ""
            for (r = 1; r <= nr; r++) {
                if (rs[r] != order[i]) continue
                o[++no] = rns[r] * rw[r]
                if (lo == "" || o[no] < lo) lo = o[no]; if (hi == "" || o[no] > hi) hi = o[no]
                if (rw[r] != big[rsh[r]]) continue
                a[++m] = rns[r]; b[++k] = rr[r]
            }
            printf "%s,%d,%.3f,%.2f,%.1f,%.1f,%.1f\n", order[i], m, median(a, m), median(b, k), median(o, no), lo, hi
        }
    }' "$res/copysweep.csv" >"$der/copysweep-summary.csv"

# ---- figure 3: ns/word per strategy and size, lists of integers --------------------------------
awk "$lib"'
    !csv_row() { next }
    csv_get("shape") == "ints" { w = csv_get("payload_words"); if (!(w in seen)) { seen[w] = 1; ws[++n] = w }; v[w, csv_get("strategy")] = csv_get("ns_per_word") }
    END {
        ns = split("memcpy copy_struct compact_in compact_out lookup copy_shared literal_put literal_get", st, " ")
        printf "payload_words"; for (j = 1; j <= ns; j++) printf ",%s", st[j]; print ""
        for (i = 1; i <= n; i++) { printf "%s", ws[i]; for (j = 1; j <= ns; j++) printf ",%s", v[ws[i], st[j]]; print "" }
    }' "$res/copysweep.csv" | sort -t, -k1n >"$der/copysweep-ints.csv"


# ---- the seeds' own VMs (report/data/eras.csv, copied to results/ by the pipeline) -------------
if [ -f "$res/eras.csv" ]; then
    "$here/eras.sh" "$res/eras.csv" "$der" || { echo "derive: report/eras.sh failed" >&2; exit 1; }
fi

# ---- the crossover grids' calls per point ------------------------------------------------------
# crossover sizes each point's calls to a budget of words (at least 20, at most 1000 calls): the
# report says how few the largest lengths had.
{
    echo "grid,points,min_iterations,max_iterations,min_at_len"
    for f in "$res/crossover.csv" "$res/vm-crossover.csv" "$res/vm-crossover-fine.csv"; do
        [ -f "$f" ] || continue
        awk -v grid="$(case "$f" in *vm-crossover-fine*) echo vm_fine ;; *vm-crossover*) echo vm ;; *) echo model ;; esac)" "$lib"'
            !csv_row() { next }
            { n++; it = csv_get("iterations") + 0; if (lo == "" || it < lo) { lo = it; at = csv_get("payload_len") }; if (it > hi) hi = it }
            END { printf "%s,%d,%d,%d,%s\n", grid, n, lo, hi, at }' "$f"
    done
} >"$der/crossover-iterations.csv"

# ---- the lookup's levers: what shortens the lookup's own time the most ---------------------------
# The model: each switch of the ablation's OTP 25 run against its baseline (the lookup pass's
# median time over the runs). The VM: the hot key and lookup_element in the canonical run's
# testers at the ablation's length, and the interventions (the VM rebuilt with one patch, or
# run with the runtime option) against the shipped VM, at the same length. change = the lever's
# lookup time over the base's; every lever, rank 1 the smallest change (which may be above 1
# when no lever shortened the lookup in this run: the report says which way it went).
awk "$lib"'
    function add(side, lever, base, x) { n++; s[n] = side; l[n] = lever; b[n] = base; v[n] = x }
    !csv_row() { next }
    FILENAME ~ /ablate.csv$/ && csv_get("era") == native { L = csv_get("payload_len")
        if (csv_get("ablation") == "baseline") mb = csv_get("lookup_us"); else { ml[csv_get("ablation")] = csv_get("lookup_us"); mo[++nm] = csv_get("ablation") } }
    FILENAME ~ /answer-variants.csv$/ && csv_get("shape") == "ints" { vl[csv_get("payload_len")] = csv_get("lookup_us"); vh[csv_get("payload_len")] = csv_get("hot_key_us"); ve[csv_get("payload_len")] = csv_get("element_us") }
    FILENAME ~ /vm-interventions.csv$/ { iv[csv_get("variant"), csv_get("payload_len")] = csv_get("vm_lookup_us"); if (!(csv_get("variant") in ivs)) { ivs[csv_get("variant")] = 1; io[++ni] = csv_get("variant") } }
    END {
        for (i = 1; i <= nm; i++) add("model", mo[i], mb, ml[mo[i]])
        if (L in vl) { add("vm", "hot_key", vl[L], vh[L]); add("vm", "lookup_element", vl[L], ve[L]) }
        # the patches and the runtime option, not the rebuild itself nor the other emulator flavor
        for (i = 1; i <= ni; i++) if (io[i] !~ /^(shipped|rebuilt|emu)$/ && ((io[i], L) in iv) && (("shipped", L) in iv)) add("vm", io[i], iv["shipped", L], iv[io[i], L])
        print "side,lever,payload_len,base_us,lever_us,change,rank"
        for (side = 1; side <= 2; side++) { sd = side == 1 ? "model" : "vm"; k = 0
            for (i = 1; i <= n; i++) if (s[i] == sd && b[i] > 0 && v[i] > 0) { c[i] = v[i] / b[i]; m[i] = 1 / c[i]; idx[++k] = i }
            for (i = 1; i <= k; i++) { r = 1; for (j = 1; j <= k; j++) if (m[idx[j]] > m[idx[i]] || (m[idx[j]] == m[idx[i]] && j < i)) r++
                printf "%s,%s,%d,%.0f,%.0f,%.3f,%d\n", sd, l[idx[i]], L, b[idx[i]], v[idx[i]], c[idx[i]], r } }
    }' native="$native" "$der/ablate.csv" "$der/answer-variants.csv" "$der/vm-interventions.csv" >"$der/levers.csv"

# ---- the GC trace, collection by collection ---------------------------------------------------
# experiments/beam/tracediff.sh's two traces (results/trace/: the lookup loop of a fresh process
# on the VM and in the model): the first collections side by side, and the comparison's verdict.
tvm=$(ls "$res"/trace/vm-*.csv 2>/dev/null | head -n 1) tmodel=$(ls "$res"/trace/model-*.csv 2>/dev/null | head -n 1)
if [ -n "$tvm" ] && [ -n "$tmodel" ]; then
    awk "$lib"'
        !csv_row() { next }
        { side = csv_file == 1 ? "vm" : "model"; q = csv_get("seq"); n[side] = q
          row[side, q] = csv_get("op") "," csv_get("kind") "," csv_get("heap_block_size_s") "," csv_get("mbuf_size_s") "," csv_get("heap_block_size_e") "," csv_get("old_heap_block_size_e") }
        END {
            print "gc,vm_lookup,vm_kind,vm_heap_before,vm_fragments_before,vm_heap_after,vm_old_heap_after,model_lookup,model_kind,model_heap_before,model_fragments_before,model_heap_after,model_old_heap_after,equal" > (der "/trace-excerpt.csv")
            m = n["vm"] > n["model"] ? n["vm"] : n["model"]; same = 0; first = ""
            for (q = 1; q <= m; q++) { e = (row["vm", q] == row["model", q]); same += e; if (!e && first == "") first = q
                if (q <= 8) printf "%d,%s,%s,%s\n", q, (("vm", q) in row) ? row["vm", q] : "-,-,-,-,-,-", (("model", q) in row) ? row["model", q] : "-,-,-,-,-,-", e ? "yes" : "no" > (der "/trace-excerpt.csv") }
            print "vm_gcs,model_gcs,equal_gcs,first_difference"
            printf "%d,%d,%d,%s\n", n["vm"], n["model"], same, first == "" ? "none" : first
        }' der="$der" "$tvm" "$tmodel" >"$der/trace-summary.csv"
fi

# ---- the tester's whole life at +S 1:1 (tracegrid-s1.csv; tracegrid-s1-off.csv at lengths the
# grid does not hold): how many points are identical event for event, how many have both
# processes' GCs within 3 % of the VM's, and each point that is not identical with its first
# divergent event (no file when every point is).
for tg in tracegrid-s1 tracegrid-s1-off tracegrid-s1-mut; do
    rm -f "$der/$tg-wrong.csv"
    [ -f "$res/$tg.csv" ] || continue
    awk -v wrong="$der/$tg-wrong.csv" "$lib"'
        function near(m, v) { return m ~ /^[0-9]+$/ && v ~ /^[0-9]+$/ && sweep_near(m, v, 0.03, 0) }
        !csv_row() { next }
        { n++; m = csv_get("model_gcs"); v = csv_get("vm_gcs"); ok = near(m, v)
          if (!(csv_get("shape") in sh)) { sh[csv_get("shape")] = 1; ns++ }
          if (!(csv_get("payload_len") in ln)) { ln[csv_get("payload_len")] = 1; nl++ }
          L = csv_get("payload_len") + 0; if (n == 1 || L < lo) lo = L; if (n == 1 || L > hi) hi = L
          if (csv_get("identical_drawn") == "yes") drawn++
          if (csv_get("identical") == "yes") same++
          else {
              if (!nw++) print "shape,payload_len,proc,pass,op,kind,fields,model_gcs,vm_gcs,gcs_within_3pct,draws,draws_base,exceptions,draws_other,identical_drawn,drawn_divergence" > wrong
              x = csv_get("draws_other"); ne = x == "-" ? 0 : split(x, tok, " ")
              if (ne > 12) { # too many to list: how many went each way
                  split("", by); for (i = 1; i <= ne; i++) by[substr(tok[i], length(tok[i]))]++
                  x = ""; for (i = 1; i <= 3; i++) { o = substr("ghs", i, 1); if (by[o]) x = x (x == "" ? "" : " and ") by[o] " " o }
              }
              dd = csv_get("drawn_divergence"); if (dd == "") dd = "-"
              printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%d,%s,%s,%s\n", csv_get("shape"), csv_get("payload_len"), csv_get("proc"),
                  csv_get("pass"), csv_get("op"), csv_get("kind"), csv_get("fields"), m, v, ok ? "yes" : "no",
                  csv_get("draws"), csv_get("draws_base"), ne, x, csv_get("identical_drawn"), dd > wrong
          }
          if (ok) near3++ }
        END { print "points,identical,gcs_within_3pct,shapes,lengths,identical_drawn,draws_searched,min_len,max_len"
              printf "%d,%d,%d,%d,%d,%d,%s,%d,%d\n", n, same, near3, ns, nl, drawn, csv_meta_of(FILENAME, "draws_searched") ~ /^yes/ ? "yes" : "no", lo, hi }' "$res/$tg.csv" >"$der/$tg-summary.csv"
done

# ---- the lookup pass's segments and faults with one allocator instance (tracegrid-s1-mut.csv:
# the VM's +Mut false, the model's alloc_instances=1) beside the default (tracegrid-s1-off.csv) at
# the same points: the VM's segments beyond the model's, by default and with one instance.
rm -f "$der/tracegrid-s1-mut-lookup.csv" "$der/tracegrid-s1-mut-lookup-summary.csv"
if [ -f "$res/tracegrid-s1-mut.csv" ] && [ -f "$res/tracegrid-s1-off.csv" ]; then
    awk -v sum="$der/tracegrid-s1-mut-lookup-summary.csv" "$lib"'
        function num(x) { return x ~ /^[0-9]+$/ }
        BEGIN { split("model_lookup_faults vm_lookup_faults model_lookup_segments vm_lookup_segments", col, " ") }
        !csv_row() { next }
        { k = csv_get("shape") SUBSEP csv_get("payload_len")
          if (FILENAME ~ /-off\.csv$/) { for (i = 1; i <= 4; i++) d[k, i] = csv_get(col[i]); next }
          if (!((k, 1) in d)) next
          for (i = 1; i <= 4; i++) o[i] = csv_get(col[i])
          if (!hdr++) print "shape,payload_len,vm_segments,vm_segments_one,model_segments,model_segments_one,vm_faults,vm_faults_one,model_faults,model_faults_one"
          printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", csv_get("shape"), csv_get("payload_len"), d[k, 4], o[4], d[k, 3], o[3], d[k, 2], o[2], d[k, 1], o[1]
          if (!(num(d[k, 3]) && num(d[k, 4]) && num(o[3]) && num(o[4]))) next
          n++; e = d[k, 4] - d[k, 3]; e1 = o[4] - o[3]
          if (e > mx) mx = e; if (e1 > mx1) mx1 = e1; ex += e; ex1 += e1
          if (num(d[k, 1]) && num(d[k, 2]) && num(o[1]) && num(o[2])) { fx += d[k, 2] - d[k, 1]; fx1 += o[2] - o[1] } }
        END { print "points,vm_extra_segments,vm_extra_segments_one,max_extra_segments,max_extra_segments_one,vm_extra_faults,vm_extra_faults_one" > sum
              printf "%d,%d,%d,%d,%d,%d,%d\n", n, ex, ex1, mx, mx1, fx, fx1 > sum }' \
        "$res/tracegrid-s1-off.csv" "$res/tracegrid-s1-mut.csv" >"$der/tracegrid-s1-mut-lookup.csv"
    # no point in both (a --quick run's lengths): no table
    [ -s "$der/tracegrid-s1-mut-lookup.csv" ] || rm -f "$der/tracegrid-s1-mut-lookup.csv" "$der/tracegrid-s1-mut-lookup-summary.csv"
fi

# ---- the unit costs against the band (unitcost.csv): per unit, its rows with a VM figure, how many
# are within 0.8-1.25x of the VM's, and how many outside on each side (their reasons: report/data/
# unitcost-reasons.csv, unitcost --annotate). A row per unit even without the VM (then 0 rows).
if [ -f "$res/unitcost.csv" ]; then
    awk "$lib"'
        BEGIN { split("size_object copy_struct copy_shallow gc_copy encode decode", units, " ") }
        !csv_row() { next }
        { u = csv_get("unit"); r = csv_get("model_over_vm") }
        r ~ /^[0-9.]+$/ && !(u ~ /_fixed$/) { n[u]++; if (r > 1.25) sl[u]++; else if (r < 0.8) fa[u]++; else ok[u]++ }
        END { print "unit,rows,in_band,slower,faster"
              for (i = 1; i <= 6; i++) { u = units[i]; printf "%s,%d,%d,%d,%d\n", u, n[u], ok[u], sl[u], fa[u] } }' \
        "$res/unitcost.csv" >"$der/unitcost-band.csv"
fi

# ---- where every number comes from: this run and the committed measurements ----------------------
# One row per source: this run's experiments (their date, git and load), and each committed CSV
# (report/data/: measured by its own command) with the date, git and machine of its VM columns,
# how many days before this run, and whether its model columns are this code's
# (results/data/recompute-state.csv, written by report/recompute.sh).
awk "$lib"'
    function days(iso,    t) { if (iso !~ /^[0-9][0-9][0-9][0-9]-/) return ""; t = iso; gsub(/[-T:Z]/, " ", t); return mktime(t) / 86400 }
    function m(f, k) { return csv_meta_has(f, k) ? csv_meta_of(f, k) : "-" }
    function q(x) { gsub(/"/, "\"\"", x); return "\"" x "\"" }
    !csv_row() { next }
    FILENAME ~ /run.csv$/ { next }
    FILENAME ~ /recompute-state.csv$/ { st[csv_get("file")] = csv_get("state"); next }
    END {
        now = days(csv_meta_of(ARGV[1], "date"))
        print "source,what,date,git,machine,days_before_run,model_columns"
        for (i = 3; i < ARGC; i++) { f = ARGV[i]; b = f; sub(/.*\//, "", b)
            if (b == "recompute-state.csv") continue
            if (b ~ /^tracegrid-s1(-off|-mut)?\.csv$/) { # this run replays the committed VM traces
                d = m(f, "vm_date"); ag = days(d); tb = b; sub(/\.csv$/, "-vm.tar.xz", tb)
                printf "report/data/%s,%s,%s,-,%s,%s,%s\n", tb, q("the VM'"'"'s GC traces of eptest'"'"'s tester and server at +S 1:1, spawn to exit" (b ~ /off/ ? ", at lengths off the grid" : b ~ /mut/ ? ", with +Mut false (one allocator instance)" : "")),
                    d, q(m(f, "vm_cpu")), ag == "" ? "-" : sprintf("%.1f", now - ag), q("this code'"'"'s (this run replays the traces against it)")
                continue
            }
            d = m(f, "date"); ag = days(d); mach = m(f, "machine"); if (mach == "-") mach = m(f, "cpu")
            what = b ~ /sweep/ ? "model and VM alternated at every length of a grid" : b ~ /bands/ ? "band edges bisected on each side" \
                 : b ~ /rounds/ ? "every round of the interventions" : b ~ /interventions/ ? "the VM rebuilt with one patch, beside the model'"'"'s switch" \
                 : b ~ /eras/ ? "the seeds'"'"' benchmarks on R10B-2, R13B01 and OTP 25, beside the model" : b ~ /seed/ ? "the seed'"'"'s numbers, transcribed" \
                 : b ~ /unitcost-reasons/ ? "why each unit outside 0.8-1.25x of the VM'"'"'s is, measured" \
                 : b ~ /tracegrid-s1-draws/ ? "the dirty-GC race outcomes the last tracediff.sh --search-draws found at +S 1:1" \
                 : b ~ /unitcost-quick/ ? "a unitcost --quick --vm run: every unit of the quick grid, model and VM" : b ~ /unitcost/ ? "a full unitcost --vm run: every unit, model and VM" : "-"
            mc = (b in st) ? st[b] : b ~ /tracegrid-s1-draws/ ? "a start for this run'"'"'s search, which confirms or replaces them (§5.2)" : b ~ /^unitcost/ ? "times taken at its git, not recomputed (times do not repeat); the unit tables above are this run'"'"'s" : "no model columns"
            printf "report/data/%s,%s,%s,%s,%s,%s,%s\n", b, q(what), d, q(m(f, "git")), q(mach), ag == "" ? "-" : sprintf("%.1f", now - ag), q(mc)
        }
    }' "$der/run.csv" "$data/recompute-state.csv" "$data"/*.csv $(for tg in tracegrid-s1 tracegrid-s1-off tracegrid-s1-mut; do [ -f "$res/$tg.csv" ] && echo "$res/$tg.csv"; done) >"$der/provenance.csv"

# ---- the process dictionary against ETS, one scheduler: get against the fastest table lookup ----
{
    echo "side,pdict_ns,ets_ns,ratio"
    for f in "$res/vm-etsbench.csv" "$res/etsbench.csv"; do
        [ -f "$f" ] || continue
        awk -v side="$(case "$f" in *vm-*) echo vm ;; *) echo model ;; esac)" "$lib"'
            !csv_row() { next }
            csv_get("threads") == 1 { m = csv_get("lock_mode"); op = csv_get("op"); ns = csv_get("ns_per_op") + 0
                if (m == "pdict" && op == "get") p = ns
                if (m != "pdict" && m != "none" && op == "lookup" && (e == "" || ns < e)) e = ns }
            END { if (p != "" && e != "") printf "%s,%.1f,%.1f,%.1f\n", side, p, e, e / p }' "$f"
    done
} >"$der/pdict.csv"

# ---- the reproducibility table: what built and ran this report, one item a row ----------------
awk -v fp="$(cat "$data/fingerprint" 2>/dev/null || echo -)" -v runf="$der/run.csv" "$lib"'
    function q(x) { gsub(/"/, "\"\"", x); return "\"" x "\"" }
    function row(k, v) { printf "%s,%s\n", q(k), q(v) }
    function m(f, k) { return csv_meta_has(f, k) ? csv_meta_of(f, k) : "-" }
    !csv_row() { next }
    END {
        print "item,value"
        r = runf
        row("this run", m(r, "date") " (" m(r, "mode") ")")
        row("git", m(r, "git"))
        row("model build", m(r, "compiler") ", " m(r, "flags"))
        row("machine", m(r, "cpu") ", " m(r, "kernel"))
        row("model sources (report/recompute.sh --fingerprint)", fp)
        for (i = 1; i < ARGC; i++) { f = ARGV[i]
            if (f ~ /vm-eptest.csv$/) row("real VM", "OTP " m(f, "otp_release") ", erts " m(f, "erts") ", " m(f, "emu_flavor") " emulator, " m(f, "schedulers_online") " schedulers, " m(f, "emulator_flags"))
            if (f ~ /fidelity.csv$/) { row("canonical run", m(f, "experiment") "; " m(f, "iterations")); row("canonical run: load", m(f, "load")) }
            if (f ~ /vm-interventions.csv$/) { row("interventions: source package", m(f, "source_package")); row("interventions: patches", "experiments/beam/interventions/patches/ (sha256 in the CSV)") }
            if (f ~ /eras.csv$/) row("the seeds'"'"' own VMs: sources", m(f, "source"))
        }
    }' "$der/run.csv" $(for f in "$res/vm-eptest.csv" "$res/fidelity.csv" "$data/vm-interventions.csv" "$data/eras.csv"; do [ -f "$f" ] && echo "$f"; done) >"$der/reproduce.csv"

# ---- the 2009 workload's size on each side (objects), from the runs' metadata -------------------
awk "$lib"'
    !csv_row() { next }
    END { n = split("model vm", side, " ")
          for (i = 1; i < ARGC; i++) { f = ARGV[i]; x = ""
              if (f ~ /vm-etsbench/) { if (match(csv_meta_of(f, "objects"), /N = [0-9]+/)) x = substr(csv_meta_of(f, "objects"), RSTART + 4, RLENGTH - 4); s = "vm" }
              else { if (match(csv_meta_of(f, "experiment"), /--iterations [0-9]+/)) x = substr(csv_meta_of(f, "experiment"), RSTART + 13, RLENGTH - 13); s = "model" }
              obj[s] = x }
          print "model_objects,vm_objects"; printf "%s,%s\n", ("model" in obj) ? obj["model"] : "-", ("vm" in obj) ? obj["vm"] : "-" }' \
    "$res/etsbench.csv" $([ -f "$res/vm-etsbench.csv" ] && echo "$res/vm-etsbench.csv") >"$der/etsbench-size.csv"
