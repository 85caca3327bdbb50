# Figure 1: the 2005 table replayed as the seed's question puts it — each ETS operation's time
# over the round trip's, for the seed's numbers and the model under R10B rules, per payload
# length (results/derived/table2005.csv; the absolute times are in the table beside; OTP 25
# and the VM are the canonical run's, in the report's opening table).
load 'plots/style.gp'
set title "The 2005 benchmark replayed under R10B rules: each ETS test's time over the round trip's (lists:seq(1, L))"
set ylabel 'time / round-trip time (1 = as long as a round trip)'
set yrange [0:*]
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -25 left
set bmargin 6
set key outside right top
eval csvcols('t', der.'/table2005.csv', 'label proc_us insert_us overwrite_us lookup_us')
plot der.'/table2005.csv' using ($@t_insert_us / $@t_proc_us):xtic(@t_label) title 'ets insert' lc rgb c_insert, \
     '' using ($@t_overwrite_us / $@t_proc_us) title 'ets overwrite' lc rgb c_overwrite, \
     '' using ($@t_lookup_us / $@t_proc_us) title 'ets lookup' lc rgb c_lookup_op, \
     1 with lines dt 2 lc rgb '#555555' title 'round trip'
