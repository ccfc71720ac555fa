#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# report.sh - the main job, make report: what a newcomer asks first, in
# the time a first run should take. The host benchmark and its verdicts,
# the kernel's own iterators under UML (a short run of the default
# kernel, whose boots time both forms, with their verdicts), the K7 and
# x86_64 kernels built and booted in QEMU with their KUnit suites
# (boot_variant, lab.sh), and the option's size cost in the qemu config
# (default against on); then a summary of what the stages left in
# results/, written to results/report.txt.
#
# With --all (make report-all): make check-all (every target, the debug
# and KCSAN kernels, sizes, codegen, the fault tests), then every long
# measurement (the host benchmark, the full UML run, the in-guest A/B,
# the sizes of the qemu config and of defconfig), summed up in
# results/report-all.txt with the targets, debug and kcsan tables.
#
# A stage that fails is reported and the rest of the report still
# printed from the results that exist; the exit status says it failed.
# With --summary-only, only the summary of --all from the results that
# exist (and results/targets.txt, debug.txt and kcsan.txt from them);
# with --section NAME RUN_ID, one of those tables for the boots of one
# run (make check-all's, whose run id its log names); with --table NAME
# (make kcsan, make debug, make targets), the table's boots run alone,
# then the table.
# shellcheck disable=SC2317 # functions called by name (tests, steps)
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

# The target of the size builds; boots cover every target (TARGETS),
# make report's only REPORT_TARGETS.
TARGET=${TARGET:-x86_64}
TARGETS=${TARGETS:-$(all_targets | tr '\n' ' ')}
REPORT_TARGETS=${REPORT_TARGETS:-x86_64 i386-mk7}
# defconfig takes about an hour cold on 2 cores; SIZE_CONFIGS=qemu skips it.
SIZE_CONFIGS=${SIZE_CONFIGS:-qemu defconfig}
# Boots per variant of the in-guest A/B (make guest-bench).
GUEST_BENCH_RUNS=${GUEST_BENCH_RUNS:-5}
FAILED_STEPS=()

# --- pipeline --------------------------------------------------------------

# step NAME CMD...: run one step of the pipeline; a failure is recorded
# and the pipeline goes on, so one broken step loses no other result.
step() {
	local name=$1
	shift
	if ! "$@"; then
		FAILED_STEPS+=("$name")
		log "report: step '$name' failed; going on with the others"
	fi
}

# run_main: make report's steps. The benchmarks first, on an idle
# machine (the UML kernel is built before its boots are timed); the
# sizes take the x86_64 builds the boots made; the verdict is written
# again to cite this run's sizes.
run_main() {
	local target variant
	"$PROJECT_DIR/scripts/tree.sh" || return 1
	"$PROJECT_DIR/scripts/apply.sh" || return 1
	step bench "$PROJECT_DIR/scripts/bench.sh"
	step uml-bench "$PROJECT_DIR/scripts/uml-bench.sh" --short
	for target in $REPORT_TARGETS; do
		for variant in $(boot_variants "$target"); do
			step "boot $target $variant" boot_variant "$target" "$variant"
		done
	done
	step "option size" "$PROJECT_DIR/scripts/sizes.sh" --option qemu "$TARGET"
	step verdict "$PROJECT_DIR/scripts/bench.sh" --verdict
}

# run_all: make check-all (every build, boot, debug kernel, the codegen
# comparison, sizes of the qemu config, the short A/B, the audit, the
# fault tests), then the long measurements: the host benchmark, the
# kernel's walks under UML, the in-guest A/B, the sizes.
run_all() {
	local config
	"$PROJECT_DIR/scripts/tree.sh" || return 1
	"$PROJECT_DIR/scripts/apply.sh" || return 1
	step check-all check_all_recorded
	# The benchmark first among the measurements: it wants an idle machine.
	step bench "$PROJECT_DIR/scripts/bench.sh"
	# The kernel's own walks on the real CPU (UML): idle machine too.
	step uml-bench "$PROJECT_DIR/scripts/uml-bench.sh"
	step guest-bench "$PROJECT_DIR/scripts/guest-bench.sh" --runs "$GUEST_BENCH_RUNS"
	for config in $SIZE_CONFIGS; do
		step "sizes $config" "$PROJECT_DIR/scripts/sizes.sh" "$config" "$TARGET"
	done
}

# check_all_recorded: make check-all, its output kept as the record of a
# check-all run (results/check-all.txt, the timing the README's tiers
# quote), so a report does not need a second check-all to be timed.
check_all_recorded() {
	(cd "$PROJECT_DIR" && scripts/record-run.sh check-all scripts/check.sh --tier all)
}

# --- sections ----------------------------------------------------------------

# stale RESULT_JSON: says so when a result is not of this report's run
# (its boot failed or did not run this time: the file is an earlier one).
stale() {
	local run
	run=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("run_id", "none"))' "$1")
	[ "$run" != "$LIST_PREFETCH_RUN_ID" ] || return 1
	echo "(stale: from run $run, not this one)"
}

# target_row TARGET VARIANT: one line of the targets table.
target_row() {
	local result=$RESULTS_DIR/boot-$1-qemu-$2.json out counts
	out=$(build_dir "$1" qemu "$2")
	if [ ! -f "$result" ] || [ ! -f "$out/.lp-build" ]; then
		printf '  %-10s %-8s (no result: the pipeline did not get to it)\n' "$1" "$2"
		return
	fi
	local why
	if why=$(stale "$result"); then
		printf '  %-10s %-8s %s\n' "$1" "$2" "$why"
		return
	fi
	counts=$(load_target "$1" && "$PROJECT_DIR/scripts/count-prefetches.sh" "$out/vmlinux")
	python3 - "$result" "$(load_target "$1" && echo "$LIST_PREFETCH_DEFAULT")" "$counts" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
counts = dict(line.split("=", 1) for line in sys.argv[3].split())
suites = " ".join(f"{s['passed']}/{s['failed']}" for _, s in sorted(r["suites"].items()))
features = r.get("cpu_prefetch_features", "?") or "?"
print(f"  {r['target']:<10} {r['variant']:<8} {sys.argv[2]:<4} {r['list_prefetch']:<4} "
      f"{counts['total']:>6} {counts['alt_prefetch_sites']:>6} {r['status']:<6} {suites:<22} "
      f"{float(r['boot_seconds']):>6.1f}s  {features}")
prfm = {k[5:]: v for k, v in counts.items() if k.startswith("prfm_")}
if prfm:
    print("             prfm by operation: " + ", ".join(f"{k} {v}" for k, v in sorted(prfm.items()))
          + " (prefetch() is pldl1keep, prefetchw() pstl1keep)")
for p in r["problems"]:
    print(f"             problem: {p}")
PY
}

section_targets() {
	local target variant
	echo "Targets (qemu config). dflt: LIST_PREFETCH's default for the target; got: the"
	echo "booted kernel's; text: prefetch instructions in vmlinux (objdump -d); alt: x86"
	echo "alternatives that patch one in; KUnit passed/failed per suite (hlist klist"
	echo "list-kunit-test list_prefetch); boot: TCG, functional only, says nothing about"
	echo "caches; cpu: the guest CPU's sse/3dnowprefetch (which alternative applies)."
	printf '  %-10s %-8s %-4s %-4s %6s %6s %-6s %-22s %7s  %s\n' \
		target variant dflt got text alt status KUnit boot cpu
	for target in $TARGETS; do
		for variant in $(boot_variants "$target"); do
			target_row "$target" "$variant"
		done
	done
}

# section_debug: the debug kernels' boots, their splats and their load.
section_debug() {
	echo "Debug kernels (debug config: KASAN, UBSAN, lockdep, PROVE_RCU, DEBUG_LIST,"
	echo "DEBUG_OBJECTS; 2 CPUs under TCG): KUnit, then guest/stress.c and module"
	echo "load/unload. Any splat fails the boot. Operation counts are TCG: functional only."
	checked_boots debug
}

# section_kcsan: the KCSAN kernels' boots: data-race reports, rcutorture.
section_kcsan() {
	echo "KCSAN kernels (kcsan config: strict KCSAN, PROVE_RCU; 2 CPUs under TCG): KUnit with"
	echo "the concurrent RCU case, guest/stress.c, rcutorture. A KCSAN report fails the boot"
	echo "unless configs/kcsan-known-races.txt lists it (a race in code the series does not touch)."
	checked_boots kcsan
}

# checked_boots SET: per target and variant of SET, its boot's verdict,
# KUnit tally, splats and what its workloads reported.
checked_boots() {
	local set=$1 target variant result why
	for target in $(set_targets "$set"); do
		for variant in $(boot_variants "$target"); do
			result=$RESULTS_DIR/boot-$target-$set-$variant.json
			if [ ! -f "$result" ]; then
				printf '  %-10s %-8s (no result: the pipeline did not get to it)\n' "$target" "$variant"
				continue
			fi
			if why=$(stale "$result"); then
				printf '  %-10s %-8s %s\n' "$target" "$variant" "$why"
				continue
			fi
			python3 - "$result" "$(build_dir "$target" "$set" "$variant")/console.log" <<'PY'
import json, os, re, sys
r = json.load(open(sys.argv[1]))
suites = " ".join(f"{n} {s['passed']}/{s['failed']}" for n, s in sorted(r["suites"].items()))
print(f"  {r['target']:<10} {r['variant']:<4} LIST_PREFETCH={r['list_prefetch']} {r['status']:<5} "
      f"splats {len(r['splats'])}  KUnit passed/failed: {suites}")
for line in r.get("guest_output", []):
    if line.startswith(("stress: ", "rcutorture: ")):
        print(f"      {line}")
try:
    log = open(sys.argv[2], errors="replace").read()
    m = re.search(r"# list_prefetch_test_hlist_rcu_concurrent_writer: (.*)", log)
    if m:
        print(f"      concurrent RCU hlist case: {m.group(1).strip()}")
    if "kcsan: " in log:
        # parse.sh set aside the listed ones beside the log.
        known_file = os.path.join(os.path.dirname(sys.argv[2]), "known-races.txt")
        known = open(known_file).read().splitlines() if os.path.exists(known_file) else []
        reports = len(re.findall("BUG: KCSAN:", log))
        print(f"      KCSAN data-race reports: {reports} ({len(known)} known, outside the series; "
              f"{reports - len(known)} new)")
        for title in known:
            print(f"        known: {title}")
except OSError:
    pass
for p in r["problems"]:
    print(f"      problem: {p}")
PY
		done
	done
}

section_boot_sizes() {
	local target variant out
	echo "size vmlinux of the booted kernels (qemu config)"
	printf '  %9s %9s %9s %9s %9s %s\n' text data bss dec hex filename
	for target in $TARGETS; do
		for variant in $(boot_variants "$target"); do
			out=$(build_dir "$target" qemu "$variant")
			[ -f "$out/.lp-build" ] || { echo "  (no finished build for $target $variant)"; continue; }
			(load_target "$target" && size_row "$out/vmlinux" "$target-$variant") | sed 's/^/  /'
		done
	done
}

# include_result FILE TITLE: a result file another stage wrote, indented.
include_result() {
	local file=$RESULTS_DIR/$1
	echo "$2"
	if [ -f "$file" ]; then
		sed 's/^/  /' "$file"
	else
		echo "  (no $1: its step did not run or failed)"
	fi
}

section_sizes() {
	local config
	for config in $SIZE_CONFIGS; do
		include_result "sizes-$config.txt" "== make sizes CONFIG=$config"
		echo
	done
}

section_toolchains() {
	include_result toolchains-x86_64.txt "== make toolchains (sizes and codegen, gcc and clang)"
}

section_audit() {
	include_result audit.txt "== make audit (coccinelle sweep of the tree)"
}

section_bench() {
	include_result bench.txt "== make bench (host CPU: real timings)"
	[ ! -f "$RESULTS_DIR/bench.png" ] || echo "  plot: results/bench.png"
}

section_uml_bench() {
	include_result uml-bench.txt "== make uml-bench (the kernel's own walks under UML: real timings)"
}

section_uml_short() {
	include_result uml-bench-short.txt "== uml-bench.sh --short (the kernel's own walks under UML: real timings; the full run: make uml-bench)"
}

section_option_size() {
	include_result sizes-qemu-option.txt "== sizes.sh --option qemu (the option's cost: default against on)"
}

section_verdict() {
	include_result verdict.txt "== the verdict in words (bench and sizes of this run)"
}

section_guest_bench() {
	include_result guest-bench.txt "== make guest-bench (in-guest A/B; under TCG functional only)"
}

section_stage_times() {
	echo "Wall time per stage (this run; builds with ccache's hits)"
	[ -s "$STAGE_TIMES_FILE" ] || { echo "  (none)"; return; }
	awk -F'\t' '{ printf "  %-44s %8.1fs  %s\n", $1, $2, $3; total += $2 } END { printf "  %-44s %8.1fs\n", "total", total }' "$STAGE_TIMES_FILE"
}

section_header() {
	echo "list-prefetch report ($REPORT_COMMAND), $(date -u +%Y-%m-%dT%H:%M:%SZ), run $LIST_PREFETCH_RUN_ID"
	echo "  kernel: Linux $(tree_version "$TREE_DIR" 2>/dev/null || echo '?') (Debian linux-source-$KERNEL_SERIES), series: $(grep -vc '^#' "$PROJECT_DIR/patches/series") patches"
	echo "  project: $(git -C "$PROJECT_DIR" rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout')"
	echo "  host: $(host_description); $(gcc --version | head -n 1)"
}

# print_main_report: make report's summary.
# The answer first (the verdict, then the figures behind it), the
# boots and sizes after.
print_main_report() {
	section_header
	echo
	section_verdict
	echo
	section_bench
	echo
	section_uml_short
	echo
	section_option_size
	echo
	section_targets
	echo
	section_boot_sizes
	echo
	section_stage_times
}

# print_report: make report-all's summary.
print_report() {
	section_header
	echo
	section_targets
	echo
	section_boot_sizes
	echo
	section_debug
	echo
	section_kcsan
	echo
	section_sizes
	section_toolchains
	echo
	section_audit
	echo
	section_bench
	echo
	section_uml_bench
	echo
	section_guest_bench
	echo
	section_stage_times
}

# table_tests NAME: the tests of make check-all whose boots the table
# NAME (targets, debug, kcsan) reads, as a pattern of their names.
table_tests() {
	case $1 in
	targets) echo 'test_boot|test_list_prefetch_default|test_kunit_suites|test_iterator_prefetch_sites|test_built_with_clang' ;;
	debug) echo 'test_debug_boot|test_debug_checkers_ran' ;;
	kcsan) echo 'test_kcsan_boot|test_kcsan_checked_the_walks' ;;
	*) die "no table '$1'" "name one of: targets, debug, kcsan" ;;
	esac
}

# run_table NAME: the table NAME of make report-all remade alone: its
# boots run through check.sh (in one run, whose id the table checks),
# then results/NAME.txt written from them. The KCSAN table is two
# kernels, not the hours of make report-all.
run_table() {
	local name=$1 status=0 tests plan line
	local -a specs=()
	tests=$(table_tests "$name")
	plan=$("$PROJECT_DIR/scripts/check.sh" --tier all --list)
	while read -r _ _ line; do
		specs+=("$line")
	done < <(echo "$plan" | grep -E "^[a-z:]+ [0-9]+ ($tests)( |$)")
	[ ${#specs[@]} -gt 0 ] || die "make check-all plans no test for the table '$name'" \
		"see 'scripts/check.sh --tier all --list'"
	LIST_PREFETCH_RUN_ID=table-$name-$(date -u +%Y%m%dT%H%M%SZ)-$$
	export LIST_PREFETCH_RUN_ID
	log "report: the $name table: ${#specs[@]} tests of make check-all, run $LIST_PREFETCH_RUN_ID"
	"$PROJECT_DIR/scripts/check.sh" "${specs[@]}" || status=$?
	STAGE_TIMES_FILE=/dev/null
	write_atomic "$RESULTS_DIR/$name.txt" stamped "section_$name"
	cat "$RESULTS_DIR/$name.txt"
	[ "$status" -eq 0 ] || log "report: some of the $name table's tests failed (above); the table shows each boot"
	return "$status"
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	local status=0
	if [ "${1:-}" = --table ] && [ $# -eq 2 ]; then
		run_table "$2"
		return
	fi
	# --section NAME RUN_ID: one section (targets, debug, kcsan) of the
	# boots of one run (make check-all's, say), as results/NAME.txt.
	if [ "${1:-}" = --section ] && [ $# -eq 3 ]; then
		STAGE_TIMES_FILE=/dev/null LIST_PREFETCH_RUN_ID=$3
		write_atomic "$RESULTS_DIR/$2.txt" stamped "section_$2"
		cat "$RESULTS_DIR/$2.txt"
		return 0
	fi
	if [ "${1:-}" = --summary-only ]; then
		REPORT_COMMAND="make report-all"
		STAGE_TIMES_FILE=$RESULTS_DIR/stage-times.tsv
		LIST_PREFETCH_RUN_ID=$(cat "$RESULTS_DIR/report-all-run-id.txt" 2>/dev/null || echo none)
		write_atomic "$RESULTS_DIR/targets.txt" stamped section_targets
		write_atomic "$RESULTS_DIR/debug.txt" stamped section_debug
		write_atomic "$RESULTS_DIR/kcsan.txt" stamped section_kcsan
		print_report
		return 0
	fi
	local mode=main name=report
	case "${1:-}" in
	--all) mode=all name=report-all ;;
	"") ;;
	*) die "unknown argument '$1'" "usage: $0 [--all | --summary-only | --section NAME RUN_ID | --table NAME]" ;;
	esac
	REPORT_COMMAND="make $name"
	mkdir -p "$RESULTS_DIR"
	STAGE_TIMES_FILE=$RESULTS_DIR/stage-times.tsv
	: >"$STAGE_TIMES_FILE"
	LIST_PREFETCH_RUN_ID=$name-$(date -u +%Y%m%dT%H%M%SZ)-$$
	write_atomic "$RESULTS_DIR/$name-run-id.txt" echo "$LIST_PREFETCH_RUN_ID"
	export STAGE_TIMES_FILE LIST_PREFETCH_RUN_ID
	"run_$mode" || status=$?
	[ ${#FAILED_STEPS[@]} -eq 0 ] || status=1
	write_atomic "$RESULTS_DIR/stage-times.txt" stamped section_stage_times
	if [ "$mode" = all ]; then
		write_atomic "$RESULTS_DIR/targets.txt" stamped section_targets
		write_atomic "$RESULTS_DIR/debug.txt" stamped section_debug
		write_atomic "$RESULTS_DIR/kcsan.txt" stamped section_kcsan
		write_atomic "$RESULTS_DIR/$name.txt" stamped print_report
	else
		TARGETS=$REPORT_TARGETS
		write_atomic "$RESULTS_DIR/$name.txt" stamped print_main_report
	fi
	echo
	cat "$RESULTS_DIR/$name.txt"
	if [ "$status" -ne 0 ]; then
		log "report: failed steps: ${FAILED_STEPS[*]:-tree/apply} (their errors are above); the summary shows what exists"
	fi
	return "$status"
}

main "$@"; exit
