# style.gp — shared by every figure: terminal from `fmt` (svg or png) and `out`, fonts,
# grid, and one fixed colour per copy strategy, era and phase. Each figure is run as
#   gnuplot -e "res='results'; der='results/derived'; vm=0|1; fmt='svg'|'png'; out='FILE'" plots/figN.gp
if (fmt eq 'svg') {
    set terminal svg size 900,540 dynamic noenhanced font 'Helvetica,13' background '#ffffff'
} else {
    set terminal pngcairo size 1200,720 noenhanced font 'Helvetica,14' background '#ffffff'
}
set output out
set datafile separator comma
set datafile columnheaders
# Columns by header name: `eval csvcols('P', FILE, 'NAME ...')` sets P_NAME to the position of
# each column NAME in FILE's header (report/csv.sh gnuplot, which reads report/csv.awk), to be
# written @P_NAME as a using column and $@P_NAME in a using expression. When FILE cannot be read,
# has no rows or has no column NAME, csv.sh says so and the figure stops (exit status 1). A
# position found by name, not column('NAME'): gnuplot 5.4 takes an empty field read as $N for a
# missing point but one read by column() for an undefined one, and gives a series of undefined
# points a key entry.
csvcols(p, file, names) = (_csvcols = system(sprintf("report/csv.sh gnuplot %s '%s' %s", p, file, names)), \
    GPVAL_SYSTEM_ERRNO != 0 ? 'exit status 1' : _csvcols)
set grid ytics lc rgb '#dddddd' lw 1 lt 1
set border 3 lc rgb '#555555'
set tics nomirror
set key noopaque top left

# copy strategies (figure 3 and anything else that names one)
c_memcpy      = '#000000'
c_copy_struct = '#1f77b4'
c_compact_in  = '#ff7f0e'
c_compact_out = '#2ca02c'
c_lookup      = '#17becf'
c_copy_shared = '#9467bd'
c_literal_put = '#8c564b'
c_literal_get = '#7f7f7f'
# sources of a figure: the seed, the model's eras, the real VM
c_seed  = '#999999'
c_r10b  = '#d62728'
c_otp25 = '#1f77b4'
c_vm    = '#2ca02c'
# An era by its preset name (the policy table's): its colour, c_NAME, else grey.
c_era(e) = exists('c_'.e) ? value('c_'.e) : '#7f7f7f'
# operations
c_proc      = '#1f77b4'
c_insert    = '#ff7f0e'
c_overwrite = '#bcbd22'
c_lookup_op = '#d62728'
c_update    = '#9467bd'
c_counter   = '#8c564b'
# phases of figure 4 (its columns, by name), in breakdown's order, and the colour of each
phases = 'size copy gc_copy page_fault heap_alloc io_poll switch loop vm_overhead'
array c_phase[9] = ['#1f77b4', '#aec7e8', '#d62728', '#ff7f0e', '#ffbb78', '#9467bd', '#2ca02c', '#cccccc', '#8c564b']
