#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# count-prefetches.sh - count the prefetch instructions in a vmlinux
# from 'objdump -d', per mnemonic and per section (the alternatives'
# replacement section included), and the functions that contain one.
# Prints NAME=value lines.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || { echo "usage: $0 VMLINUX" >&2; exit 2; }
vmlinux=$1
[ -f "$vmlinux" ] || die "no such file: $vmlinux" "build it first"

# objdump names the 3DNow! read prefetch 'prefetch', the SSE ones
# prefetcht0/1/2 and prefetchnta, the write one prefetchw.
"${CROSS_COMPILE:-}objdump" -d --no-show-raw-insn "$vmlinux" | awk '
	/^Disassembly of section / { section = $4; sub(":$", "", section); next }
	/^[0-9a-f]+ <.*>:$/ { func = $2; next }
	{
		for (i = 2; i <= NF && i <= 3; i++) {
			if ($i ~ /^prefetch(t0|t1|t2|nta|w|wt1)?$/) {
				total++
				by_insn[$i]++
				by_section[section]++
				if (!(func in seen)) { seen[func] = 1; functions++ }
				break
			}
		}
	}
	END {
		printf "total=%d\nfunctions=%d\n", total, functions
		n = split("prefetch prefetcht0 prefetcht1 prefetcht2 prefetchnta prefetchw prefetchwt1", names, " ")
		for (i = 1; i <= n; i++) printf "insn_%s=%d\n", names[i], by_insn[names[i]]
		for (s in by_section) printf "section_%s=%d\n", s, by_section[s]
	}'
