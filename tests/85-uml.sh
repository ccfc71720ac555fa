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
# the CONFIG_LIST_PREFETCH of their variant, and run every walk and swept
# path of umlbench with its result checked (the kernel says "done" only
# then).
test_uml_quick() {
	"$PROJECT_DIR/scripts/uml-bench.sh" --quick
	local variant log walk
	for variant in off on; do
		log=$RESULTS_DIR/uml-quick/boot-$variant.log
		for walk in list lookup rcu skb tiny_rcu backlog blk_batch reclaim; do
			grep -q "umlbench: walk=$walk " "$log" ||
				{ echo "$variant: no $walk walk in $log"; return 1; }
		done
		echo "$variant: $(grep -c 'umlbench: walk=' "$log") walks and paths checked"
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

# uml_bench.py takes each boot's median, pairs the boots of a round and
# decides with the host benchmark's statistics: in eight doctored rounds,
# on 10 % faster in every round is 'faster', no difference beyond 0.1 %
# 'equivalent'; a swept path whose prefetch pays (on and vanilla faster)
# keeps it, one where it does not leaves its patch standing.
test_uml_bench_pairs_and_decides() {
	local dir pair variant sample fast flat
	dir=$(mktemp -d)
	for pair in 1 2 3 4 5 6 7 8; do
		for variant in off on vanilla; do
			for sample in 0 1 2 3 4 5 6 7 8 9; do
				fast=$(awk -v v="$variant" -v s="$sample" 'BEGIN { printf "%.3f", (v == "off" ? 100 : 90) + s / 100 }')
				flat=$(awk -v s="$sample" -v p="$pair" 'BEGIN { printf "%.3f", 50 + (s % 3 - 1) / 100 + p / 1000 }')
				if [ "$variant" != vanilla ]; then
					echo "umlbench: walk=list set_kib=65536 nodes=349525 sample=$sample ns_per_node=$fast"
					echo "umlbench: walk=rcu set_kib=65536 nodes=349525 sample=$sample ns_per_node=$flat"
				fi
				echo "umlbench: walk=tiny_rcu set_kib=256 nodes=1365 sample=$sample ns_per_node=$fast"
				echo "umlbench: walk=backlog set_kib=256 nodes=455 sample=$sample ns_per_node=$flat"
			done >>"$dir/boot-$pair-$variant.log"
		done
	done
	python3 "$PROJECT_DIR/scripts/uml_bench.py" "$dir" | tee "$dir/out.txt"
	if ! { grep -Eq '^list +64 MiB .* faster' "$dir/out.txt" &&
		grep -Eq '^rcu +64 MiB .* equivalent' "$dir/out.txt"; }; then
		echo "uml_bench.py: want list faster and rcu equivalent"
		return 1
	fi
	if ! { grep -Eq '^tiny_rcu +256 KiB .* faster .* faster' "$dir/out.txt" &&
		grep -Eq '^patch 07 rcu: tiny: the prefetch pays at 256 KiB: keep it' "$dir/out.txt" &&
		grep -Eq '^patch 08 net: sock: the prefetch pays nowhere measured \(equivalent\): the patch stands' "$dir/out.txt"; }; then
		echo "uml_bench.py: want tiny_rcu's prefetch kept and backlog's patch standing"
		return 1
	fi
	rm -rf "$dir"
}
