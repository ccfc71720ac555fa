# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# User-Mode Linux: the series' default and forced-on kernels as host
# processes, their in-kernel walks (guest/umlbench) run and checked.
# shellcheck disable=SC2317 # functions called by name

plan_uml() {
	cat <<'PLAN'
all 3600 test_uml_quick
all 3600 test_uml_kunit
all 120 test_uml_bench_pairs_and_decides
PLAN
}

# Both UML kernels build from the trees of scripts/uml-tree.sh, report
# the CONFIG_LIST_PREFETCH of their variant, and run every walk of
# umlbench with its result checked (the kernel says "done" only then).
test_uml_quick() {
	"$PROJECT_DIR/scripts/uml-bench.sh" --quick
	local variant log walks
	for variant in off on; do
		log=$RESULTS_DIR/uml-quick/boot-$variant.log
		walks=$(grep -c 'umlbench: walk=' "$log")
		echo "$variant: $walks walks checked"
		[ "$walks" -eq 4 ] || { echo "$variant: $walks walks, want list, lookup, rcu and skb"; return 1; }
	done
}

# kunit.py --arch=um runs the list suites and the series' suite in both
# variants, every case passing (kunit.py fails the run otherwise), and
# the suites are there: a run of no test would pass vacuously.
test_uml_kunit() {
	"$PROJECT_DIR/scripts/uml-kunit.sh" off on | tee "$RESULTS_DIR/uml-kunit.txt"
	local variant suite
	for variant in off on; do
		for suite in list-kunit-test hlist klist list_prefetch; do
			grep -Eq "^uml $variant: .*\b$suite [1-9][0-9]*/0/" "$RESULTS_DIR/uml-kunit.txt" ||
				{ echo "uml $variant: suite $suite did not run and pass"; return 1; }
		done
	done
}

# uml_bench.py takes each boot's median, pairs the two boots of a pair
# and decides with the host benchmark's statistics: in eight doctored
# pairs, on 10 % faster in every pair is 'faster', no difference beyond
# 0.1 % 'equivalent'.
test_uml_bench_pairs_and_decides() {
	local dir pair variant sample ns
	dir=$(mktemp -d)
	for pair in 1 2 3 4 5 6 7 8; do
		for variant in off on; do
			for sample in 0 1 2 3 4 5 6 7 8 9; do
				ns=$(awk -v v="$variant" -v s="$sample" 'BEGIN { printf "%.3f", (v == "on" ? 90 : 100) + s / 100 }')
				echo "umlbench: walk=list set_kib=65536 nodes=349525 sample=$sample ns_per_node=$ns"
				ns=$(awk -v s="$sample" -v p="$pair" 'BEGIN { printf "%.3f", 50 + (s % 3 - 1) / 100 + p / 1000 }')
				echo "umlbench: walk=rcu set_kib=65536 nodes=349525 sample=$sample ns_per_node=$ns"
			done >>"$dir/boot-$pair-$variant.log"
		done
	done
	python3 "$PROJECT_DIR/scripts/uml_bench.py" "$dir" | tee "$dir/out.txt"
	if ! { grep -Eq '^list +64 MiB .* faster' "$dir/out.txt" &&
		grep -Eq '^rcu +64 MiB .* equivalent' "$dir/out.txt"; }; then
		echo "uml_bench.py: want list faster and rcu equivalent"
		return 1
	fi
	rm -rf "$dir"
}
