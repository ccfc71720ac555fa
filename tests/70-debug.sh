# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The debug kernels (KASAN, UBSAN, lockdep, PROVE_RCU, DEBUG_LIST,
# DEBUG_OBJECTS; two CPUs): KUnit, then guest/stress.c and module
# load/unload cycles, with zero splats.
# shellcheck disable=SC2317 # functions called by name

plan_debug() {
	local target variant
	for target in $(set_targets debug); do
		for variant in $(boot_variants "$target"); do
			echo "all 5400 test_debug_boot $target $variant"
			echo "all 60 test_debug_checkers_ran $target $variant"
		done
	done
}

# test_debug_boot TARGET VARIANT: the debug set builds, boots, passes the
# KUnit suites and runs the stress and the module cycles with no splat:
# parse.sh fails the boot on any.
test_debug_boot() { boot_variant "$1" "$2" debug; }

# test_debug_checkers_ran TARGET VARIANT: no splat means something only
# if the checkers were there and the load really ran: this run's debug
# boot shows KASAN and lockdep starting and both CPUs up, and every
# stress worker, the module cycles and the concurrent RCU case.
test_debug_checkers_ran() {
	local log marker status=0
	local -a markers=('KernelAddressSanitizer initialized' 'Lock dependency validator'
		'Brought up 1 node, 2 CPUs' 'stress: 0 of 5 workers failed'
		'stress: module listbench loaded and removed 3 times, ok'
		'ok [0-9]* list_prefetch_test_hlist_rcu_concurrent_writer')
	log=$(result_field "$1" "$2" 'r["console_log"]' debug)
	[ "$(result_field "$1" "$2" 'r["status"]' debug)" = pass ] || status=1
	for marker in "${markers[@]}"; do
		if grep -aq -- "$marker" "$log"; then
			echo "$1 $2: $marker"
		else
			echo "$1 $2: MISSING: $marker"
			status=1
		fi
	done
	grep -a 'workers\|: [a-z]*: .* rounds\|list_prefetch_test_hlist_rcu_concurrent_writer: ' "$log" |
		sed "s/^/  $2: /"
	echo "$1 $2: $(result_field "$1" "$2" 'len(r["splats"])' debug) splats"
	return "$status"
}
