# Figure 6: the OTP 25 lookup loop's heap over successive lookups (heap size after each
# lookup, the size of each GC's new heap) and the cumulative minor page faults with the
# segment cache on and off (results/derived/heaptrace-cum.csv), and the real VM's count when it ran.
load 'plots/style.gp'
set multiplot layout 2,1 title 'ets:lookup/2 of {K, lists:seq(1,10000)} in a loop, OTP 25 model'
set xrange [0:60]
set ylabel 'words'
set key bottom right
set format y '%.0f'
plot der.'/heaptrace-cum.csv' using 1:2 with steps lw 2 lc rgb c_otp25 title 'heap size after the lookup', \
     '' using 1:($3 > 0 ? $3 : 1/0) with points pt 7 ps 1.2 lc rgb c_r10b title 'new heap of the GC at this lookup', \
     524288/8 with lines dt 2 lc rgb '#555555' title 'sbct (512 KiB)'
set xrange [*:*]
set xlabel 'lookup number'
set ylabel 'minor faults (cumulative)'
set key top left
if (vm) {
    plot der.'/heaptrace-cum.csv' using 1:4 with lines lw 2 lc rgb c_otp25 title 'model, segment cache on (as shipped)', \
         '' using 1:5 with lines lw 2 dt 2 lc rgb c_r10b title 'model, segment cache off (every large heap freshly mapped)', \
         der.'/vm-summary.csv' using (1000):6 with points pt 5 ps 2 lc rgb c_vm title 'real VM: faults in 1000 lookups (whole process)'
} else {
    plot der.'/heaptrace-cum.csv' using 1:4 with lines lw 2 lc rgb c_otp25 title 'model, segment cache on (as shipped)', \
         '' using 1:5 with lines lw 2 dt 2 lc rgb c_r10b title 'model, segment cache off (every large heap freshly mapped)'
}
unset multiplot
