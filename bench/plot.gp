# SPDX-License-Identifier: GPL-2.0
# The headline as a picture: per measured regime, each prefetch form's
# time relative to no prefetch (the median over the builds, bars from the
# lowest to the highest build), one panel per walk shape; the grey band
# is the +-2 % within which a form counts as equivalent.
# usage: gnuplot -e "csv='results/bench.csv'; out='results/bench.png'; cpu='AMD EPYC'" bench/plot.gp
set terminal pngcairo size 1600,1000 font ",11"
set output out
set datafile separator ","
set xrange [-0.5:5.5]
set xtics ("L1" 0, "L2" 1, "LLC" 2, "TLB+LLC" 3, "DRAM" 4, "TLB+DRAM" 5)
set xlabel "regime (measured by a pointer-chase latency sweep; TLB+: translation-bound in 4 KiB pages)"
set ylabel "time with prefetch / time without"
set grid y
set yrange [*<0.97:1.03<*]
set key top left
variants = "prefetch prefetch-nonnull prefetch-cmov prefetchnta prefetchw"
# The aggregate headline rows of one shape (walk, work, lookups) and
# variant: x = regime index + a small offset; ratio, lowest, highest build.
rows(walk, work, lookups, v, offset) = sprintf("< awk -F, -v w=%s -v k=%s -v d=%s -v v=%s -v o=%f 'BEGIN { OFS = \",\"; r[\"L1\"] = 0; r[\"L2\"] = 1; r[\"LLC\"] = 2; r[\"TLB+LLC\"] = 3; r[\"DRAM\"] = 4; r[\"TLB+DRAM\"] = 5 } $1 == w && $4 == k && $5 == d && $10 == \"all\" && $12 == 1 && $13 == v { print r[$11] + o, $16, $19, $20 }' %s", walk, work, lookups, v, offset, csv)
maxwork = system(sprintf("awk -F, '$1 == \"list\" && $10 == \"all\" && $4 + 0 > m { m = $4 + 0 } END { print m + 0 }' %s", csv))
set multiplot layout 2,2 title sprintf("listbench on %s: does a next-node prefetch pay? (below 1: faster)", cpu)
do for [panel = 1:4] {
	walk = panel <= 2 ? "list" : "hash-lookup"
	work = panel == 1 ? "0" : panel == 2 ? maxwork : "0"
	lookups = panel <= 2 ? "-" : panel == 3 ? "dependent" : "independent"
	set title (panel <= 2 ? sprintf("list walk (line nodes, shuffled), %s ns of work per node", work) : \
		sprintf("hash lookups, %s (load factor 1, half hits)", lookups))
	plot '+' using 1:(0.98):(1.02) with filledcurves fc rgb "#dddddd" title "+-2 %", \
		1 with lines lc rgb "black" notitle, \
		for [i = 1:5] rows(walk, work, lookups, word(variants, i), (i - 3) * 0.12) \
			using 1:2:3:4 with yerrorbars pt 7 title word(variants, i)
}
unset multiplot
