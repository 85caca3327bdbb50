# Figure 5: the lookup / round-trip ratio with one mechanism switched at a time, per era
# (results/derived/ablate-wide.csv, one column per era ablate ran; each era at its gap length,
# results/derived/ablate-eras.csv: R10B at L = 1000 as the seed, OTP 25 at L = 10000).
load 'plots/style.gp'
set title 'Ablation: lookup / round trip with one mechanism switched'
set ylabel 'lookup time / round-trip time'
set yrange [0:*]
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set xtics rotate by -25 left
set key top right
eras = system(sprintf("report/csv.sh column '%s/ablate-eras.csv' era | tr '\\n' ' '", der))
if (GPVAL_SYSTEM_ERRNO != 0) { exit status 1 }
lens = system(sprintf("report/csv.sh column '%s/ablate-eras.csv' payload_len | tr '\\n' ' '", der))
eval csvcols('w', der.'/ablate-wide.csv', 'ablation '.eras)
plot for [i = 1:words(eras)] der.'/ablate-wide.csv' using int(value('w_'.word(eras, i))):xtic(@w_ablation) \
         title sprintf('model %s (L = %s)', word(eras, i), word(lens, i)) lc rgb c_era(word(eras, i)), \
     1 with lines dt 2 lc rgb '#555555' title 'equal cost'
