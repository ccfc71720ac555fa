#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise the in-guest A/B of scripts/guest-bench.sh.

Reads the console logs run-<N>-<variant>.log, takes from each the
listbench lines (median cycles per node of one boot, per walk, layout
and size) and the workload lines (seconds of one run), and prints, per
metric, the median over the boots of each variant and the ratio
on/default: the median of the paired ratios (boot N on / boot N default;
the boots are interleaved) with its 95 % interval and the verdict in
listbench's words (scripts/lib/verdicts.py: sign tests, false-discovery rate
5 %).
Under TCG the guest's cycle counter and clock are emulated and no cache
is modelled: every figure is then labelled functional only, and the
ratio is not a result. Exit status 1 if a log lacks a metric or a
variant's kernel is not the one its name says.
"""
import argparse
import glob
import json
import os
import re
import statistics
import sys

import verdicts

LOG_NAME = re.compile(r"run-(\d+)-(\w+)\.log$")
LISTBENCH = re.compile(r"listbench: walk=(\w+) layout=(\w+) nodes=(\d+) reps=\d+ "
                       r"cycles_per_node=([0-9.]+)")
LISTBENCH_START = re.compile(r"listbench: start CONFIG_LIST_PREFETCH=([yn])")
WORKLOAD = re.compile(r"workload: name=([\w-]+) seconds=([0-9.]+)")
TCG_LABEL = "functional only — TCG models no caches"


def read_log(path):
    """Metric name -> (unit, value) of one boot, and its LIST_PREFETCH."""
    metrics, config = {}, None
    with open(path, errors="replace") as f:
        for line in f:
            m = LISTBENCH.search(line)
            if m:
                walk, layout, nodes, value = m.groups()
                metrics[f"listbench {walk:<5} {layout:<10} {int(nodes):>7}"] = \
                    ("cycles/node", float(value))
                continue
            m = WORKLOAD.search(line)
            if m:
                metrics[f"{m.group(1)}"] = ("seconds", float(m.group(2)))
                continue
            m = LISTBENCH_START.search(line)
            if m:
                config = m.group(1)
    return metrics, config


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--logs", required=True)
    parser.add_argument("--accel", required=True, choices=["tcg", "kvm"])
    parser.add_argument("--scale", required=True)
    parser.add_argument("--set", default="bench", help="the config set booted")
    parser.add_argument("--target", required=True)
    parser.add_argument("--json", required=True)
    args = parser.parse_args()

    runs = {}  # variant -> list of {metric: (unit, value)}
    problems = []
    for path in sorted(glob.glob(os.path.join(args.logs, "run-*.log"))):
        run, variant = LOG_NAME.search(path).groups()
        metrics, config = read_log(path)
        want = "y" if variant == "on" else "n"
        if config != want:
            problems.append(f"{os.path.basename(path)}: listbench saw "
                            f"CONFIG_LIST_PREFETCH={config}, want {want}")
        runs.setdefault(variant, []).append(metrics)

    names = sorted({name for boots in runs.values() for m in boots for name in m},
                   key=lambda n: (not n.startswith("listbench"), n))
    for variant, boots in runs.items():
        for i, m in enumerate(boots):
            for name in names:
                if name not in m:
                    problems.append(f"{variant} boot {i + 1}: no figure for {name}")

    rows = []
    for name in names:
        row = {"metric": name,
               "unit": next(m[name][0] for boots in runs.values()
                            for m in boots if name in m)}
        for variant, boots in runs.items():
            values = [m[name][1] for m in boots if name in m]
            row[variant] = {"median": statistics.median(values) if values else None,
                            "values": values}
        default = row.get("default", {}).get("median")
        on = row.get("on", {}).get("median")
        row["ratio_on_default"] = on / default if default and on is not None else None
        pairs = [(on_boot[name][1], default_boot[name][1])
                 for on_boot, default_boot in zip(runs.get("on", []), runs.get("default", []))
                 if name in on_boot and name in default_boot]
        row["paired"] = verdicts.paired_ratio(pairs) if pairs else None
        rows.append(row)
    verdicts.decide([row["paired"] for row in rows if row["paired"]])

    tcg = args.accel == "tcg"
    result = {"target": args.target, "accel": args.accel, "scale": args.scale, "set": args.set,
              "label": TCG_LABEL if tcg else "KVM: host CPU, timings of a guest",
              "runs": {v: len(b) for v, b in runs.items()},
              "rows": rows, "problems": problems,
              "run_id": os.environ.get("LIST_PREFETCH_RUN_ID", "standalone")}
    with open(args.json, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")

    nruns = "/".join(f"{len(b)} {v}" for v, b in sorted(runs.items()))
    print(f"In-guest A/B, {args.target} {args.set} config, {args.scale} workloads, "
          f"boots: {nruns} (interleaved)")
    if args.set != "bench":
        print(f"  The {args.set} kernels (checkers on): a functional check that every")
        print("  workload runs in both variants; their timings measure the checkers.")
    if tcg:
        print(f"  ACCELERATION: TCG. {TCG_LABEL}: cycles and seconds")
        print("  here say that the workloads ran, not what a prefetch costs or")
        print("  gains. For real timings: make bench (host CPU), or this on a")
        print("  machine where scripts/kvm-probe.sh finds a working KVM.")
    else:
        print("  ACCELERATION: KVM (-cpu host): real CPU, guest timings; medians of the boots.")
    pairs = min(len(runs.get("on", [])), len(runs.get("default", [])))
    print(f"  on/default: median of {pairs} paired ratios [95% CI] and verdict (faster, slower,")
    print("  equivalent within +-2 %, undecided; sign tests, false-discovery rate 5 %).")
    if pairs < 6:
        print(f"  With {pairs} pairs no 95 % interval exists: the bracket is their range, and")
        print("  no verdict can be reached (RUNS=6 or more for an interval, ~10 for verdicts).")
    ratio_head = "on/default (TCG)" if tcg else "on/default"
    print(f"  {'metric':<38} {'unit':<12} {'default':>10} {'on':>10}  {ratio_head:<36}")
    for row in rows:
        default = row.get("default", {}).get("median")
        on = row.get("on", {}).get("median")
        paired = row["paired"]
        ratio = (f"{paired['ratio']:.3f} [{paired['ci_low']:.3f},{paired['ci_high']:.3f}] "
                 f"{paired['verdict']}" if paired else "-")
        print(f"  {row['metric']:<38} {row['unit']:<12} "
              f"{default if default is not None else float('nan'):>10.4g} "
              f"{on if on is not None else float('nan'):>10.4g}  {ratio:<36}")
    for problem in problems:
        print(f"  problem: {problem}")
    return 1 if problems or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
