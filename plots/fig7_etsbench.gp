# Figure 7: ETS operations per second by lock mode and threads, the process dictionary, and
# the 2009 seed's R13B01 numbers beside them (results/derived/etsbench-wide.csv).
load 'plots/style.gp'
set title 'ETS by lock mode and threads against the process dictionary; the 2009 seed beside'
set ylabel 'operations per second (log)'
set logscale y
set format y '%.0f'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set xtics rotate by -30 left
set bmargin 7
set key outside right top
eval csvcols('e', der.'/etsbench-wide.csv', 'config insert lookup update update_counter')
plot der.'/etsbench-wide.csv' using @e_insert:xtic(@e_config) title 'insert (pdict: put)' lc rgb c_insert, \
     '' using @e_lookup title 'lookup (pdict: get)' lc rgb c_lookup_op, \
     '' using @e_update title 'update (2 writers)' lc rgb c_update, \
     '' using @e_update_counter title 'update_counter' lc rgb c_counter
