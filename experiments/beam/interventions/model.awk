# The model's side of an interventions-priced row, read from the model's eptest CSV (eptest
# --prices): model_row() on each of its rows fills model[] with lookup_gcs, lookup_faults and
# lookup_carriers (the ets_lookup pass), proc_gcs and proc_carriers (proc2, the round trip),
# model_ratio() gives the priced ratio, lookup / median(proc1..3), and model_priced(t) pass t's
# priced µs, each n/a where eptest could not price a pass (a price the VM's calibrations made
# negative). Shared by priced.sh, which writes
# the rows, and report/recompute.sh, which reruns them; needs report/csv.awk and report/stats.awk.
function model_row(    t) {
    t = csv_get("test")
    if (csv_get("priced_us") != "n/a") model_us["p", t] = csv_get("priced_us") + 0
    if (t == "ets_lookup") {
        model["lookup_gcs"] = csv_get("gcs"); model["lookup_faults"] = csv_get("faults")
        model["lookup_carriers"] = csv_get("carriers_mapped")
    }
    if (t == "proc2") { model["proc_gcs"] = csv_get("gcs"); model["proc_carriers"] = csv_get("carriers_mapped") }
}
function model_ratio() {
    if (("p", "ets_lookup") in model_us && ("p", "proc1") in model_us && ("p", "proc2") in model_us &&
        ("p", "proc3") in model_us)
        return sprintf("%.3f", rt_ratio(model_us, "p", "ets_lookup"))
    return "n/a"
}
function model_priced(t) { return ("p", t) in model_us ? sprintf("%.1f", model_us["p", t]) : "n/a" }
