#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# build.sh - build one configured variant in its own O= directory, with
# ccache when present. Skips the build when neither the .config nor the
# source changed since the last successful one.
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

usage() {
	echo "usage: $0 TARGET VARIANT [CONFIG_SET]   (run configure.sh first)" >&2
	exit 2
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	case $# in 2 | 3) ;; *) usage ;; esac
	local stamp
	select_build "$@"
	local src=$BUILD_SRC out=$BUILD_OUT
	[ -f "$out/.lp-config" ] ||
		die "$out is not configured" "run 'scripts/configure.sh $TARGET $VARIANT $CONFIG_SET'"

	stage_start "build $TARGET-$CONFIG_SET-$VARIANT"
	stamp=$(cat "$out/.lp-config" "$out/.config" | inputs_hash /dev/stdin)
	if [ -f "$out/vmlinux" ] && [ "$(cat "$out/.lp-build" 2>/dev/null)" = "$stamp" ]; then
		log "build: $out/vmlinux is up to date"
		STAGE_NOTE="up to date"
		stage_end
		return 0
	fi
	# Removed first, so an interrupted build is never taken for a good one.
	rm -f "$out/.lp-build"
	local -a goals
	read -ra goals <<<"$BUILD_GOALS"
	if ! kbuild "$out/build.log" "$src" "$out" "${goals[@]}"; then
		grep -E 'error|Error' "$out/build.log" | head -20 >&2 || true
		# The log may not say so: it is on the disk that filled up.
		if grep -q 'No space left on device' "$out/build.log" ||
			[ "$(df -k --output=avail "$out" | tail -n 1)" -lt 1024 ]; then
			die "the disk is full: build of $TARGET-$CONFIG_SET-$VARIANT stopped ($(df -h --output=avail "$out" | tail -n 1 | tr -d ' ') left on $(df --output=target "$out" | tail -n 1)); full log: $out/build.log" \
				"free space there (old build directories in $BUILD_ROOT can go), or set LIST_PREFETCH_CACHE to a bigger disk, then re-run: the build resumes"
		fi
		die "build of $TARGET-$CONFIG_SET-$VARIANT failed; full log: $out/build.log" \
			"read the first error above; if the tree changed, re-run 'make apply'"
	fi
	[ -n "$BUILD_GOALS" ] || [ -f "$out/$IMAGE" ] ||
		die "build finished but $out/$IMAGE is missing" "check IMAGE in configs/targets/$TARGET.conf"
	compile_summary
	echo "$stamp" >"$out/.lp-build"
	if [ -f "$out/vmlinux" ]; then
		log "build: $out/vmlinux ($(stat -c %s "$out/vmlinux") bytes)"
	else
		log "build: $BUILD_GOALS done in $out"
	fi
	stage_end
}

main "$@"; exit
