# Figure 2: lookup / round-trip time against payload length (ints), the model's eras and the
# VM, the crossover (the first length where the lookup loses) marked.
load 'plots/style.gp'
set title 'ets:lookup/2 over a client-server round trip, same payload (lists:seq(1, L))'
set xlabel 'payload length L (log)'
set ylabel 'lookup time / round-trip time'
set logscale x
set yrange [0:*]
set key top left
is(e) = strcol(1) eq 'ints' && strcol(4) eq e
cross(e) = strcol(1) eq 'ints' && strcol(2) eq e && strcol(3) ne 'none'
model = "plot 1 with lines dt 2 lc rgb '#555555' title 'equal cost', \
     res.'/crossover.csv' using 2:(is('r10b') ? $7 : 1/0) with linespoints pt 7 lc rgb c_r10b title 'model R10B', \
     '' using 2:(is('otp25') ? $7 : 1/0) with linespoints pt 7 lc rgb c_otp25 title 'model OTP 25', \
     res.'/crossover-summary.csv' using (cross('r10b') ? $3 : 1/0):(1) with points pt 6 ps 3 lw 2 lc rgb c_r10b title 'crossover R10B', \
     '' using (cross('otp25') ? $3 : 1/0):(1) with points pt 6 ps 3 lw 2 lc rgb c_otp25 title 'crossover OTP 25'"
# The VM's ints on the fine grid when run.sh measured it, else on its coarse grid.
vmfile = system(sprintf("[ -f '%s/vm-crossover-fine.csv' ] && echo vm-crossover-fine.csv || echo vm-crossover.csv", res))
if (vm) {
    eval model.", \
         res.'/'.vmfile using 2:(strcol(1) eq 'ints' ? $7 : 1/0) with linespoints pt 5 lc rgb c_vm title 'real VM (OTP 25)', \
         der.'/crossover-wide.csv' using (strcol(1) eq 'ints' ? $4 : 1/0):(1) with points pt 6 ps 3 lw 2 lc rgb c_vm title 'crossover VM'"
} else {
    eval model
}
