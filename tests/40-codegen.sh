# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Does the default build generate the same code as vanilla outside the
# swept functions? scripts/codegen.sh compiles a handful of objects
# vanilla, default and on and compares them function by function.
# shellcheck disable=SC2317 # functions called by name

plan_codegen() {
	echo "check 3600 test_codegen_matches_vanilla x86_64"
	echo "all 3600 test_codegen_matches_vanilla x86_64-llvm"
	echo "check 600 test_list_h_includes_do_not_depend_on_the_option x86_64"
	echo "check 120 test_list_prefetch_takes_only_pointers x86_64"
	echo "check 120 test_list_prefetch_warns_like_prefetch_under_sparse x86_64"
	echo "check:cache 60 test_codegen_check_fails_on_doctored_objects"
	echo "all 1800 test_sparse_adds_nothing x86_64"
	echo "check:cache 30 test_sparse_diff_names_what_is_new"
}

# codegen_objects DIR WALK_PREFETCH OTHER_BODY: DIR/lib/walk.o (a swept
# walk, with its prefetch or not) and DIR/lib/other.o (untouched code).
codegen_objects() {
	mkdir -p "$1/lib"
	printf '%s\n' 'struct node { struct node *next; int v; };' \
		"int walk(struct node *n) { int s = 0; while (n) { $2 s += n->v; n = n->next; } return s; }" \
		>"$1/lib/walk.c"
	echo "int other(int x) { return $3; }" >"$1/lib/other.c"
	gcc -O2 -c -o "$1/lib/walk.o" "$1/lib/walk.c"
	gcc -O2 -c -o "$1/lib/other.o" "$1/lib/other.c"
}

# codegen_check.py on objects made to order: vanilla and on prefetch in
# the swept walk, default does not, other code is alike: pass. Then a
# default build whose untouched code differs, and an on build without the
# prefetch back, must each fail.
test_codegen_check_fails_on_doctored_objects() {
	local dir
	dir=$(mktemp -d)
	codegen_objects "$dir/vanilla" '__builtin_prefetch(n->next);' 'x + 1'
	codegen_objects "$dir/default" '' 'x + 1'
	codegen_objects "$dir/on" '__builtin_prefetch(n->next);' 'x + 1'
	run_codegen_check "$dir" || { echo "codegen_check.py failed objects made as the series makes them"; return 1; }
	codegen_objects "$dir/default" '' 'x * 3'
	if run_codegen_check "$dir"; then echo "codegen_check.py passed a default build whose untouched code differs"; return 1; fi
	codegen_objects "$dir/default" '' 'x + 1'
	codegen_objects "$dir/on" '' 'x + 1'
	if run_codegen_check "$dir"; then echo "codegen_check.py passed an on build without the prefetch back"; return 1; fi
	# A series that modifies no C file: default must be vanilla's code.
	codegen_objects "$dir/on" '__builtin_prefetch(n->next);' 'x + 1'
	if run_codegen_check "$dir" ""; then
		echo "codegen_check.py passed a default that lost a prefetch in a file the series does not modify"
		return 1
	fi
	codegen_objects "$dir/vanilla" '' 'x + 1'
	run_codegen_check "$dir" "" ||
		{ echo "codegen_check.py failed default = vanilla with a series that modifies no C file"; return 1; }
	grep -q '"status": "pass"' "$dir/out.json" || { echo "no passing verdict in $dir/out.json"; return 1; }
	rm -rf "$dir"
}

# run_codegen_check DIR [MODIFIED]: codegen_check.py over DIR's builds,
# MODIFIED the objects the series modifies (default lib/walk.o).
run_codegen_check() {
	python3 "$PROJECT_DIR/scripts/lib/codegen_check.py" --vanilla "$1/vanilla" --default "$1/default" \
		--on "$1/on" --modified "${2-lib/walk.o}" --json "$1/out.json" lib/walk.o lib/other.o
}

# test_list_h_includes_do_not_depend_on_the_option TARGET: a file that
# includes only <linux/list.h> reaches the same headers with the series
# at its default and on (include-graph.sh fails otherwise), and far fewer than
# <linux/prefetch.h> would add: <asm/processor.h> is not among them.
test_list_h_includes_do_not_depend_on_the_option() {
	# The three builds' objects, which include-graph.sh reads: made by
	# test_codegen_matches_vanilla earlier in this run, else made here.
	local made_in
	made_in=$(run_id_of "$RESULTS_DIR/codegen-$1.json" 2>/dev/null || echo none)
	if [ -z "${LIST_PREFETCH_RUN_ID:-}" ] || [ "$made_in" != "$LIST_PREFETCH_RUN_ID" ]; then
		"$PROJECT_DIR/scripts/codegen.sh" "$1" >/dev/null
	fi
	"$PROJECT_DIR/scripts/include-graph.sh" "$1"
	local graph=$RESULTS_DIR/include-graph-$1.txt
	# A missing or empty graph lists no header at all.
	[ -s "$graph" ] || { echo "no include graph in $graph"; return 1; }
	if grep -q 'asm/processor.h' "$graph"; then
		echo "<asm/processor.h> is among the headers the series adds"
		return 1
	fi
}

# test_codegen_matches_vanilla TARGET: codegen.sh's verdict (it fails on
# a difference the series does not explain), then this run's JSON read
# back: objects the series does not modify were compared, and so were
# those it modifies, their swept functions named; where it modifies no C
# file (the sweep held back in patches/held/), default is vanilla's code
# in every object.
test_codegen_matches_vanilla() {
	"$PROJECT_DIR/scripts/codegen.sh" "$1"
	python3 - "$RESULTS_DIR/codegen-$1.json" "${LIST_PREFETCH_RUN_ID:-}" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
bad = []
if r.get("run_id") != sys.argv[2]:
    bad.append(f"the result is from run {r.get('run_id')}, not this one")
if r["status"] != "pass":
    bad.append("status " + r["status"])
modified = [row for row in r["rows"] if row["modified"]]
untouched = [row for row in r["rows"] if not row["modified"]]
if not untouched:
    bad.append("no object the series leaves alone was compared")
swept = [f for row in r["rows"] for f in row["swept"]]
if not modified and swept:
    bad.append(f"the series modifies no C file, yet default differs from vanilla in {', '.join(swept)}")
print(f"{len(r['rows'])} objects, {len(modified)} of them modified by the series; "
      f"swept functions: {', '.join(swept) or 'none'}")
for b in bad:
    print("problem:", b)
sys.exit(1 if bad else 0)
PY
}

# sparse (C=2) over the files the series touches or adds, vanilla,
# default and on: no warning or error that vanilla does not give.
test_sparse_adds_nothing() {
	local start result
	start=$(date +%s)
	"$PROJECT_DIR/scripts/sparse.sh" "$1"
	result=$RESULTS_DIR/sparse-$1.txt
	[ "$(stat -c %Y "$result")" -ge "$start" ] || { echo "$result is not this run's"; return 1; }
	local variant files
	for variant in vanilla default on; do
		files=$(sed -n "s/^sparse-$1-$variant.log: \([0-9]*\) files checked.*/\1/p" "$result")
		[ "${files:-0}" -gt 0 ] || { echo "sparse checked no file of $variant"; return 1; }
	done
	grep -q '^verdict: pass' "$result"
}

# sparse_diff.py on logs made to order: a diagnostic at a moved line is
# not new, one vanilla lacks is, and a log without sparse is refused.
test_sparse_diff_names_what_is_new() {
	local dir out status
	dir=$(mktemp -d)
	printf '  CHECK   lib/a.c\nlib/a.c:10:5: warning: context imbalance\n' >"$dir/vanilla.log"
	printf '  CHECK   lib/a.c\nlib/a.c:14:5: warning: context imbalance\n' >"$dir/moved.log"
	printf '  CHECK   lib/a.c\nlib/a.c:14:5: warning: context imbalance\nlib/a.c:20:9: error: incompatible types in comparison expression (different address spaces)\n' >"$dir/new.log"
	printf 'lib/a.c:14:5: warning: context imbalance\n' >"$dir/nosparse.log"
	python3 "$PROJECT_DIR/scripts/lib/sparse_diff.py" "$dir/vanilla.log" "$dir/moved.log" ||
		{ echo "a diagnostic at a moved line was counted as new"; return 1; }
	status=0
	out=$(python3 "$PROJECT_DIR/scripts/lib/sparse_diff.py" "$dir/vanilla.log" "$dir/new.log") || status=$?
	echo "$out"
	[ "$status" -eq 1 ] || { echo "a new error passed (exit $status)"; return 1; }
	grep -q 'new: lib/a.c: error: incompatible types' <<<"$out" || { echo "the new error is not named"; return 1; }
	status=0
	python3 "$PROJECT_DIR/scripts/lib/sparse_diff.py" "$dir/vanilla.log" "$dir/nosparse.log" || status=$?
	[ "$status" -eq 2 ] || { echo "a log without sparse was accepted (exit $status)"; return 1; }
	rm -rf "$dir"
}

# compiles_with VARIANT CODE: CODE (after <linux/list.h>) compiles, with
# -Werror, as the x86_64 qemu build of VARIANT compiles lib/list_sort.c.
compiles_with() {
	local out status=0
	out=$(build_dir x86_64 qemu "$1")
	printf '#include <linux/list.h>\n%s\n' "$2" | compile_like_list_sort "$out" -Werror -fsyntax-only || status=$?
	[ "$status" -ne 2 ] || echo "no $out/lib/.list_sort.o.cmd (run the codegen test first)"
	return "$status"
}

# sparse_with VARIANT CODE: sparse's diagnostics on CODE (after
# <linux/list.h>), run as kbuild's C=2 runs it on lib/list_sort.c in the
# x86_64 qemu build of VARIANT: its CHECKFLAGS, then the compiler's flags.
sparse_with() {
	local out cmd file status=0
	out=$(build_dir x86_64 qemu "$1")
	[ -f "$out/lib/.list_sort.o.cmd" ] || { echo "no $out/lib/.list_sort.o.cmd (run the codegen test first)"; return 2; }
	cmd=$(list_sort_command "$out")
	file=$(mktemp --suffix=.c)
	printf '#include <linux/list.h>\n%s\n' "$2" >"$file"
	(cd "$out" && eval "sparse -D__linux__ -Dlinux -D__STDC__ -Dunix -D__unix__ -Wbitwise \
		-Wno-return-void -Wno-unknown-attribute -D__x86_64__ --arch=x86 -m64 ${cmd#* } $file" 2>&1) ||
		status=$?
	rm -f "$file"
	return "$status"
}

# The disabled list_prefetch() checks its argument as prefetch() does:
# an __rcu pointer, a plain load of an RCU-protected ->next, gets
# sparse's address-space warning in both forms (an error, that stopped
# the file's checking, when the off form compared it with a void *).
test_list_prefetch_warns_like_prefetch_under_sparse() {
	local variant out
	for variant in default on; do
		out=$(sparse_with "$variant" 'struct node { struct node __rcu *next; };
void f(struct node *n);
void f(struct node *n) { list_prefetch(n->next); }') || [ $? -ne 2 ] || { echo "$out"; return 1; }
		echo "$variant: $(grep -c 'warning\|error' <<<"$out") diagnostics"
		grep -q 'warning: incorrect type in argument 1 (different address spaces)' <<<"$out" ||
			{ echo "$variant: no address-space warning for an __rcu argument:"; echo "$out"; return 1; }
		! grep -q 'error:' <<<"$out" || { echo "$variant: sparse error:"; echo "$out"; return 1; }
	done
}

# list_prefetch() takes a pointer in both forms: off (x86_64's default
# variant), where it generates no code, a non-pointer argument (a struct,
# an integer) fails to compile as it does on, and a pointer compiles in
# both.
test_list_prefetch_takes_only_pointers() {
	local variant arg status
	for variant in default on; do
		compiles_with "$variant" 'void f(struct list_head *p);
void f(struct list_head *p) { list_prefetch(p->next); list_prefetchw(p); }' >/dev/null ||
			{ echo "$variant: a pointer argument does not compile"; return 1; }
		for arg in 'struct list_head' long; do
			status=0
			compiles_with "$variant" "void f($arg v);
void f($arg v) { list_prefetch(v); }" >/dev/null || status=$?
			[ "$status" -ne 2 ] || return 1
			[ "$status" -ne 0 ] || { echo "$variant: list_prefetch() of a $arg compiles"; return 1; }
			echo "$variant: list_prefetch() of a $arg does not compile, as it should not"
		done
	done
}
