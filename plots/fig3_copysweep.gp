# Figure 3: what each copy strategy costs on lists of integers against payload size, memcpy of
# the same bytes as the floor (results/derived/copysweep-ints.csv). Left: ns per word of the
# strategies that copy; each has its own point and dash type, so lines that lie on each other
# (copy_shared is what persistent_term put runs) stay visible. Right: persistent_term get, which
# copies nothing, in ns per get.
load 'plots/style.gp'
eval csvcols('s', der.'/copysweep-ints.csv', \
    'payload_words memcpy copy_struct compact_in compact_out lookup copy_shared literal_put literal_get')
set multiplot layout 1,2 title 'Copy strategies on lists of integers (memcpy of the same bytes as the floor)'
set logscale xy
set format x '%.0s%c'
set xlabel 'payload flat size in words (log)'
set title 'ns per word copied'
set ylabel 'ns per word (log)'
set key top left font ',10' maxrows 4 width -2
set offsets 0, 0, graph 0.6, 0
plot der.'/copysweep-ints.csv' using @s_payload_words:@s_memcpy with linespoints lw 3 dt 2 pt 7 lc rgb c_memcpy title 'memcpy (floor)', \
     '' using @s_payload_words:@s_copy_struct with linespoints pt 5 lc rgb c_copy_struct title 'copy_struct (send)', \
     '' using @s_payload_words:@s_compact_in with linespoints pt 9 dt 3 lc rgb c_compact_in title 'compact in (insert)', \
     '' using @s_payload_words:@s_compact_out with linespoints pt 11 lc rgb c_compact_out title 'copy_shallow (out)', \
     '' using @s_payload_words:@s_lookup with linespoints pt 13 dt 4 lc rgb c_lookup title 'lookup ([Object])', \
     '' using @s_payload_words:@s_copy_shared with linespoints pt 4 ps 1.5 lc rgb c_copy_shared title 'copy_shared', \
     '' using @s_payload_words:@s_literal_put with linespoints pt 6 ps 2 dt 2 lc rgb c_literal_put title 'persistent_term put'
set title 'persistent_term get: ns per get'
set ylabel 'ns per get (log)'
set offsets 0, 0, 0, 0
unset key
plot der.'/copysweep-ints.csv' using @s_payload_words:($@s_literal_get * $@s_payload_words) with linespoints pt 7 lc rgb c_literal_get
unset multiplot
