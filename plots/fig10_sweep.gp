# Figure 10: the fidelity sweep (report/data/fidelity-sweep.csv, experiments/beam/sweep.sh): the
# model beside the VM over lists of integers every 250 from 250 to 30000. Top: lookup / round
# trip (the model's counts at the VM's unit prices, and its C code's own time); middle: the lookup loop's GCs per 1000 lookups; bottom: its minor faults per 1000. The
# VM's points are the medians of its runs, the bars from its lowest to its highest run.
load 'plots/style.gp'
sweep = res.'/fidelity-sweep.csv'
eval csvcols('w', sweep, 'shape payload_len model_ratio model_priced_ratio vm_ratio model_lookup_gcs vm_lookup_gcs model_lookup_faults vm_lookup_faults vm_ratio_lo vm_ratio_hi vm_lookup_gcs_lo vm_lookup_gcs_hi vm_lookup_faults_lo vm_lookup_faults_hi')
is_ints = "strcol(@w_shape) eq 'ints'"
set multiplot layout 3,1 title 'The fidelity sweep: model (OTP 25 rules) and real VM, lists:seq(1, L), every 250'
set lmargin 12
set xrange [0:30500]
set format x ''
set key top right horizontal font ',11'
set ylabel 'lookup / round trip'
set yrange [0:*]
plot 1 with lines dt 2 lc rgb '#555555' notitle, \
     sweep using @w_payload_len:(@is_ints ? $@w_vm_ratio : 1/0):(@is_ints ? $@w_vm_ratio_lo : 1/0):(@is_ints ? $@w_vm_ratio_hi : 1/0) with yerrorlines pt 5 ps 0.5 lc rgb c_vm title 'real VM (median and range of its runs)', \
     '' using @w_payload_len:(@is_ints ? $@w_model_priced_ratio : 1/0) with linespoints pt 7 ps 0.5 lc rgb c_otp25 title 'model, priced', \
     '' using @w_payload_len:(@is_ints ? $@w_model_ratio : 1/0) with lines dt 3 lc rgb c_otp25 title 'model, C time'
unset key
set ylabel 'lookup GCs / 1000'
plot sweep using @w_payload_len:(@is_ints ? $@w_vm_lookup_gcs : 1/0):(@is_ints ? $@w_vm_lookup_gcs_lo : 1/0):(@is_ints ? $@w_vm_lookup_gcs_hi : 1/0) with yerrorlines pt 5 ps 0.5 lc rgb c_vm, \
     '' using @w_payload_len:(@is_ints ? $@w_model_lookup_gcs : 1/0) with linespoints pt 7 ps 0.5 lc rgb c_otp25
set format x '%.0f'
set xlabel 'payload length L'
set ylabel 'lookup faults / 1000'
plot sweep using @w_payload_len:(@is_ints ? $@w_vm_lookup_faults : 1/0):(@is_ints ? $@w_vm_lookup_faults_lo : 1/0):(@is_ints ? $@w_vm_lookup_faults_hi : 1/0) with yerrorlines pt 5 ps 0.5 lc rgb c_vm, \
     '' using @w_payload_len:(@is_ints ? $@w_model_lookup_faults : 1/0) with linespoints pt 7 ps 0.5 lc rgb c_otp25
unset multiplot
