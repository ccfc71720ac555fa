#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Results in brief, for the README: the kernels booted, their KUnit
tallies and splats (results/boot-*.json), the sizes and prefetch counts
of the qemu and defconfig builds (results/sizes-*.json), and the host
benchmark's headline (results/bench.csv, stamped by bench.txt, or the
newest of results/cpus/*/).

A row is printed only if its result is current: made at a commit (its
"project" field) that holds the last change to the series and to the
code that boots or sizes (update-readme.py's rule); the others are
named as not current, with the command that remakes them.
"""
import csv
import glob
import json
import os
import re
import sys

# update-readme.py (make readme) is a stage script, one level up.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
upd = __import__("update-readme")

VARIANTS = ("vanilla", "default", "on")
ORDER = {"qemu": 0, "debug": 1, "kcsan": 2, "bench": 3}


def current(project, paths):
    if not project or project.endswith("+changes") or project == "?":
        return False
    return upd.outdated(project, paths) is None


def print_sizes(results, config):
    """The sizes of one config's builds, if current; False if not."""
    path = os.path.join(results, f"sizes-{config}.json")
    if not os.path.exists(path):
        return False
    s = json.load(open(path))
    if not current(s.get("project"), upd.PRODUCERS[f"sizes-{config}.txt"][0]):
        return False
    v = s["variants"]
    print(f"Sizes, {s['target']} {config} config:" + " " * (13 - len(config))
          + "vanilla    default         on")
    print("  text (size vmlinux)    " + "".join(f"{v[x]['size']['text']:>11}" for x in VARIANTS))
    print("  prefetch instructions  " + "".join(f"{v[x]['prefetches']['total']:>11}" for x in VARIANTS))
    for pair, key in (("vanilla -> default", "bloat_vanilla_default"),
                      ("default -> on", "bloat_default_on")):
        b = s[key]
        print(f"  bloat-o-meter {pair:<19} {b['after'] - b['before']:+d} bytes of function code")
    return True


# The forms the summary shows (bench.txt has every one).
SUMMARY_FORMS = ("prefetch", "prefetch-nonnull", "prefetchnta", "prefetchw")
# The host benchmark's regimes past L2, by set size (TLB+: translation-bound).
BENCH_REGIMES = ("LLC", "TLB+LLC", "DRAM", "TLB+DRAM", "TLB")


def bench_shape(row):
    if row["walk"] == "list":
        return f"list, work {row['work']} ns"
    return f"lookups, {row['lookups']}"


def last_bench(results):
    """The bench.txt of the last current `make bench`: this checkout's own
    run (results/bench.txt), else the newest one kept per CPU model
    (results/cpus/*/, committed); None if none is current."""
    found = []
    for txt in [os.path.join(results, "bench.txt")] + glob.glob(os.path.join(results, "cpus", "*", "bench.txt")):
        st = upd.stamp(txt) if os.path.exists(txt) else None
        if (st and os.path.exists(re.sub(r"\.txt$", ".csv", txt))
                and current(st[0] + ("+changes" if st[1] else ""), upd.PRODUCERS["bench.txt"][0])):
            found.append((st[2], txt))
    return max(found)[1] if found else None


def print_bench(results):
    """The benchmark's headline cells in LLC and beyond, if current; False
    if not: per walk shape and regime, each prefetch's time over no
    prefetch's (the median over the builds) and the verdict of every build."""
    txt = last_bench(results)
    if not txt:
        return False
    table = re.sub(r"\.txt$", ".csv", txt)
    host = re.search(r"host: ([^;,]+)", open(txt).readline())
    rows = [r for r in csv.DictReader(open(table)) if r.get("run") == "all"
            and r["headline"] == "1" and r["variant"] != "none"
            and r["regime"] in BENCH_REGIMES]
    if not rows:
        return False
    variants = [v for v in SUMMARY_FORMS if any(r["variant"] == v for r in rows)]
    print(f"Host benchmark (make bench, {host.group(1) if host else '?'}): time over no prefetch's, "
          "verdict of every build; control: A/A")
    print(f"  {'walk':<22}{'regime':<10}{'control':<9}" +
          "".join(f"{v:<19}" for v in variants).rstrip())
    cells = {}
    for r in rows:
        order = (BENCH_REGIMES.index(r["regime"]), r["walk"] != "list",
                 int(r["work"]), r["lookups"])
        cells.setdefault(order, {})[r["variant"]] = r
    for order, by_variant in sorted(cells.items()):
        first = next(iter(by_variant.values()))
        control = first.get("control_ratio")
        line = (f"  {bench_shape(first):<22}{first['regime']:<10}"
                f"{float(control):<9.3f}" if control else
                f"  {bench_shape(first):<22}{first['regime']:<10}{'-':<9}")
        for v in variants:
            r = by_variant.get(v)
            line += f"{float(r['ratio']):.3f} {r['verdict']:<13}" if r else " " * 19
        print(line.rstrip())
    return True


def main():
    results = sys.argv[1] if len(sys.argv) > 1 else os.path.join(upd.PROJECT, "results")
    print("Kernels booted under QEMU (TCG: functional only), KUnit suites passed/failed:")
    stale = []
    boots = []
    for path in glob.glob(os.path.join(results, "boot-*.json")):
        r = json.load(open(path))
        if r.get("config") not in ORDER:
            continue
        if not current(r.get("project"), upd.BOOTS):
            stale.append(f"{os.path.basename(path)} (make report)")
            continue
        boots.append(r)
    for r in sorted(boots, key=lambda r: (ORDER[r["config"]], r["target"], r["variant"])):
        suites = " ".join(f"{n} {s['passed']}/{s['failed']}" for n, s in sorted(r["suites"].items()))
        print(f"  {r['config']:<6} {r['target']:<11} {r['variant']:<7} LIST_PREFETCH={r['list_prefetch']} "
              f"{r['status']:<5} splats {len(r['splats'])}  {suites}")
    if not boots:
        print("  (none current)")
    for config in ("qemu", "defconfig"):
        if not print_sizes(results, config):
            stale.append(f"sizes-{config}.json (make sizes CONFIG={config})")
    if not print_bench(results):
        stale.append("bench.csv (make bench)")
    for name in sorted(stale):
        print(f"  no current result: results/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
