# Figure 9: each unit cost of the model beside the same unit on the VM, ns per word (encode,
# decode: per byte) against the payload's flat size, one panel per unit, one colour per eptest
# shape: the model solid, the VM dashed, memcpy of the same bytes dotted (results/unitcost.csv;
# without erl the VM's lines are absent). The rows of a warm destination (or none): the fresh
# ones are in the report's table. The shapes' key is one row below the panels, off the data.
load 'plots/style.gp'
f = res.'/unitcost.csv'
eval csvcols('u', f, 'unit shape words model_ns vm_ns floor_ns dest')
units = 'size_object copy_struct copy_shallow gc_copy encode decode'
shapes = 'ints floats tuple nested strings binary'
array c_shape[6] = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b']
# The header and the rows of one unit and shape, in order of size, so each series is one line.
rows(u, s) = sprintf("< awk -F, '!/^#/ && (!h++ || ($%d == \"%s\" && $%d == \"%s\" && $%d != \"fresh\"))' '%s'", u_unit + 0, u, u_shape + 0, s, u_dest + 0, f)
set logscale xy
set xtics ('1Ki' 1024, '4Ki' 4096, '16Ki' 16384, '64Ki' 65536, '256Ki' 262144, '1Mi' 1048576)
set format y '%g'
set xrange [700:1.5e6]
set multiplot layout 2,3 margins 0.07, 0.98, 0.15, 0.9 spacing 0.07, 0.12 title sprintf("Unit costs in ns per word (encode, decode: per byte) against flat size in words: model solid, VM dashed%s, floor dotted", vm ? '' : ' [no VM in this run]') font ',12'
do for [i = 1:words(units)] {
    u = word(units, i)
    set title u
    unset xlabel
    set ylabel (i == 1 || i == 4) ? 'ns (log)' : ''
    if (i == 5) { set key at screen 0.5, screen 0.015 center bottom horizontal maxcols 6 maxrows 1 width 1 font ',11' } else { unset key }
    ns = i <= 4 ? 5 : 6 # the binary's flat size is a 6-word ProcBin: per byte only
    plot for [k = 1:ns] rows(u, word(shapes, k)) using @u_words:@u_model_ns \
            with linespoints lw 2 pt 7 ps 0.6 lc rgb c_shape[k] title word(shapes, k), \
         for [k = 1:ns] rows(u, word(shapes, k)) using @u_words:@u_vm_ns \
            with linespoints lw 2 dt 2 pt 6 ps 0.6 lc rgb c_shape[k] notitle, \
         for [k = 1:ns] rows(u, word(shapes, k)) using @u_words:@u_floor_ns \
            with lines lw 1 dt 3 lc rgb c_shape[k] notitle
}
unset multiplot
