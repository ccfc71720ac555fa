#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# report.sh - the main job: run the pipeline (tree, apply, configure,
# build, boot, parse) for every variant, then print a summary of what
# the stages left in results/ and write it to results/report.txt.
# A stage that fails is reported and the rest of the report still
# printed from the results that exist; the exit status says it failed.
# shellcheck disable=SC2317 # functions called by name (tests, steps)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

TARGET=${TARGET:-x86_64}
VARIANTS=${VARIANTS:-off on}
# defconfig takes about an hour cold on 2 cores; SIZE_CONFIGS=qemu skips it.
SIZE_CONFIGS=${SIZE_CONFIGS:-qemu defconfig}
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

run_pipeline() {
	local variant config
	"$PROJECT_DIR/scripts/tree.sh" || return 1
	"$PROJECT_DIR/scripts/apply.sh" || return 1
	for variant in $VARIANTS; do
		step "boot $variant" boot_variant "$TARGET" "$variant"
	done
	# The benchmark first among the measurements: it wants an idle machine.
	step bench "$PROJECT_DIR/scripts/bench.sh"
	for config in $SIZE_CONFIGS; do
		step "sizes $config" "$PROJECT_DIR/scripts/sizes.sh" "$config" "$TARGET"
	done
}

# --- sections ----------------------------------------------------------------

section_variants() {
	local variant result
	echo "Variants ($TARGET, qemu config; boot times are TCG: functional only, they say nothing about caches)"
	printf '  %-8s %-14s %-8s %-40s %s\n' variant LIST_PREFETCH status "KUnit (passed/failed per suite)" "boot (TCG)"
	for variant in $VARIANTS; do
		result=$RESULTS_DIR/boot-$TARGET-qemu-$variant.json
		if [ ! -f "$result" ]; then
			printf '  %-8s (no result: the pipeline did not get to it)\n' "$variant"
			continue
		fi
		python3 - "$result" "$variant" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
suites = " ".join(f"{n} {s['passed']}/{s['failed']}" for n, s in sorted(r["suites"].items()))
print(f"  {sys.argv[2]:<8} {r['list_prefetch']:<14} {r['status']:<8} {suites:<40} {float(r['boot_seconds']):.1f}s")
for p in r["problems"]:
    print(f"           problem: {p}")
PY
	done
}

section_boot_sizes() {
	local variant out
	echo "size vmlinux of the booted kernels ($TARGET, qemu config)"
	printf '  %9s %9s %9s %9s %9s %s\n' text data bss dec hex filename
	for variant in $VARIANTS; do
		out=$(build_dir "$TARGET" qemu "$variant")
		[ -f "$out/.lp-build" ] || { echo "  (no finished build for $variant)"; continue; }
		size_row "$out/vmlinux" "vmlinux-$variant" | sed 's/^/  /'
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

section_bench() {
	include_result bench.txt "== make bench (host CPU: real timings)"
	[ ! -f "$RESULTS_DIR/bench.png" ] || echo "  plot: results/bench.png"
}

section_stage_times() {
	echo "Wall time per stage (this run)"
	[ -s "$STAGE_TIMES_FILE" ] || { echo "  (none)"; return; }
	awk -F'\t' '{ printf "  %-40s %8.1fs\n", $1, $2; total += $2 } END { printf "  %-40s %8.1fs\n", "total", total }' "$STAGE_TIMES_FILE"
}

section_header() {
	echo "list-prefetch report, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "  kernel: Linux $(tree_version "$TREE_DIR" 2>/dev/null || echo '?') (Debian linux-source-$KERNEL_SERIES), series: $(grep -vc '^#' "$PROJECT_DIR/patches/series") patches"
	echo "  project: $(git -C "$PROJECT_DIR" rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout')"
	echo "  host: $(host_description); $(gcc --version | head -n 1)"
}

print_report() {
	section_header
	echo
	section_variants
	echo
	section_boot_sizes
	echo
	section_sizes
	section_bench
	echo
	section_stage_times
}

main() {
	local status=0
	mkdir -p "$RESULTS_DIR"
	STAGE_TIMES_FILE=$RESULTS_DIR/stage-times.tsv
	: >"$STAGE_TIMES_FILE"
	export STAGE_TIMES_FILE
	run_pipeline || status=$?
	[ ${#FAILED_STEPS[@]} -eq 0 ] || status=1
	section_stage_times | write_atomic "$RESULTS_DIR/stage-times.txt"
	print_report | write_atomic "$RESULTS_DIR/report.txt"
	echo
	cat "$RESULTS_DIR/report.txt"
	if [ "$status" -ne 0 ]; then
		log "report: failed steps: ${FAILED_STEPS[*]:-tree/apply} (their errors are above); the summary shows what exists"
	fi
	return "$status"
}

main "$@"; exit
