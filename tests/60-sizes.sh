# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# make sizes CONFIG=qemu: size vmlinux, bloat-o-meter and prefetch counts
# of vanilla, off and on, and size_checks.py's assertions on them.
# shellcheck disable=SC2317 # functions called by name

plan_sizes() {
	echo "all 3600 test_sizes_qemu"
}

# objects_of FILTER [PATHSPEC...]: the off build's objects of the .c
# files the series touches, FILTER being git's --diff-filter (M modified,
# A added), PATHSPEC narrowing them (default: every .c file).
objects_of() {
	local out file filter=$1
	shift
	out=$(build_dir x86_64 qemu off)
	git -C "$SERIES_DIR" diff --name-only --diff-filter="$filter" pristine HEAD -- "${@:-*.c}" |
		while read -r file; do
			[ ! -f "$out/${file%.c}.o" ] || echo "$out/${file%.c}.o"
		done
}

test_sizes_qemu() {
	"$PROJECT_DIR/scripts/sizes.sh" qemu x86_64
	local -a touched added tests
	mapfile -t touched < <(objects_of M)
	mapfile -t added < <(objects_of A)
	# The tree's names for KUnit test files (codegen.sh's rule too).
	mapfile -t tests < <(objects_of M '*-test.c' '*_test.c' '*_kunit.c')
	python3 "$PROJECT_DIR/scripts/size_checks.py" "$RESULTS_DIR/sizes-qemu.json" \
		--run-id "${LIST_PREFETCH_RUN_ID:-}" --touched "${touched[@]}" --added "${added[@]}" \
		--tests "${tests[@]}"
}
