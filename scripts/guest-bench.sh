#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# guest-bench.sh - the in-guest A/B (make guest-bench): build the bench
# set's default and on kernels, ask kvm-probe.sh whether KVM works, then
# boot the variants in turn (default/on, then on/default, ...) RUNS times each;
# every boot runs guest/workloads/bench.sh (listbench module, hackbench,
# perf bench sched pipe/messaging, tmpfs metadata). guest_bench.py turns
# the console logs into medians and on/default ratios: results/guest-bench.txt
# and .json. Under TCG every figure is labelled functional only.
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

SET=bench
VARIANTS=(default on)

usage() {
	cat >&2 <<USAGE
usage: $0 [--quick] [--runs N] [--set NAME]
  --quick     small workloads (lp_bench=quick), one boot per variant: the
              functional check of make check-all; results/guest-bench-quick.*
  --runs N    boots per variant (default 5; --quick: 1)
  --set NAME  the config set whose kernels boot (default bench; make
              check-all's quick check boots the debug kernels it has built)
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
	hold_cache_lock "$(basename "$0") $*"
	local scale=full runs=5 target run variant accel logs name=guest-bench
	while [ $# -gt 0 ]; do
		case "$1" in
		--quick) scale=quick; runs=1; name=guest-bench-quick ;;
		--runs) [ $# -ge 2 ] || usage; runs=$2; shift ;;
		--set) [ $# -ge 2 ] || usage; SET=$2; shift ;;
		*) usage ;;
		esac
		shift
	done
	case "$runs" in '' | *[!0-9]* | 0) usage ;; esac
	require_tree
	target=$(set_targets "$SET" | head -n 1)
	stage_start "guest-bench $target-$SET ($scale, $runs runs per variant)"
	build_variants "$target"
	accel=${ACCEL:-$("$PROJECT_DIR/scripts/kvm-probe.sh" "$target" default "$SET")}
	[ "$accel" = kvm ] || log "guest-bench: under TCG: every timing is functional only, TCG models no caches"
	# The logs of this run go to a scratch directory first: an interrupted
	# run leaves the last complete result as it was.
	logs=$(mktemp -d "$BUILD_ROOT/guest-bench.XXXXXX")
	for run in $(seq "$runs"); do
		for variant in $(run_order "$run"); do
			log "guest-bench: run $run of $runs, $variant"
			# The full workloads take minutes per boot under TCG.
			# Tagged boots: the build's own boot (KUnit, stress) and its
			# result stay as they are.
			ACCEL=$accel BOOT_APPEND="lp_bench=$scale" BOOT_TIMEOUT=${BOOT_TIMEOUT:-1200} BOOT_REUSE=0 \
				BOOT_TAG=ab "$PROJECT_DIR/scripts/boot.sh" "$target" "$variant" "$SET"
			BOOT_TAG=ab "$PROJECT_DIR/scripts/parse.sh" "$target" "$variant" "$SET"
			cp "$(BOOT_TAG=ab boot_dir "$(build_dir "$target" "$SET" "$variant")")/console.log" \
				"$logs/run-$run-$variant.log"
		done
	done
	mkdir -p "$RESULTS_DIR"
	result_stamp >"$RESULTS_DIR/$name.txt.tmp.$$"
	python3 "$PROJECT_DIR/scripts/lib/guest_bench.py" --logs "$logs" --accel "$accel" \
		--scale "$scale" --target "$target" --set "$SET" --json "$RESULTS_DIR/$name.json.tmp.$$" \
		>>"$RESULTS_DIR/$name.txt.tmp.$$"
	mv -f "$RESULTS_DIR/$name.json.tmp.$$" "$RESULTS_DIR/$name.json"
	mv -f "$RESULTS_DIR/$name.txt.tmp.$$" "$RESULTS_DIR/$name.txt"
	rm -rf "$RESULTS_DIR/$name-logs"
	mv "$logs" "$RESULTS_DIR/$name-logs"
	cat "$RESULTS_DIR/$name.txt"
	stage_end
}

main "$@"; exit
