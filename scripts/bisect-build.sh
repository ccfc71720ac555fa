#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bisect-build.sh - prove the series bisectable: apply it one patch at a
# time in a scratch worktree and build each step, in the given variants
# (default: off and on) of the qemu config of one target. One O=
# directory per variant is reused from step to step, so each step only
# rebuilds what its patch touched. Writes results/bisect-<target>.txt.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: $0 [TARGET [VARIANT...]]   e.g. $0 x86_64 on" >&2
	exit 2
}

configure_step() {
	local src=$1 out=$2 variant=$3
	local -a frags
	mapfile -t frags < <(config_fragments "$variant")
	make -s -C "$src" O="$out" ARCH="$ARCH" "$BASE" >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}" >/dev/null
	make -s -C "$src" O="$out" ARCH="$ARCH" olddefconfig >/dev/null
}

build_step() {
	local src=$1 out=$2 cc=gcc
	command -v ccache >/dev/null 2>&1 && cc="ccache gcc"
	run_logged "$out/build.log" make -C "$src" O="$out" ARCH="$ARCH" \
		CROSS_COMPILE="$CROSS_COMPILE" CC="$cc" -j"$(make_jobs)" vmlinux
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	case "${1:-}" in -h | --help) usage ;; esac
	local target=${1:-x86_64} wt step=0 variant out status=0
	[ $# -eq 0 ] || shift
	local -a variants=("$@")
	[ ${#variants[@]} -gt 0 ] || variants=(off on)
	load_target "$target"
	load_config_set qemu
	require_tree
	wt=$LIST_PREFETCH_CACHE/tree/bisect
	local -a patches
	mapfile -t patches < <(series_files)
	local report=$RESULTS_DIR/bisect-$target.txt
	mkdir -p "$RESULTS_DIR"
	: >"$report.tmp.$$"

	stage_start "bisect-build $target (${variants[*]})"
	[ -e "$wt/.git" ] || run git -C "$TREE_DIR" worktree add -q --detach "$wt" pristine
	git -C "$wt" am --abort >/dev/null 2>&1 || true
	run git -C "$wt" checkout -q -f --detach pristine
	for patch in "${patches[@]}"; do
		step=$((step + 1))
		run git -C "$wt" am -q "$patch" ||
			die "patch ${patch##*/} does not apply at step $step" "see 'make apply' for the fix"
		for variant in "${variants[@]}"; do
			out=$BUILD_ROOT/bisect-$target-$variant
			mkdir -p "$out"
			log "bisect: step $step/${#patches[@]} ${patch##*/}, variant $variant"
			configure_step "$wt" "$out" "$variant"
			if build_step "$wt" "$out"; then
				printf 'ok      %s  %-4s %s\n' "$step" "$variant" "${patch##*/}" >>"$report.tmp.$$"
			else
				grep -E 'error' "$out/build.log" | head -5 >&2 || true
				printf 'FAILED  %s  %-4s %s\n' "$step" "$variant" "${patch##*/}" >>"$report.tmp.$$"
				status=1
			fi
		done
	done
	mv -f "$report.tmp.$$" "$report"
	cat "$report"
	stage_end
	[ "$status" -eq 0 ] || die "some steps of the series do not build (see $report)" \
		"fix the patch of the first FAILED step, then re-export the series"
}

main "$@"; exit
