#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# check.sh - the test suite behind 'make check'. Fast checks first (the
# series applies to a fresh copy of the pristine tree, checkpatch, the
# shell lint), then the variants are built and booted. Each test's
# output goes to results/check/<test>.log and is shown when it fails.
# Ends with one line: N passed, N failed[, N skipped].
# shellcheck disable=SC2317 # functions called by name (tests, steps)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

CHECK_LOG_DIR=$RESULTS_DIR/check
# The results every fault test must leave intact (the tests point
# RESULTS_DIR at scratch directories for the scripts they break).
REAL_RESULTS_DIR=$RESULTS_DIR
SKIP=77
# The target the harness fault tests borrow builds from.
TARGET=x86_64

# --- fast checks --------------------------------------------------------

test_shellcheck() {
	need_cmd shellcheck shellcheck
	(cd "$PROJECT_DIR" && run shellcheck -x scripts/*.sh .ci/run &&
		run shellcheck -s sh guest/init guest/workloads/*.sh)
}

# The guest's C programs build warning-free and work: run on the host
# (plain userspace), briefly; a bad argument is refused. The module is
# kernel code: checkpatch --strict, like the series.
test_guest_programs() {
	local bin prog
	bin=$(mktemp -d)
	for prog in stress metabench; do
		# shellcheck disable=SC2086 # a list of flags
		run gcc $GUEST_CFLAGS -o "$bin/$prog" "$PROJECT_DIR/guest/$prog.c" || return 1
	done
	"$bin/metabench" 50 3 "$bin" || return 1
	"$bin/stress" 1 || return 1
	if "$bin/metabench" 0 2>/dev/null; then echo "metabench took 0 files"; return 1; fi
	rm -rf "$bin"
	(cd "$TREE_DIR" && scripts/checkpatch.pl --strict --no-tree -f \
		"$PROJECT_DIR/guest/listbench/listbench.c") | tail -n 3 | grep '^total: 0 errors, 0 warnings'
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
		# From the tree: in a git checkout where the patch file is modified,
		# checkpatch.pl would check the file, not the patch in it.
		out=$(cd "$TREE_DIR" && scripts/checkpatch.pl --strict --no-tree --show-types \
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
# all five variants, positive timings, intervals around their medians,
# and 'none' is its own baseline.
test_bench_quick() {
	"$PROJECT_DIR/scripts/bench.sh" --quick || return 1
	awk -F, '
		NR == 1 { next }
		{ rows++; cells[$1 $2 $3 $4]++ }
		$8 <= 0 || $9 > $8 || $10 < $8 { print "bad interval: " $0; bad++ }
		$7 == "none" && ($11 != 1 || $14 != "baseline") { print "bad baseline: " $0; bad++ }
		END {
			for (c in cells) if (cells[c] != 5) { print "cell without 5 variants: " c; bad++ }
			printf "%d rows, %d cells\n", rows, length(cells)
			exit !(rows == 180 && bad == 0)
		}' "$RESULTS_DIR/bench-quick.csv"
}

# --- the coccinelle sweep ---------------------------------------------------

# The series' semantic patch on the snippet corpus: report mode must name
# exactly the lines marked "list-walk" (no false negative, no false
# positive), and patch mode must rewrite exactly those lines.
test_cocci_corpus() {
	need_cmd spatch coccinelle
	local cocci=$SERIES_DIR/scripts/coccinelle/misc/list_prefetch.cocci expected found rewritten
	cd "$PROJECT_DIR/audit/corpus"
	expected=$(grep -n 'list-walk \*/' ./*.c | cut -d: -f1,2 | sed 's|^\./||' | sort)
	found=$(spatch --very-quiet -D report --no-includes --include-headers --sp-file "$cocci" ./*.c |
		sed -n 's|^\(\./\)\{0,1\}\([^:]*\):\([0-9]*\):.*|\2:\3|p' | sort -u)
	echo "expected $(echo "$expected" | grep -c .) sites, reported $(echo "$found" | grep -c .)"
	diff <(echo "$expected") <(echo "$found") | sed -n 's/^< /missed (false negative): /p; s/^> /reported (false positive): /p' |
		grep . && return 1
	rewritten=$(spatch --very-quiet -D patch --no-includes --include-headers --sp-file "$cocci" ./*.c |
		grep -c '^+.*list_prefetchw\{0,1\}(.*list-walk' || true)
	echo "patch mode rewrote $rewritten of them to list_prefetch[w]()"
	[ "$rewritten" -eq "$(echo "$expected" | grep -c .)" ]
}

test_audit() { "$PROJECT_DIR/scripts/audit.sh"; }

# --- build and boot ------------------------------------------------------

test_apply_series() { "$PROJECT_DIR/scripts/apply.sh"; }

# test_boot TARGET VARIANT: configure, build, boot, judge.
test_boot() { boot_variant "$1" "$2"; }

# result_field TARGET VARIANT EXPR [CONFIG_SET]: a field of a boot's
# result JSON (default: of the qemu set).
result_field() {
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {"r": r}))' \
		"$RESULTS_DIR/boot-$1-${4:-qemu}-$2.json" "$3"
}

# test_list_prefetch_default TARGET: the booted kernel's LIST_PREFETCH is
# the target's default in the off variant (nothing overridden) and y in
# the on variant (forced on), if that one is checked.
test_list_prefetch_default() {
	load_target "$1"
	local variant value status=0
	for variant in $CHECK_VARIANTS; do
		value=$(result_field "$1" "$variant" 'r["list_prefetch"]')
		local want=$LIST_PREFETCH_DEFAULT
		[ "$variant" != on ] || want=y
		echo "$1 $variant: CONFIG_LIST_PREFETCH=$value (want $want)"
		[ "$value" = "$want" ] || status=1
	done
	return "$status"
}

# test_kunit_suites TARGET: every required suite ran, with all its cases
# passing, in every checked variant.
test_kunit_suites() {
	load_target "$1"
	load_config_set qemu
	local variant suite passed failed status=0
	for variant in $CHECK_VARIANTS; do
		for suite in $REQUIRED_SUITES; do
			passed=$(result_field "$1" "$variant" "r['suites'].get('$suite', {}).get('passed', 0)")
			failed=$(result_field "$1" "$variant" "r['suites'].get('$suite', {}).get('failed', 0)")
			echo "$1 $variant: $suite passed $passed, failed $failed"
			[ "$passed" -gt 0 ] && [ "$failed" -eq 0 ] || status=1
		done
	done
	return "$status"
}

# test_iterator_prefetch_sites TARGET: read the vmlinux, not Kconfig. The
# series' KUnit cases that walk a list each hold a prefetch (in the text,
# or on i386 as an alternative) exactly when LIST_PREFETCH=y.
test_iterator_prefetch_sites() {
	load_target "$1"
	local variant vmlinux value walkers sites with_sites missing status=0
	for variant in $CHECK_VARIANTS; do
		vmlinux=$(build_dir "$1" qemu "$variant")/vmlinux
		value=$(result_field "$1" "$variant" 'r["list_prefetch"]')
		walkers=$("${CROSS_COMPILE}nm" "$vmlinux" |
			awk '$3 ~ /^list_prefetch_test_.*(foreach|walk)/ { print $3 }' | sort -u)
		sites=$("$PROJECT_DIR/scripts/count-prefetches.sh" --functions "$vmlinux" |
			grep '^list_prefetch_test_' || true)
		with_sites=$(echo "$sites" | awk 'NF { print $1 }' | sort -u)
		echo "$1 $variant (LIST_PREFETCH=$value): $(echo "$walkers" | grep -c .) walking cases, $(echo "$with_sites" | grep -c .) cases with a prefetch"
		echo "$sites" | grep 'foreach ' | head -n 2 | sed 's/^/  e.g. /'
		[ -n "$walkers" ] || { echo "  no walking cases in $vmlinux"; status=1; continue; }
		if [ "$value" = y ]; then
			missing=$(comm -23 <(echo "$walkers") <(echo "$with_sites"))
			[ -z "$missing" ] || { echo "  walking without a prefetch: $missing"; status=1; }
		elif [ -n "$with_sites" ]; then
			echo "  prefetch although LIST_PREFETCH=n: $with_sites"
			status=1
		fi
	done
	return "$status"
}

# --- debug kernels -------------------------------------------------------

# test_debug_boot TARGET VARIANT: the debug set (KASAN, UBSAN, lockdep,
# PROVE_RCU, DEBUG_LIST, DEBUG_OBJECTS, two CPUs) builds, boots, passes
# the KUnit suites and runs guest/stress.c and the module cycles with
# no splat: parse.sh fails the boot on any.
test_debug_boot() { boot_variant "$1" "$2" debug; }

# test_debug_checkers_ran TARGET: no splat means something only if the
# checkers were there and the load really ran: every debug boot's log
# shows KASAN and lockdep starting and both CPUs up, and its result has
# every stress worker, the module cycles and the concurrent RCU case.
test_debug_checkers_ran() {
	load_target "$1"
	local variant log marker status=0
	local -a markers=('KernelAddressSanitizer initialized' 'Lock dependency validator'
		'Brought up 1 node, 2 CPUs' 'stress: 0 of 5 workers failed'
		'stress: module listbench loaded and removed 3 times, ok'
		'ok [0-9]* list_prefetch_test_hlist_rcu_concurrent_writer')
	for variant in $CHECK_VARIANTS; do
		log=$(build_dir "$1" debug "$variant")/console.log
		for marker in "${markers[@]}"; do
			if grep -aq -- "$marker" "$log"; then
				echo "$1 $variant: $marker"
			else
				echo "$1 $variant: MISSING: $marker"
				status=1
			fi
		done
		grep -a 'workers\|: [a-z]*: .* rounds\|list_prefetch_test_hlist_rcu_concurrent_writer: ' "$log" |
			sed "s/^/  $variant: /"
		echo "$1 $variant: $(result_field "$1" "$variant" 'len(r["splats"])' debug) splats," \
			"status $(result_field "$1" "$variant" 'r["status"]' debug)"
		[ "$(result_field "$1" "$variant" 'r["status"]' debug)" = pass ] || status=1
	done
	return "$status"
}

# --- in-guest A/B ----------------------------------------------------------

# The short in-guest A/B: the bench set's off and on kernels, one boot
# each with the quick workloads. Every metric (listbench's walks, the
# four workloads) has a positive figure from both variants, each boot's
# listbench ran the kernel its name says, and under TCG the summary
# carries the "functional only" label.
test_guest_bench_quick() {
	"$PROJECT_DIR/scripts/guest-bench.sh" --quick || return 1
	python3 - "$RESULTS_DIR/guest-bench.json" "$RESULTS_DIR/guest-bench.txt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
bad = list(r["problems"])
listbench = [row for row in r["rows"] if row["metric"].startswith("listbench")]
workloads = {row["metric"] for row in r["rows"]} - {row["metric"] for row in listbench}
# quick: 2 sizes x 2 layouts x 3 walks, and the four workloads
if len(listbench) != 12:
    bad.append(f"{len(listbench)} listbench figures, want 12")
want = {"hackbench", "perf-sched-pipe", "perf-sched-messaging", "tmpfs-metadata"}
if workloads != want:
    bad.append(f"workloads {sorted(workloads)}, want {sorted(want)}")
for row in r["rows"]:
    for variant in ("off", "on"):
        median = row.get(variant, {}).get("median")
        if not median or median <= 0:
            bad.append(f"{row['metric']}: {variant} has no positive figure")
if r["accel"] == "tcg" and "functional only — TCG models no caches" not in text:
    bad.append("TCG figures without the functional-only label")
print(f"accel {r['accel']}, {len(r['rows'])} metrics, boots {r['runs']}")
for b in bad:
    print("problem:", b)
sys.exit(1 if bad else 0)
PY
}

# --- the harness fails loudly ---------------------------------------------
#
# These run the stage scripts against a scratch cache (the real tree
# linked in, the real off build's kernel and log copied), so they can
# provoke failures without touching any real build or result.

scratch_cache() {
	local scratch real_out out
	scratch=$(mktemp -d)
	real_out=$(build_dir "$TARGET" qemu off)
	out=$scratch/build/$(basename "$real_out")
	mkdir -p "$out/arch/x86/boot" "$scratch/results"
	linked_cache "$scratch"
	cp "$real_out/.config" "$real_out/.lp-build" "$real_out/console.log" "$out/"
	ln -s "$real_out/arch/x86/boot/bzImage" "$out/arch/x86/boot/bzImage"
	echo ok >"$out/boot.status"
	echo 1.0 >"$out/boot.seconds"
	echo "$scratch"
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

# parse_doctored_log SED_SCRIPT PATTERN: parse.sh on the off boot's log
# edited by SED_SCRIPT must fail, say PATTERN and name the log.
parse_doctored_log() {
	local scratch status=0
	scratch=$(scratch_cache)
	sed -i "$1" "$scratch/build/$TARGET-qemu-off/console.log"
	LIST_PREFETCH_CACHE=$scratch RESULTS_DIR=$scratch/results \
		expect_failure "$scratch/out" "$2" 'a failed case names its suite' \
		"$PROJECT_DIR/scripts/parse.sh" "$TARGET" off qemu || status=1
	grep -q 'console log: ' "$scratch/out" || { echo "the log path is not named"; status=1; }
	rm -rf "$scratch"
	return "$status"
}

test_parse_fails_on_warning() {
	parse_doctored_log '/# Subtest: list_prefetch/i [    1.0] WARNING: CPU: 0 PID: 1 at lib/list_debug.c:62 __list_del_entry_valid_or_report+0x1/0x2' \
		'splat: .*WARNING: CPU: 0 PID: 1 at lib/list_debug.c'
}

test_parse_fails_on_oops() {
	parse_doctored_log '/# Subtest: hlist/i [    1.0] Oops: general protection fault, probably for non-canonical address 0xdead000000000100' \
		'splat: Oops: general protection fault'
}

test_parse_fails_on_failed_case() {
	parse_doctored_log 's/ ok \([0-9]*\) list_prefetch_test_list_foreach\(\r\{0,1\}\)$/ not ok \1 list_prefetch_test_list_foreach\2/' \
		'suite list_prefetch: 1 failed: list_prefetch_test_list_foreach'
}

test_parse_fails_on_missing_suite() {
	# shellcheck disable=SC2016 # a sed script: $ is the last line
	parse_doctored_log '/# Subtest: list_prefetch/,$d' 'suite list_prefetch is missing'
}

test_parse_fails_without_init() {
	parse_doctored_log '/list-prefetch: guest/d' 'the guest never reached init'
}

# project_with_init SCRIPT: a copy of the project whose guest/init is
# SCRIPT (test-only, sh), to provoke what a real guest could do.
project_with_init() {
	local project
	project=$(scratch_project)
	printf '#!/bin/busybox sh\n/bin/busybox --install -s /bin\necho "list-prefetch: guest init reached"\n%s\n' \
		"$1" >"$project/guest/init"
	echo "$project"
}

# A guest that hangs: its init sleeps instead of leaving QEMU. boot.sh
# must give up at BOOT_TIMEOUT, say so, and show the log's last lines.
test_boot_fails_on_timeout() {
	local project cache status=0
	project=$(project_with_init 'exec sleep 100000')
	cache=$(scratch_cache)
	LIST_PREFETCH_CACHE=$cache BOOT_TIMEOUT=30 expect_failure "$project/out" \
		'QEMU did not exit within 30s .*console log: ' \
		'.*BOOT_TIMEOUT' \
		"$project/scripts/boot.sh" "$TARGET" off qemu || status=1
	grep -q 'console: .*guest init reached' "$project/out" ||
		{ echo "the console's last lines are not shown"; status=1; }
	rm -rf "$project" "$cache"
	return "$status"
}

# A guest that panics: its init exits, and the kernel panics with
# "Attempted to kill init!". QEMU leaves (panic=-1, -no-reboot), so the
# boot itself succeeds; parse.sh must fail it and quote the panic.
test_boot_fails_on_panic() {
	local project cache status=0
	project=$(project_with_init 'exit 3')
	cache=$(scratch_cache)
	export LIST_PREFETCH_CACHE=$cache RESULTS_DIR=$cache/results
	"$project/scripts/boot.sh" "$TARGET" off qemu >"$project/boot.log" 2>&1 ||
		{ echo "boot.sh failed:"; tail -n 5 "$project/boot.log"; return 1; }
	expect_failure "$project/out" \
		'splat: Kernel panic - not syncing: Attempted to kill init' \
		'a failed case names its suite' \
		"$project/scripts/parse.sh" "$TARGET" off qemu || status=1
	grep -q 'console log: ' "$project/out" || { echo "the log path is not named"; status=1; }
	rm -rf "$project" "$cache"
	return "$status"
}

test_configure_names_lost_options() {
	local scratch status=0
	scratch=$(mktemp -d)
	linked_cache "$scratch/cache"
	# A copy of the project whose off variant switches off SHMEM, on
	# which the qemu fragment's CONFIG_TMPFS=y depends.
	cp -r "$PROJECT_DIR/scripts" "$PROJECT_DIR/configs" "$scratch/"
	printf '# CONFIG_SHMEM is not set\n' >>"$scratch/configs/variants/off.config"
	LIST_PREFETCH_CACHE=$scratch/cache expect_failure "$scratch/out" \
		'did not survive olddefconfig: CONFIG_TMPFS=y' \
		'.*menuconfig' \
		"$scratch/scripts/configure.sh" "$TARGET" off qemu || status=1
	rm -rf "$scratch"
	return "$status"
}

# A copy of the project (scripts, configs, patches) to break on purpose.
scratch_project() {
	local scratch
	scratch=$(mktemp -d)
	cp -r "$PROJECT_DIR/scripts" "$PROJECT_DIR/configs" "$PROJECT_DIR/patches" \
		"$PROJECT_DIR/guest" "$scratch/"
	echo "$scratch"
}

test_tree_missing_is_named() {
	local scratch status=0
	scratch=$(mktemp -d)
	LIST_PREFETCH_CACHE=$scratch/empty expect_failure "$scratch/out" \
		"no kernel tree at $scratch/empty/tree/pristine" \
		"run 'scripts/tree.sh'" \
		"$PROJECT_DIR/scripts/apply.sh" || status=1
	rm -rf "$scratch"
	return "$status"
}

test_tree_wrong_version_is_named() {
	local scratch status=0 fake
	scratch=$(mktemp -d)
	fake=$scratch/cache/tree/pristine
	mkdir -p "$fake"
	printf 'kernelversion:\n\t@echo 6.1.158\n' >"$fake/Makefile"
	git -C "$fake" init -q
	LIST_PREFETCH_CACHE=$scratch/cache expect_failure "$scratch/out" \
		"is Linux '6.1.158', the series is for 6.12.x" \
		"remove .* and run 'scripts/tree.sh'" \
		"$PROJECT_DIR/scripts/apply.sh" || status=1
	rm -rf "$scratch"
	return "$status"
}

# A patch whose context no longer matches the tree: git am must stop,
# the patch must be named, and the worktree must not be left mid-am.
test_patch_that_no_longer_applies_is_named() {
	local scratch status=0 victim wt
	scratch=$(scratch_project)
	victim=$(sed -n 2p "$scratch/patches/series")
	# Change one context line, as a newer tree would.
	sed -i 's|^ #include <linux/poison.h>$| #include <linux/poisoned.h>|' "$scratch/patches/$victim"
	grep -q 'poisoned.h' "$scratch/patches/$victim" || { echo "could not break $victim"; return 1; }
	wt=$scratch/linux
	expect_failure "$scratch/out" \
		"patch '$victim' does not apply to Linux $KERNEL_SERIES" 'rebase it' \
		"$scratch/scripts/apply.sh" "$wt" || status=1
	[ ! -d "$(git -C "$wt" rev-parse --git-path rebase-apply 2>/dev/null || echo /nonexistent)" ] ||
		{ echo "git am left in progress"; status=1; }
	git -C "$TREE_DIR" worktree remove --force "$wt" 2>/dev/null || true
	git -C "$TREE_DIR" worktree prune
	rm -rf "$scratch"
	return "$status"
}

test_missing_package_is_named() {
	local scratch status=0 cache
	scratch=$(scratch_project)
	cache=$(scratch_cache)
	sed -i 's/^QEMU=.*/QEMU=qemu-system-nowhere/' "$scratch/configs/targets/$TARGET.conf"
	LIST_PREFETCH_CACHE=$cache expect_failure "$scratch/out" \
		"'qemu-system-nowhere' not found" \
		"run 'make deps'" \
		"$scratch/scripts/boot.sh" "$TARGET" off qemu || status=1
	rm -rf "$scratch" "$cache"
	return "$status"
}

# small_build_project: a copy of the project whose qemu builds stop at
# one object (lib/list_sort.o): a real kbuild run, minutes not ten.
small_build_project() {
	local scratch
	scratch=$(scratch_project)
	sed -i 's|^BUILD_GOALS=.*|BUILD_GOALS="lib/list_sort.o"|' "$scratch/configs/sets/qemu.conf"
	echo "$scratch"
}

# A cache of symlinks to the real trees, with its own empty build root.
linked_cache() {
	mkdir -p "$1/tree"
	ln -s "$TREE_DIR" "$1/tree/pristine"
	ln -s "$SERIES_DIR" "$1/tree/series"
}

# results_digest: one hash of everything under results/ but check's logs.
results_digest() {
	find "$REAL_RESULTS_DIR" -path "$CHECK_LOG_DIR" -prune -o -type f -print0 | sort -z |
		xargs -0 cat | sha256sum
}

# SIGINT in the middle of a build: the build stops at once with status
# 130, leaves no finished-build stamp (so boot.sh refuses it rather than
# booting a half-built kernel), and the re-run resumes and completes.
test_interrupted_build_resumes() {
	local project cache status=0 pid rc=0 before
	project=$(small_build_project)
	cache=$project/cache
	linked_cache "$cache"
	before=$(results_digest)
	export LIST_PREFETCH_CACHE=$cache
	# Without ccache the build takes long enough to be caught midway.
	export CCACHE_DISABLE=1
	"$project/scripts/configure.sh" "$TARGET" off qemu >"$project/configure.log" 2>&1 ||
		{ cat "$project/configure.log"; return 1; }
	local out=$cache/build/$TARGET-qemu-off
	# Job control: the build gets its own process group, and SIGINT is
	# not ignored in it as it would be in a plain background job; the
	# signal goes to the whole group, as Ctrl-C in a terminal does.
	# And SIGINT set back to its default: make check started in the
	# background inherits it ignored, and a shell cannot trap a signal
	# that was ignored when it started.
	set -m
	env --default-signal=INT "$project/scripts/build.sh" "$TARGET" off qemu >"$project/build1.log" 2>&1 &
	pid=$!
	set +m
	# Interrupt once make is under way: its first host tool (fixdep) is
	# built, objtool and the object are not. Not by lines of build.log:
	# make's output to a file comes in 4 KiB blocks, all of this build's
	# at once when it ends.
	while kill -0 "$pid" 2>/dev/null && [ ! -x "$out/scripts/basic/fixdep" ]; do
		sleep 0.2
	done
	sleep 1
	kill -0 "$pid" 2>/dev/null || { echo "the build ended before it could be interrupted"; return 1; }
	kill -INT -- "-$pid"
	wait "$pid" || rc=$?
	echo "interrupted build exited with $rc after $(grep -c . "$out/build.log") lines of make output"
	[ "$rc" -eq 130 ] || { echo "the interrupted build did not exit with 130 (SIGINT)"; status=1; }
	[ ! -f "$out/.lp-build" ] || { echo "an interrupted build left a finished-build stamp"; status=1; }
	expect_failure "$project/boot.log" "has no finished build" "run 'scripts/build.sh" \
		"$project/scripts/boot.sh" "$TARGET" off qemu || status=1
	if "$project/scripts/build.sh" "$TARGET" off qemu >"$project/build2.log" 2>&1; then
		echo "re-run: $(grep -E '^build: ' "$project/build2.log")"
	else
		tail -n 5 "$project/build2.log"
		status=1
	fi
	if [ ! -f "$out/.lp-build" ] || [ ! -f "$out/lib/list_sort.o" ]; then
		echo "the re-run did not finish"
		status=1
	fi
	[ "$(results_digest)" = "$before" ] || { echo "results/ changed"; status=1; }
	rm -rf "$project"
	return "$status"
}

# The disk fills up during a build (a 4 MiB tmpfs as the build root):
# the error says so, names the fix, and results/ is untouched.
test_disk_full_is_named() {
	[ "$(id -u)" = 0 ] || { echo "needs root to mount a small tmpfs"; return "$SKIP"; }
	local project cache status=0 before
	project=$(small_build_project)
	cache=$project/cache
	linked_cache "$cache"
	mkdir -p "$cache/build"
	mount -t tmpfs -o size=4m list-prefetch-check "$cache/build"
	before=$(results_digest)
	LIST_PREFETCH_CACHE=$cache "$project/scripts/configure.sh" "$TARGET" off qemu >/dev/null 2>&1 &&
		LIST_PREFETCH_CACHE=$cache expect_failure "$project/out" \
			'the disk is full: build of .* stopped' 'free space there' \
			"$project/scripts/build.sh" "$TARGET" off qemu || status=1
	[ "$(results_digest)" = "$before" ] || { echo "results/ changed"; status=1; }
	umount "$cache/build"
	rm -rf "$project"
	return "$status"
}

# --- sizes ----------------------------------------------------------------

# objects_of FILTER: the off build's objects of the .c files the series
# touches, FILTER being git's --diff-filter (M modified, A added).
objects_of() {
	local out file
	out=$(build_dir "$TARGET" qemu off)
	git -C "$SERIES_DIR" diff --name-only --diff-filter="$1" pristine HEAD -- '*.c' |
		while read -r file; do
			[ ! -f "$out/${file%.c}.o" ] || echo "$out/${file%.c}.o"
		done
}

test_sizes_qemu() {
	"$PROJECT_DIR/scripts/sizes.sh" qemu "$TARGET" || return 1
	local -a touched added
	mapfile -t touched < <(objects_of M)
	mapfile -t added < <(objects_of A)
	python3 "$PROJECT_DIR/scripts/size_checks.py" "$RESULTS_DIR/sizes-qemu.json" \
		--touched "${touched[@]}" --added "${added[@]}"
}

# --- runner --------------------------------------------------------------

FAST_TESTS=(
	test_shellcheck
	test_data_files_load
	test_series_file_complete
	test_series_applies_to_fresh_tree
	test_checkpatch_strict
	test_guest_programs
	test_bench_walkers_unit_tests
	test_bench_quick
	test_apply_series
	test_cocci_corpus
	test_audit
)

HARNESS_TESTS=(
	test_parse_fails_on_warning
	test_parse_fails_on_oops
	test_parse_fails_on_failed_case
	test_parse_fails_on_missing_suite
	test_parse_fails_without_init
	test_boot_fails_on_timeout
	test_boot_fails_on_panic
	test_configure_names_lost_options
	test_tree_missing_is_named
	test_tree_wrong_version_is_named
	test_patch_that_no_longer_applies_is_named
	test_missing_package_is_named
	test_interrupted_build_resumes
	test_disk_full_is_named
	test_sizes_qemu
)

# target_tests: for every target under configs/targets/, its boots and
# the checks of their results. A new target needs no change here.
target_tests() {
	local target variant
	for target in $(all_targets); do
		for variant in $(checked_variants "$target"); do
			echo "test_boot $target $variant"
		done
		echo "test_list_prefetch_default $target"
		echo "test_kunit_suites $target"
		echo "test_iterator_prefetch_sites $target"
	done
}

# debug_tests: the debug set's boots and the check of what they ran.
debug_tests() {
	local target variant
	for target in $(set_targets debug); do
		for variant in $(checked_variants "$target"); do
			echo "test_debug_boot $target $variant"
		done
		echo "test_debug_checkers_ran $target"
	done
}

# all_tests: x86_64 first, as the harness tests borrow its builds.
all_tests() {
	printf '%s\n' "${FAST_TESTS[@]}"
	target_tests | awk '$2 == "x86_64"'
	printf '%s\n' "${HARNESS_TESTS[@]}"
	debug_tests
	echo test_guest_bench_quick
	target_tests | awk '$2 != "x86_64"'
}

# failure_gallery: what each provoked fault printed (its error:, FAIL:
# and fix: lines, as expect_failure found them), for the README; scratch
# paths shortened to "...".
failure_gallery() {
	local name logfile
	for name in "${HARNESS_TESTS[@]}"; do
		logfile=$CHECK_LOG_DIR/$name.log
		if [ ! -f "$logfile" ] || ! grep -q '^results/ intact$' "$logfile"; then
			continue
		fi
		echo "$name:"
		grep -E '^ *(error|fix|FAIL|did not survive)' "$logfile" |
			sed -E "s|/tmp/tmp\.[A-Za-z0-9]+|...|g; s|$LIST_PREFETCH_CACHE|~/.cache/list-prefetch|g; s|^ *|  |"
	done
}

# run_test 'FUNCTION [ARG...]': one test, its output in its own log.
run_test() {
	local name=$1 logfile status=0 t0
	local -a words
	read -ra words <<<"$name"
	logfile=$CHECK_LOG_DIR/$(echo "$name" | tr ' ' '-').log
	t0=$(date +%s)
	( set -euo pipefail; "${words[@]}" ) >"$logfile" 2>&1 || status=$?
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
	if [ "${1:-}" = --list ]; then
		all_tests
		return 0
	fi
	local passed=0 failed=0 skipped=0 name selected=("$@")
	[ ${#selected[@]} -gt 0 ] || mapfile -t selected < <(all_tests)
	mkdir -p "$CHECK_LOG_DIR"
	"$PROJECT_DIR/scripts/tree.sh" >"$CHECK_LOG_DIR/tree.log" 2>&1 || {
		tail -n 5 "$CHECK_LOG_DIR/tree.log" >&2
		echo "0 passed, ${#selected[@]} failed"
		exit 1
	}
	local t0=$SECONDS
	for name in "${selected[@]}"; do
		run_test "$name"
	done
	failure_gallery | write_atomic "$RESULTS_DIR/failures.txt"
	echo "wall time: $((SECONDS - t0))s for ${#selected[@]} tests (host: $(host_description))"
	if [ "$skipped" -gt 0 ]; then
		echo "$passed passed, $failed failed, $skipped skipped"
	else
		echo "$passed passed, $failed failed"
	fi
	[ "$failed" -eq 0 ]
}

main "$@"; exit
