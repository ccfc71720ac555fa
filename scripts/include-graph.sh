#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# include-graph.sh - which headers does <linux/list.h> pull in, vanilla,
# with the series at its default and with it on? The series must not make the
# include graph depend on CONFIG_LIST_PREFETCH (a missing include would
# then break one build only), nor bring <asm/processor.h> back into
# every list user (what 2.6.36's list.h did through <linux/prefetch.h>).
#
# Uses the three qemu-config builds scripts/codegen.sh compiles objects
# in, and kbuild's own compiler command for lib/list_sort.o there, with
# -H on a file that includes only <linux/list.h>. Writes
# results/include-graph-TARGET.txt; exit status 1 if default and on differ.
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

usage() {
	echo "usage: $0 [TARGET]   (default x86_64; run scripts/codegen.sh first)" >&2
	exit 2
}

# headers VARIANT INCLUDE...: the unique headers a file holding only
# these #include lines reaches, as paths relative to include dirs.
headers() {
	local variant=$1 out
	shift
	out=$(build_dir "$TARGET" qemu "$variant")
	[ -f "$out/lib/.list_sort.o.cmd" ] || die "no $out/lib/.list_sort.o.cmd" "run 'scripts/codegen.sh $TARGET' first"
	printf '#include <%s>\n' "$@" | compile_like_list_sort "$out" -H -fsyntax-only |
		sed -n 's/^\.\{1,\} //p' | sed 's|.*/include/||' | sort -u
}

# code_lines VARIANT INCLUDE...: the lines of C the compiler sees for a
# file holding only these #include lines (gcc -E, without blank lines and
# line markers): what the headers cost, macros expanded away.
code_lines() {
	local variant=$1 out
	shift
	out=$(build_dir "$TARGET" qemu "$variant")
	printf '#include <%s>\n' "$@" | compile_like_list_sort "$out" -E |
		grep -cv '^[[:space:]]*$\|^#'
}

# graph_report DIR: the result, from the header lists in DIR.
# shellcheck disable=SC2317 # called through write_atomic
graph_report() {
	local tmp=$1
	result_stamp
	echo "Headers a file including only <linux/list.h> reaches ($TARGET qemu config, gcc -H),"
	echo "and the lines of C they amount to (gcc -E, no blank lines or line markers):"
	printf '  %-48s %7s %7s\n' "" headers lines
	printf '  %-48s %7d %7d\n' "vanilla" "$(wc -l <"$tmp/vanilla")" "$(cat "$tmp/vanilla.lines")" \
		"series, default (LIST_PREFETCH=$LIST_PREFETCH_DEFAULT)" "$(wc -l <"$tmp/default")" "$(cat "$tmp/default.lines")" \
		"series, on (LIST_PREFETCH=y)" "$(wc -l <"$tmp/on")" "$(cat "$tmp/on.lines")" \
		"vanilla + <linux/prefetch.h> (2.6.36's list.h)" "$(wc -l <"$tmp/prefetch")" \
		"$(cat "$tmp/prefetch.lines")"
	echo "  added by the series (default): $(comm -13 "$tmp/vanilla" "$tmp/default" | tr '\n' ' ')"
	if cmp -s "$tmp/default" "$tmp/on"; then
		echo "  default and on: the same headers"
	else
		echo "  default and on DIFFER: only default: $(comm -23 "$tmp/default" "$tmp/on" | tr '\n' ' ')"
		echo "                         only on:      $(comm -13 "$tmp/default" "$tmp/on" | tr '\n' ' ')"
	fi
}

main() {
	hold_cache_lock "$(basename "$0") $*"
	[ $# -le 1 ] || usage
	load_target "${1:-x86_64}"
	local tmp status=0
	tmp=$(mktemp -d)
	headers vanilla linux/list.h >"$tmp/vanilla"
	headers default linux/list.h >"$tmp/default"
	headers on linux/list.h >"$tmp/on"
	headers vanilla linux/list.h linux/prefetch.h >"$tmp/prefetch"
	code_lines vanilla linux/list.h >"$tmp/vanilla.lines"
	code_lines default linux/list.h >"$tmp/default.lines"
	code_lines on linux/list.h >"$tmp/on.lines"
	code_lines vanilla linux/list.h linux/prefetch.h >"$tmp/prefetch.lines"
	if [ ! -s "$tmp/vanilla" ] || [ ! -s "$tmp/default" ] || [ ! -s "$tmp/on" ]; then
		die "the compiler listed no headers" "run the command in $tmp by hand"
	fi
	write_atomic "$RESULTS_DIR/include-graph-$TARGET.txt" graph_report "$tmp"
	rm -rf "$tmp"
	cat "$RESULTS_DIR/include-graph-$TARGET.txt"
	grep -q 'default and on: the same headers' "$RESULTS_DIR/include-graph-$TARGET.txt" || status=1
	return "$status"
}

main "$@"; exit
