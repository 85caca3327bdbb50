# Figure 3: what each copy strategy costs on lists of integers against payload size
# (results/derived/copysweep-ints.csv): one panel per strategy, each against memcpy of the same
# bytes (the floor), so no line lies on another (a send's and an insert's copies cost about the
# same, and so do copy_shallow and the lookup's [Object]); the last panel is persistent_term get,
# which copies nothing, in ns per get. The y axes are linear from 0: within a panel the values
# do not span a decade (a panel whose values do, persistent_term put's, is logarithmic).
load 'plots/style.gp'
eval csvcols('s', der.'/copysweep-ints.csv', \
    'payload_words memcpy copy_struct compact_in compact_out lookup copy_shared literal_put literal_get')
set multiplot layout 2,4 title 'Copy strategies on lists of integers: ns per word, memcpy of the same bytes (dashed) as the floor'
set logscale x
set format x '%.0s%c'
set xtics (2048, 32768, 524288) font ',10'
set xrange [1200:900000]
set xlabel 'flat size in words (log)' font ',11'
set ylabel 'ns per word' font ',11'
set yrange [0:*]
unset key
d = der.'/copysweep-ints.csv'
floor = "d using @s_payload_words:@s_memcpy with linespoints lw 2 dt 2 pt 7 ps 0.8 lc rgb c_memcpy"
set title 'size + copy_struct (send)' font ',11'
eval "plot ".floor.", d using @s_payload_words:@s_copy_struct with linespoints lw 2 pt 5 lc rgb c_copy_struct"
set title 'compact form in (insert)'
eval "plot ".floor.", d using @s_payload_words:@s_compact_in with linespoints lw 2 pt 9 lc rgb c_compact_in"
set title 'copy_shallow (out of the table)'
eval "plot ".floor.", d using @s_payload_words:@s_compact_out with linespoints lw 2 pt 11 lc rgb c_compact_out"
set title 'lookup ([Object])'
eval "plot ".floor.", d using @s_payload_words:@s_lookup with linespoints lw 2 pt 13 lc rgb c_lookup"
set title 'copy_shared (sharing kept)'
eval "plot ".floor.", d using @s_payload_words:@s_copy_shared with linespoints lw 2 pt 4 lc rgb c_copy_shared"
set title 'persistent_term put (log y)'
set logscale y
set yrange [*:*]
set ylabel 'ns per word (log)'
eval "plot ".floor.", d using @s_payload_words:@s_literal_put with linespoints lw 2 pt 6 lc rgb c_literal_put"
unset logscale y
set yrange [0:*]
set ylabel 'ns per get'
set title 'persistent_term get (per get)'
plot d using @s_payload_words:($@s_literal_get * $@s_payload_words) with linespoints lw 2 pt 7 lc rgb c_literal_get
unset multiplot
