#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Copy results into results/examples/ and quote them in README.md and docs/.

README.md and each page of docs/ mark a quoted result as
    <!-- begin: results/examples/NAME -->
    ...
    <!-- end: results/examples/NAME -->
and this replaces what is between the markers with the file, verbatim,
in a code block: the figures in the README are what the commands
printed, never typed. Run it (make readme) after make report.
"""
import os
import re
import shutil
import subprocess
import sys

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# What make report leaves that the README quotes.
EXAMPLES = ["report.txt", "targets.txt", "debug.txt", "guest-bench.txt",
            "failures.txt", "audit.txt", "sizes-qemu.txt",
            "sizes-defconfig.txt",
            "bench.txt", "bench.png", "bench-cpus.txt", "bisect-x86_64.txt", "check-cold.txt",
            "check-warm.txt", "check-all-cold.txt", "check-all.txt", "check-all-after-check.txt",
            "check-all-warm.txt",
            "stage-times.txt", "codegen-x86_64.txt", "tiers.txt"]
BLOCK = re.compile(r"(<!-- begin: (\S+) -->\n).*?(<!-- end: \2 -->)", re.S)


def main():
    # update-readme.py [NAME...]: copy only these results (default: all).
    only = set(sys.argv[1:])
    results = os.path.join(PROJECT, "results")
    # The tiers' wall times, summed up from the recorded runs.
    with open(os.path.join(results, "tiers.txt"), "w") as f:
        subprocess.run([sys.executable, os.path.join(PROJECT, "scripts", "tiers.py"), results],
                       stdout=f, check=False)
    examples = os.path.join(results, "examples")
    os.makedirs(examples, exist_ok=True)
    for name in EXAMPLES:
        if only and name not in only:
            continue
        if os.path.exists(os.path.join(results, name)):
            shutil.copy(os.path.join(results, name), examples)

    missing = []

    def quote(match):
        path = os.path.join(PROJECT, match.group(2))
        if not os.path.exists(path):
            missing.append(match.group(2))
            return match.group(0)
        body = open(path).read().rstrip("\n")
        return f"{match.group(1)}```\n{body}\n```\n{match.group(3)}"

    docs = os.path.join(PROJECT, "docs")
    pages = [os.path.join(PROJECT, "README.md")] + sorted(
        os.path.join(docs, name) for name in os.listdir(docs) if name.endswith(".md"))
    for page in pages:
        text = BLOCK.sub(quote, open(page).read())
        with open(page + f".tmp.{os.getpid()}", "w") as f:
            f.write(text)
        os.replace(page + f".tmp.{os.getpid()}", page)
    for name in missing:
        print(f"update-readme: {name} does not exist; its block is unchanged",
              file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
