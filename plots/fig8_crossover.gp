# Figure 8: the crossover length (the smallest payload length at which the lookup takes
# longer than the round trip) per term shape and era; no bar: no crossover in the grid
# (results/derived/crossover-wide.csv).
load 'plots/style.gp'
set title 'Crossover length per term shape (no bar: the lookup never loses on the grid)'
set ylabel 'payload length L (log)'
set logscale y
set format y '%.0f'
# the axis spans the grid, 10 to 30000 (a log axis: the grid's lengths span three decades);
# the top leaves room for the key above the longest bar
set yrange [5:300000]
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set key top left
# The shape names label the x axis by themselves: a series whose every row is 'none' (no
# crossover) cannot carry them.
shapes = system(sprintf("report/csv.sh column '%s/crossover-wide.csv' shape", der))
if (GPVAL_SYSTEM_ERRNO != 0) { exit status 1 }
# the model's eras, as crossover ran them (derived/crossover-eras.csv), one series each
eras = system(sprintf("report/csv.sh column '%s/crossover-eras.csv' era | tr '\\n' ' '", der))
if (GPVAL_SYSTEM_ERRNO != 0) { exit status 1 }
eval csvcols('w', der.'/crossover-wide.csv', eras.' vm')
set xtics () nomirror
do for [i = 1:words(shapes)] { set xtics add (word(shapes, i) i - 1) }
set xrange [-0.5:words(shapes) - 0.5]
model = "plot for [i = 1:words(eras)] der.'/crossover-wide.csv' using int(value('w_'.word(eras, i))) title 'model '.word(eras, i) lc rgb c_era(word(eras, i))"
if (vm) {
    eval model.", '' using @w_vm title 'real VM' lc rgb c_vm"
} else {
    eval model
}
