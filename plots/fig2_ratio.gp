# Figure 2: lookup / round-trip time against payload length (ints), the model's eras and the
# VM, the crossover (the first length where the lookup loses) marked.
load 'plots/style.gp'
set title 'ets:lookup/2 over a client-server round trip, same payload (lists:seq(1, L))'
set xlabel 'payload length L (log)'
set ylabel 'lookup time / round-trip time'
set logscale x
set yrange [0:*]
set key top left
eval csvcols('x', res.'/crossover.csv', 'shape era payload_len ratio')
eval csvcols('s', res.'/crossover-summary.csv', 'shape era crossover_len')
is(e) = strcol(@x_shape) eq 'ints' && strcol(@x_era) eq e
cross(e) = strcol(@s_shape) eq 'ints' && strcol(@s_era) eq e && strcol(@s_crossover_len) ne 'none'
model = "plot 1 with lines dt 2 lc rgb '#555555' title 'equal cost', \
     res.'/crossover.csv' using @x_payload_len:(is('r10b') ? $@x_ratio : 1/0) with linespoints pt 7 lc rgb c_r10b title 'model R10B', \
     '' using @x_payload_len:(is('otp25') ? $@x_ratio : 1/0) with linespoints pt 7 lc rgb c_otp25 title 'model OTP 25', \
     res.'/crossover-summary.csv' using (cross('r10b') ? $@s_crossover_len : 1/0):(1) with points pt 6 ps 3 lw 2 lc rgb c_r10b title 'crossover R10B', \
     '' using (cross('otp25') ? $@s_crossover_len : 1/0):(1) with points pt 6 ps 3 lw 2 lc rgb c_otp25 title 'crossover OTP 25'"
# The VM's ints on the fine grid when run.sh measured it, else on its coarse grid.
vmfile = system(sprintf("[ -f '%s/vm-crossover-fine.csv' ] && echo vm-crossover-fine.csv || echo vm-crossover.csv", res))
if (vm) {
    eval csvcols('v', res.'/'.vmfile, 'shape payload_len ratio')
    eval csvcols('w', der.'/crossover-wide.csv', 'shape vm')
    eval model.", \
         res.'/'.vmfile using @v_payload_len:(strcol(@v_shape) eq 'ints' ? $@v_ratio : 1/0) with linespoints pt 5 lc rgb c_vm title 'real VM (OTP 25)', \
         der.'/crossover-wide.csv' using (strcol(@w_shape) eq 'ints' ? $@w_vm : 1/0):(1) with points pt 6 ps 3 lw 2 lc rgb c_vm title 'crossover VM'"
} else {
    eval model
}
