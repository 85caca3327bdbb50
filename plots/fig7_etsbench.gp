# Figure 7: the 2009 question on both sides. Operations per second of ETS by table type and
# scheduler threads, and of the process dictionary, on the real VM and in the model (its mode
# with the same locks), with the 2009 seed's R13B01 numbers where it ran that configuration
# (results/derived/etsbench-fig.csv, from etsbench-compare.csv). Insert and lookup, one panel each;
# both panels take their labels from the lookup rows (the same configurations, and the row that
# comes last at an x sets its label).
load 'plots/style.gp'
eval csvcols('e', der.'/etsbench-fig.csv', 'op x config vm model seed')
set multiplot layout 1,2 title 'ETS against the process dictionary, by table type and scheduler threads (2009 seed beside)'
set logscale y
set yrange [1e5:3e8]
set format y '%.0s%c'
set ylabel 'operations per second (log)'
set style fill solid 0.85 border -1
set boxwidth 0.26
set xrange [0.4:9.6]
set xtics rotate by -40 left font ',11' nomirror
set bmargin 8
set key top left horizontal font ',11'
is(o) = strcol(@e_op) eq o
do for [o in 'lookup insert'] {
    set title (o eq 'lookup' ? 'lookup (pdict: get)' : 'insert (pdict: put)')
    plot der.'/etsbench-fig.csv' using ($@e_x - 0.27):(is(o) ? $@e_vm : 1/0):xtic(is('lookup') ? strcol(@e_config) : '') \
             with boxes lc rgb c_vm title 'real VM (OTP 25)', \
         '' using ($@e_x):(is(o) ? $@e_model : 1/0) with boxes lc rgb c_otp25 title 'model', \
         '' using ($@e_x + 0.27):(is(o) ? $@e_seed : 1/0) with boxes lc rgb c_seed title '2009 seed (R13B01)'
    unset key
}
unset multiplot
