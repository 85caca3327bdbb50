# Figure 5: the lookup / round-trip ratio with one mechanism switched at a time, per era, and the
# real VM rebuilt with the patch that makes the same switch, where one exists
# (results/derived/ablate-wide.csv, one column and its interval per era ablate ran; each era at
# its gap length, results/derived/ablate-eras.csv: R10B at L = 1000 as the seed, OTP 25 and the
# VM at L = 10000). Bars: medians; error bars: the smallest and largest run (the model: ablate's
# runs; the VM: the interventions' rounds).
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
eras = system(sprintf("report/csv.sh column '%s/ablate-eras.csv' era | tr '\\n' ' '", der))
if (GPVAL_SYSTEM_ERRNO != 0) { exit status 1 }
lens = system(sprintf("report/csv.sh column '%s/ablate-eras.csv' payload_len | tr '\\n' ' '", der))
if (GPVAL_SYSTEM_ERRNO != 0) { exit status 1 }
native = system(sprintf("report/csv.sh meta '%s/policy.csv' native", res))
if (GPVAL_SYSTEM_ERRNO != 0) { exit status 1 }
cols = 'ablation vm vm_lo vm_hi'
do for [i = 1:words(eras)] { e = word(eras, i); cols = cols.' '.e.' '.e.'_lo '.e.'_hi' }
eval csvcols('w', der.'/ablate-wide.csv', cols)
col(e, sfx) = int(value('w_'.e.sfx))
native_len = ''
do for [i = 1:words(eras)] { if (word(eras, i) eq native) { native_len = word(lens, i) } }
plot for [i = 1:words(eras)] der.'/ablate-wide.csv' using col(word(eras, i), ''):col(word(eras, i), '_lo'):col(word(eras, i), '_hi'):xtic(@w_ablation) \
         title sprintf('model %s (L = %s)', word(eras, i), word(lens, i)) lc rgb c_era(word(eras, i)), \
     '' using @w_vm:@w_vm_lo:@w_vm_hi title sprintf('real VM %s with the patch making the switch (L = %s)', native, native_len) lc rgb c_vm, \
     1 with lines dt 2 lc rgb '#555555' title 'equal cost'
