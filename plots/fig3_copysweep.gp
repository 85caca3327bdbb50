# Figure 3: nanoseconds per word of every copy strategy against payload size (lists of
# integers), memcpy of the same bytes as the floor (results/derived/copysweep-ints.csv).
load 'plots/style.gp'
set title 'Cost per word of each copy strategy (lists of integers), memcpy as the floor'
set xlabel 'payload flat size in words (log)'
set ylabel 'ns per word (log)'
set logscale xy
set format x '%.0f'
set key outside right top
plot der.'/copysweep-ints.csv' using 1:2 with linespoints lw 3 dt 2 pt 7 lc rgb c_memcpy title 'memcpy (floor)', \
     '' using 1:3 with linespoints pt 7 lc rgb c_copy_struct title 'copy_struct (send)', \
     '' using 1:4 with linespoints pt 7 lc rgb c_compact_in title 'compact in (ets insert)', \
     '' using 1:5 with linespoints pt 7 lc rgb c_compact_out title 'copy_shallow (compact out)', \
     '' using 1:6 with linespoints pt 7 lc rgb c_lookup title 'lookup ([Object] out)', \
     '' using 1:7 with linespoints pt 7 lc rgb c_copy_shared title 'copy_shared', \
     '' using 1:8 with linespoints pt 7 lc rgb c_literal_put title 'persistent_term put', \
     '' using 1:9 with linespoints pt 7 lc rgb c_literal_get title 'persistent_term get'
