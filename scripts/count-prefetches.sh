#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# count-prefetches.sh - count the prefetch instructions in a vmlinux
# from 'objdump -d', per mnemonic and per section (the alternatives'
# replacement section included), and the functions that contain one.
# Prints NAME=value lines, or with --functions the sites.
set -euo pipefail
# shellcheck source=scripts/lib/lab.sh
. "$(dirname "$0")/lib/lab.sh"

usage() {
	echo "usage: $0 [--functions] VMLINUX   (--functions: one 'function mnemonic' line per site)" >&2
	exit 2
}

list_sites=0
[ "${1:-}" != --functions ] || { list_sites=1; shift; }
[ $# -eq 1 ] || usage
vmlinux=$1
[ -f "$vmlinux" ] || die "no such file: $vmlinux" "build it first"

# objdump names the 3DNow! read prefetch 'prefetch', the SSE ones
# prefetcht0/1/2 and prefetchnta, the write one prefetchw; arm64's is
# prfm (pldl1keep for prefetch(), pstl1keep for prefetchw()).
"${CROSS_COMPILE:-}objdump" -d --no-show-raw-insn "$vmlinux" | awk -v list_sites="$list_sites" '
	/^Disassembly of section / { section = $4; sub(":$", "", section); next }
	/^[0-9a-f]+ <.*>:$/ { func = $2; gsub(/[<>:]/, "", func); next }
	{
		for (i = 2; i <= NF && i <= 3; i++) {
			if ($i ~ /^(prefetch(t0|t1|t2|nta|w|wt1)?|prfu?m)$/) {
				total++
				by_insn[$i]++
				if ($i ~ /^prfu?m$/) { op = $(i + 1); sub(",.*", "", op); prfm_op[op]++ }
				by_section[section]++
				if (!(func in seen)) { seen[func] = 1; functions++ }
				if (list_sites) print func, $i
				break
			}
		}
	}
	END {
		if (list_sites) exit
		printf "total=%d\nfunctions=%d\n", total, functions
		n = split("prefetch prefetcht0 prefetcht1 prefetcht2 prefetchnta prefetchw prefetchwt1 prfm prfum", names, " ")
		for (i = 1; i <= n; i++) printf "insn_%s=%d\n", names[i], by_insn[names[i]]
		for (s in by_section) printf "section_%s=%d\n", s, by_section[s]
		for (o in prfm_op) printf "prfm_%s=%d\n", o, prfm_op[o]
	}'
# x86 alternatives: on i386 every prefetch() is one (nops in the text).
if [ "$list_sites" = 1 ]; then
	python3 "$PROJECT_DIR/scripts/lib/alt_prefetches.py" --nm "${CROSS_COMPILE:-}nm" --functions "$vmlinux" |
		awk '!/=/ { print $1, $3 "(alt:" $2 ")" }'
else
	python3 "$PROJECT_DIR/scripts/lib/alt_prefetches.py" --nm "${CROSS_COMPILE:-}nm" "$vmlinux"
fi
