# Figure 4: where each eptest test spends its time, one panel per era (R10B rules at L = 1000,
# OTP 25 rules at L = 10000): each test split into phases twice, by the work counters times
# the unit costs measured in the same run and by the sampling profiler's shares
# (results/derived/breakdown-wide.csv). The round trip is its middle pass (proc2).
load 'plots/style.gp'
eval csvcols('b', der.'/breakdown-wide.csv', 'era label '.phases)
pos = ''
do for [i = 1:words(phases)] { pos = pos.' '.value('b_'.word(phases, i)) }
set multiplot layout 1,2 title "Where each test spends its time: work counters x unit costs, and the sampling profiler"
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
# the R10B rows come first: a histogram has one slot per row, so each panel takes its own rows
stats der.'/breakdown-wide.csv' using (strcol(@b_era) eq 'r10b' ? 1 : 0) nooutput
n_r10b = int(STATS_sum)
do for [e in 'r10b otp25'] {
    set title (e eq 'r10b' ? 'R10B rules, L = 1000' : 'OTP 25 rules, L = 10000')
    first = (e eq 'r10b' ? 0 : n_r10b)
    last = (e eq 'r10b' ? n_r10b - 1 : 1000)
    plot for [i=1:words(phases)] der.'/breakdown-wide.csv' every ::first::last \
        using int(word(pos, i)):xtic(@b_label) title columnhead(int(word(pos, i))) lc rgb c_phase[i]
    unset key
}
unset multiplot
