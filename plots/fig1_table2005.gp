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
eval csvcols('t', der.'/table2005.csv', 'label proc_us insert_us overwrite_us lookup_us')
plot der.'/table2005.csv' using @t_proc_us:xtic(@t_label) title 'round trip (proc)' lc rgb c_proc, \
     '' using @t_insert_us title 'ets insert' lc rgb c_insert, \
     '' using @t_overwrite_us title 'ets overwrite' lc rgb c_overwrite, \
     '' using @t_lookup_us title 'ets lookup' lc rgb c_lookup_op
