#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# kcsan-planted.sh - can the KCSAN guest catch the bug the RCU walks'
# READ_ONCE() guards against? Builds the series with lab/kcsan/*.patch
# (hlist_for_each_entry_rcu() prefetching through a plain load of ->next,
# racing with the writer's store) in the kcsan set with the option on,
# boots it, and expects KCSAN to report a data race in the hlist walk of
# the list_prefetch suite's concurrent case. The boot is expected to
# fail (a KCSAN report fails it); its result is kept out of results/.
#
#   kcsan-planted.sh [TARGET]        (default x86_64; run scripts/apply.sh first)
#   kcsan-planted.sh --judge LOG     is LOG's first KCSAN report the planted race?
#
# Writes results/kcsan-planted-TARGET.txt: the report's first lines.
# Exit status 1 if KCSAN did not report the race, or the build failed.
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

# The walk that makes the planted load: the concurrent case's reader
# (lib/list_prefetch_kunit.c), rcu_walk_once(), which the compiler may
# inline into the case; and the writer whose marked store it races with.
PLANTED_READER='rcu_walk_once|list_prefetch_test_hlist_rcu_concurrent_writer'
PLANTED_WRITER=rcu_walk_writer

# caught_planted_race LOG: the first report of LOG is the planted race: a
# plain (unmarked) read in the walk against the writer. KCSAN reports it
# in one of two forms: both accesses, when the writer's store hits the
# read's watchpoint; or "race at unknown origin, with read to ...", when
# the watchpoint saw the value change without catching the store (the
# writer's is marked, and a marked store is not always checked against
# watchpoints): then the report names no writer and says "value changed".
caught_planted_race() {
	race_report "$1" | awk -v reader="^($PLANTED_READER)\\+" -v writer="^$PLANTED_WRITER\\+" '
		/^BUG: KCSAN: data-race in/ { title = 1 }
		/^(read|write)/ { access = $0; next }
		/^race at unknown origin, with read to / { access = "read to (unknown origin)"; unknown_origin = 1; next }
		$1 ~ reader && access ~ /^read to / { plain_read = 1 }
		$1 ~ writer { writer_seen = 1 }
		/^value changed: / { value_changed = 1 }
		/^$/ { access = "" }
		END { exit !(title && plain_read && (writer_seen || unknown_origin && value_changed)) }'
}

# race_report LOG: the first KCSAN data-race report in LOG, from its
# BUG: line to its end marker. It reads LOG to its end: an awk that left
# early would kill the writers of the pipe (SIGPIPE), and under pipefail
# a long log would then read as no report at all.
race_report() {
	console_text "$1" |
		awk '/BUG: KCSAN: data-race/ && !done { on = 1 }
			on { print }
			on && /^==========/ { on = 0; done = 1 }'
}

# planted_result LOG: the result file's body.
# shellcheck disable=SC2317 # called through write_atomic
planted_result() {
	local log=$1
	result_stamp
	echo "KCSAN and a planted plain load of ->next ($TARGET kcsan config, LIST_PREFETCH=y,"
	echo "lab/kcsan/: hlist_for_each_entry_rcu() without READ_ONCE()); the first report:"
	race_report "$log" | sed -n "1,40p" | sed 's/^/  /'
	echo "data-race reports in the boot: $(grep -ac 'BUG: KCSAN: data-race' "$log")"
}

main() {
	local target=${1:-x86_64} log status=0
	# --judge LOG: only say whether LOG's first report is the planted race.
	if [ "$target" = --judge ]; then
		[ $# -eq 2 ] || die "usage: $0 [TARGET] | --judge CONSOLE_LOG" "name one console log"
		caught_planted_race "$2"
		return
	fi
	hold_cache_lock "$(basename "$0") $*"
	require_series_tree
	select_build "$target" planted kcsan
	stage_start "kcsan-planted $TARGET"
	lab_tree planted "$SERIES_DIR" "$PROJECT_DIR"/lab/kcsan/*.patch
	"$PROJECT_DIR/scripts/configure.sh" "$TARGET" planted kcsan
	"$PROJECT_DIR/scripts/build.sh" "$TARGET" planted kcsan
	# A hang or a QEMU failure stops here; a KCSAN report fails the
	# judgement (parse.sh), the expected outcome. Either way, results/
	# keeps no boot of this variant.
	RESULTS_DIR=$BUILD_OUT/results "$PROJECT_DIR/scripts/boot.sh" "$TARGET" planted kcsan
	if RESULTS_DIR=$BUILD_OUT/results "$PROJECT_DIR/scripts/parse.sh" "$TARGET" planted kcsan; then
		log "kcsan-planted: the boot passed: KCSAN reported nothing"
		status=1
	fi
	log=$(boot_dir "$BUILD_OUT")/console.log
	[ -f "$log" ] || die "no console log at $log" "run 'scripts/boot.sh $TARGET planted kcsan'"
	if ! caught_planted_race "$log"; then
		log "kcsan-planted: no KCSAN report of a plain read in the walk ($PLANTED_READER) racing with $PLANTED_WRITER"
		status=1
	fi
	if [ "$status" -eq 0 ]; then
		write_atomic "$RESULTS_DIR/kcsan-planted-$TARGET.txt" planted_result "$log"
		log "kcsan-planted: KCSAN reported the planted plain load ($(race_report "$log" | sed -n 1p))"
	fi
	stage_end
	[ "$status" -eq 0 ] || die "KCSAN did not report the planted plain load of ->next in the hlist walk" \
		"read the console log ($log): is KCSAN on (kcsan: selftest) and did the concurrent case run?"
}

main "$@"; exit
