# Figure 4: each eptest test split into phases: work counters x unit costs beside the
# sampling profiler's shares (results/derived/breakdown-wide.csv).
load 'plots/style.gp'
set title 'Where each test spends its time: counters x unit costs (c) beside the sampling profiler (p)'
set ylabel 'share of the test''s time'
set yrange [0:1.05]
set style data histograms
set style histogram rowstacked
set style fill solid 0.9 border -1
set boxwidth 0.8
set xtics rotate by -60 left font ',9'
set bmargin 9
set key outside right top
# The phases' columns by name (plots/style.gp), their positions in phase order.
eval csvcols('b', der.'/breakdown-wide.csv', 'label '.phases)
pos = ''
do for [i = 1:words(phases)] { pos = pos.' '.value('b_'.word(phases, i)) }
plot for [i=1:words(phases)] der.'/breakdown-wide.csv' using int(word(pos, i)):xtic(@b_label) title columnhead lc rgb c_phase[i]
