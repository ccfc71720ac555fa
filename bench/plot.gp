# SPDX-License-Identifier: GPL-2.0
# ns/node against working-set size, one line per prefetch variant, one
# panel per (walk, layout), for the loop body given as 'body'.
# usage: gnuplot -e "csv='results/bench.csv'; out='results/bench.png'; body='touch'" bench/plot.gp
set terminal pngcairo size 1400,1000 font ",11"
set output out
set datafile separator ","
set logscale x 2
set logscale y 10
set format x "%.0b%BB"
set xlabel "working set (node bytes)"
set ylabel "ns per node (median)"
set key top left
set grid
set multiplot layout 2,2 title sprintf("listbench: ns/node by working set, loop body '%s' (error bars: 95%% CI)", body)
variants = "none prefetch prefetch-nonnull prefetchnta prefetchw"
do for [walk in "list hlist"] {
	do for [layout in "sequential shuffled"] {
		set title sprintf("%s, %s", walk, layout)
		# Filtered outside gnuplot: skipped rows would break the lines.
		plot for [v in variants] \
			sprintf("< awk -F, '$1==\"%s\" && $2==\"%s\" && $3==\"%s\" && $7==\"%s\"' %s", walk, layout, body, v, csv) \
			using 4:8:9:10 with yerrorlines title v
	}
}
unset multiplot
