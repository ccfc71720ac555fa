# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The host benchmark (bench/): its unit tests and its quick matrix.
# shellcheck disable=SC2317 # functions called by name

plan_bench() {
	cat <<'PLAN'
check 300 test_bench_walkers_unit_tests
check 600 test_bench_quick
PLAN
}

test_bench_walkers_unit_tests() {
	make -s -C "$PROJECT_DIR/bench" BUILD="$LIST_PREFETCH_CACHE/bench"
	"$LIST_PREFETCH_CACHE/bench/test_walkers"
}

# The quick matrix runs and this run's CSV is complete and sane: every
# cell has all five variants, positive timings, intervals around their
# medians, and 'none' is its own baseline.
test_bench_quick() {
	local csv=$RESULTS_DIR/bench-quick.csv mark
	mark=$(mktemp)
	sleep 1
	"$PROJECT_DIR/scripts/bench.sh" --quick
	[ -n "$(find "$csv" -newer "$mark")" ] || { echo "$csv was not written by this run"; return 1; }
	rm -f "$mark"
	awk -F, '
		NR == 1 { next }
		{ rows++; cells[$1 $2 $3 $4]++ }
		$8 <= 0 || $9 > $8 || $10 < $8 { print "bad interval: " $0; bad++ }
		$7 == "none" && ($11 != 1 || $14 != "baseline") { print "bad baseline: " $0; bad++ }
		END {
			for (c in cells) if (cells[c] != 5) { print "cell without 5 variants: " c; bad++ }
			printf "%d rows, %d cells\n", rows, length(cells)
			exit !(rows == 180 && bad == 0)
		}' "$csv"
}
