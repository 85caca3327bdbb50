# Figure 2: lookup / round-trip time against payload length (ints), the model's eras and the
# VM on the crossover grid (one run each), the crossover (the first length where the lookup
# loses) marked, and the canonical run's points (derived/answer.csv: model and VM alternated,
# the median of the rounds with its 95 % interval as error bars). The key is right of the plot,
# off the data.
load 'plots/style.gp'
set title 'ets:lookup/2 over a client-server round trip, same payload (lists:seq(1, L))'
set xlabel 'payload length L (log)'
set ylabel 'lookup time / round-trip time'
set logscale x
set xrange [8:40000]
set key outside right top vertical font ",10" width -6
# the axis stops at 4.5 round trips: an interval reaching above it (one noisy round of six)
# runs off the top rather than squash every curve below it
set yrange [0:4.5]
eval csvcols('x', res.'/crossover.csv', 'shape era payload_len ratio')
eval csvcols('s', res.'/crossover-summary.csv', 'shape era crossover_len')
answer = der.'/answer.csv'
has_answer = system(sprintf("[ -f '%s' ] && echo 1 || echo 0", answer)) + 0
if (has_answer) { eval csvcols('a', answer, 'shape payload_len model_ratio vm_ratio model_ratio_lo model_ratio_hi vm_ratio_lo vm_ratio_hi') }
# the model's eras as crossover ran them, and the native one (the VM's: its canonical run)
eras = system(sprintf("report/csv.sh column '%s/crossover-eras.csv' era | tr '\\n' ' '", der))
if (GPVAL_SYSTEM_ERRNO != 0) { exit status 1 }
native = system(sprintf("report/csv.sh meta '%s/policy.csv' native", res))
if (GPVAL_SYSTEM_ERRNO != 0) { exit status 1 }
spread = has_answer ? ", \
     answer using ($@a_payload_len * 0.97):(strcol(@a_shape) eq 'ints' ? $@a_model_ratio : 1/0):@a_model_ratio_lo:@a_model_ratio_hi with yerrorbars pt 9 ps 1.6 lw 2 lc rgb c_era(native) title 'model '.native.', canonical run (median, 95 % interval)'" : ""
spread_vm = has_answer ? ", \
     answer using ($@a_payload_len * 1.03):(strcol(@a_shape) eq 'ints' ? $@a_vm_ratio : 1/0):@a_vm_ratio_lo:@a_vm_ratio_hi with yerrorbars pt 11 ps 1.6 lw 2 lc rgb c_vm title 'real VM, canonical run (median, 95 % interval)'" : ""
is(e) = strcol(@x_shape) eq 'ints' && strcol(@x_era) eq e
cross(e) = strcol(@s_shape) eq 'ints' && strcol(@s_era) eq e && strcol(@s_crossover_len) ne 'none'
model = "plot 1 with lines dt 2 lc rgb '#555555' title 'equal cost', \
     for [i = 1:words(eras)] res.'/crossover.csv' using @x_payload_len:(is(word(eras, i)) ? $@x_ratio : 1/0) with linespoints pt 7 lc rgb c_era(word(eras, i)) title 'model '.word(eras, i), \
     for [i = 1:words(eras)] res.'/crossover-summary.csv' using (cross(word(eras, i)) ? $@s_crossover_len : 1/0):(1) with points pt 6 ps 3 lw 2 lc rgb c_era(word(eras, i)) title 'crossover '.word(eras, i)".spread
# The VM's ints on the fine grid when run.sh measured it, else on its coarse grid.
vmfile = system(sprintf("[ -f '%s/vm-crossover-fine.csv' ] && echo vm-crossover-fine.csv || echo vm-crossover.csv", res))
if (vm) {
    eval csvcols('v', res.'/'.vmfile, 'shape payload_len ratio')
    eval csvcols('w', der.'/crossover-wide.csv', 'shape vm')
    eval model.", \
         res.'/'.vmfile using @v_payload_len:(strcol(@v_shape) eq 'ints' ? $@v_ratio : 1/0) with linespoints pt 5 lc rgb c_vm title 'real VM ('.native.')', \
         der.'/crossover-wide.csv' using (strcol(@w_shape) eq 'ints' ? $@w_vm : 1/0):(1) with points pt 6 ps 3 lw 2 lc rgb c_vm title 'crossover VM'".spread_vm
} else {
    eval model
}
