#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# codegen.sh - does the series change code only where it says it does?
# Compiles a handful of objects in three builds of the qemu config of
# TARGET (vanilla: the pristine tree; default: the series with the
# architecture's default; on: the series with LIST_PREFETCH=y), compares
# them function by function (objdump -d, addresses made symbolic), and
# counts prefetch instructions per function.
#
# The objects: every .c file the series modifies that the config builds
# (the swept walks), and a few list-heavy files it does not touch.
# The default build is the full kernel make check boots; of vanilla and on
# only the objects are built (kbuild's single-object targets), in the
# O= directories of their full builds, which reuse them later.
#
# Writes results/codegen-TARGET.json and .txt; codegen_check.py judges.
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

# Untouched by the series, full of list walks: their code must not move.
UNTOUCHED_OBJECTS="fs/dcache.o kernel/notifier.o lib/klist.o lib/list_sort.o kernel/workqueue.o"

usage() {
	echo "usage: $0 [TARGET]   (default x86_64)" >&2
	exit 2
}

# modified_objects: the objects of the .c files the series modifies,
# but its tests: a KUnit file the series extends differs everywhere (the
# line numbers its assertions record), which says nothing about codegen.
modified_objects() {
	git -C "$SERIES_DIR" diff --name-only --diff-filter=M pristine HEAD -- '*.c' \
		"${KUNIT_TEST_FILES[@]/#/:!}" | sed 's/\.c$/.o/'
}

# compile_objects VARIANT OBJECT...: configure VARIANT's build and
# compile only OBJECT... in it.
compile_objects() {
	local variant=$1 out src
	shift
	out=$(build_dir "$TARGET" qemu "$variant")
	src=$(source_dir "$variant")
	"$PROJECT_DIR/scripts/configure.sh" "$TARGET" "$variant" qemu
	stage_start "compile $# objects of $TARGET-qemu-$variant"
	kbuild "$out/codegen-build.log" "$src" "$out" "$@" || {
		tail -n 20 "$out/codegen-build.log" >&2
		die "compiling $* for $TARGET $variant failed; full log: $out/codegen-build.log" \
			"read the first error above"
	}
	compile_summary
	stage_end
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	[ $# -le 1 ] || usage
	load_target "${1:-x86_64}"
	load_config_set qemu
	require_tree
	require_series_tree
	# The default variant is the kernel make check boots: built in full
	# (or found up to date), it says which objects the config builds.
	"$PROJECT_DIR/scripts/configure.sh" "$TARGET" default qemu
	"$PROJECT_DIR/scripts/build.sh" "$TARGET" default qemu
	local -a objects
	# shellcheck disable=SC2046,SC2086 # lists of objects
	mapfile -t objects < <(objects_built "$(build_dir "$TARGET" qemu default)" codegen $(modified_objects) $UNTOUCHED_OBJECTS)
	[ ${#objects[@]} -gt 0 ] || die "none of the objects is built by the $TARGET qemu config" \
		"check configs/qemu.config"
	local variant
	for variant in vanilla on; do
		compile_objects "$variant" "${objects[@]}"
	done
	stage_start "codegen $TARGET: compare vanilla, default, on"
	local json=$RESULTS_DIR/codegen-$TARGET.json
	mkdir -p "$RESULTS_DIR"
	result_stamp >"$RESULTS_DIR/codegen-$TARGET.txt.tmp.$$"
	python3 "$PROJECT_DIR/scripts/lib/codegen_check.py" --objdump "${CROSS_COMPILE}objdump" \
		--vanilla "$(build_dir "$TARGET" qemu vanilla)" --default "$(build_dir "$TARGET" qemu default)" \
		--on "$(build_dir "$TARGET" qemu on)" --modified "$(modified_objects | tr '\n' ' ')" \
		--field "target=$TARGET" --field "run_id=${LIST_PREFETCH_RUN_ID:-standalone}" \
		--field "kernel=$(tree_version "$TREE_DIR")" \
		--json "$json.tmp.$$" "${objects[@]}" >>"$RESULTS_DIR/codegen-$TARGET.txt.tmp.$$" || {
		cat "$RESULTS_DIR/codegen-$TARGET.txt.tmp.$$"
		rm -f "$json.tmp.$$" "$RESULTS_DIR/codegen-$TARGET.txt.tmp.$$"
		die "the code of the $TARGET objects is not what the series says (see above)" \
			"a difference outside the swept functions means a macro's off-form generates code: compare the functions named above with objdump -d"
	}
	mv -f "$json.tmp.$$" "$json"
	mv -f "$RESULTS_DIR/codegen-$TARGET.txt.tmp.$$" "$RESULTS_DIR/codegen-$TARGET.txt"
	cat "$RESULTS_DIR/codegen-$TARGET.txt"
	stage_end
}

main "$@"; exit
