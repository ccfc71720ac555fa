#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# check.sh - the test suite behind 'make check'. Fast checks first (the
# series applies to a fresh copy of the pristine tree, checkpatch, the
# shell lint), then the variants are built and booted. Each test's
# output goes to results/check/<test>.log and is shown when it fails.
# Ends with one line: N passed, N failed[, N skipped].
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

CHECK_LOG_DIR=$RESULTS_DIR/check
SKIP=77
TARGET=x86_64

# --- fast checks --------------------------------------------------------

test_shellcheck() {
	need_cmd shellcheck shellcheck
	(cd "$PROJECT_DIR" && run shellcheck -x scripts/*.sh .ci/run &&
		run shellcheck -s sh guest/init)
}

test_data_files_load() {
	local f
	for f in "$PROJECT_DIR"/configs/targets/*.conf "$PROJECT_DIR"/configs/sets/*.conf; do
		(load_conf "$f") || return 1
		echo "loads: ${f#"$PROJECT_DIR"/}"
	done
}

# Every patch file is in the series, and every series entry exists.
test_series_file_complete() {
	local listed on_disk
	listed=$(grep -v '^#' "$PROJECT_DIR/patches/series" | sort)
	on_disk=$(cd "$PROJECT_DIR/patches" && find . -name '0*.patch' ! -name '0000-*' -printf '%f\n' | sort)
	diff <(echo "$listed") <(echo "$on_disk") && echo "$(echo "$listed" | wc -l) patches listed"
}

test_series_applies_to_fresh_tree() {
	local scratch status=0
	scratch=$(mktemp -d)/linux
	"$PROJECT_DIR/scripts/apply.sh" "$scratch" || status=$?
	git -C "$TREE_DIR" worktree remove --force "$scratch" 2>/dev/null || rm -rf "$scratch"
	git -C "$TREE_DIR" worktree prune
	rm -rf "$(dirname "$scratch")"
	return "$status"
}

test_checkpatch_strict() {
	local patch out failed=0
	for patch in $(series_files); do
		out=$("$TREE_DIR/scripts/checkpatch.pl" --strict --no-tree --show-types \
			"$patch" 2>&1) || true
		patch=${patch##*/}
		echo "$patch: $(echo "$out" | grep '^total:')"
		if ! echo "$out" | grep -q '^total: 0 errors, 0 warnings'; then
			echo "$out" | grep -E '^(ERROR|WARNING)' -A3
			failed=1
		fi
	done
	return "$failed"
}

# --- host benchmark ------------------------------------------------------

test_bench_walkers_unit_tests() {
	make -s -C "$PROJECT_DIR/bench" BUILD="$LIST_PREFETCH_CACHE/bench" &&
		"$LIST_PREFETCH_CACHE/bench/test_walkers"
}

# The quick matrix runs and its CSV is complete and sane: every cell has
# all four variants, positive timings, intervals around their medians,
# and 'none' is its own baseline.
test_bench_quick() {
	"$PROJECT_DIR/scripts/bench.sh" --quick || return 1
	awk -F, '
		NR == 1 { next }
		{ rows++; cells[$1 $2 $3 $4]++ }
		$8 <= 0 || $9 > $8 || $10 < $8 { print "bad interval: " $0; bad++ }
		$7 == "none" && ($11 != 1 || $14 != "baseline") { print "bad baseline: " $0; bad++ }
		END {
			for (c in cells) if (cells[c] != 4) { print "cell without 4 variants: " c; bad++ }
			printf "%d rows, %d cells\n", rows, length(cells)
			exit !(rows == 144 && bad == 0)
		}' "$RESULTS_DIR/bench-quick.csv"
}

# --- build and boot ------------------------------------------------------

boot_variant() {
	local variant=$1
	"$PROJECT_DIR/scripts/configure.sh" "$TARGET" "$variant" qemu &&
		"$PROJECT_DIR/scripts/build.sh" "$TARGET" "$variant" qemu &&
		"$PROJECT_DIR/scripts/boot.sh" "$TARGET" "$variant" qemu &&
		"$PROJECT_DIR/scripts/parse.sh" "$TARGET" "$variant" qemu
}

test_apply_series() { "$PROJECT_DIR/scripts/apply.sh"; }
test_boot_x86_64_off() { boot_variant off; }
test_boot_x86_64_on() { boot_variant on; }

# result_field VARIANT EXPR: a field of a boot's result JSON.
result_field() {
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {"r": r}))' \
		"$RESULTS_DIR/boot-$TARGET-qemu-$1.json" "$2"
}

# The variants really differ in CONFIG_LIST_PREFETCH: off is the
# target's default, on is forced on.
test_list_prefetch_setting_per_variant() {
	load_target "$TARGET"
	local off on
	off=$(result_field off 'r["list_prefetch"]')
	on=$(result_field on 'r["list_prefetch"]')
	echo "LIST_PREFETCH: off=$off (target default $LIST_PREFETCH_DEFAULT), on=$on"
	[ "$off" = "$LIST_PREFETCH_DEFAULT" ] && [ "$on" = y ]
}

# All list, hlist and list_prefetch cases ran and passed in both.
test_kunit_suites_all_passed() {
	local variant suite passed failed status=0
	for variant in off on; do
		for suite in list-kunit-test hlist list_prefetch; do
			passed=$(result_field "$variant" "r['suites'].get('$suite', {}).get('passed', 0)")
			failed=$(result_field "$variant" "r['suites'].get('$suite', {}).get('failed', 0)")
			echo "$variant: $suite passed $passed, failed $failed"
			[ "$passed" -gt 0 ] && [ "$failed" -eq 0 ] || status=1
		done
	done
	return "$status"
}

# --- runner --------------------------------------------------------------

TESTS=(
	test_shellcheck
	test_data_files_load
	test_series_file_complete
	test_series_applies_to_fresh_tree
	test_checkpatch_strict
	test_bench_walkers_unit_tests
	test_bench_quick
	test_apply_series
	test_boot_x86_64_off
	test_boot_x86_64_on
	test_list_prefetch_setting_per_variant
	test_kunit_suites_all_passed
)

run_test() {
	local name=$1 logfile=$CHECK_LOG_DIR/$1.log status=0 t0
	t0=$(date +%s)
	( set -euo pipefail; "$name" ) >"$logfile" 2>&1 || status=$?
	case $status in
	0) printf 'ok      %-42s %4ss\n' "$name" "$(( $(date +%s) - t0 ))"; passed=$((passed + 1)) ;;
	"$SKIP") printf 'skip    %-42s %s\n' "$name" "$(tail -n 1 "$logfile")"; skipped=$((skipped + 1)) ;;
	*)
		printf 'not ok  %-42s %4ss  (log: %s)\n' "$name" "$(( $(date +%s) - t0 ))" "$logfile"
		tail -n 25 "$logfile" | sed 's/^/    /'
		failed=$((failed + 1))
		;;
	esac
}

main() {
	local passed=0 failed=0 skipped=0 name selected=("$@")
	[ ${#selected[@]} -gt 0 ] || selected=("${TESTS[@]}")
	mkdir -p "$CHECK_LOG_DIR"
	"$PROJECT_DIR/scripts/tree.sh" >"$CHECK_LOG_DIR/tree.log" 2>&1 || {
		tail -n 5 "$CHECK_LOG_DIR/tree.log" >&2
		echo "0 passed, ${#selected[@]} failed"
		exit 1
	}
	for name in "${selected[@]}"; do
		run_test "$name"
	done
	if [ "$skipped" -gt 0 ]; then
		echo "$passed passed, $failed failed, $skipped skipped"
	else
		echo "$passed passed, $failed failed"
	fi
	[ "$failed" -eq 0 ]
}

main "$@"
