#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# sparse.sh - does the series add a sparse warning or error? Runs sparse
# (kbuild's C=2: every listed file, built or not) over the .c files the
# series touches or adds and the list-heavy ones it does not, in the
# vanilla, default and on builds of TARGET's qemu config, and compares each
# variant's diagnostics with vanilla's (scripts/lib/sparse_diff.py).
#
# Writes results/sparse-TARGET.txt; exit status 1 if the series adds one.
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

# Untouched by the series, full of list and RCU list walks.
UNTOUCHED_OBJECTS="fs/dcache.o kernel/notifier.o lib/klist.o lib/list_sort.o kernel/workqueue.o net/netlabel/netlabel_addrlist.o"

usage() {
	echo "usage: $0 [TARGET]   (default x86_64)" >&2
	exit 2
}

# series_objects: the objects of every .c file the series modifies or adds.
series_objects() {
	git -C "$SERIES_DIR" diff --name-only --diff-filter=AM pristine HEAD -- '*.c' | sed 's/\.c$/.o/'
}

# check_variant VARIANT OBJECT...: sparse over OBJECT... in VARIANT's
# build; the log is results/sparse-TARGET-VARIANT.log.
check_variant() {
	local variant=$1 out src object
	shift
	out=$(build_dir "$TARGET" qemu "$variant")
	src=$(source_dir "$variant")
	"$PROJECT_DIR/scripts/configure.sh" "$TARGET" "$variant" qemu
	local -a present=()
	for object in "$@"; do
		[ -f "$src/${object%.o}.c" ] && present+=("$object")
	done
	stage_start "sparse over ${#present[@]} files of $TARGET-qemu-$variant"
	kbuild "$RESULTS_DIR/sparse-$TARGET-$variant.log" "$src" "$out" C=2 CHECK=sparse \
		"${present[@]}" || {
		tail -n 20 "$RESULTS_DIR/sparse-$TARGET-$variant.log" >&2
		die "sparse over $TARGET $variant failed; log: $RESULTS_DIR/sparse-$TARGET-$variant.log" \
			"read the first error above"
	}
	# sparse names a file by its path in the tree it checked: make it the
	# path within the tree, the same in every variant.
	sed -i -e "s|^$src/||" -e "s|^$(realpath "$src")/||" "$RESULTS_DIR/sparse-$TARGET-$variant.log"
	stage_end
}

# sparse_report OBJECT...: the result, from the three logs. A new
# diagnostic is a finding written into the result, not a failure to
# make it: only a run without sparse is.
# shellcheck disable=SC2317 # called through write_atomic
sparse_report() {
	local status=0
	result_stamp
	echo "sparse ($(sparse --version 2>&1 | head -n 1)), kbuild C=2, $TARGET qemu config: the files"
	echo "the series touches or adds and list-heavy ones it does not ($#: $*);"
	echo "a diagnostic is its file, kind and message (the series moves lines)"
	(cd "$RESULTS_DIR" && python3 "$PROJECT_DIR/scripts/lib/sparse_diff.py" \
		"sparse-$TARGET-vanilla.log" "sparse-$TARGET-default.log" "sparse-$TARGET-on.log") ||
		status=$?
	case "$status" in
	0) echo "verdict: pass: the series adds no sparse warning or error, default or on" ;;
	1) echo "verdict: FAIL: the series adds what is listed as new above" ;;
	*) return "$status" ;;
	esac
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	[ $# -le 1 ] || usage
	load_target "${1:-x86_64}"
	load_config_set qemu
	require_tree
	need_cmd sparse sparse
	require_series_tree
	"$PROJECT_DIR/scripts/configure.sh" "$TARGET" default qemu
	"$PROJECT_DIR/scripts/build.sh" "$TARGET" default qemu
	local -a objects
	# shellcheck disable=SC2046,SC2086 # lists of objects
	mapfile -t objects < <(objects_built "$(build_dir "$TARGET" qemu default)" sparse $(series_objects) $UNTOUCHED_OBJECTS)
	[ ${#objects[@]} -gt 0 ] || die "none of the objects is built by the $TARGET qemu config" \
		"check configs/qemu.config"
	mkdir -p "$RESULTS_DIR"
	local variant
	for variant in vanilla default on; do
		check_variant "$variant" "${objects[@]}"
	done
	write_atomic "$RESULTS_DIR/sparse-$TARGET.txt" sparse_report "${objects[@]}"
	cat "$RESULTS_DIR/sparse-$TARGET.txt"
	grep -q '^verdict: pass' "$RESULTS_DIR/sparse-$TARGET.txt"
}

main "$@"; exit
