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
eval csvcols('w', der.'/ablate-wide.csv', 'ablation r10b otp25')
# Each era's payload length, from the ablation's rows.
eval csvcols('a', res.'/ablate.csv', 'era payload_len')
stats res.'/ablate.csv' using (strcol(@a_era) eq 'r10b' ? $@a_payload_len : 1/0) nooutput
len_r10b = STATS_max
stats res.'/ablate.csv' using (strcol(@a_era) eq 'otp25' ? $@a_payload_len : 1/0) nooutput
len_otp25 = STATS_max
plot der.'/ablate-wide.csv' using @w_r10b:xtic(@w_ablation) title sprintf('model R10B (L = %d)', len_r10b) lc rgb c_r10b, \
     '' using @w_otp25 title sprintf('model OTP 25 (L = %d)', len_otp25) lc rgb c_otp25, \
     1 with lines dt 2 lc rgb '#555555' title 'equal cost'
