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
plot for [i=2:9] der.'/breakdown-wide.csv' using i:xtic(1) title columnhead lc rgb c_phase[i-1]
