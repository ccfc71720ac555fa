# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# make sizes CONFIG=qemu: size vmlinux, bloat-o-meter and prefetch counts
# of vanilla, off and on, and size_checks.py's assertions on them.
# shellcheck disable=SC2317 # functions called by name

plan_sizes() {
	cat <<'PLAN'
all 3600 test_sizes_qemu
check:cache 30 test_size_checks_fail_on_doctored_results
PLAN
}

# size_checks.py on doctored results: a good one passes; a function
# changed outside the files the series touches, an off build with more
# prefetches than vanilla, and an on build no larger than off each fail.
test_size_checks_fail_on_doctored_results() {
	local dir doctored
	dir=$(mktemp -d)
	echo 'int swept_walk(int *p) { return *p; }' >"$dir/touched.c"
	echo 'int series_test_case(void) { return 1; }' >"$dir/tests.c"
	gcc -c -o "$dir/touched.o" "$dir/touched.c"
	gcc -c -o "$dir/tests.o" "$dir/tests.c"
	cat >"$dir/good.json" <<'JSON'
{"bloat_vanilla_off": {"functions": {"swept_walk": -8, "series_test_case": 40}},
 "bloat_off_on": {"before": 1000, "after": 1200},
 "variants": {"vanilla": {"prefetches": {"total": 5}}, "off": {"prefetches": {"total": 4}},
              "on": {"prefetches": {"total": 60}}}}
JSON
	python3 "$PROJECT_DIR/scripts/size_checks.py" "$dir/good.json" --touched "$dir/touched.o" \
		--tests "$dir/tests.o" ||
		{ echo "size_checks.py failed a good result"; return 1; }
	for doctored in \
		's/"series_test_case": 40/"series_test_case": 40, "vfs_read": -16/' \
		's/"off": {"prefetches": {"total": 4}}/"off": {"prefetches": {"total": 6}}/' \
		's/"after": 1200/"after": 1000/'; do
		sed "$doctored" "$dir/good.json" >"$dir/bad.json"
		! cmp -s "$dir/good.json" "$dir/bad.json" || { echo "the doctoring '$doctored' changed nothing"; return 1; }
		if python3 "$PROJECT_DIR/scripts/size_checks.py" "$dir/bad.json" --touched "$dir/touched.o" \
			--tests "$dir/tests.o"; then
			echo "size_checks.py passed a result doctored with: $doctored"
			return 1
		fi
	done
	rm -rf "$dir"
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
