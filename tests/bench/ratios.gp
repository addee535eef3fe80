# ratios.gp - each benchmark figure over its target (gnuplot -e
# "datafile='...'; outfile='...'" ratios.gp): bars at or below 1 met it.
set terminal pngcairo size 1000,500 noenhanced
set output outfile
set title "clustermon benchmarks: value / target (at or below 1 is met)"
set style fill solid 0.6
set boxwidth 0.7
set yrange [0:*]
set xtics rotate by -40 font ",8"
set grid ytics
set key off
plot datafile using 1:3:xtic(2) with boxes, 1 with lines lw 2 dt 2
