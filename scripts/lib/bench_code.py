#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What the benchmark's binaries hold, read from them.

  bench_code.py control-placement BUILD.txt   the A/A copy sits as the original
  bench_code.py uops BINARY                   the touch body's instructions

control-placement reads scripts/bench.sh's nm listing of one build and
fails, naming the walker, where the control copy (control_*) is not at
its original's (none_*) offset in the page, or is in the same page.

uops prints "PER_STEP,PER_NODE": of none_list_line_touch in BINARY, the
instructions of its innermost loop (the body's work, one step per pass)
and those of the walk's loop around it besides; a compare, test, add,
sub, and, inc or dec followed by its conditional jump counts once, as
the core fuses them (macro-fusion).
"""
import re
import subprocess
import sys


def control_placement(path):
    none, control = {}, {}
    for line in open(path):
        m = re.match(r"\s+([0-9a-f]+) (none|control)_(\S+)", line)
        if m:
            (none if m.group(2) == "none" else control)[m.group(3)] = int(m.group(1), 16)
    bad = [name for name, addr in none.items()
           if name not in control or control[name] % 4096 != addr % 4096
           or control[name] // 4096 == addr // 4096]
    for name in bad:
        print(f"  {name}: none at {none[name]:#x}, control at "
              f"{control.get(name, 0):#x}", file=sys.stderr)
    return 1 if bad or not none else 0


def uops(binary):
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary], check=True,
                          capture_output=True, text=True).stdout
    body = re.search(r"<none_list_line_touch>:\n(.*?)\n\n", text, re.S)
    if not body:
        return 1
    insns = []
    for line in body.group(1).splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(\S+)\s*(\S*)", line)
        if m:
            insns.append((int(m.group(1), 16), m.group(2), m.group(3)))
    loops = []
    for addr, op, arg in insns:
        target = re.match(r"([0-9a-f]+)", arg)
        if op.startswith("j") and op != "jmp" and target and int(target.group(1), 16) < addr:
            loops.append((int(target.group(1), 16), addr))
    if not loops:
        return 1
    inner = min(loops, key=lambda lh: lh[1] - lh[0])
    outer = max(loops, key=lambda lh: lh[1] - lh[0])

    def count(lo, hi):
        n, prev = 0, ""
        for addr, op, _ in insns:
            if lo <= addr <= hi and not (op.startswith("j") and re.match(r"(cmp|test|sub|add|and|inc|dec)", prev)):
                n += 1
            prev = op if lo <= addr <= hi else ""
        return n
    step = count(*inner)
    print(f"{step},{count(*outer) - step}")
    return 0


def main(argv):
    if len(argv) == 2 and argv[0] == "control-placement":
        return control_placement(argv[1])
    if len(argv) == 2 and argv[0] == "uops":
        return uops(argv[1])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
