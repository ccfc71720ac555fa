#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The README's Status, from the current results alone.

  status.py EXAMPLES CURRENT...

EXAMPLES is results/examples/; CURRENT the names of its results that
update-readme.py finds current. Each line of the status is made from
one or more results, read from their files (a verdict line, a tally, a
delta), and is printed only while all of them are current: a claim
whose result is withdrawn disappears with it, and the last lines name
what is withdrawn and the command that remakes it. Run records (make
check, cold and warm) are never withdrawn: they are quoted with their
commit.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from uml_bench import decisions  # noqa: E402  (the UML run's decision of each patch)
from tiers import aa_controls, summary  # noqa: E402  (a run record's tally, as the tiers table says it)


def read(examples, name):
    with open(os.path.join(examples, name), errors="replace") as f:
        return f.read()


def first(pattern, text):
    m = re.search(pattern, text, re.M)
    return m.group(1) if m else None


def bisect(text, name):
    steps = re.findall(r"^(ok|FAIL|fail)\s+(\d+)\s+(\S+)", text, re.M)
    if not steps:
        return None
    ok = sum(1 for s in steps if s[0] == "ok")
    target = name[len("bisect-"):-len(".txt")]
    variants = sorted({s[2] for s in steps})
    return (f"every step of the series builds ({target}, {' and '.join(variants)}: "
            f"{ok} of {len(steps)} builds ok)" if ok == len(steps)
            else f"{target}: {len(steps) - ok} of {len(steps)} bisect builds FAIL")


def boots(text):
    """(kernels that passed, kernels) of a boot table: the kernels' rows of
    report.sh's tables (the KCSAN and debug ones, and the targets')."""
    rows = (re.findall(r"^  \S+\s+\S+\s+LIST_PREFETCH=\w (\w+)", text, re.M)
            or re.findall(r"^ +(?:\S+ +)?(?:off|on|default) +[yn] +[yn] +\d+ +\d+ (\w+) ", text,
                          re.M))
    return sum(1 for r in rows if r == "pass"), len(rows)


def claims(examples, current):
    """(result names, sentence) of every claim the current results make."""
    out = []

    def made(names, sentence):
        if sentence:
            out.append((names, sentence))

    for name in sorted(n for n in current if re.match(r"bisect-.*\.txt$", n)):
        made([name], bisect(read(examples, name), name))
    if "codegen-x86_64.txt" in current:
        verdict = first(r"^\s*verdict: (.*)$", read(examples, "codegen-x86_64.txt"))
        made(["codegen-x86_64.txt"], verdict and f"codegen (x86_64 qemu config): {verdict}")
    if "include-graph-x86_64.txt" in current:
        same = "default and on: the same headers" in read(examples, "include-graph-x86_64.txt")
        made(["include-graph-x86_64.txt"],
             "<linux/list.h> reaches the same headers default and on" if same
             else "<linux/list.h> reaches other headers default and on")
    for name, config in (("sizes-defconfig.txt", "x86_64 defconfig"),
                         ("sizes-qemu.txt", "x86_64 qemu config")):
        if name in current:
            text = read(examples, name)
            # Older results name the default build "off".
            off = first(r"^vanilla -> (?:off|default): +(text [^,]*)", text)
            on = first(r"^(?:off|default) -> on: +(text [^,]*)", text)
            if off and on:
                made([name], f"{config}: vanilla -> default {off}, default -> on {on}")
    for name, what in (("kcsan.txt", "KCSAN kernels (stress, rcutorture)"),
                       ("debug.txt", "debug kernels (KASAN, lockdep, PROVE_RCU; stress)"),
                       ("targets.txt", "targets' kernels under QEMU")):
        if name in current:
            passed, total = boots(read(examples, name))
            if total:
                made([name], f"{what}: {passed} of {total} boots pass, every KUnit case"
                     " passing" if passed == total else f"{what}: {total - passed} of {total}"
                     " boots FAIL")
    if "toolchains-x86_64.txt" in current:
        verdicts = first(r"^\s*codegen verdict\s+(.*)$", read(examples, "toolchains-x86_64.txt"))
        if verdicts:
            made(["toolchains-x86_64.txt"],
                 f"x86_64 with gcc and clang, the codegen verdicts: {', '.join(verdicts.split())}")
    if "bench.txt" in current:
        control = first(r"^A/A CONTROL: ([^;(]*)", read(examples, "bench.txt"))
        made(["bench.txt"], control and f"host benchmark (make bench): A/A control {control.strip()}")
    if "uml-bench.txt" in current:
        text = read(examples, "uml-bench.txt")
        for label, tally in aa_controls(text):
            made(["uml-bench.txt"], f"make uml-bench: {label}: {tally} read 1.000")
        for subject, words in decisions(text).items():
            made(["uml-bench.txt"], f"make uml-bench: patch '{subject}': {words}")
    for name, command in (("check-cold.txt", "make check, cold (empty cache)"),
                          ("check-warm.txt", "make check, warm"),
                          ("uml-bench-cold.txt", "make uml-bench, cold (empty cache)")):
        if name in current:
            record = summary(os.path.join(examples, name))
            took = record["seconds"]
            if record["commit"] != "?" and record["exit"] is not None:
                failed = f"exit {record['exit']}, " if record["exit"] else ""
                made([name], f"{command} at {record['commit']}: {failed}{record['tally']}"
                     + (f" in {took // 60} min {took % 60} s" if took is not None else ""))
    return out


def main():
    examples, current = sys.argv[1], set(sys.argv[2:])
    for _, sentence in claims(examples, current):
        print(f"- {sentence}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
