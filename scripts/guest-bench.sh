#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# guest-bench.sh - the in-guest A/B (make guest-bench): build the bench
# set's off and on kernels, ask kvm-probe.sh whether KVM works, then
# boot the variants in turn (off/on, then on/off, ...) RUNS times each;
# every boot runs guest/workloads/bench.sh (listbench module, hackbench,
# perf bench sched pipe/messaging, tmpfs metadata). guest_bench.py turns
# the console logs into medians and on/off ratios: results/guest-bench.txt
# and .json. Under TCG every figure is labelled functional only.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

SET=bench
VARIANTS=(off on)

usage() {
	cat >&2 <<USAGE
usage: $0 [--quick] [--runs N]
  --quick   small workloads (lp_bench=quick), for make check
  --runs N  boots per variant (default 5; --quick: 1)
  ACCEL=tcg|kvm skips the KVM probe.
USAGE
	exit 2
}

build_variants() {
	local target=$1 variant
	for variant in "${VARIANTS[@]}"; do
		"$PROJECT_DIR/scripts/configure.sh" "$target" "$variant" "$SET"
		"$PROJECT_DIR/scripts/build.sh" "$target" "$variant" "$SET"
	done
}

# run_order RUN: the variants of one run; every other run reversed, so
# that neither variant always boots first.
run_order() {
	if [ $(($1 % 2)) -eq 1 ]; then
		echo "${VARIANTS[@]}"
	else
		printf '%s\n' "${VARIANTS[@]}" | tac | tr '\n' ' '
	fi
}

main() {
	local scale=full runs=5 target run variant accel logs
	while [ $# -gt 0 ]; do
		case "$1" in
		--quick) scale=quick; runs=1 ;;
		--runs) [ $# -ge 2 ] || usage; runs=$2; shift ;;
		*) usage ;;
		esac
		shift
	done
	case "$runs" in '' | *[!0-9]* | 0) usage ;; esac
	require_tree
	target=$(set_targets "$SET" | head -n 1)
	stage_start "guest-bench $target ($scale, $runs runs per variant)"
	build_variants "$target"
	accel=${ACCEL:-$("$PROJECT_DIR/scripts/kvm-probe.sh" "$target" off "$SET")}
	[ "$accel" = kvm ] || log "guest-bench: under TCG: every timing is functional only, TCG models no caches"
	# The logs of this run go to a scratch directory first: an interrupted
	# run leaves the last complete result as it was.
	logs=$(mktemp -d "$BUILD_ROOT/guest-bench.XXXXXX")
	for run in $(seq "$runs"); do
		for variant in $(run_order "$run"); do
			log "guest-bench: run $run of $runs, $variant"
			# The full workloads take minutes per boot under TCG.
			ACCEL=$accel BOOT_APPEND="lp_bench=$scale" BOOT_TIMEOUT=${BOOT_TIMEOUT:-1200} \
				"$PROJECT_DIR/scripts/boot.sh" "$target" "$variant" "$SET"
			"$PROJECT_DIR/scripts/parse.sh" "$target" "$variant" "$SET"
			cp "$(build_dir "$target" "$SET" "$variant")/console.log" "$logs/run-$run-$variant.log"
		done
	done
	mkdir -p "$RESULTS_DIR"
	python3 "$PROJECT_DIR/scripts/guest_bench.py" --logs "$logs" --accel "$accel" \
		--scale "$scale" --target "$target" --json "$RESULTS_DIR/guest-bench.json.tmp" \
		>"$RESULTS_DIR/guest-bench.txt.tmp"
	mv -f "$RESULTS_DIR/guest-bench.json.tmp" "$RESULTS_DIR/guest-bench.json"
	mv -f "$RESULTS_DIR/guest-bench.txt.tmp" "$RESULTS_DIR/guest-bench.txt"
	rm -rf "$RESULTS_DIR/guest-bench-logs"
	mv "$logs" "$RESULTS_DIR/guest-bench-logs"
	cat "$RESULTS_DIR/guest-bench.txt"
	stage_end
}

main "$@"; exit
