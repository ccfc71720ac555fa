# SPDX-License-Identifier: GPL-2.0
# The headline as a picture: per measured regime, each prefetch form's
# time relative to no prefetch with its 95 % CI, one panel per walk; the
# grey band is the +-2 % within which a form counts as equivalent.
# usage: gnuplot -e "csv='results/bench.csv'; out='results/bench.png'; cpu='AMD EPYC'" bench/plot.gp
set terminal pngcairo size 1400,650 font ",11"
set output out
set datafile separator ","
set xrange [-0.5:4.5]
set xtics ("L1" 0, "L2" 1, "LLC" 2, "DRAM" 3, "TLB" 4)
set xlabel "regime (measured by a pointer-chase latency sweep)"
set ylabel "time with prefetch / time without"
set grid y
set yrange [*<0.97:1.03<*]
set key top left
variants = "prefetch prefetch-nonnull prefetchnta prefetchw"
# Headline rows of one walk and variant, x = regime index + a small offset.
rows(walk, v, offset) = sprintf("< awk -F, -v w=%s -v v=%s -v o=%f 'BEGIN { OFS = \",\"; r[\"L1\"] = 0; r[\"L2\"] = 1; r[\"LLC\"] = 2; r[\"DRAM\"] = 3; r[\"TLB\"] = 4 } $1 == w && $6 == 1 && $7 == v { print r[$5] + o, $12, $13, $14 }' %s", walk, v, offset, csv)
set multiplot layout 1,2 title sprintf("listbench on %s: does a next-node prefetch pay? (below 1: faster)", cpu)
do for [walk in "list hash-lookup"] {
	set title (walk eq "list" ? "list walk (shuffled, touching body)" : "hash lookup (load factor 1, half hits)")
	plot '+' using 1:(0.98):(1.02) with filledcurves fc rgb "#dddddd" title "+-2 %", \
		1 with lines lc rgb "black" notitle, \
		for [i = 1:4] rows(walk, word(variants, i), (i - 2.5) * 0.15) \
			using 1:2:3:4 with yerrorbars pt 7 title word(variants, i)
}
unset multiplot
