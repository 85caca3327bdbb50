# Two perf reports (-q --stdio --no-children --sort sym -F sample,sym: samples, then "[.] symbol"
# or "[k] symbol"), the same VM run with no calls and with `calls` calls, grouped by erts
# mechanism (perfsplit.sh lists the groups): one CSV row per group of the run's samples less the
# no-call run's (the VM's start, its code loading and its halt drop out), `r`, `v`, `l`,
# `calls` and `freq` given with -v. Every group is printed, an empty one with 0 samples, so
# that the rows of two runs line up.
function group(kind, sym) {
    if (kind == "k") return "kernel"
    if (sym ~ /^0x[0-9a-f]+$/ || sym ~ /^\$|^#/) return "jit"
    if (sym ~ /^(size_object|copy_struct)/) return "copy"
    if (sym ~ /copy_one_frag|move_msgs?_to_heap/) return "move"
    if (sym ~ /^(garbage_collect|erts_garbage_collect|do_minor|do_major|minor_collection|major_collection|sweep|offset_|collect_live_heap_frags|move_one_area|full_sweep|erts_gc_|gc_|setup_rootset|cleanup_rootset|remove_message_buffers|free_message_buffer)/) return "gc"
    if (sym ~ /message|proc_sig|do_send|queue_messages|erts_send_|recv|remove_msg/) return "msg"
    if (sym ~ /^(mbc_|rbt_|aoff|erts_alcu_|erts_alc_|alcu_|erts_sys_alloc|erts_sys_free|handle_delayed_dealloc|ddq_)/) return "alloc"
    if (sym ~ /schedule|sched|run_queue|lock|mutex|futex|thr_progress|wake|sleep|poll|timerfd|^read$|^__GI___libc_write$|^write$|erts_thr_|pthread_|check_balance|leader_update/) return "sched"
    return "other"
}
BEGIN { ng = split("copy move gc msg alloc sched kernel jit other", name, " ") }
$1 ~ /^[0-9]+$/ && $2 ~ /^\[[.k]\]$/ {
    g = group(substr($2, 2, 1), $3)
    if (FILENAME == ARGV[1]) { n[g] -= $1; base += $1 } else { n[g] += $1; run += $1 }
}
END {
    if (run == 0 || base == 0) { print "perfsplit.awk: no samples in a perf report" > "/dev/stderr"; exit 1 }
    total = run - base
    if (total <= 0) { print "perfsplit.awk: the run took no more samples than the run with no calls" > "/dev/stderr"; exit 1 }
    for (i = 1; i <= ng; i++)
        printf "%s,%s,%s,%s,%s,%d,%.2f,%.1f\n", r, v, l, calls, name[i], n[name[i]], 100 * n[name[i]] / total,
               n[name[i]] / freq / calls * 1e9
}
