# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The KCSAN kernels (the kcsan set: KCSAN, PROVE_RCU, two CPUs): KUnit
# with the concurrent RCU case, the stress and rcutorture, with zero
# KCSAN reports in both variants.
# shellcheck disable=SC2317 # functions called by name

plan_kcsan() {
	local target variant
	for target in $(set_targets kcsan); do
		for variant in $(boot_variants "$target"); do
			echo "all 5400 test_kcsan_boot $target $variant"
			echo "all 60 test_kcsan_checked_the_walks $target $variant"
		done
	done
}

# test_kcsan_boot TARGET VARIANT: the kcsan set builds, boots, passes the
# KUnit suites and runs the stress and rcutorture with no splat, KCSAN's
# data-race reports included: parse.sh fails the boot on any.
test_kcsan_boot() { boot_variant "$1" "$2" kcsan; }

# test_kcsan_checked_the_walks TARGET VARIANT: zero reports mean something
# only if KCSAN was on and passed its self-test, both CPUs were up, and
# the concurrent RCU case, the stress and rcutorture really ran, the
# last one to its SUCCESS verdict.
test_kcsan_checked_the_walks() {
	local log marker status=0
	local -a markers=('kcsan: selftest: 3/3 tests passed' 'Brought up 1 node, 2 CPUs'
		'ok [0-9]* list_prefetch_test_hlist_rcu_concurrent_writer'
		'stress: 0 of 5 workers failed' 'rcutorture: End of test: SUCCESS')
	log=$(result_field "$1" "$2" 'r["console_log"]' kcsan)
	[ "$(result_field "$1" "$2" 'r["status"]' kcsan)" = pass ] || status=1
	for marker in "${markers[@]}"; do
		if grep -aq -- "$marker" "$log"; then
			echo "$1 $2: $marker"
		else
			echo "$1 $2: MISSING: $marker"
			status=1
		fi
	done
	grep -a 'list_prefetch_test_hlist_rcu_concurrent_writer: \|rcu-torture: .*Reader Pipe' "$log" |
		tail -n 3 | sed "s/^/  $2: /"
	echo "$1 $2: $(grep -ac 'BUG: KCSAN:' "$log") KCSAN reports," \
		"$(result_field "$1" "$2" 'len(r["splats"])' kcsan) splats"
	return "$status"
}
