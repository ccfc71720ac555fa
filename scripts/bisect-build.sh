#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bisect-build.sh - prove the series bisectable: apply it one patch at a
# time in a scratch worktree and build each step, in the given variants
# (default: on, where list_prefetch() expands to real prefetches, so
# every line the series adds is compiled) of the qemu config of one
# target. One O= directory per variant is reused from step to step, so
# a step rebuilds only what its patch touched (all of it only after a
# widely included header changed), and ccache serves what it rebuilds
# unchanged. Writes results/bisect-<target>.txt: step, variant, result,
# wall time, ccache's hits, subject.
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

usage() {
	echo "usage: $0 [TARGET [VARIANT...]]   e.g. $0 x86_64 on" >&2
	exit 2
}

# configure_step SRC OUT VARIANT: the step's .config, as the lab's build
# of the same tree would have it (write_config); then check that its
# LIST_PREFETCH is the variant's wherever the step's architecture offers
# the option (before x86 does, at patch 1, it can only be unset).
configure_step() {
	local out=$2 variant=$3 want=n got
	write_config "$@"
	[ "$(config_value ARCH_HAS_LIST_PREFETCH "$out/.config")" != y ] ||
		want=$(expected_list_prefetch "$variant")
	got=$(config_value LIST_PREFETCH "$out/.config")
	[ "$got" = "$want" ] ||
		die "the $variant variant of $TARGET got LIST_PREFETCH=$got at step $step, want $want" \
			"see write_config in scripts/lib/lab.sh: the step must be configured as scripts/configure.sh configures the lab's builds"
}

build_step() {
	kbuild "$2/build.log" "$1" "$2" vmlinux
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	case "${1:-}" in -h | --help) usage ;; esac
	local target=${1:-x86_64} wt step=0 variant out status=0
	[ $# -eq 0 ] || shift
	local -a variants=("$@")
	[ ${#variants[@]} -gt 0 ] || variants=(on)
	load_target "$target"
	# TOOLCHAIN=llvm made it TARGET-llvm: its report and builds are its own.
	target=$TARGET
	load_config_set qemu
	require_tree
	wt=$LIST_PREFETCH_CACHE/tree/bisect
	local -a patches
	mapfile -t patches < <(series_files)
	local report=$RESULTS_DIR/bisect-$target.txt
	mkdir -p "$RESULTS_DIR"
	{
		result_stamp
		echo "Bisect build: $target qemu config, Linux $(tree_version "$TREE_DIR"), $(date -u +%Y-%m-%dT%H:%MZ)"
		echo "compiler: $(compiler_version)"
		echo "host: $(host_description); project $(git -C "$PROJECT_DIR" rev-parse --short HEAD 2>/dev/null || echo '?')"
		printf '%-7s %4s  %-4s %-3s %8s  %-30s %s\n' result step var lp time ccache subject
	} >"$report.tmp.$$"

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
			local t0=$SECONDS result=ok subject
			subject=$(git -C "$wt" log -1 --format=%s)
			if ! build_step "$wt" "$out"; then
				grep -E 'error' "$out/build.log" | head -5 >&2 || true
				result=FAILED
				status=1
			fi
			compile_summary 2>/dev/null
			# The step's LIST_PREFETCH: =y can be had only once x86 offers it.
			printf '%-7s %4s  %-4s %-3s %7ss  %-30s %s\n' "$result" "$step" "$variant" \
				"$(config_value LIST_PREFETCH "$out/.config")" "$((SECONDS - t0))" \
				"${STAGE_NOTE#ccache: }" "$subject" | tee -a "$report.tmp.$$" >&2
		done
	done
	mv -f "$report.tmp.$$" "$report"
	stage_end
	[ "$status" -eq 0 ] || die "some steps of the series do not build (see $report)" \
		"fix the patch of the first FAILED step, then re-export the series"
}

main "$@"; exit
