# Figure 6: the OTP 25 lookup loop's heap over successive lookups (heap size after each
# lookup, the size of each GC's new heap) and the cumulative minor page faults with the
# segment cache on and off (results/derived/heaptrace-cum.csv), and the real VM's count when it ran.
load 'plots/style.gp'
set multiplot layout 2,1 title 'ets:lookup/2 of {K, lists:seq(1,10000)} in a loop, OTP 25 model'
eval csvcols('c', der.'/heaptrace-cum.csv', 'lookup heap_words new_heap_words faults_cum faults_cum_nocache')
# The single-block carrier threshold of the run, in bytes (heaptrace's '# policy:' line, by derive.sh).
eval csvcols('s', der.'/heaptrace-summary.csv', 'variant sbct_bytes')
stats der.'/heaptrace-summary.csv' using (strcol(@s_variant) eq 'cache' ? $@s_sbct_bytes : 1/0) nooutput
sbct = STATS_max
set xrange [0:60]
set xlabel 'lookup number (the first 60 of the loop)' offset 0,0.5
set ylabel 'words'
# headroom above the data for the key, so it covers no line
set offsets 0, 0, graph 0.3, 0
set key top left horizontal font ',11'
set format y '%.0f'
plot der.'/heaptrace-cum.csv' using @c_lookup:@c_heap_words with steps lw 2 lc rgb c_otp25 title 'heap size after the lookup', \
     '' using @c_lookup:($@c_new_heap_words > 0 ? $@c_new_heap_words : 1/0) with points pt 7 ps 1.2 lc rgb c_r10b title 'new heap of the GC at this lookup', \
     sbct / 8 with lines dt 2 lc rgb '#555555' title sprintf('sbct (%d KiB)', sbct / 1024)
set xrange [*:*]
set offsets 0, 0, graph 0.1, 0
set xlabel 'lookup number (all of the loop)'
set ylabel 'minor faults (cumulative)'
set key top left font ',11'
model = "plot der.'/heaptrace-cum.csv' using @c_lookup:@c_faults_cum with lines lw 2 lc rgb c_otp25 title 'model, segment cache on (as shipped)', \
     '' using @c_lookup:@c_faults_cum_nocache with lines lw 2 dt 2 lc rgb c_r10b title 'model, segment cache off (every large heap freshly mapped)'"
if (vm) {
    # vm-summary.csv counts per 1000 operations: its point sits at lookup 1000
    eval csvcols('v', der.'/vm-summary.csv', 'lookup_faults')
    eval model.", \
         der.'/vm-summary.csv' using (1000):@v_lookup_faults with points pt 5 ps 2 lc rgb c_vm title 'real VM: faults in 1000 lookups (whole process)'"
} else {
    eval model
}
unset multiplot
