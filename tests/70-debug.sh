# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The debug kernels (KASAN, UBSAN, lockdep, PROVE_RCU, DEBUG_LIST,
# DEBUG_OBJECTS; two CPUs): KUnit, then guest/stress.c and module
# load/unload cycles, with zero splats.
# shellcheck disable=SC2317 # functions called by name

plan_debug() { plan_checked_boots debug test_debug_boot test_debug_checkers_ran; }

# test_debug_boot TARGET VARIANT: the debug set builds, boots, passes the
# KUnit suites and runs the stress and the module cycles with no splat:
# parse.sh fails the boot on any.
test_debug_boot() { boot_variant "$1" "$2" debug; }

# test_debug_checkers_ran TARGET VARIANT: this run's debug boot shows
# KASAN and lockdep starting and both CPUs up, and every stress worker,
# the module cycles and the concurrent RCU case.
test_debug_checkers_ran() {
	expect_markers debug "$1" "$2" \
		'workers\|: [a-z]*: .* rounds\|list_prefetch_test_hlist_rcu_concurrent_writer: ' \
		'KernelAddressSanitizer initialized' 'Lock dependency validator' \
		'Brought up 1 node, 2 CPUs' 'stress: 0 of 5 workers failed' \
		'stress: module listbench loaded and removed 3 times, ok' \
		'ok [0-9]* list_prefetch_test_hlist_rcu_concurrent_writer'
}
