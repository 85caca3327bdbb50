# Figure 4: where each eptest test spends its time, one panel per era (each era's rules at its
# gap length, results/derived/breakdown-eras.csv: R10B at L = 1000, OTP 25 at L = 10000): each
# test split into phases twice, by the work counters times the unit costs measured in the same
# run and by the sampling profiler's shares (results/derived/breakdown-wide.csv). The round
# trip is its middle pass (proc2).
load 'plots/style.gp'
eval csvcols('b', der.'/breakdown-wide.csv', 'era label '.phases)
pos = ''
do for [i = 1:words(phases)] { pos = pos.' '.value('b_'.word(phases, i)) }
# the eras, each with its length and its rows (a histogram has one slot per row, so each panel
# takes its own rows)
eras = system(sprintf("report/csv.sh column '%s/breakdown-eras.csv' era | tr '\\n' ' '", der))
if (GPVAL_SYSTEM_ERRNO != 0) { exit status 1 }
lens = system(sprintf("report/csv.sh column '%s/breakdown-eras.csv' payload_len | tr '\\n' ' '", der))
firsts = system(sprintf("report/csv.sh column '%s/breakdown-eras.csv' first | tr '\\n' ' '", der))
lasts = system(sprintf("report/csv.sh column '%s/breakdown-eras.csv' last | tr '\\n' ' '", der))
set multiplot layout 1,words(eras) title "Where each test spends its time: work counters x unit costs, and the sampling profiler"
set ylabel "share of the test's time"
set yrange [0:1.3]
set ytics 0, 0.2, 1
set style data histograms
set style histogram rowstacked
set style fill solid 0.9 border -1
set boxwidth 0.75
set xtics rotate by -40 left font ',11' nomirror
set bmargin 9
set key top left horizontal maxrows 2 font ',11'
do for [k = 1:words(eras)] {
    set title sprintf('%s rules, L = %s', word(eras, k), word(lens, k))
    first = int(word(firsts, k))
    last = int(word(lasts, k))
    plot for [i=1:words(phases)] der.'/breakdown-wide.csv' every ::first::last \
        using int(word(pos, i)):xtic(@b_label) title columnhead(int(word(pos, i))) lc rgb c_phase[i]
    unset key
}
unset multiplot
