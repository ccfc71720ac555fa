# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The KCSAN kernels (the kcsan set: strict KCSAN, PROVE_RCU, two CPUs): KUnit
# with the concurrent RCU case, the stress and rcutorture, with zero
# KCSAN reports in both variants.
# shellcheck disable=SC2317 # functions called by name

plan_kcsan() {
	local targets target
	plan_checked_boots kcsan test_kcsan_boot test_kcsan_checked_the_walks
	# Assigned first: a failure in a for loop's list would pass unseen.
	targets=$(set_targets kcsan)
	for target in $targets; do
		echo "all 5400 test_kcsan_catches_a_plain_next_load $target"
	done
}

# test_kcsan_boot TARGET VARIANT: the kcsan set builds, boots, passes the
# KUnit suites and runs the stress and rcutorture with no splat, KCSAN's
# data-race reports included: parse.sh fails the boot on any.
test_kcsan_boot() { boot_variant "$1" "$2" kcsan; }

# test_kcsan_checked_the_walks TARGET VARIANT: KCSAN was on and passed
# its self-test, both CPUs were up, and the concurrent RCU case, the
# stress and rcutorture really ran, the last one to its SUCCESS verdict.
test_kcsan_checked_the_walks() {
	expect_markers kcsan "$1" "$2" \
		'list_prefetch_test_hlist_rcu_concurrent_writer: \|rcu-torture: .*Reader Pipe\|BUG: KCSAN' \
		'kcsan: selftest: 3/3 tests passed' 'Brought up 1 node, 2 CPUs' \
		'ok [0-9]* list_prefetch_test_hlist_rcu_concurrent_writer' \
		'stress: 0 of 5 workers failed' 'rcutorture: End of test: SUCCESS'
}

# test_kcsan_catches_a_plain_next_load TARGET: the same KCSAN kernel, with
# the series' READ_ONCE() of ->next taken out of hlist_for_each_entry_rcu()
# (lab/kcsan/) and the option on, reports the data race in the concurrent
# case's walk: a boot without reports means the checker would have seen
# the bug (scripts/kcsan-planted.sh).
test_kcsan_catches_a_plain_next_load() {
	"$PROJECT_DIR/scripts/kcsan-planted.sh" "$1"
	sed -n '2,12p' "$RESULTS_DIR/kcsan-planted-$1.txt"
}

