# Figure 5: the lookup / round-trip ratio with one mechanism switched at a time, per era, and the
# real VM rebuilt with the patch that makes the same switch, where one exists
# (results/derived/ablate-wide.csv; R10B at L = 1000 as the seed, OTP 25 and the VM at
# L = 10000). Bars: medians; error bars: the smallest and largest run (the model: ablate's runs;
# the VM: the interventions' rounds).
load 'plots/style.gp'
set title 'Ablation: lookup / round trip with one mechanism switched (bars: median; error bars: smallest to largest run)'
set ylabel 'lookup time / round-trip time'
set yrange [0:*]
set style data histograms
set style histogram errorbars gap 1 lw 1.5
set style fill solid 0.85 border -1
set xtics rotate by -25 left
set key outside top center horizontal maxrows 2 font ",11"
set bmargin 8
set rmargin 10
eval csvcols('w', der.'/ablate-wide.csv', 'ablation r10b r10b_lo r10b_hi otp25 otp25_lo otp25_hi vm vm_lo vm_hi')
# Each era's payload length, from the ablation's rows.
eval csvcols('a', der.'/ablate.csv', 'era payload_len')
stats der.'/ablate.csv' using (strcol(@a_era) eq 'r10b' ? $@a_payload_len : 1/0) nooutput
len_r10b = STATS_max
stats der.'/ablate.csv' using (strcol(@a_era) eq 'otp25' ? $@a_payload_len : 1/0) nooutput
len_otp25 = STATS_max
plot der.'/ablate-wide.csv' using @w_r10b:@w_r10b_lo:@w_r10b_hi:xtic(@w_ablation) title sprintf('model R10B (L = %d)', len_r10b) lc rgb c_r10b, \
     '' using @w_otp25:@w_otp25_lo:@w_otp25_hi title sprintf('model OTP 25 (L = %d)', len_otp25) lc rgb c_otp25, \
     '' using @w_vm:@w_vm_lo:@w_vm_hi title sprintf('real VM OTP 25 with the patch making the switch (L = %d)', len_otp25) lc rgb c_vm, \
     1 with lines dt 2 lc rgb '#555555' title 'equal cost'
