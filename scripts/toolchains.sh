#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# toolchains.sh - gcc and clang side by side for one target (default
# x86_64): make sizes of the qemu config and make codegen, each with gcc
# (TARGET) and with clang (TARGET-llvm: LLVM=1), then the table of
# scripts/lib/toolchains.py. Writes results/toolchains-TARGET.txt.
#
#   toolchains.sh [TARGET]           build what is missing, measure, tabulate
#   toolchains.sh --table [TARGET]   tabulate the results already there
#                                    (those of LIST_PREFETCH_RUN_ID if set)
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

usage() {
	echo "usage: $0 [--table] [TARGET]   (default x86_64)" >&2
	exit 2
}

# shellcheck disable=SC2317 # called through write_atomic
table() {
	result_stamp
	python3 "$PROJECT_DIR/scripts/lib/toolchains.py" "$RESULTS_DIR" "$1" \
		${LIST_PREFETCH_RUN_ID:+--run-id "$LIST_PREFETCH_RUN_ID"}
}

main() {
	local measure=1 target toolchain
	if [ "${1:-}" = --table ]; then measure=; shift; fi
	[ $# -le 1 ] || usage
	target=${1:-x86_64}
	case $target in *-llvm) die "$target: name the target, not its clang twin" "$0 ${target%-llvm}" ;; esac
	if [ -n "$measure" ]; then
		hold_cache_lock "$(basename "$0") $*"
		for toolchain in gnu llvm; do
			TOOLCHAIN=$toolchain "$PROJECT_DIR/scripts/sizes.sh" qemu "$target"
			TOOLCHAIN=$toolchain "$PROJECT_DIR/scripts/codegen.sh" "$target"
		done
	fi
	write_atomic "$RESULTS_DIR/toolchains-$target.txt" table "$target" ||
		die "no side-by-side table for $target (the problems are above)" \
			"run '$0 $target' to make the results of both compilers"
	cat "$RESULTS_DIR/toolchains-$target.txt"
}

main "$@"; exit
