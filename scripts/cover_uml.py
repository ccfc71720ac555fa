#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The cover letter's section on the in-kernel figures, from a result.

  cover_uml.py [results/uml-bench.txt] [COVER]

Prints the section made from results/uml-bench.txt (make uml-bench); with
COVER, replaces the section between its first line and 'Not measured:'
in that file instead. The figures are the result's, never typed.
"""
import re
import sys

FIRST = "The kernel's own code on the real CPU:"


def section(txt):
    run = re.search(r"boots: results/uml/(\S+)/", txt).group(1)
    lines = txt.splitlines()
    rows = []
    for line in lines:
        if re.match(r"^(list|lookup|rcu|skb)\s+\d+ [KM]iB", line):
            f = line.split()
            # walk, set, unit, n, off ns, on ns, ratio, [CI], verdict, builds
            rows.append(f"  {f[0]:<7} {f[1] + ' ' + f[2]:>8} {f[4]:>7} {f[5]:>7}  "
                        f"{f[6]} {f[7]:<15} {f[8]:<11} {f[9]}")
    pick = [next(x for x in lines if x.startswith(p))
            for p in ("precision (iterators)", "verdicts (iterators", "in-kernel and user-space")]
    decisions = [x for x in lines if x.startswith("patch ")]
    return f"""{FIRST} User-Mode Linux kernels of the
series (x86_64 host, the CPU above, one CPU, mem=1536M, 4 KiB pages;
'make uml-bench', lab run {run}). The iterators are
compiled by the kernel's build in both forms into the same kernel (the
option unset and set), and each boot times both over the same slab
objects in a random order, sample by sample; the boots of two kernels
(the default's and the on one's: two builds, "unstable" where they
disagree); on / off, median of the boots' ratios [95 % CI], FDR 5 %:

  walk         set  off ns   on ns  on / off [95 % CI]    verdict     builds
""" + "\n".join(rows) + "\n" + "\n".join("  " + p for p in pick) + """

The four swept walks (patches 7-10), each driven through its own code
path in UML kernels of the default, on and vanilla (Tiny RCU callbacks,
a socket backlog released, a blk-mq batch completed, direct reclaim of
clean page cache; each patch has its figures and its workload). What
they decide:

""" + "\n".join("  " + d for d in decisions) + "\n\n"


def main():
    result = sys.argv[1] if len(sys.argv) > 1 else "results/uml-bench.txt"
    text = section(open(result).read())
    if len(sys.argv) < 3:
        print(text, end="")
        return 0
    cover = open(sys.argv[2]).read()
    end = cover.index("Not measured:")
    start = cover.find(FIRST)
    start = end if start < 0 else start
    open(sys.argv[2], "w").write(cover[:start] + text + cover[end:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
