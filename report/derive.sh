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
data=$here/data

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
awk "$lib"'
    function arrow(x, y) { return x " → " y }
    function way(x, base, floor) { return x - base > floor && x > 1.15 * base ? "up" : base - x > floor && x < base / 1.15 ? "down" : "same" }
    !csv_row() { next }
    {
        k = csv_get("variant") SUBSEP csv_get("payload_len"); rows[++nr] = k
        n = split("vm_lookup_gcs model_lookup_gcs vm_lookup_faults model_lookup_faults vm_ratio model_ratio", col, " ")
        for (i = 1; i <= n; i++) v[k, col[i]] = csv_get(col[i])
    }
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
    }' "$der/vm-interventions.csv" >"$der/vm-interventions-moves.csv"
# Per variant: in how many lengths each side moved the same way.
awk "$lib"'
    !csv_row() { next }
    { v = csv_get("variant"); if (!(v in n)) order[++nv] = v; n[v]++
      g[v] += csv_get("gcs_agree") == "yes"; f[v] += csv_get("faults_agree") == "yes"; r[v] += csv_get("ratio_agree") == "yes" }
    END { print "variant,lengths,gcs_agree,faults_agree,ratio_agree"
          for (i = 1; i <= nv; i++) { v = order[i]; printf "%s,%d,%d,%d,%d\n", v, n[v], g[v], f[v], r[v] } }' \
    "$der/vm-interventions-moves.csv" >"$der/vm-interventions-agree.csv"
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
    inst="$(awk "$lib"' !csv_row() { next } csv_get("variant") == "shipped" { print csv_get("source"); exit }' "$der/vm-interventions.csv")" \
    "$data/vm-interventions-rounds.csv" "$der/vm-interventions.csv" >"$der/vm-interventions-rebuild.csv"
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

# ---- figure 5: the ablation ratios, one column per era ------------------------------------
# The eras and the variants as ablate ran them (its rows, in their order), so a new era or a
# new variant needs nothing here; ablate-eras.csv gives each era's payload length.
awk "$lib"'
    !csv_row() { next }
    { a = csv_get("ablation"); if (!(a in seen)) { seen[a] = 1; order[++n] = a }
      e = csv_get("era"); if (!(e in eseen)) { eseen[e] = 1; eras[++ne] = e; len[e] = csv_get("payload_len") }
      r[a, e] = csv_get("ratio") }
    END {
        printf "ablation"; for (j = 1; j <= ne; j++) printf ",%s", eras[j]; printf "\n"
        for (i = 1; i <= n; i++) { printf "%s", order[i]; for (j = 1; j <= ne; j++) printf ",%s", r[order[i], eras[j]]; printf "\n" }
        print "era,payload_len" > erasf
        for (j = 1; j <= ne; j++) print eras[j] "," len[eras[j]] > erasf
    }
' erasf="$der/ablate-eras.csv" "$res/ablate.csv" >"$der/ablate-wide.csv"

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
# configuration. ops/s per op; model_lock_ns: the model's measured lock phase per operation.
if [ -f "$res/vm-etsbench.csv" ]; then
    awk "$lib"'
        !csv_row() { next }
        FILENAME ~ /seed2009/ { seed[csv_get("vm"), csv_get("op")] = csv_get("ops_per_s"); next }
        { op = csv_get("op"); if (op == "put") op = "insert"; if (op == "get") op = "lookup"
          side = FILENAME ~ /vm-etsbench/ ? "vm" : "model"; mode = csv_get("lock_mode"); th = csv_get("threads")
          v[side, mode, th, op] = csv_get("ops_per_s")
          if (side == "model") lk[mode, th, op] = csv_get("lock_ns")
          if (side == "vm" && !((mode, th) in seen)) { seen[mode, th] = 1; order[++n] = mode SUBSEP th } }
        END {
            print "config,vm_mode,model_mode,threads,op,vm_ops_per_s,model_ops_per_s,model_over_vm,model_lock_ns,seed_ops_per_s"
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
                    printf "%s/%st,%s,%s,%d,%s,%.0f,%s,%s,%s,%s\n", mode, th, mode, (m == "" ? "-" : mm), th, op,
                        v["vm", mode, th, op], (m == "" ? "-" : sprintf("%.0f", m)),
                        (m == "" ? "-" : sprintf("%.2f", m / v["vm", mode, th, op])),
                        (m == "" ? "-" : lk[mm, th, op]), (sv == "" ? "-" : sprintf("%.0f", sv))
                }
            }
            # the seed without SMP: no locks at all, as the model mode none
            for (j = 1; j <= 3; j++) { op = ops[j]
                if (("-smp disable", op) in seed)
                    printf "none/1t,-,none,1,%s,-,%s,-,%s,%.0f\n", op,
                        (("model", "none", 1, op) in v) ? sprintf("%.0f", v["model", "none", 1, op]) : "-",
                        (("model", "none", 1, op) in v) ? lk["none", 1, op] : "-", seed["-smp disable", op] }
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
# where the VM is below 0.9 or above 1.1.
if [ -f "$data/fidelity-sweep.csv" ]; then
    awk "$lib"'
        function rel(m, v) { return v > 0 ? (m - v) / v : (m > 0 ? 1 : 0) }
        function miss(crit, L, how, m, v, badness,    k, n) {
            k = shape SUBSEP crit
            if (!(k in nmiss)) keys[++nk] = k
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
          mr = csv_get("model_ratio") + 0; vr = csv_get("vm_ratio") + 0
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
            print "criterion,met,points" > sumf
            split("GCs within 3 %|faults within 15 % or 200|carriers within 2|same side", crit, "|")
            for (c = 1; c <= 4; c++) {
                missed = 0
                for (i = 1; i <= ns; i++) missed += nmiss[shapes[i], crit[c]]
                printf "%s,%d,%d\n", crit[c], (c == 4 ? clear : total) - missed, c == 4 ? clear : total > sumf
            }
            print "shape,criterion,missed,points,lengths,worst"
            if (nk == 0) print "-,none,0,0,-,-"
            for (i = 1; i <= nk; i++) {
                k = keys[i]; split(k, p, SUBSEP); r = ranges(k)
                printf "%s,%s,%d,%d,\"%s\",\"%s\"\n", p[1], p[2], nmiss[k], pts[p[1]], r, worstat[k]
            }
        }' sumf="$der/sweep-summary.csv" "$data/fidelity-sweep.csv" >"$der/sweep-wrong.csv"
fi

# ---- the time account (experiments/beam/account.sh): the identity and the verdicts ----------
# Per point: the VM's ratio (CPU time), the model's at the VM's prices and by its C code's own
# time (lookup over the median of proc1..3, as everywhere); then how many loops the prices
# account for within 15 %, and the model's priced time within 20 % where its counts match.
if [ -f "$res/account.csv" ]; then
    awk "$lib"'
        function med3(a, b, c) { return a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b)) }
        !csv_row() { next }
        { k = csv_get("shape") "," csv_get("payload_len"); if (!(k in seen)) { seen[k] = 1; key[++n] = k }
          ex[k, csv_get("loop")] = csv_get("model_exec_us") + 0
          vr[k] = csv_get("point_vm_ratio"); mr[k] = csv_get("point_model_ratio")
          loops++; within += csv_get("within_15") == "yes"; cm += csv_get("counts_match") == "yes"
          mw += csv_get("counts_match") == "yes" && csv_get("model_within_20") == "yes" }
        END {
            print "shape,payload_len,vm_ratio,model_priced_ratio,model_exec_ratio,same_side"
            for (i = 1; i <= n; i++) {
                k = key[i]; e = ex[k, "ets_lookup"] / med3(ex[k, "proc1"], ex[k, "proc2"], ex[k, "proc3"])
                printf "%s,%s,%s,%.3f,%s\n", k, vr[k], mr[k], e, ((vr[k] < 1) == (mr[k] < 1)) ? "yes" : "no"
            }
            printf "loops,within_15,counts_match,model_within_20\n%d,%d,%d,%d\n", loops, within, cm, mw > (der "/account-summary.csv")
        }' der="$der" "$res/account.csv" >"$der/account-ratios.csv"
fi

# ---- termcopy explain --vm on five terms: each side's verdict and whether they agree ---------
# The verdict is explain's own: the lookup is slower than a round trip when the ratio is above 1.
if [ -f "$res/explain.csv" ]; then
    awk "$lib"'
        function verdict(r) { return r > 1 ? "slower" : "faster" }
        !csv_row() { next }
        { n++; m = verdict(csv_get("model_ratio")); v = verdict(csv_get("vm_ratio")); same = m == v; agree += same
          row[n] = sprintf("%s,%s,%s,%s,%s,%s,%s,%s,%s,%s", csv_get("term"), csv_get("model_ratio"), csv_get("vm_ratio"),
                           m, v, same ? "yes" : "no", csv_get("model_lookup_gcs"), csv_get("vm_lookup_gcs"),
                           csv_get("model_lookup_faults"), csv_get("vm_lookup_faults")) }
        END {
            print "term,model_ratio,vm_ratio,model_verdict,vm_verdict,agree,model_lookup_gcs,vm_lookup_gcs,model_lookup_faults,vm_lookup_faults"
            for (i = 1; i <= n; i++) print row[i]
            printf "terms,agree\n%d,%d\n", n, agree > (der "/explain-agree.csv")
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
# length the median of each side's per-round lookup / round-trip ratios with their range over
# the rounds, and the medians of the counts behind them (per 1000 operations of each pass).
# The report's opening table reads this file, and every later section that quotes an OTP 25
# ratio quotes it or says what it measured instead.
if [ -f "$res/fidelity.csv" ]; then
    awk "$lib"'
        function med(key, s, col,    k, a) { for (k = 1; k <= n[key, s]; k++) a[k] = v[key, s, k, col]; return median(a, n[key, s]) }
        function pair(key, col) { return sprintf("%.0f / %.0f", med(key, "vm", col), med(key, "model", col)) }
        !csv_row() { next }
        { key = csv_get("shape") SUBSEP csv_get("payload_len"); s = csv_get("source"); k = ++n[key, s]; keys[key] = 1
          v[key, s, k, "ratio"] = csv_get("ratio")
          v[key, s, k, "proc_us"] = csv_get("proc_us"); v[key, s, k, "lookup_us"] = csv_get("lookup_us")
          v[key, s, k, "gcs"] = csv_get("lookup_gcs"); v[key, s, k, "faults"] = csv_get("lookup_faults")
          v[key, s, k, "carriers"] = csv_get("lookup_carriers"); v[key, s, k, "pgcs"] = csv_get("proc_gcs")
          v[key, s, k, "pfaults"] = csv_get("proc_faults") }
        END {
            print "shape,payload_len,model_ratio,vm_ratio,model_over_vm,same_side,model_range,vm_range," \
                  "model_lookup_us,vm_lookup_us,model_proc_us,vm_proc_us," \
                  "model_lookup_gcs,vm_lookup_gcs,model_proc_gcs,vm_proc_gcs,model_lookup_faults,vm_lookup_faults," \
                  "model_lookup_carriers,vm_lookup_carriers,rounds,vm_shown,model_shown,gcs_shown,proc_gcs_shown," \
                  "faults_shown,carriers_shown,model_lo,model_hi,vm_lo,vm_hi"
            m = 0
            for (key in keys) { split(key, p, SUBSEP); ord[++m] = (p[1] == "ints" ? 0 : 1) * 1e6 + p[2]; name[ord[m]] = key }
            sort(ord, m)
            for (i = 1; i <= m; i++) {
                key = name[ord[i]]; split(key, p, SUBSEP)
                for (side = 1; side <= 2; side++) {
                    s = side == 1 ? "model" : "vm"; lo = ""; hi = ""
                    for (k = 1; k <= n[key, s]; k++) { x = v[key, s, k, "ratio"] + 0; if (lo == "" || x < lo) lo = x; if (hi == "" || x > hi) hi = x }
                    r[s] = med(key, s, "ratio"); range[s] = sprintf("%.2f-%.2f", lo, hi); low[s] = lo; high[s] = hi
                }
                q = r["model"] / r["vm"]
                # the same side: both above 1, both below, or the VM within 10 % of even
                same = (r["vm"] >= 0.9 && r["vm"] <= 1.1) ? "even" : ((r["model"] > 1) == (r["vm"] > 1) ? "yes" : "no")
                printf "%s,%d,%.2f,%.2f,%.2f,%s,%s,%s,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%s,%s,%d,", p[1], p[2],
                    r["model"], r["vm"], q, same, range["model"], range["vm"],
                    med(key, "model", "lookup_us"), med(key, "vm", "lookup_us"), med(key, "model", "proc_us"), med(key, "vm", "proc_us"),
                    med(key, "model", "gcs"), med(key, "vm", "gcs"), med(key, "model", "pgcs"), med(key, "vm", "pgcs"),
                    med(key, "model", "faults"), med(key, "vm", "faults"),
                    med(key, "model", "carriers"), med(key, "vm", "carriers"), n[key, "model"]
                # the same numbers as the opening table shows them: VM first, then the model
                printf "%s,%s,%s,%s,%s,%s,%.3f,%.3f,%.3f,%.3f\n", \
                    sprintf("%.2f (%s)", r["vm"], range["vm"]), sprintf("%.2f (%s)", r["model"], range["model"]),
                    pair(key, "gcs"), pair(key, "pgcs"), pair(key, "faults"), pair(key, "carriers"),
                    low["model"], high["model"], low["vm"], high["vm"]
            }
        }' "$res/fidelity.csv" >"$der/answer.csv"
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
