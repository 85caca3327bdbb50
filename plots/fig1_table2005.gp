# Figure 1: the 2005 table replayed — the seed's numbers, the model in both eras and the real
# VM, per 1000 operations (results/derived/table2005.csv).
load 'plots/style.gp'
set title "The 2005 benchmark replayed: time per 1000 operations (ints payload of length L)"
set ylabel 'microseconds per 1000 operations (log)'
set logscale y
set format y '%.0f'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -25 left
set key top left
plot der.'/table2005.csv' using 4:xtic(3) title 'round trip (proc)' lc rgb c_proc, \
     '' using 5 title 'ets insert' lc rgb c_insert, \
     '' using 6 title 'ets overwrite' lc rgb c_overwrite, \
     '' using 7 title 'ets lookup' lc rgb c_lookup_op
