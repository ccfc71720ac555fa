#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# module.sh - build an out-of-tree module of guest/ (default: listbench)
# with 'make M=' against one built variant, so that it expands that
# kernel's iterators. The source is copied next to the build first:
# kbuild writes a module's objects into its M= directory, and the repo
# stays clean. Prints the path of the .ko.
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

usage() {
	echo "usage: $0 TARGET VARIANT [CONFIG_SET] [MODULE]   e.g. $0 x86_64 on bench listbench" >&2
	exit 2
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	case $# in 2 | 3 | 4) ;; *) usage ;; esac
	local module=${4:-listbench}
	select_build "$1" "$2" "${3:-qemu}"
	local out=$BUILD_OUT src=$PROJECT_DIR/guest/$module
	[ -f "$src/Kbuild" ] || die "no module '$module': $src/Kbuild is missing" "see guest/ for the modules that exist"
	[ -f "$out/.lp-build" ] || die "$out has no finished build" \
		"run 'scripts/build.sh $TARGET $VARIANT $CONFIG_SET'"
	grep -qx 'CONFIG_MODULES=y' "$out/.config" ||
		die "$TARGET-$CONFIG_SET-$VARIANT is built without CONFIG_MODULES" \
			"add CONFIG_MODULES=y to a fragment of configs/sets/$CONFIG_SET.conf"
	local dir=$out/lp-modules/$module
	mkdir -p "$dir"
	# Only what changed is copied, so an unchanged module is not rebuilt.
	cp -u "$src"/* "$dir/"
	stage_start "module $module for $TARGET-$CONFIG_SET-$VARIANT"
	if ! run_logged "$dir/build.log" make -C "$out" M="$dir" ARCH="$ARCH" \
		CROSS_COMPILE="$CROSS_COMPILE" modules; then
		grep -E 'error|Error' "$dir/build.log" | head -20 >&2 || true
		die "module $module does not build against $out; full log: $dir/build.log" \
			"read the first error above: the module must build against every variant"
	fi
	[ -f "$dir/$module.ko" ] || die "no $module.ko after the build in $dir" "check $src/Kbuild"
	stage_end
	echo "$dir/$module.ko"
}

main "$@"; exit
