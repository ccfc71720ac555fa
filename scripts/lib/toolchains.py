#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""gcc and clang side by side, from the results of one target built with
each: make sizes (sizes-qemu[-TARGET-llvm].json) and make codegen
(codegen-TARGET[-llvm].json).

usage: toolchains.py RESULTS_DIR TARGET [--run-id ID]

Prints one column per compiler: bloat-o-meter's totals vanilla -> default
and default -> on, the prefetch instructions of each vmlinux, and the
prefetches codegen counts in each swept function. Exit status 1 when a
result is missing, is of another run than --run-id, or codegen failed
for either compiler (the problems on stderr): the table compares like
with like or not at all.
"""
import argparse
import json
import os
import sys


def sizes_path(results, target):
    return os.path.join(results, "sizes-qemu.json" if target == "x86_64"
                        else f"sizes-qemu-{target}.json")


def load(path, run_id, problems):
    if not os.path.exists(path):
        problems.append(f"no {os.path.basename(path)}")
        return None
    result = json.load(open(path))
    if run_id is not None and result.get("run_id") != run_id:
        problems.append(f"{os.path.basename(path)} is of run {result.get('run_id')}, not {run_id}")
    return result


def compiler_name(sizes):
    """'gcc 12.2.0' from 'gcc (Debian 12.2.0-14) 12.2.0', 'clang 14.0.6' from
    'Debian clang version 14.0.6'."""
    words = sizes.get("compiler", "?").split()
    name = "clang" if "clang" in words else words[0] if words else "?"
    version = next((w for w in reversed(words) if w[:1].isdigit()), "?")
    return f"{name} {version.split('-')[0]}"


def bloat(sizes, pair):
    b = sizes[f"bloat_{pair}"]
    return f"{b['after'] - b['before']:+d} B"


def prefetches(sizes):
    return "/".join(str(sizes["variants"][v]["prefetches"]["total"]) for v in ("vanilla", "default", "on"))


def swept(codegen):
    return {name: counts for row in codegen["rows"]
            for name, counts in row["swept_prefetches"].items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results")
    parser.add_argument("target")
    parser.add_argument("--run-id")
    args = parser.parse_args()

    problems = []
    targets = [args.target, f"{args.target}-llvm"]
    sizes = [load(sizes_path(args.results, t), args.run_id, problems) for t in targets]
    codegen = [load(os.path.join(args.results, f"codegen-{t}.json"), args.run_id, problems)
               for t in targets]
    if problems:
        for p in problems:
            print("problem:", p, file=sys.stderr)
        return 1

    names = [compiler_name(s) for s in sizes]
    rows = [("", *names),
            ("bloat-o-meter vanilla -> default", *(bloat(s, "vanilla_default") for s in sizes)),
            ("bloat-o-meter default -> on", *(bloat(s, "default_on") for s in sizes)),
            ("prefetch insns vanilla/default/on", *(prefetches(s) for s in sizes)),
            ("codegen verdict", *(c["status"] for c in codegen))]
    per_compiler = [swept(c) for c in codegen]
    functions = sorted(set().union(*per_compiler))
    for name in functions:
        rows.append((f"  {name}", *("/".join(str(s[name][v]) for v in ("vanilla", "default", "on"))
                                   if name in s else "not swept" for s in per_compiler)))

    print(f"gcc and clang: {args.target}, qemu config (make sizes, make codegen; default:")
    print("the series with the architecture's default, LIST_PREFETCH=n; on: LIST_PREFETCH=y)")
    for row in rows:
        print(f"  {row[0]:<36} {row[1]:>16} {row[2]:>16}")
        if row[0] == "codegen verdict":
            print("  swept functions' prefetches, vanilla/default/on:")
    differ = [f for f in functions if len({str(s.get(f)) for s in per_compiler}) > 1]
    print(f"  the compilers sweep {'the same' if not differ else 'different'} functions"
          + (f" or counts: {', '.join(differ)}" if differ else ""))
    for s, c, t in zip(sizes, codegen, targets):
        print(f"  ({t}: sizes project {s.get('project', '?')}, run {s.get('run_id', '?')}; "
              f"codegen run {c.get('run_id', '?')})")
    failed = [t for c, t in zip(codegen, targets) if c["status"] != "pass"]
    if failed:
        print(f"problem: codegen failed for {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
