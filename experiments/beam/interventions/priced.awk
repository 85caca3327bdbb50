# The interventions priced, per variant and length (experiments/beam/interventions/priced.sh's
# rows, one per round): the medians over the rounds of the ratios (with the rounds' extremes) and
# of the counts, and each variant's effect against rebuilt's: vm_effect and model_effect are its
# median ratio less rebuilt's (+: the intervention makes the lookup dearer against the round
# trip), vm_resolved says the two variants' rounds do not overlap, agree that the model's effect
# has the VM's sign (n/a where the model's passes of a variant or of rebuilt could not be priced:
# a calibration that came out negative); the summary also counts the rows (variant and length,
# rebuilt's too) whose median lookup and proc2 GC counts are both within 3 % of the VM's; the rounds'
# extremes of the VM's proc2 GCs (vm_proc_gcs_lo, _hi); and which loop moved: each side's µs of the lookup pass
# and of proc2 (the VM's CPU time, the model's priced), their medians and their change against
# rebuilt's in % (*_change_pct), with the VM's sleeps in proc2 and their phase (the model has no
# scheduler threads: none). A CSV on standard output; with -v summary=1 a line of totals after it, with
# -v summary_csv=FILE the totals as a CSV in FILE; with -v meta=1 the rows' '#' lines first.
# Needs report/csv.awk and report/stats.awk before it.
# over the rounds' numbers (a ratio is n/a where the model's passes could not be priced)
function nums(s, a,    x, n, i, k) { n = split(s, x, " "); k = 0; for (i = 1; i <= n; i++) if (x[i] != "n/a") a[++k] = x[i]; return k }
function med(s,    a, n) { n = nums(s, a); return n ? median(a, n) : "n/a" }
function lo(s,    a, n) { n = nums(s, a); if (!n) return "n/a"; sort(a, n); return a[1] }
function hi(s,    a, n) { n = nums(s, a); if (!n) return "n/a"; sort(a, n); return a[n] }
function f3(x) { return x == "n/a" ? x : sprintf("%.3f", x) }
# vm_lookup_us -> vm_lookup_change_pct, model_lookup_priced_us -> model_lookup_change_pct
function sub_change(c) { sub(/_priced_us$|_us$/, "_change_pct", c); return c }
# the sweep's bound on GC counts: within 3 % of the VM's
function near(m, v) { return m - v <= 0.03 * v && v - m <= 0.03 * v }
function f0(x) { return x == "n/a" ? x : sprintf("%.0f", x) }
# a median's change against rebuilt's at the same length, in %
function change(c, v, l,    a, b) { a = med(val[v, l, c]); b = med(val["rebuilt", l, c])
                                   return a == "n/a" || b == "n/a" || b + 0 == 0 ? "n/a" : sprintf("%.1f", 100 * (a / b - 1)) }
/^#/ { if (meta) print; next }
!csv_row() { next }
{
    v = csv_get("variant"); l = csv_get("payload_len")
    if (!((v, l) in seen)) { seen[v, l] = 1; key[++nk] = v SUBSEP l; sw[v] = csv_get("model_switch") }
    for (i = 1; i <= nc + nt; i++) val[v, l, col[i]] = val[v, l, col[i]] " " csv_get(col[i])
}
BEGIN {
    nc = split("vm_ratio model_priced_ratio vm_lookup_gcs model_lookup_gcs vm_lookup_faults model_lookup_faults " \
               "vm_lookup_carriers model_lookup_carriers vm_proc_gcs model_proc_gcs vm_proc_carriers model_proc_carriers", col, " ")
    nt = split("vm_lookup_us model_lookup_priced_us vm_proc_us model_proc_priced_us vm_proc_sleeps vm_proc_sleep_us", tcol, " ")
    nl = split("vm_lookup_us model_lookup_priced_us vm_proc_us model_proc_priced_us", lcol, " ")
    for (i = 1; i <= nt; i++) col[nc + i] = tcol[i]
}
END {
    printf "variant,model_switch,payload_len,vm_ratio,vm_ratio_lo,vm_ratio_hi,model_priced_ratio,model_priced_ratio_lo,model_priced_ratio_hi"
    for (i = 3; i <= nc + nt; i++) printf ",%s", col[i]
    for (i = 1; i <= nl; i++) printf ",%s", sub_change(lcol[i])
    print ",vm_effect,model_effect,vm_resolved,agree,vm_proc_gcs_lo,vm_proc_gcs_hi"
    for (k = 1; k <= nk; k++) {
        split(key[k], p, SUBSEP); v = p[1]; l = p[2]
        printf "%s,%s,%s", v, sw[v], l
        rows++
        gm += near(med(val[v, l, "model_lookup_gcs"]), med(val[v, l, "vm_lookup_gcs"])) && \
              near(med(val[v, l, "model_proc_gcs"]), med(val[v, l, "vm_proc_gcs"]))
        for (i = 1; i <= 2; i++) printf ",%s,%s,%s", f3(med(val[v, l, col[i]])), f3(lo(val[v, l, col[i]])), f3(hi(val[v, l, col[i]]))
        for (i = 3; i <= nc; i++) printf ",%d", med(val[v, l, col[i]])
        for (i = nc + 1; i <= nc + nt; i++) printf ",%s", f0(med(val[v, l, col[i]]))
        base = v == "rebuilt" || !(("rebuilt", l) in seen)
        for (i = 1; i <= nl; i++) printf ",%s", base ? "-" : change(lcol[i], v, l)
        # the rounds' extremes of the VM's proc2 GCs: a tester's heap history can differ by round
        ext = sprintf(",%d,%d", lo(val[v, l, "vm_proc_gcs"]), hi(val[v, l, "vm_proc_gcs"]))
        if (base) { print ",-,-,-,-" ext; continue }
        ve = med(val[v, l, "vm_ratio"]) - med(val["rebuilt", l, "vm_ratio"])
        m1 = med(val[v, l, "model_priced_ratio"]); m0 = med(val["rebuilt", l, "model_priced_ratio"])
        res = lo(val[v, l, "vm_ratio"]) + 0 > hi(val["rebuilt", l, "vm_ratio"]) + 0 || hi(val[v, l, "vm_ratio"]) + 0 < lo(val["rebuilt", l, "vm_ratio"]) + 0
        if (m1 == "n/a" || m0 == "n/a") { printf ",%.3f,n/a,%s,n/a%s\n", ve, res ? "yes" : "no", ext; unpriced++; continue }
        me = m1 - m0
        ag = (ve > 0) == (me > 0)
        printf ",%.3f,%.3f,%s,%s%s\n", ve, me, res ? "yes" : "no", ag ? "yes" : "no", ext
        n++; a += ag; if (res) { r++; ra += ag }
    }
    if (summary)
        printf "priced: the model's priced effect has the VM's sign at %d of %d variant lengths; where the VM's rounds resolve it, %d of %d; unpriced %d; both loops' GCs within 3 %% at %d of %d rows\n", a, n, ra, r, unpriced, gm, rows
    if (summary_csv != "")
        printf "variant_lengths,agree,resolved,resolved_agree,unpriced,rows,gcs_match\n%d,%d,%d,%d,%d,%d,%d\n", n, a, r, ra, unpriced, rows, gm > summary_csv
}
