# Figure 5: the lookup / round-trip ratio with one mechanism switched at a time, per era
# (results/derived/ablate-wide.csv; R10B at L = 1000 as the seed, OTP 25 at L = 10000).
load 'plots/style.gp'
set title 'Ablation: lookup / round trip with one mechanism switched'
set ylabel 'lookup time / round-trip time'
set yrange [0:*]
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set xtics rotate by -25 left
set key top right
plot der.'/ablate-wide.csv' using 2:xtic(1) title 'model R10B (L = 1000)' lc rgb c_r10b, \
     '' using 3 title 'model OTP 25 (L = 10000)' lc rgb c_otp25, \
     1 with lines dt 2 lc rgb '#555555' title 'equal cost'
