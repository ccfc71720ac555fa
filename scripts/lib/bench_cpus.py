#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every CPU the benchmark has met, side by side.

Reads results/cpus/<cpu>/bench.csv (written by scripts/bench.sh, one
directory per CPU model) and its cpu.txt stamp, and prints the headline
of each: per walk shape (list walks by work per node, dependent and
independent lookups), measured regime and prefetch form, the ratio to no
prefetch over the builds (median, lowest and highest build) and the
verdict that holds in every build. Regimes are measured per CPU, so a
row compares like with like even where cache sizes differ.
"""
import csv
import os
import sys

REGIMES = ["L1", "L2", "LLC", "TLB+LLC", "DRAM", "TLB+DRAM", "TLB"]


def shape(row):
    if row["walk"] == "list":
        return f"list {row['work']} ns"
    return f"lookup {row['lookups'][:5]}"


def shape_order(name):
    kind, value = name.split(" ", 1)
    return (kind != "list", int(value.split()[0]) if kind == "list" else value)


def read_cpu(directory):
    stamp = {}
    with open(os.path.join(directory, "cpu.txt")) as f:
        for line in f:
            key, _, value = line.partition(": ")
            stamp.setdefault(key, value.strip())
    label = f"{stamp.get('cpu', '?')} ({stamp.get('family/model/stepping', '?')})"
    headline = {}
    with open(os.path.join(directory, "bench.csv")) as f:
        for row in csv.DictReader(f):
            if row.get("run") == "all" and row["headline"] == "1" and row["variant"] != "none":
                key = (shape(row), row["regime"], row["variant"])
                headline[key] = (f"{float(row['ratio']):.3f} [{float(row['spread_low']):.3f},"
                                 f"{float(row['spread_high']):.3f}] {row['verdict']}")
                headline[(shape(row), row["regime"], "set")] = int(row["bytes"])
                if row.get("control_ratio"):
                    headline[(shape(row), row["regime"], "control")] = (
                        f"{float(row['control_ratio']):.3f} [{float(row['control_ci_low']):.3f},"
                        f"{float(row['control_ci_high']):.3f}] A/A")
    date = stamp.get("# project", "")
    return label, date, headline


def size(nbytes):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale:
            return f"{nbytes // scale} {unit}"
    return f"{nbytes} B"


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "results/cpus"
    cpus = []
    for name in sorted(os.listdir(root)):
        directory = os.path.join(root, name)
        if os.path.exists(os.path.join(directory, "bench.csv")):
            cpus.append((name,) + read_cpu(directory))
    if not cpus:
        print(f"bench_cpus: no results under {root}", file=sys.stderr)
        return 1
    variants = ["prefetch", "prefetch-nonnull", "prefetch-cmov", "prefetchnta", "prefetchw"]
    width = 38
    walks = sorted({k[0] for _, _, _, h in cpus for k in h}, key=shape_order)
    print("Every CPU measured (make bench): time with each prefetch form / time without,")
    print("median over the builds [lowest, highest build] and the verdict that holds in")
    print("every build (else unstable), per walk and measured regime (at its largest set).")
    print("list N ns: shuffled list walk, N ns of work per node; lookup depen/indep:")
    print("dependent or independent hash lookups, load factor 1, half hits. (control):")
    print("the A/A, no prefetch against its own copy (v4 on; earlier runs had none: -).")
    for name, label, _, _ in cpus:
        print(f"  {name}: {label}")
    print(f"{'walk':<14} {'regime':<9} {'variant':<17}" +
          "".join(f" {name[:width]:<{width}}" for name, _, _, _ in cpus))
    for walk in walks:
        for regime in REGIMES:
            if not any((walk, regime, "set") in h for _, _, _, h in cpus):
                continue
            sets = [size(h[(walk, regime, "set")]) if (walk, regime, "set") in h else "-"
                    for _, _, _, h in cpus]
            print(f"{walk:<14} {regime:<9} {'(set)':<17}" +
                  "".join(f" {s:<{width}}" for s in sets))
            controls = [h.get((walk, regime, "control"), "-") for _, _, _, h in cpus]
            print(f"{'':<14} {'':<9} {'(control)':<17}" +
                  "".join(f" {c:<{width}}" for c in controls))
            for variant in variants:
                cells = [h.get((walk, regime, variant), "-") for _, _, _, h in cpus]
                print(f"{'':<14} {'':<9} {variant:<17}" +
                      "".join(f" {c:<{width}}" for c in cells))
    print()
    print("In words (generated from the rows above): per CPU, walk and form, the regimes")
    print("of each verdict, with the range of the ratios.")
    for name, _, _, h in cpus:
        for walk in walks:
            for variant in variants:
                by_verdict = {}
                for regime in REGIMES:
                    cell = h.get((walk, regime, variant))
                    if cell:
                        ratio, verdict = float(cell.split()[0]), cell.split()[-1]
                        by_verdict.setdefault(verdict, []).append((regime, ratio))
                parts = []
                for verdict, cells in by_verdict.items():
                    ratios = [r for _, r in cells]
                    span = (f"{min(ratios):.3f}" if len(ratios) == 1
                            else f"{min(ratios):.3f}-{max(ratios):.3f}")
                    parts.append(f"{verdict} in {', '.join(r for r, _ in cells)} ({span})")
                print(f"  {name} {walk} {variant}: {'; '.join(parts)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
