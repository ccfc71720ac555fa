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
	echo "check 30 test_kcsan_planted_race_is_recognised"
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

# test_kcsan_planted_race_is_recognised: kcsan-planted.sh --judge takes
# the first KCSAN report of a console log for the planted race in both
# forms KCSAN prints it (both accesses; or "race at unknown origin" with
# the value change, as the boot at 47d2270 printed it), and nothing else:
# not a marked read, not a read in another function, not an unknown
# origin without a value change, not the planted race behind another
# report.
test_kcsan_planted_race_is_recognised() {
	local dir want form status
	dir=$(mktemp -d)
	planted_report_log "read to" writer "value changed: 0x1 -> 0x2" >"$dir/both-accesses"
	planted_report_log "race at unknown origin, with read to" "" "value changed: 0x1 -> 0x2" \
		>"$dir/unknown-origin"
	planted_report_log "race at unknown origin, with read (marked) to" "" "value changed: 0x1 -> 0x2" \
		>"$dir/marked-read"
	planted_report_log "race at unknown origin, with read to" "" "" >"$dir/no-value-change"
	planted_report_log "read to" writer "" walk_elsewhere >"$dir/other-reader"
	{
		planted_report_log "read to" writer "" walk_elsewhere
		planted_report_log "read to" writer ""
	} >"$dir/planted-second"
	for form in both-accesses:0 unknown-origin:0 marked-read:1 no-value-change:1 other-reader:1 \
		planted-second:1; do
		want=${form#*:}
		status=0
		"$PROJECT_DIR/scripts/kcsan-planted.sh" --judge "$dir/${form%:*}" || status=$?
		echo "${form%:*}: exit $status, want $want"
		[ "$status" -eq "$want" ] || { rm -rf "$dir"; return 1; }
	done
	rm -rf "$dir"
}

# planted_report_log ACCESS WRITER VALUE [READER]: a console log with one
# KCSAN report of the concurrent case's walk (READER, default the case
# itself) reading through ACCESS, racing with rcu_walk_writer when WRITER
# is set, and VALUE as its value line.
planted_report_log() {
	local reader=${4:-list_prefetch_test_hlist_rcu_concurrent_writer}
	printf '[    7.935938] %s\n' "==================================================================" \
		"BUG: KCSAN: data-race in $reader+0x398/0x886" ""
	if [ -n "$2" ]; then
		printf '[    7.936000] %s\n' "write (marked) to 0xffff888000c08d30 of 8 bytes by task 227 on cpu 1:" \
			" rcu_walk_writer+0x192/0x20f" " kthread+0x169/0x171" ""
	fi
	printf '[    7.940218] %s\n' "$1 0xffff88800088f670 of 8 bytes by task 226 on cpu 0:" \
		" $reader+0x398/0x886" " kunit_try_run_case+0x124/0x235" ""
	[ -z "$3" ] || printf '[    7.953361] %s\n' "$3" ""
	printf '[    7.956738] %s\n' "=================================================================="
}
