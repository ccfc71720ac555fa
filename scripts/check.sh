#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# check.sh - the test runner behind 'make check' and 'make check-all'.
#
# The tests live in tests/NN-STAGE.sh, one file per pipeline stage; each
# file's plan_STAGE function prints one line per test:
#
#	TIER[:cache] TIMEOUT FUNCTION [ARG...]
#
# TIER is 'check' (make check and make check-all) or 'all' (make
# check-all only); TIMEOUT is in seconds. ':cache' marks a test whose
# outcome depends only on its inputs (the project's files, the kernel
# tree, the tools): as 'go test' does, a pass is remembered under a key
# of those inputs, and a run with the same inputs reports it as cached
# instead of running it again (CHECK_CACHE=0 runs everything). Every test runs as its own
# process under 'timeout', with errexit really in force (not in a
# subshell on the left of '||', where bash ignores it), its output in
# results/check/<test>.log. The output is TAP 13, as kselftest's runner
# prints it; the last line is 'N passed, N failed[, N skipped]'.
# shellcheck disable=SC2317 # functions called by name
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

TESTS_DIR=${CHECK_TESTS_DIR:-$PROJECT_DIR/tests}
CHECK_LOG_DIR=$RESULTS_DIR/check
# The exit status by which a test says it was skipped (automake's), and
# the last line skip() prints: a test is skipped only through skip(),
# never by some command of it that happens to exit 77.
SKIP=77
SKIP_MARK="check.sh: skip: "

usage() {
	cat >&2 <<USAGE
usage: $0 [--tier check|all] [--list] ['TEST [ARG...]'...]
  --tier check  the tests of 'make check' (default)
  --tier all    every test ('make check-all')
  --list        print the plan (tier, timeout, test) and stop
  TEST...       run only these tests (any tier), e.g. 'test_boot x86_64 default'
USAGE
	exit 2
}

stage_files() {
	local f
	for f in "$TESTS_DIR"/[0-9][0-9]-*.sh; do
		[ -f "$f" ] && echo "$f"
	done
}

# plan_stage FILE: one stage's plan lines, from a process of its own
# with errexit and inherit_errexit in force (in this one, under a
# condition, bash would ignore errexit), so that a command failing half
# way fails the plan.
plan_stage() {
	local stage=${1##*/[0-9][0-9]-}
	stage=${stage%.sh}
	set -euo pipefail
	shopt -s inherit_errexit
	"plan_${stage//-/_}"
}

# plan: every test of every stage, in stage order, as plan lines. A plan
# function that fails, or prints a line that is no plan line or names no
# test function, stops the run: its tests would silently be missing.
plan() {
	local f status line
	for f in $(stage_files); do
		local out
		set +e
		out=$("$0" --plan-stage "$f")
		status=$?
		set -e
		[ "$status" -eq 0 ] ||
			die "the plan of ${f#"$PROJECT_DIR"/} failed (exit $status): its tests and every later stage's would be missing" \
				"fix its plan_ function (run 'scripts/check.sh --list' to see the error)"
		while IFS= read -r line; do
			[ -n "$line" ] || continue
			[[ "$line" =~ ^(check|all)(:cache)?\ [0-9]+\ (test_[A-Za-z0-9_]+)(\ .*)?$ ]] ||
				die "${f#"$PROJECT_DIR"/}: '$line' is no plan line" \
					"a plan line is 'TIER[:cache] TIMEOUT TEST [ARG...]'"
			declare -F "${BASH_REMATCH[3]}" >/dev/null ||
				die "${f#"$PROJECT_DIR"/}: the plan names ${BASH_REMATCH[3]}, which is no function" \
					"define it in the stage file, or fix the plan"
			echo "$line"
		done <<<"$out"
	done
}

# select_plan TIER: the plan lines of a tier.
select_plan() {
	local lines
	lines=$(plan)
	case "$1" in
	check) awk '$1 ~ /^check(:|$)/' <<<"$lines" ;;
	all) echo "$lines" ;;
	*) usage ;;
	esac
}

# check_manifest TIER PLAN_FILE: the tier's tests are those of
# tests/manifest-TIER.txt, no more and no fewer: adding or removing a test
# changes the manifest in the same commit, where a review sees it.
check_manifest() {
	local tier=$1 planfile=$2 manifest=$TESTS_DIR/manifest-$1.txt diffs
	if [ ! -f "$manifest" ]; then
		# Only scratch test directories (the runner's own tests) may lack one.
		[ "$TESTS_DIR" != "$PROJECT_DIR/tests" ] || die "no $manifest" \
			"write it: scripts/check.sh --tier $tier --list | cut -d' ' -f3- >${manifest#"$PROJECT_DIR"/}"
		return 0
	fi
	diffs=$(diff <(cut -d' ' -f3- "$planfile") "$manifest" | sed -n 's/^< /  planned, not in the manifest: /p; s/^> /  in the manifest, not planned: /p') || true
	[ -z "$diffs" ] || die "the plan of tier $tier differs from ${manifest#"$PROJECT_DIR"/}:
$diffs" "if the change is meant, update the manifest in the same commit: scripts/check.sh --tier $tier --list | cut -d' ' -f3- >${manifest#"$PROJECT_DIR"/}"
}

# plan_line 'TEST [ARG...]': the plan line of one test, or a default one.
plan_line() {
	local line
	line=$(plan | awk -v name="$1" '{ t = $0; sub(/^[^ ]+ [^ ]+ /, "", t) } t == name { print; exit }')
	echo "${line:-check ${CHECK_DEFAULT_TIMEOUT:-600} $1}"
}

# tap_diagnostics: stdin as TAP diagnostic lines.
tap_diagnostics() { sed 's/^/# /'; }

# project_files: the project's files that tests can depend on, NUL
# separated: those git tracks or would track (not what it ignores, such
# as Python's bytecode caches), as they are in the working tree.
project_files() {
	if git -C "$PROJECT_DIR" rev-parse --git-dir >/dev/null 2>&1; then
		# Every file a test may read: all but results/, whose quoted
		# results/examples/ tests compare with (lab/, docs/ and the
		# README included).
		{
			git -C "$PROJECT_DIR" ls-files -z -co --exclude-standard -- . ':(exclude)results'
			git -C "$PROJECT_DIR" ls-files -z -co --exclude-standard -- results/examples
		} | (cd "$PROJECT_DIR" && while IFS= read -r -d '' f; do
			[ -f "$f" ] && printf '%s\0' "$f"
		done)
	else
		(cd "$PROJECT_DIR" && find . -path ./results -prune -o -name __pycache__ -prune -o -name .git -prune \
			-o -type f -print0 && find results/examples -type f -print0 2>/dev/null)
	fi
}

# build_environment: the variables kbuild, make, the compiler and the
# locale read, which no script of the project names (steering_vars does
# those); make's jobserver descriptors, different every run, left out.
build_environment() {
	env | grep -E '^(KCFLAGS|KCPPFLAGS|KAFLAGS|KBUILD_[A-Z_]+|MAKEFLAGS|MFLAGS|LANG|LANGUAGE|LC_[A-Z]+|ARCH|CROSS_COMPILE|LLVM|CC|HOSTCC|CFLAGS|CPPFLAGS|LDFLAGS)=' |
		sed 's/--jobserver-[a-z]*=[^ ]*//g; s/ -j[0-9]*//g' | sort || true
}

# Variables a run sets for itself, different in every run: not inputs.
RUN_SCOPED_VARS="LIST_PREFETCH_RUN_ID CHECK_RUN_DIR STAGE_TIMES_FILE LIST_PREFETCH_LOCKED TMPDIR
CACHE_KEY_BASIS CURRENT_TEST_PID CCACHE_BEFORE STAGE_NOTE BOOT_REUSED_LOG"

# steering_vars: the environment variables that steer the project's
# scripts and tests: every NAME that scripts/ or tests/ read with a
# default (${NAME:-...}), but the run-scoped ones. Derived, not listed.
steering_vars() {
	grep -ohE '\$\{[A-Z][A-Z0-9_]*:-' "$PROJECT_DIR"/scripts/*.sh "$PROJECT_DIR"/scripts/lib/*.sh "$PROJECT_DIR"/tests/*.sh |
		sed 's/^\${//; s/:-$//' | sort -u | grep -vxF -f <(tr ' ' '\n' <<<"$RUN_SCOPED_VARS" | grep .)  || true
}

# tree_state DIR: a kernel tree's commit and its uncommitted changes.
tree_state() {
	git -C "$1" rev-parse HEAD 2>/dev/null || { echo "no tree at $1"; return 0; }
	git -C "$1" status --porcelain --untracked-files=no 2>/dev/null
	git -C "$1" diff HEAD 2>/dev/null | sha256sum
}

# inputs_key: one hash of everything a cacheable test's outcome depends
# on: the project's files, the tests, the trees (commits and uncommitted
# changes), every tool a test may run (the Debian packages installed, and
# every executable on PATH by name, size and time, so a shim counts) and
# the steering environment variables (steering_vars).
inputs_key() {
	{
		project_files | sort -z | (cd "$PROJECT_DIR" && xargs -0 sha256sum)
		# Tests from elsewhere (CHECK_TESTS_DIR) are not among the project's.
		if [ "$TESTS_DIR" != "$PROJECT_DIR/tests" ]; then
			(cd "$TESTS_DIR" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
		fi
		tree_state "$TREE_DIR"
		tree_state "$SERIES_DIR"
		dpkg-query -W -f '${Package} ${Version}\n' 2>/dev/null || true
		echo "PATH=$PATH"
		local dir var
		local -a dirs
		IFS=: read -ra dirs <<<"$PATH"
		for dir in "${dirs[@]}"; do
			find "$dir" -maxdepth 1 \( -type f -o -type l \) -printf '%p %s %T@\n' 2>/dev/null | sort
		done
		for var in $(steering_vars); do
			echo "$var=${!var-(unset)}"
		done
		build_environment
		# Timing tests judge this CPU's figures.
		grep -m3 -E '^(model name|cpu family|model)[[:space:]]*:' /proc/cpuinfo || true
	} | inputs_hash /dev/stdin
}

# update_cache_dir: set CHECK_CACHE_DIR, where this run remembers passes,
# by the inputs as they are now. Taken again when the trees change (a cold
# run unpacks them half way), so that its passes are stored under a key
# later runs can hit.
update_cache_dir() {
	local basis
	basis="$(git -C "$TREE_DIR" rev-parse HEAD 2>/dev/null || echo no-tree) $(git -C "$SERIES_DIR" rev-parse HEAD 2>/dev/null || echo no-series)"
	if [ "$basis" != "${CACHE_KEY_BASIS:-none}" ]; then
		CACHE_KEY_BASIS=$basis
		CHECK_CACHE_DIR=$LIST_PREFETCH_CACHE/check-cache/$(inputs_key)
	fi
}

# run_one NUMBER 'TIER TIMEOUT TEST [ARG...]': run one test and print its
# TAP result line. A separate process: errexit holds in it, and a hung
# test is killed at its timeout.
run_one() {
	local number=$1 line=$2 tier timeout name logfile status=0 t0 elapsed cached=
	read -r tier timeout name <<<"$line"
	local logname=${name// /-}.log
	logfile=$CHECK_LOG_DIR/$logname
	# This run's logs, by name: what after_run may read (results/check
	# keeps older runs' logs of tests this run did not run).
	echo "$logname" >>"$CHECK_RUN_DIR/logs"
	if [ "${tier#*:}" = cache ] && [ "${CHECK_CACHE:-1}" != 0 ]; then
		update_cache_dir
		cached=$CHECK_CACHE_DIR/$logname
		if [ -f "$cached" ]; then
			cp "$cached" "$logfile"
			echo "ok $number $name # cached: passed $(date -u -r "$cached" +%Y-%m-%dT%H:%MZ) with the same inputs"
			passed=$((passed + 1))
			cached_passes=$((cached_passes + 1))
			return 0
		fi
	fi
	t0=$SECONDS
	local reused_before
	reused_before=$(reused_boots)
	# In the background, waited for: a signal to this runner is then
	# handled at once (on_interrupt), not after the test. timeout makes
	# the test its own process group; it is killed whole at its end, so
	# that nothing it started outlives it (or holds the cache lock).
	# shellcheck disable=SC2086 # the test and its arguments are words
	timeout --kill-after=10 "$timeout" "$0" --run $name >"$logfile" 2>&1 </dev/null &
	CURRENT_TEST_PID=$!
	wait "$CURRENT_TEST_PID" || status=$?
	kill -KILL -- "-$CURRENT_TEST_PID" 2>/dev/null || true
	CURRENT_TEST_PID=
	elapsed=$((SECONDS - t0))
	case $status in
	0)
		local reused
		reused=$(tail -n "+$((reused_before + 1))" "$BOOT_REUSED_LOG")
		if [ -n "$reused" ]; then
			echo "ok $number $name # reused boot: $(echo "$reused" | sed 's/ / of /' | paste -sd, -)"
		else
			echo "ok $number $name"
		fi
		passed=$((passed + 1))
		# Stored only under the inputs it ran with: a file changed
		# during the test (an edit, a make readme) and the pass is not
		# remembered for either key.
		if [ -n "$cached" ] && [ "$LIST_PREFETCH_CACHE/check-cache/$(inputs_key)" = "$CHECK_CACHE_DIR" ]; then
			mkdir -p "$CHECK_CACHE_DIR"
			cp "$logfile" "$cached.tmp.$$"
			mv -f "$cached.tmp.$$" "$cached"
		fi
		;;
	"$SKIP")
		local last
		last=$(tail -n 1 "$logfile")
		if [ "${last#"$SKIP_MARK"}" != "$last" ]; then
			echo "ok $number $name # SKIP ${last#"$SKIP_MARK"}"
			skipped=$((skipped + 1))
		else
			echo "not ok $number $name"
			tail -n 25 "$logfile" | tap_diagnostics
			echo "exited $SKIP, a skip's status, but not through skip(): a command it ran failed so" |
				tee -a "$logfile" | tap_diagnostics
			failed=$((failed + 1))
		fi
		;;
	*)
		echo "not ok $number $name"
		tail -n 25 "$logfile" | tap_diagnostics
		if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
			echo "timed out after ${timeout}s (its TIMEOUT is in the plan of $TESTS_DIR)" |
				tee -a "$logfile" | tap_diagnostics
		fi
		echo "# exit status $status; log: $logfile"
		failed=$((failed + 1))
		;;
	esac
	echo "# $name: ${elapsed}s"
}

# reused_boots: how many boots of this run scripts/boot.sh took from an
# earlier boot's console log (same kernel, initramfs, command line, QEMU).
reused_boots() {
	wc -l <"$BOOT_REUSED_LOG"
}

# descendants PID: every process below PID, children before theirs.
descendants() {
	local child
	for child in $(pgrep -P "$1" || true); do
		echo "$child"
		descendants "$child"
	done
}

# on_interrupt: HUP, INT or TERM: stop the current test's whole process
# group and every process below it (a 'timeout' in a test makes a group
# of its own, out of reach of the group's kill), say so, and end the run
# non-zero; the cache lock goes with the runner and the test processes,
# which held it too.
on_interrupt() {
	trap - HUP INT TERM
	if [ -n "${CURRENT_TEST_PID:-}" ]; then
		local below
		below=$(descendants "$CURRENT_TEST_PID" | paste -sd ' ')
		kill -TERM -- "-$CURRENT_TEST_PID" 2>/dev/null || true
		# shellcheck disable=SC2086 # a list of pids
		[ -z "$below" ] || kill -TERM $below 2>/dev/null || true
		sleep 1
		kill -KILL -- "-$CURRENT_TEST_PID" 2>/dev/null || true
		# shellcheck disable=SC2086 # a list of pids
		[ -z "$below" ] || kill -KILL $below 2>/dev/null || true
	fi
	[ -z "${CHECK_RUN_DIR:-}" ] || rm -rf "$CHECK_RUN_DIR"
	echo "# interrupted: the run stopped at a signal, after $passed passed, $failed failed"
	echo "interrupted"
	exit 130
}

# build_list: the kernel builds of this run, each with its wall time and
# ccache's hits (a build found up to date takes a second).
build_list() {
	echo "builds of this run (wall time; ccache):"
	awk -F'\t' '$1 ~ /^(build|compile) / { printf "  %-44s %7.1fs  %s\n", $1, $2, $3; total += $2 }
		END { printf "  %-44s %7.1fs\n", "total", total }' "$STAGE_TIMES_FILE"
}

# run_test_process TEST [ARG...]: the body of one test's process.
run_test_process() {
	source_stage_files
	declare -F "$1" >/dev/null || die "no test '$1' in $TESTS_DIR" "see '$0 --list'"
	set -euo pipefail
	# A command failing inside $(...) fails the test too.
	shopt -s inherit_errexit
	"$@"
}

# source_stage_files: the tests' helpers, then every stage's tests.
source_stage_files() {
	local f
	# shellcheck source=tests/lib.sh
	. "$PROJECT_DIR/tests/lib.sh"
	for f in $(stage_files); do
		# shellcheck disable=SC1090
		. "$f"
	done
}

main() {
	local tier=check list=n
	local -a selected=()
	case "${1:-}" in
	--run)
		shift
		run_test_process "$@"
		return
		;;
	--plan-stage)
		source_stage_files
		plan_stage "$2"
		return
		;;
	--key-files)
		# What the key of remembered passes hashes (its own tests read it).
		project_files | tr '\0' '\n'
		return
		;;
	esac
	while [ $# -gt 0 ]; do
		case "$1" in
		--tier) [ $# -ge 2 ] || usage; tier=$2; shift ;;
		--list) list=y ;;
		-h | --help) usage ;;
		-*) usage ;;
		*) selected+=("$1") ;;
		esac
		shift
	done
	source_stage_files
	local -a lines=()
	if [ ${#selected[@]} -gt 0 ]; then
		local name
		for name in "${selected[@]}"; do lines+=("$(plan_line "$name")"); done
	else
		# The plan into a file first: a failing plan stops the run here.
		local planfile
		planfile=$(mktemp)
		select_plan "$tier" >"$planfile"
		[ "$list" = y ] || check_manifest "$tier" "$planfile"
		mapfile -t lines <"$planfile"
		rm -f "$planfile"
	fi
	if [ "$list" = y ]; then
		printf '%s\n' "${lines[@]}"
		return 0
	fi
	hold_cache_lock "scripts/check.sh --tier $tier"
	# One id per run: the results this run's steps write carry it, and a
	# test refuses a result that does not (an earlier run's file).
	LIST_PREFETCH_RUN_ID=${LIST_PREFETCH_RUN_ID:-check-$(date -u +%Y%m%dT%H%M%SZ)-$$}
	CHECK_RUN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/list-prefetch-check.XXXXXX")
	# Every stage script of the run records its wall time there (in make
	# report's file, when make report runs us).
	if [ -z "${STAGE_TIMES_FILE:-}" ]; then
		STAGE_TIMES_FILE=$CHECK_RUN_DIR/stage-times.tsv
		: >"$STAGE_TIMES_FILE"
	fi
	BOOT_REUSED_LOG=$CHECK_RUN_DIR/reused-boots
	: >"$BOOT_REUSED_LOG"
	export LIST_PREFETCH_RUN_ID CHECK_RUN_DIR STAGE_TIMES_FILE BOOT_REUSED_LOG
	mkdir -p "$CHECK_LOG_DIR"
	# Where the passes of cacheable tests are remembered: update_cache_dir().
	CHECK_CACHE_DIR=
	CACHE_KEY_BASIS=none
	local passed=0 failed=0 skipped=0 cached_passes=0 i t0=$SECONDS
	CURRENT_TEST_PID=
	trap on_interrupt HUP INT TERM
	echo "TAP version 13"
	echo "1..${#lines[@]}"
	echo "# $(host_description); run $LIST_PREFETCH_RUN_ID"
	for i in "${!lines[@]}"; do
		run_one $((i + 1)) "${lines[i]}"
	done
	if declare -F after_run >/dev/null; then after_run; fi
	build_list | tap_diagnostics
	local reused_total
	reused_total=$(reused_boots)
	rm -rf "$CHECK_RUN_DIR"
	echo "# wall time: $((SECONDS - t0))s for ${#lines[@]} tests (tier $tier)"
	echo "# cached: $cached_passes of the $passed passes were remembered from a run with the same inputs (CHECK_CACHE=0 runs every test)"
	echo "# reused: $reused_total boots took an earlier boot's console log (same kernel, initramfs, command line and QEMU; BOOT_REUSE=0 boots every one)"
	if [ "$skipped" -gt 0 ]; then
		echo "$passed passed, $failed failed, $skipped skipped"
	else
		echo "$passed passed, $failed failed"
	fi
	# Skips pass nothing: a run of skips alone is not green.
	if [ "$passed" -eq 0 ] && [ "$skipped" -gt 0 ]; then
		echo "# every test skipped: nothing was checked" >&2
		return 1
	fi
	[ "$failed" -eq 0 ]
}

main "$@"; exit
