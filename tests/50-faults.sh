# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The harness fails loudly: each test provokes one fault (a doctored
# console log, a guest that hangs or panics, a broken copy of the
# project or of the tree, an interrupted build, a full disk, a held
# lock) and asserts the error names its cause and its fix, the exit
# status is non-zero and results/ is unchanged. They run the stage
# scripts against scratch caches; those that need a kernel borrow the
# x86_64 default build (fixture_boot: made if missing, or the test skips).
# shellcheck disable=SC2317 # functions called by name

plan_faults() {
	cat <<'PLAN'
check:cache 3600 test_parse_fails_on_warning
check:cache 120 test_parse_fails_on_oops
check:cache 120 test_parse_fails_on_failed_case
check:cache 120 test_parse_fails_on_missing_suite
check:cache 120 test_parse_fails_without_init
check:cache 120 test_parse_fails_on_expedited_stall
check:cache 120 test_parse_fails_on_arm64_call_trace
check:cache 120 test_parse_fails_on_slub_report
check:cache 120 test_parse_fails_on_kcsan_report
check:cache 120 test_parse_sets_aside_a_known_race
check:cache 120 test_boot_fails_on_timeout
check:cache 120 test_boot_fails_on_panic
check:cache 300 test_configure_names_lost_options
check:cache 60 test_tree_missing_is_named
check:cache 60 test_tree_wrong_version_is_named
check:cache 300 test_patch_that_no_longer_applies_is_named
check:cache 120 test_missing_package_is_named
check:cache 600 test_interrupted_build_resumes
check:cache 600 test_disk_full_is_named
check:cache 60 test_alt_prefetches_reads_rex_prefixes
check:cache 60 test_count_prefetches_reads_arm64
check:cache 60 test_result_of_an_earlier_run_is_refused
check:cache 30 test_apt_update_outlasts_a_mirror_sync
check:cache 60 test_report_goes_on_past_a_failed_step
check:cache 60 test_report_remakes_one_table_alone
PLAN
}

# after_run: what each provoked fault printed (its error:, FAIL: and
# fix: lines, as expect_failure found them), for the README; scratch
# paths shortened to "...". Run by check.sh once all tests ran; only
# from this run's logs, and only when this run ran every fault test (a
# run of some tests leaves the last whole gallery).
after_run() {
	local name logfile gallery
	for name in $(plan_faults | awk '$3 ~ /^test_/ { print $3 }'); do
		grep -qxF "$name.log" "$CHECK_RUN_DIR/logs" 2>/dev/null || return 0
	done
	gallery=$(
		for name in $(plan_faults | awk '$3 ~ /^test_/ { print $3 }'); do
			logfile=$CHECK_LOG_DIR/$name.log
			if [ ! -f "$logfile" ] || ! grep -q '^results/ intact$' "$logfile"; then continue; fi
			echo "$name:"
			grep -E '^ *(error|fix|FAIL|did not survive)' "$logfile" |
				sed -E "s|/tmp/tmp\.[A-Za-z0-9]+|...|g; s|$LIST_PREFETCH_CACHE|~/.cache/list-prefetch|g; s|^ *|  |"
		done
	)
	[ -z "$gallery" ] || { result_stamp "make check"; echo "$gallery"; } |
		write_atomic "$RESULTS_DIR/failures.txt"
}

# parse_doctored_log SED_SCRIPT PATTERN: parse.sh on the default boot's log
# edited by SED_SCRIPT must fail, say PATTERN and name the log.
parse_doctored_log() {
	local scratch status=0
	scratch=$(scratch_cache)
	sed -i "$1" "$scratch/build/x86_64-qemu-default/console.log"
	LIST_PREFETCH_CACHE=$scratch RESULTS_DIR=$scratch/results \
		expect_failure "$scratch/out" "$2" 'a failed case names its suite' \
		"$PROJECT_DIR/scripts/parse.sh" x86_64 default qemu || status=1
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
	parse_doctored_log 's/ ok \([0-9]*\) list_prefetch_test_skb_queue_walk\(\r\{0,1\}\)$/ not ok \1 list_prefetch_test_skb_queue_walk\2/' \
		'suite list_prefetch: 1 failed: list_prefetch_test_skb_queue_walk'
}

test_parse_fails_on_missing_suite() {
	# shellcheck disable=SC2016 # a sed script: $ is the last line
	parse_doctored_log '/# Subtest: list_prefetch/,$d' 'suite list_prefetch is missing'
}

test_parse_fails_without_init() {
	parse_doctored_log '/list-prefetch: guest/d' 'the guest never reached init'
}

# RCU's expedited grace periods report their stalls in words of their
# own ("detected expedited stalls"), not caught by "detected stalls".
test_parse_fails_on_expedited_stall() {
	parse_doctored_log '/# Subtest: hlist/i [   21.0] rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: { 1-... } 21 jiffies s: 113 root: 0x2/.' \
		'splat: rcu: INFO: rcu_preempt detected expedited stalls'
}

# arm64 prints its backtraces as "Call trace:", x86 as "Call Trace:".
test_parse_fails_on_arm64_call_trace() {
	parse_doctored_log '/# Subtest: hlist/i [    1.0] Call trace:\n[    1.0]  hlist_test_for_each+0x20/0x60' \
		'splat: Call trace:'
}

# SLUB's consistency checks say "BUG <cache> (<taint>): <what>", with no
# colon after BUG.
test_parse_fails_on_slub_report() {
	parse_doctored_log '/# Subtest: hlist/i [    1.0] BUG kmalloc-64 (Not tainted): Poison overwritten' \
		'splat: BUG kmalloc-64 \(Not tainted\): Poison overwritten'
}

# A KCSAN report of a race the known list does not name fails the boot,
# though its function is one the list names for a race with another.
test_parse_fails_on_kcsan_report() {
	parse_doctored_log '/# Subtest: hlist/i [    1.0] BUG: KCSAN: data-race in wq_worker_running / hlist_test_for_each' \
		'splat: BUG: KCSAN: data-race in wq_worker_running / hlist_test_for_each'
}

# A race configs/kcsan-known-races.txt lists is set aside, named, and
# does not fail the boot: one of unknown origin, titled with an offset
# its build gave it, is matched without it.
test_parse_sets_aside_a_known_race() {
	local scratch status=0
	scratch=$(scratch_cache)
	sed -i '/# Subtest: hlist/i [    1.0] BUG: KCSAN: data-race in wq_worker_running+0x1a/0xcb' \
		"$scratch/build/x86_64-qemu-default/console.log"
	LIST_PREFETCH_CACHE=$scratch RESULTS_DIR=$scratch/results \
		"$PROJECT_DIR/scripts/parse.sh" x86_64 default qemu >"$scratch/out" 2>&1 || status=1
	cat "$scratch/out"
	[ "$status" -eq 0 ] || echo "parse.sh failed on a known race"
	grep -q 'known race, outside the series (configs/kcsan-known-races.txt): BUG: KCSAN: data-race in wq_worker_running+0x1a/0xcb$' \
		"$scratch/out" || { echo "the known race is not named"; status=1; }
	rm -rf "$scratch"
	return "$status"
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
	LIST_PREFETCH_CACHE=$cache BOOT_TIMEOUT=15 expect_failure "$project/out" \
		'QEMU did not exit within 15s .*console log: ' \
		'.*BOOT_TIMEOUT' \
		"$project/scripts/boot.sh" x86_64 default qemu || status=1
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
	"$project/scripts/boot.sh" x86_64 default qemu >"$project/boot.log" 2>&1 ||
		{ echo "boot.sh failed:"; tail -n 5 "$project/boot.log"; return 1; }
	expect_failure "$project/out" \
		'splat: Kernel panic - not syncing: Attempted to kill init' \
		'a failed case names its suite' \
		"$project/scripts/parse.sh" x86_64 default qemu || status=1
	grep -q 'console log: ' "$project/out" || { echo "the log path is not named"; status=1; }
	rm -rf "$project" "$cache"
	return "$status"
}

test_configure_names_lost_options() {
	# Scratch builds: not builds of the run (check.sh's build list).
	unset STAGE_TIMES_FILE
	local scratch status=0
	scratch=$(mktemp -d)
	linked_cache "$scratch/cache"
	# A copy of the project whose default variant switches off SHMEM, on
	# which the qemu fragment's CONFIG_TMPFS=y depends.
	cp -r "$PROJECT_DIR/scripts" "$PROJECT_DIR/configs" "$scratch/"
	printf '# CONFIG_SHMEM is not set\n' >>"$scratch/configs/variants/default.config"
	LIST_PREFETCH_CACHE=$scratch/cache expect_failure "$scratch/out" \
		'did not survive olddefconfig: CONFIG_TMPFS=y' \
		'.*menuconfig' \
		"$scratch/scripts/configure.sh" x86_64 default qemu || status=1
	rm -rf "$scratch"
	return "$status"
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
	# The patch of <linux/list.h>, whose context holds the include below.
	victim=$(grep -l '^+++ b/include/linux/list.h' "$scratch"/patches/0*.patch | head -n 1)
	victim=${victim##*/}
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
	sed -i 's/^QEMU=.*/QEMU=qemu-system-nowhere/' "$scratch/configs/targets/x86_64.conf"
	LIST_PREFETCH_CACHE=$cache expect_failure "$scratch/out" \
		"'qemu-system-nowhere' not found" \
		"run 'make deps'" \
		"$scratch/scripts/boot.sh" x86_64 default qemu || status=1
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

# SIGINT in the middle of a build: the build stops at once with status
# 130, leaves no finished-build stamp (so boot.sh refuses it rather than
# booting a half-built kernel), and the re-run resumes and completes.
test_interrupted_build_resumes() {
	# Scratch builds: not builds of the run (check.sh's build list).
	unset STAGE_TIMES_FILE
	local project cache status=0 pid rc=0 before
	project=$(small_build_project)
	cache=$project/cache
	linked_cache "$cache"
	before=$(results_digest)
	export LIST_PREFETCH_CACHE=$cache
	"$project/scripts/configure.sh" x86_64 default qemu >"$project/configure.log" 2>&1 ||
		{ cat "$project/configure.log"; return 1; }
	local out=$cache/build/x86_64-qemu-default
	# Job control: the build gets its own process group, and SIGINT is
	# not ignored in it as it would be in a plain background job; the
	# signal goes to the whole group, as Ctrl-C in a terminal does.
	# And SIGINT set back to its default: make check started in the
	# background inherits it ignored, and a shell cannot trap a signal
	# that was ignored when it started.
	set -m
	# Without ccache the build takes long enough to be caught midway; the
	# re-run has it (a warm cache serves the scratch build's compiles).
	env --default-signal=INT CCACHE_DISABLE=1 "$project/scripts/build.sh" x86_64 default qemu \
		>"$project/build1.log" 2>&1 &
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
		"$project/scripts/boot.sh" x86_64 default qemu || status=1
	if "$project/scripts/build.sh" x86_64 default qemu >"$project/build2.log" 2>&1; then
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
	# Scratch builds: not builds of the run (check.sh's build list).
	unset STAGE_TIMES_FILE
	[ "$(id -u)" = 0 ] || skip "needs root to mount a small tmpfs"
	local project cache status=0 before
	project=$(small_build_project)
	cache=$project/cache
	linked_cache "$cache"
	mkdir -p "$cache/build"
	mount -t tmpfs -o size=4m list-prefetch-check "$cache/build"
	before=$(results_digest)
	LIST_PREFETCH_CACHE=$cache "$project/scripts/configure.sh" x86_64 default qemu >/dev/null 2>&1 &&
		LIST_PREFETCH_CACHE=$cache expect_failure "$project/out" \
			'the disk is full: build of .* stopped' 'free space there' \
			"$project/scripts/build.sh" x86_64 default qemu || status=1
	[ "$(results_digest)" = "$before" ] || { echo "results/ changed"; status=1; }
	umount "$cache/build"
	rm -rf "$project"
	return "$status"
}


# alt_prefetches.py decodes the replacement bytes of x86 alternatives:
# fed what the assembler makes of each prefetch, REX-prefixed ones
# ("41 0f 0d 08" is prefetchw (%r8)) among them, it names every one.
test_alt_prefetches_reads_rex_prefixes() {
	local scratch
	scratch=$(mktemp -d)
	cat >"$scratch/p.s" <<'ASM'
	prefetchw (%rax)
	prefetchw (%r8)
	prefetchnta (%r9)
	prefetcht0 0x10(%r12)
	prefetcht1 (%rbx)
	prefetcht2 (%r15)
	prefetch (%r13)
	nop
ASM
	as --64 -o "$scratch/p.o" "$scratch/p.s"
	objdump -d "$scratch/p.o" | sed -n 's/^ *[0-9a-f]*:\t\([0-9a-f ]*\)\t\([a-z0-9]*\).*/\1|\2/p' >"$scratch/insns"
	cat "$scratch/insns"
	# Seven prefetches and a nop, or nothing was compared.
	[ "$(grep -c '|prefetch' "$scratch/insns")" -eq 7 ] ||
		{ echo "objdump listed $(grep -c '|prefetch' "$scratch/insns") of the 7 prefetches"; return 1; }
	python3 - "$PROJECT_DIR/scripts/lib" "$scratch/insns" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from alt_prefetches import prefetch_mnemonic
bad = 0
for line in open(sys.argv[2]):
    code, want = line.strip().split("|")
    got = prefetch_mnemonic(bytes.fromhex(code.replace(" ", "")))
    want = want if want.startswith("prefetch") else None
    print(f"{code:<24} objdump: {want}, decoded: {got}")
    bad += got != want
sys.exit(1 if bad else 0)
PY
	rm -rf "$scratch"
}

# count-prefetches.sh counts arm64's prefetches, prfm and the unscaled
# prfum alike, by operation, in an object the cross assembler made.
test_count_prefetches_reads_arm64() {
	need_cmd aarch64-linux-gnu-as gcc-aarch64-linux-gnu
	local scratch out
	scratch=$(mktemp -d)
	printf '\t%s\n' 'prfm pldl1keep, [x0]' 'prfum pldl1keep, [x0, #-8]' 'prfm pstl1keep, [x1, #64]' \
		'prfum pstl1strm, [x2, #3]' 'nop' >"$scratch/p.s"
	aarch64-linux-gnu-as -o "$scratch/p.o" "$scratch/p.s"
	out=$(CROSS_COMPILE=aarch64-linux-gnu- "$PROJECT_DIR/scripts/count-prefetches.sh" "$scratch/p.o")
	echo "$out"
	rm -rf "$scratch"
	local want
	for want in total=4 insn_prfm=2 insn_prfum=2 prfm_pldl1keep=2 prfm_pstl1keep=1 prfm_pstl1strm=1; do
		grep -qx "$want" <<<"$out" || { echo "missing: $want"; return 1; }
	done
}

# A test never judges a file this run did not produce: a passing boot
# result left by an earlier run (its boot failed or did not run this
# time) is refused by name, and so is one whose build was redone since.
test_result_of_an_earlier_run_is_refused() {
	local scratch out status=0
	scratch=$(mktemp -d)
	mkdir -p "$scratch/results"
	printf '{"run_id": "check-earlier", "status": "pass", "list_prefetch": "n", "suites": {}}\n' \
		>"$scratch/results/boot-x86_64-qemu-default.json"
	if out=$(RESULTS_DIR=$scratch/results result_field x86_64 default 'r["status"]' 2>&1); then
		echo "an earlier run's result was taken: $out"
		status=1
	else
		echo "$out"
		grep -q "from run 'check-earlier', not this run" <<<"$out" || status=1
	fi
	rm -rf "$scratch"
	return "$status"
}

# apt_update_shim DIR SUCCEEDS_AT: an apt-get whose update fails like a
# Debian mirror mid-sync until its SUCCEEDS_AT-th call; it counts its
# calls in DIR/calls.
apt_update_shim() {
	local dir=$1 succeeds_at=$2
	mkdir -p "$dir/bin"
	cat >"$dir/bin/apt-get" <<EOF
#!/bin/sh
calls=\$(( \$(cat "$dir/calls" 2>/dev/null || echo 0) + 1 ))
echo "\$calls" >"$dir/calls"
[ "\$calls" -ge $succeeds_at ] && exit 0
echo "E: Failed to fetch .../binary-i386/Packages.xz  File has unexpected size (371952 != 372316). Mirror sync in progress?" >&2
exit 100
EOF
	chmod +x "$dir/bin/apt-get"
}

# CI once failed in its first test because a Debian mirror was mid-sync
# (one index of one architecture): apt_update tries again, and when
# every try fails it warns and goes on, leaving the install to name
# what it cannot find.
test_apt_update_outlasts_a_mirror_sync() {
	local scratch out status=0
	scratch=$(mktemp -d)
	apt_update_shim "$scratch/flaky" 3
	apt_update_shim "$scratch/down" 99
	out=$(PATH=$scratch/flaky/bin:$PATH APT_RETRY_SECONDS=0 \
		bash -c '. "$1/scripts/lib/lab.sh"; apt_update' _ "$PROJECT_DIR" 2>&1) ||
		{ echo "apt_update failed where the third try succeeds:"; echo "$out"; status=1; }
	[ "$(cat "$scratch/flaky/calls")" = 3 ] ||
		{ echo "apt_update called apt-get $(cat "$scratch/flaky/calls") times, not 3"; status=1; }
	out=$(PATH=$scratch/down/bin:$PATH APT_RETRY_SECONDS=0 \
		bash -c '. "$1/scripts/lib/lab.sh"; apt_update' _ "$PROJECT_DIR" 2>&1) ||
		{ echo "apt_update stopped the run when the mirror stayed out of sync"; status=1; }
	[ "$(cat "$scratch/down/calls")" = 3 ] ||
		{ echo "apt_update gave up after $(cat "$scratch/down/calls") tries, not 3"; status=1; }
	grep -q '^warning: apt-get update failed 3 times' <<<"$out" ||
		{ echo "no warning after three failed updates:"; echo "$out"; status=1; }
	[ "$status" -ne 0 ] || echo "apt-get update: retried to success after 2 failures; warned after 3"
	rm -rf "$scratch"
	return "$status"
}

# make report runs its steps in order (the benchmarks on an idle machine
# first, then the boots of REPORT_TARGETS, the option's size, the
# verdict); a step that fails (here the UML run) is named, the later
# steps still run, the summary is written from what exists, and the
# run exits non-zero. The stage scripts are stand-ins that log their
# arguments: no tree, no build.
test_report_goes_on_past_a_failed_step() {
	local scratch stage status=0
	scratch=$(scratch_project)
	for stage in tree apply bench uml-bench configure build boot parse sizes; do
		# shellcheck disable=SC2016 # $* and $STEP_LOG are the stand-in's
		printf '#!/bin/sh\necho "%s $*" >>"$STEP_LOG"\n' "$stage" >"$scratch/scripts/$stage.sh"
	done
	printf 'exit 1\n' >>"$scratch/scripts/uml-bench.sh"
	if STEP_LOG=$scratch/steps LIST_PREFETCH_CACHE=$scratch/cache \
		REPORT_TARGETS="x86_64 i386-mk7" bash "$scratch/scripts/report.sh" >"$scratch/out" 2>&1; then
		echo "report.sh exited 0 with a failed step"
		status=1
	fi
	cat >"$scratch/want" <<'STEPS'
tree
apply
bench
uml-bench --short
configure x86_64 default qemu
build x86_64 default qemu
boot x86_64 default qemu
parse x86_64 default qemu
configure x86_64 on qemu
build x86_64 on qemu
boot x86_64 on qemu
parse x86_64 on qemu
configure i386-mk7 default qemu
build i386-mk7 default qemu
boot i386-mk7 default qemu
parse i386-mk7 default qemu
sizes --option qemu x86_64
bench --verdict
STEPS
	sed -i 's/ *$//' "$scratch/steps" 2>/dev/null || true
	diff -u "$scratch/want" "$scratch/steps" ||
		{ echo "report.sh: want the steps above, in this order"; status=1; }
	grep -Fq "step 'uml-bench' failed; going on with the others" "$scratch/out" ||
		{ echo "report.sh: the failed step is not named"; status=1; }
	grep -Fq 'failed steps: uml-bench' "$scratch/out" ||
		{ echo "report.sh: the closing line does not name the failed step"; status=1; }
	if ! { grep -q '^list-prefetch report (make report)' "$scratch/results/report.txt" &&
		grep -Eq '^ +x86_64 +default +\(no result' "$scratch/results/report.txt"; } 2>/dev/null; then
		echo "report.sh: results/report.txt lacks the header or the x86_64 default row"
		status=1
	fi
	tail -n 5 "$scratch/out"
	rm -rf "$scratch"
	return "$status"
}

# report.sh --table kcsan (make kcsan): runs through check.sh exactly
# the KCSAN boots and checks of make check-all's plan, in one run, and
# writes results/kcsan.txt from that run's boots; a failing test makes
# it exit non-zero with the table still written. check.sh is a stand-in
# that prints a plan and writes a boot result per test_kcsan_boot.
test_report_remakes_one_table_alone() {
	local scratch status=0 run_status
	scratch=$(scratch_project)
	mkdir -p "$scratch/results"
	cat >"$scratch/scripts/check.sh" <<'STANDIN'
#!/bin/sh
if [ "$1" = --tier ]; then
	printf '%s\n' "all 3600 test_kcsan_boot x86_64 default" \
		"all 60 test_kcsan_checked_the_walks x86_64 default" \
		"all 3600 test_kcsan_boot x86_64 on" "all 60 test_kcsan_checked_the_walks x86_64 on" \
		"all 5400 test_kcsan_catches_a_plain_next_load x86_64" "all 3600 test_debug_boot x86_64 on"
	exit 0
fi
for spec; do
	echo "$spec" >>"$STEP_LOG"
	set -- $spec
	[ "$1" = test_kcsan_boot ] || continue
	printf '{"run_id": "%s", "target": "%s", "variant": "%s", "list_prefetch": "%s", "status": "pass", "splats": [], "problems": [], "guest_output": ["rcutorture: End of test: SUCCESS"], "suites": {"list_prefetch": {"passed": 9, "failed": 0}}}\n' \
		"$LIST_PREFETCH_RUN_ID" "$2" "$3" "$([ "$3" = on ] && echo y || echo n)" >"$RESULTS_DIR/boot-$2-kcsan-$3.json"
done
exit "${STANDIN_STATUS:-0}"
STANDIN
	chmod +x "$scratch/scripts/check.sh"
	STEP_LOG=$scratch/steps RESULTS_DIR=$scratch/results LIST_PREFETCH_CACHE=$scratch/cache \
		bash "$scratch/scripts/report.sh" --table kcsan >"$scratch/out" 2>&1 ||
		{ echo "report.sh --table kcsan failed:"; cat "$scratch/out"; status=1; }
	printf '%s\n' "test_kcsan_boot x86_64 default" "test_kcsan_checked_the_walks x86_64 default" \
		"test_kcsan_boot x86_64 on" "test_kcsan_checked_the_walks x86_64 on" >"$scratch/want"
	diff -u "$scratch/want" "$scratch/steps" ||
		{ echo "report.sh --table kcsan: want exactly these tests, in one run"; status=1; }
	cat "$scratch/results/kcsan.txt"
	if [ "$(grep -Ec '^ +x86_64 +(default|on) +LIST_PREFETCH=[ny] pass ' "$scratch/results/kcsan.txt")" -ne 2 ]; then
		echo "results/kcsan.txt: want a row of this run for x86_64 default and on"
		status=1
	fi
	: >"$scratch/steps"
	run_status=0
	STANDIN_STATUS=1 STEP_LOG=$scratch/steps RESULTS_DIR=$scratch/results LIST_PREFETCH_CACHE=$scratch/cache \
		bash "$scratch/scripts/report.sh" --table kcsan >"$scratch/out" 2>&1 || run_status=$?
	[ "$run_status" -ne 0 ] || { echo "report.sh --table exited 0 with a failed test"; status=1; }
	[ -s "$scratch/results/kcsan.txt" ] || { echo "no table after a failed test"; status=1; }
	rm -rf "$scratch"
	return "$status"
}
