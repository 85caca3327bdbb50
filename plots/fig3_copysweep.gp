# Figure 3: nanoseconds per word of every copy strategy against payload size (lists of
# integers), memcpy of the same bytes as the floor (results/derived/copysweep-ints.csv).
load 'plots/style.gp'
set title 'Cost per word of each copy strategy (lists of integers), memcpy as the floor'
set xlabel 'payload flat size in words (log)'
set ylabel 'ns per word (log)'
set logscale xy
set format x '%.0f'
set key outside right top
eval csvcols('s', der.'/copysweep-ints.csv', \
    'payload_words memcpy copy_struct compact_in compact_out lookup copy_shared literal_put literal_get')
plot der.'/copysweep-ints.csv' using @s_payload_words:@s_memcpy with linespoints lw 3 dt 2 pt 7 lc rgb c_memcpy title 'memcpy (floor)', \
     '' using @s_payload_words:@s_copy_struct with linespoints pt 7 lc rgb c_copy_struct title 'copy_struct (send)', \
     '' using @s_payload_words:@s_compact_in with linespoints pt 7 lc rgb c_compact_in title 'compact in (ets insert)', \
     '' using @s_payload_words:@s_compact_out with linespoints pt 7 lc rgb c_compact_out title 'copy_shallow (compact out)', \
     '' using @s_payload_words:@s_lookup with linespoints pt 7 lc rgb c_lookup title 'lookup ([Object] out)', \
     '' using @s_payload_words:@s_copy_shared with linespoints pt 7 lc rgb c_copy_shared title 'copy_shared', \
     '' using @s_payload_words:@s_literal_put with linespoints pt 7 lc rgb c_literal_put title 'persistent_term put', \
     '' using @s_payload_words:@s_literal_get with linespoints pt 7 lc rgb c_literal_get title 'persistent_term get'
