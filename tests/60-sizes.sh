# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# make sizes CONFIG=qemu: size vmlinux, bloat-o-meter and prefetch counts
# of vanilla, default and on, and size_checks.py's assertions on them.
# shellcheck disable=SC2317 # functions called by name

plan_sizes() {
	cat <<'PLAN'
all 3600 test_sizes_qemu x86_64
all 3600 test_sizes_qemu x86_64-llvm
all 120 test_toolchains_side_by_side x86_64
check:cache 30 test_toolchains_table_refuses_unlike_results
check:cache 30 test_size_checks_fail_on_doctored_results
PLAN
}

# size_checks.py on doctored results: a good one passes; a function
# changed outside the files the series touches, a default build with
# more prefetches than vanilla, an on build no larger than default and a
# result in which vanilla->default changed nothing (nothing was checked)
# each fail.
test_size_checks_fail_on_doctored_results() {
	local dir doctored
	dir=$(mktemp -d)
	echo 'int swept_walk(int *p) { return *p; }' >"$dir/touched.c"
	echo 'int series_test_case(void) { return 1; }' >"$dir/tests.c"
	gcc -c -o "$dir/touched.o" "$dir/touched.c"
	gcc -c -o "$dir/tests.o" "$dir/tests.c"
	cat >"$dir/good.json" <<'JSON'
{"bloat_vanilla_default": {"functions": {"swept_walk": -8, "series_test_case": 40}},
 "bloat_default_on": {"before": 1000, "after": 1200},
 "variants": {"vanilla": {"prefetches": {"total": 5}}, "default": {"prefetches": {"total": 4}},
              "on": {"prefetches": {"total": 60}}}}
JSON
	python3 "$PROJECT_DIR/scripts/lib/size_checks.py" "$dir/good.json" --touched "$dir/touched.o" \
		--tests "$dir/tests.o" ||
		{ echo "size_checks.py failed a good result"; return 1; }
	for doctored in \
		's/"series_test_case": 40/"series_test_case": 40, "vfs_read": -16/' \
		's/"default": {"prefetches": {"total": 4}}/"default": {"prefetches": {"total": 6}}/' \
		's/"after": 1200/"after": 1000/' \
		's/"functions": {"swept_walk": -8, "series_test_case": 40}/"functions": {}/'; do
		sed "$doctored" "$dir/good.json" >"$dir/bad.json"
		! cmp -s "$dir/good.json" "$dir/bad.json" || { echo "the doctoring '$doctored' changed nothing"; return 1; }
		if python3 "$PROJECT_DIR/scripts/lib/size_checks.py" "$dir/bad.json" --touched "$dir/touched.o" \
			--tests "$dir/tests.o"; then
			echo "size_checks.py passed a result doctored with: $doctored"
			return 1
		fi
	done
	rm -rf "$dir"
}

# objects_of TARGET FILTER [PATHSPEC...]: the objects of TARGET's default
# build of the .c files the series touches, FILTER being git's
# --diff-filter (M modified, A added), PATHSPEC narrowing them (default:
# every .c file).
objects_of() {
	local out file filter=$2
	out=$(build_dir "$1" qemu default)
	shift 2
	git -C "$SERIES_DIR" diff --name-only --diff-filter="$filter" pristine HEAD -- "${@:-*.c}" |
		while read -r file; do
			[ ! -f "$out/${file%.c}.o" ] || echo "$out/${file%.c}.o"
		done
}

# test_sizes_qemu TARGET: make sizes of the qemu config built for TARGET
# (x86_64 with gcc: results/sizes-qemu.*; with clang, x86_64-llvm:
# results/sizes-qemu-x86_64-llvm.*), judged by size_checks.py; where the
# build's compiler makes no instruction of prefetch() (builtin_prefetch_emitted:
# clang), the shared code's size change is printed, not judged.
test_sizes_qemu() {
	local name
	name=$(load_target "$1" && sizes_name qemu)
	"$PROJECT_DIR/scripts/sizes.sh" qemu "$1"
	local -a touched added tests compiler=()
	load_target "$1"
	local emitted=0
	builtin_prefetch_emitted "$(build_dir "$1" qemu vanilla)" || emitted=$?
	[ "$emitted" -ne 2 ] || return 1
	[ "$emitted" -eq 0 ] || compiler=(--prefetch-is-no-code)
	mapfile -t touched < <(objects_of "$1" M)
	mapfile -t added < <(objects_of "$1" A)
	mapfile -t tests < <(objects_of "$1" M "${KUNIT_TEST_FILES[@]}")
	[ ${#touched[@]} -gt 0 ] || { echo "no object of a file the series modifies is built for $1"; return 1; }
	python3 "$PROJECT_DIR/scripts/lib/size_checks.py" "$RESULTS_DIR/sizes-$name.json" \
		--run-id "${LIST_PREFETCH_RUN_ID:-}" --touched "${touched[@]}" --added "${added[@]}" \
		--tests "${tests[@]}" "${compiler[@]}"
}

# test_toolchains_side_by_side TARGET: this run's sizes and codegen of
# TARGET with gcc and with clang in one table (make check-all ran them
# in its codegen and sizes stages), both codegen verdicts pass.
test_toolchains_side_by_side() {
	"$PROJECT_DIR/scripts/toolchains.sh" --table "$1"
	local table=$RESULTS_DIR/toolchains-$1.txt
	grep -q '^  *gcc [0-9][0-9.]* *clang [0-9][0-9.]*$' "$table" || { echo "no gcc and clang columns"; return 1; }
	grep -q '^  codegen verdict  *pass  *pass$' "$table" || { echo "codegen did not pass for both"; return 1; }
}

# toolchains.py on results made to order: a matching pair is tabulated;
# a missing clang result, one of another run and a failed codegen each
# refuse the table.
test_toolchains_table_refuses_unlike_results() {
	local dir t
	dir=$(mktemp -d)
	for t in x86_64 x86_64-llvm; do
		cat >"$dir/codegen-$t.json" <<'JSON'
{"run_id": "r1", "status": "pass", "rows": [{"swept_prefetches": {"walk": {"vanilla": 1, "default": 0, "on": 1}}}]}
JSON
	done
	cat >"$dir/sizes-qemu.json" <<'JSON'
{"run_id": "r1", "compiler": "gcc (Debian 12.2.0-14+deb12u1) 12.2.0",
 "bloat_vanilla_default": {"before": 100, "after": 90}, "bloat_default_on": {"before": 90, "after": 120},
 "variants": {"vanilla": {"prefetches": {"total": 5}}, "default": {"prefetches": {"total": 4}},
              "on": {"prefetches": {"total": 60}}}}
JSON
	sed 's/gcc (Debian 12.2.0-14+deb12u1) 12.2.0/Debian clang version 14.0.6/' "$dir/sizes-qemu.json" \
		>"$dir/sizes-qemu-x86_64-llvm.json"
	python3 "$PROJECT_DIR/scripts/lib/toolchains.py" "$dir" x86_64 --run-id r1 >"$dir/out" ||
		{ cat "$dir/out"; echo "a matching pair was refused"; return 1; }
	grep -q 'gcc 12.2.0 *clang 14.0.6' "$dir/out" || { cat "$dir/out"; echo "the compilers are not named"; return 1; }
	if python3 "$PROJECT_DIR/scripts/lib/toolchains.py" "$dir" x86_64 --run-id r2 >/dev/null; then
		echo "results of another run were tabulated"; return 1
	fi
	sed -i 's/"status": "pass"/"status": "fail"/' "$dir/codegen-x86_64-llvm.json"
	if python3 "$PROJECT_DIR/scripts/lib/toolchains.py" "$dir" x86_64 >/dev/null; then
		echo "a failed codegen was tabulated"; return 1
	fi
	rm "$dir/sizes-qemu-x86_64-llvm.json"
	if python3 "$PROJECT_DIR/scripts/lib/toolchains.py" "$dir" x86_64 >/dev/null; then
		echo "a table without clang's sizes was written"; return 1
	fi
	rm -rf "$dir"
}
