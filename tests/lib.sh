# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers of the tests in tests/NN-STAGE.sh. Sourced by scripts/check.sh
# (after scripts/lib/lab.sh) in the process of each test, never run.
# shellcheck disable=SC2317 # functions called by name

# The exit status of a skipped test (automake's); the reason is the
# test's last line of output.
SKIP=77
CHECK_LOG_DIR=$RESULTS_DIR/check
# The results every fault test must leave intact (the tests point
# RESULTS_DIR at scratch directories for the scripts they break).
REAL_RESULTS_DIR=$RESULTS_DIR
# Per run of check.sh: where tests leave what later tests of the run may
# reuse (check.sh creates it; a test run alone makes its own when it
# needs one: fixture_boot). Not made here: every process that sources
# this, a plan's included, would leave an empty directory behind.
CHECK_RUN_DIR=${CHECK_RUN_DIR:-}

skip() {
	echo "$SKIP_MARK$*"
	exit "$SKIP"
}

# run_id_of FILE: the run that wrote a result (its "run_id"), or none.
run_id_of() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("run_id", "none"))' "$1"
}

# result_json TARGET VARIANT [CONFIG_SET]: the path of a boot's result,
# but only if this run wrote it: a file an earlier run left behind (its
# boot did not run, or failed, this time) fails the test instead.
result_json() {
	local file=$RESULTS_DIR/boot-$1-${3:-qemu}-$2.json run
	[ -f "$file" ] || { echo "no result $file: its boot did not pass in this run" >&2; return 1; }
	run=$(run_id_of "$file")
	if [ "$run" != "${LIST_PREFETCH_RUN_ID:-}" ]; then
		echo "$file is from run '$run', not this run '${LIST_PREFETCH_RUN_ID:-}': its boot did not pass in this run" >&2
		return 1
	fi
	echo "$file"
}

# result_field TARGET VARIANT EXPR [CONFIG_SET]: a field of this run's
# result of a boot (EXPR in Python, the result being r).
result_field() {
	local file
	file=$(result_json "$1" "$2" "${4:-qemu}") || return 1
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {"r": r}))' \
		"$file" "$3"
}

# A cache of symlinks to the real trees, with its own empty build root.
linked_cache() {
	mkdir -p "$1/tree"
	ln -s "$TREE_DIR" "$1/tree/pristine"
	ln -s "$SERIES_DIR" "$1/tree/series"
}

# A copy of the project (scripts, configs, patches, guest) to break on
# purpose.
scratch_project() {
	local scratch
	scratch=$(mktemp -d)
	cp -r "$PROJECT_DIR/scripts" "$PROJECT_DIR/configs" "$PROJECT_DIR/patches" \
		"$PROJECT_DIR/guest" "$scratch/"
	echo "$scratch"
}

# fixture_boot TARGET VARIANT: the qemu build and boot that the fault
# tests borrow, made (or found up to date) once per run; skips the test
# when it cannot be made, naming why.
fixture_boot() {
	[ -n "$CHECK_RUN_DIR" ] || CHECK_RUN_DIR=$(mktemp -d)
	local target=$1 variant=$2 mark=$CHECK_RUN_DIR/fixture-$1-$2
	[ -f "$mark.ok" ] && return 0
	[ ! -f "$mark.failed" ] ||
		skip "the $target $variant boot this test borrows failed in this run (see test_boot)"
	if boot_variant "$target" "$variant" >"$mark.log" 2>&1; then
		touch "$mark.ok"
	else
		touch "$mark.failed"
		tail -n 5 "$mark.log"
		skip "the $target $variant boot this test borrows failed (log above)"
	fi
}

# scratch_cache: a scratch cache holding a copy of the x86_64 default boot
# (its config, stamps and console log; the kernel linked), for the
# tests that break a stage on purpose.
scratch_cache() {
	local scratch real_out out
	fixture_boot x86_64 default >&2
	scratch=$(mktemp -d)
	real_out=$(build_dir x86_64 qemu default)
	out=$scratch/build/$(basename "$real_out")
	mkdir -p "$out/arch/x86/boot" "$scratch/results"
	linked_cache "$scratch"
	cp "$real_out/.config" "$real_out/.lp-build" "$real_out/console.log" "$out/"
	ln -s "$real_out/arch/x86/boot/bzImage" "$out/arch/x86/boot/bzImage"
	echo ok >"$out/boot.status"
	echo 1.0 >"$out/boot.seconds"
	echo "$scratch"
}

# results_digest: one hash of everything under results/ but check's logs.
results_digest() {
	find "$REAL_RESULTS_DIR" -path "$CHECK_LOG_DIR" -prune -o -type f -print0 | sort -z |
		xargs -0 cat | sha256sum
}

# expect_failure OUTPUT_FILE CAUSE FIX CMD...: CMD must fail, its output
# must name the cause (CAUSE) and the fix (FIX, after "fix: "), and the
# results under results/ must be what they were before.
expect_failure() {
	local output=$1 cause=$2 fix=$3 pattern before
	shift 3
	before=$(results_digest)
	if "$@" >"$output" 2>&1; then
		echo "expected a failure, but it passed: $*"
		return 1
	fi
	for pattern in "$cause" "fix: $fix"; do
		if ! grep -qE -- "$pattern" "$output"; then
			echo "failed, but without saying /$pattern/:"
			cat "$output"
			return 1
		fi
	done
	# What the user saw: the error, the failures named, the fix.
	grep -E '^ *(error:|fix:|FAIL:|did not survive )' "$output"
	[ "$(results_digest)" = "$before" ] || { echo "results/ changed"; return 1; }
	echo "results/ intact"
}

# checkpatch_outside_git FILE [OPTION...]: the tree's checkpatch.pl run
# as a reviewer without the tree's history runs it: from a directory
# outside any git repository. Inside the cache tree, whose history lacks
# the commits a message cites, checkpatch skips the check of commit
# references; outside any repository it checks their form.
checkpatch_outside_git() {
	local file=$1 dir status=0
	shift
	dir=$(mktemp -d)
	(cd "$dir" && env -u GIT_DIR "$TREE_DIR/scripts/checkpatch.pl" --root="$TREE_DIR" \
		--strict --show-types "$@" "$file") || status=$?
	rmdir "$dir"
	return "$status"
}

# plan_checked_boots SET BOOT_TEST MARKERS_TEST: for each target and
# variant SET boots, a test that boots it and one that reads its log.
plan_checked_boots() {
	local set=$1 boot_test=$2 markers_test=$3 target variant targets variants
	# Assigned first: a failure in a for loop's list would pass unseen.
	targets=$(set_targets "$set")
	for target in $targets; do
		variants=$(boot_variants "$target")
		for variant in $variants; do
			echo "all 5400 $boot_test $target $variant"
			echo "all 60 $markers_test $target $variant"
		done
	done
}

# expect_markers SET TARGET VARIANT SUMMARY_PATTERN MARKER...: this run's
# boot of SET passed and its console log holds every MARKER (grep
# patterns): a boot without splats means something only if the checker
# was there and the load really ran. Prints the lines SUMMARY_PATTERN
# matches and the splat count.
expect_markers() {
	local set=$1 target=$2 variant=$3 summary=$4 log marker status=0
	shift 4
	log=$(result_field "$target" "$variant" 'r["console_log"]' "$set")
	[ "$(result_field "$target" "$variant" 'r["status"]' "$set")" = pass ] || status=1
	for marker in "$@"; do
		if grep -aq -- "$marker" "$log"; then
			echo "$target $variant: $marker"
		else
			echo "$target $variant: MISSING: $marker"
			status=1
		fi
	done
	grep -a -- "$summary" "$log" | tail -n 8 | sed "s/^/  $variant: /"
	echo "$target $variant: $(result_field "$target" "$variant" 'len(r["splats"])' "$set") splats"
	return "$status"
}
