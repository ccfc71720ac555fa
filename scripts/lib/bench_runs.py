#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The host benchmark's verdicts over several builds of listbench.

  bench_runs.py OUT.csv RUN.csv...   prints the report, writes OUT.csv

Each RUN.csv is one run of one binary (scripts/bench.sh links each with
its walkers at another address, so code placement differs between them).
One run's intervals describe that binary; whether a prefetch pays on the
CPU is a claim about every placement. So:

- every (cell, variant, run) keeps its paired-ratio sign tests, and
  Benjamini-Hochberg holds the false-discovery rate at 5 % over all of
  them at once, per family (difference; equivalence within +-2 %);
- a cell's verdict is a run's verdict only when every run agrees, else
  'unstable'; its ratio is the median of the runs' medians, its spread
  the lowest and highest of them, its interval the hull of the runs'.

OUT.csv has one row per cell, variant and run, and one per cell and
variant with run 'all' (the aggregate); the headline is recomputed over
the aggregate (per shape and measured regime, the largest set).
"""
import csv
import statistics
import sys
from collections import Counter, OrderedDict

import verdicts

VARIANTS = ["prefetch", "prefetch-nonnull", "prefetchnta", "prefetchw"]
REGIMES = ["L1", "L2", "LLC", "DRAM", "TLB"]
SHAPE = ["walk", "layout", "body", "work", "lookups", "load", "hits", "position"]
CELL = SHAPE + ["bytes"]
COLUMNS = ["walk", "layout", "body", "work", "lookups", "load", "hits", "position", "bytes",
           "run", "regime", "headline", "variant", "reps", "ns", "ratio", "ci_low", "ci_high",
           "spread_low", "spread_high", "verdict", "p_diff", "p_equiv", "hit_ratio",
           "nodes_per_lookup", "unused_prefetches", "null_prefetches", "overlap",
           "latency_ns", "work_steps"]
WORDS = ("faster", "slower", "equivalent", "undecided")


def size(nbytes):
    nbytes = int(nbytes)
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale and nbytes % scale == 0 or (unit == "KiB" and nbytes >= scale):
            return f"{nbytes // scale} {unit}"
    return f"{nbytes} B"


def read_runs(paths):
    rows = []
    for path in paths:
        with open(path) as f:
            run_rows = list(csv.DictReader(f))
        if not run_rows:
            raise SystemExit(f"bench_runs: {path} holds no cells")
        rows += run_rows
    return rows


def decide_all(rows):
    """Verdicts of every (cell, variant, run), FDR over all of them."""
    tested = [r for r in rows if r["variant"] != "none"]
    diff = verdicts.benjamini_hochberg([float(r["p_diff"]) for r in tested])
    equiv = verdicts.benjamini_hochberg([float(r["p_equiv"]) for r in tested])
    for r, d, e in zip(tested, diff, equiv):
        ratio = float(r["ratio"])
        r["verdict"] = ("equivalent" if e else
                        ("faster" if ratio < 1 else "slower") if d else "undecided")
    for r in rows:
        if r["variant"] == "none":
            r["verdict"] = "baseline"
    return len(tested)


def aggregate(rows):
    """One row per cell and variant over the runs; the runs' rows gain spreads."""
    groups = OrderedDict()
    for r in rows:
        groups.setdefault(tuple(r[c] for c in CELL) + (r["variant"],), []).append(r)
    out = []
    for runs in groups.values():
        ratios = [float(r["ratio"]) for r in runs]
        for r in runs:
            r["spread_low"] = r["spread_high"] = r["ratio"]
        words = {r["verdict"] for r in runs}
        agg = dict(runs[0])
        agg.update({
            "run": "all",
            "regime": Counter(r["regime"] for r in runs).most_common(1)[0][0],
            "reps": str(sum(int(r["reps"]) for r in runs)),
            "ns": f"{statistics.median(float(r['ns']) for r in runs):.4f}",
            "ratio": f"{statistics.median(ratios):.5f}",
            "ci_low": f"{min(float(r['ci_low']) for r in runs):.5f}",
            "ci_high": f"{max(float(r['ci_high']) for r in runs):.5f}",
            "spread_low": f"{min(ratios):.5f}",
            "spread_high": f"{max(ratios):.5f}",
            "verdict": words.pop() if len(words) == 1 else "unstable",
            "runs": len(runs),
        })
        for c in ("hit_ratio", "nodes_per_lookup", "unused_prefetches", "null_prefetches",
                  "overlap", "latency_ns"):
            agg[c] = f"{statistics.fmean(float(r[c]) for r in runs):.4f}"
        out.append(agg)
    mark_headline(out)
    return out


def headline_shape(r):
    if r["walk"] == "list":
        return r["layout"] == "shuffled" and r["body"] == "touch"
    return r["load"] == "1" and float(r["hits"]) == 0.5 and r["position"] == "uniform"


def mark_headline(agg):
    largest = {}
    for r in agg:
        if headline_shape(r):
            key = tuple(r[c] for c in SHAPE) + (r["regime"],)
            largest[key] = max(largest.get(key, 0), int(r["bytes"]))
    for r in agg:
        key = tuple(r[c] for c in SHAPE) + (r["regime"],)
        r["headline"] = "1" if headline_shape(r) and largest.get(key) == int(r["bytes"]) else "0"


def cell_text(r):
    return (f"{float(r['ratio']):.3f} [{float(r['spread_low']):.3f},{float(r['spread_high']):.3f}]"
            f" {r['verdict']}")


def shape_label(r):
    if r["walk"] == "list":
        return f"list, work {r['work']} ns"
    return f"lookups, {r['lookups']}"


def print_headline(agg, nr_runs):
    print(f"HEADLINE over {nr_runs} builds: time with each prefetch form / time without;")
    print("median of the builds' medians [lowest, highest of them] and the verdict where")
    print("every build agrees, else 'unstable'. Lists: shuffled, the body's work per node;")
    print("lookups: load factor 1, half the keys present, dependent (a path walk) or")
    print("independent (keys known in advance)")
    print(f"{'regime':<6} {'set':<8} {'walk':<24}" + "".join(f" {v:<33}" for v in VARIANTS))
    order = {"list": 0, "hash-lookup": 1}
    for regime in ("LLC", "DRAM", "TLB", "L2", "L1"):
        cells = OrderedDict()
        for r in agg:
            if r["headline"] == "1" and r["regime"] == regime and r["variant"] != "none":
                cells.setdefault((order[r["walk"]], int(r["work"]), r["lookups"]), {})[
                    r["variant"]] = r
        for key in sorted(cells):
            by_variant = cells[key]
            first = next(iter(by_variant.values()))
            print(f"{regime:<6} {size(first['bytes']):<8} {shape_label(first):<24}" +
                  "".join(f" {cell_text(by_variant[v]):<33}" if v in by_variant else " " * 34
                          for v in VARIANTS).rstrip())


def print_work_sweep(agg):
    lists = [r for r in agg if r["walk"] == "list" and r["layout"] == "shuffled"
             and r["body"] == "touch"]
    works = sorted({int(r["work"]) for r in lists})
    if not works:
        return
    print("\nWORK PER NODE (list walks, shuffled, touching body): prefetch / none by the")
    print("body's serial work per node (nominal ns; measured: 'none ns' at the smallest set)")
    print(f"{'set':<8} {'regime':<6}" + "".join(f" {'work ' + str(w):<28}" for w in works))
    by_set = OrderedDict()
    for r in lists:
        if r["variant"] == "prefetch":
            by_set.setdefault(int(r["bytes"]), {})[int(r["work"])] = r
    for nbytes, by_work in sorted(by_set.items()):
        regime = next(iter(by_work.values()))["regime"]
        print(f"{size(nbytes):<8} {regime:<6}" +
              "".join(f" {cell_text(by_work[w]) if w in by_work else '-':<28}" for w in works))
    none = {(int(r["bytes"]), int(r["work"])): float(r["ns"]) for r in lists
            if r["variant"] == "none"}
    smallest = min(b for b, _ in none)
    print(f"none ns per node at {size(smallest)}: " +
          ", ".join(f"work {w}: {none[(smallest, w)]:.1f}" for w in works
                    if (smallest, w) in none))
    print("smallest work per node at which each form is faster (every build), per regime,")
    print("at the regime's largest set:")
    for regime in REGIMES:
        sets = [b for b, w in by_set.items()
                if next(iter(w.values()))["regime"] == regime]
        if not sets:
            continue
        parts = []
        for variant in VARIANTS:
            cells = sorted((int(r["work"]), r["verdict"]) for r in lists
                           if r["variant"] == variant and int(r["bytes"]) == max(sets))
            faster = [w for w, verdict in cells if verdict == "faster"]
            parts.append(f"{variant} {str(faster[0]) + ' ns' if faster else 'none up to ' + str(works[-1]) + ' ns'}")
        print(f"  {regime:<5} ({size(max(sets))}): " + "; ".join(parts))


def print_lookups(agg):
    rows = [r for r in agg if r["walk"] == "hash-lookup"]
    if not rows:
        return
    print("\nHASH LOOKUPS: what the prefetches fetch, per lookup (hits; chain nodes visited;")
    print("prefetches of real nodes never used; prefetches of NULL), the overlap factor")
    print("((nodes + 1 bucket) x chase latency / ns per lookup: ~1 or less, one miss after")
    print("another; well above 1, lookups overlap), and prefetch and prefetch-nonnull / none")
    print(f"{'set':<8} {'reg':<5} {'lookups':<12} {'load':>4} {'hits':>5} {'match':<8}"
          f" {'nodes':>6} {'unused':>6} {'NULL':>6} {'overlap':>7} {'none ns':>8}"
          f"  {'prefetch':<28} {'prefetch-nonnull':<28}")
    cells = OrderedDict()
    for r in rows:
        cells.setdefault(tuple(r[c] for c in CELL), {})[r["variant"]] = r
    for key, by_variant in cells.items():
        r = by_variant["none"]
        print(f"{size(r['bytes']):<8} {r['regime']:<5} {r['lookups']:<12} {r['load']:>4}"
              f" {float(r['hits']):>5.2f} {r['position']:<8} {float(r['nodes_per_lookup']):>6.2f}"
              f" {float(r['unused_prefetches']):>6.2f} {float(r['null_prefetches']):>6.2f}"
              f" {float(r['overlap']):>7.2f} {float(r['ns']):>8.1f}  "
              f"{cell_text(by_variant['prefetch']):<28} {cell_text(by_variant['prefetch-nonnull']):<28}")


def print_precision(agg, rows):
    """How many of the headline cells' per-build intervals meet +-1 %."""
    heads = {tuple(r[c] for c in CELL) for r in agg if r["headline"] == "1"}
    runs = [r for r in rows if r["variant"] != "none" and tuple(r[c] for c in CELL) in heads]
    met = sum(max(float(r["ratio"]) - float(r["ci_low"]),
                  float(r["ci_high"]) - float(r["ratio"])) <= 0.01 * float(r["ratio"])
              for r in runs)
    print(f"precision: {met} of {len(runs)} headline intervals (cell, form, build) are within "
          "+-1 % (the target, or the cell's time budget ran out)")


def print_counts(agg, tests):
    counts = Counter(r["verdict"] for r in agg if r["variant"] != "none")
    cells = len({tuple(r[c] for c in CELL) for r in agg})
    print(f"\nverdicts over {cells} cells x {len(VARIANTS)} forms, each over every build: "
          + ", ".join(f"{w} {counts[w]}" for w in WORDS + ("unstable",)))
    print(f"false-discovery rate held at {verdicts.FDR:.0%} over all {tests} tests of all builds "
          f"(Benjamini-Hochberg, sign tests; equivalence within +-{verdicts.EQUIV_MARGIN:.0%})")
    wide = [r for r in agg if r["variant"] != "none" and r["headline"] == "1"
            and float(r["spread_high"]) - float(r["spread_low"]) > 0.02]
    print(f"headline cells whose builds' medians differ by more than 2 %: {len(wide)}")


def print_all(agg):
    print("\nALL CELLS over the builds: ratio [lowest, highest build] verdict")
    print(f"{'walk':<11} {'shape':<36} {'set':>8} {'reg':<4} {'none ns':>9}" +
          "".join(f" {v:<30}" for v in VARIANTS))
    cells = OrderedDict()
    for r in agg:
        cells.setdefault(tuple(r[c] for c in CELL), {})[r["variant"]] = r
    for by_variant in cells.values():
        r = by_variant["none"]
        if r["walk"] == "list":
            shape = f"{r['layout']} {r['body']} work {r['work']}"
        else:
            shape = f"{r['lookups']} load {r['load']} hits {float(r['hits']):.0%} {r['position']}"
        print(f"{r['walk']:<11} {shape:<36} {size(r['bytes']):>8} {r['regime']:<4}"
              f" {float(r['ns']):>9.2f}" +
              "".join(f" {cell_text(by_variant[v]):<30}" for v in VARIANTS).rstrip())


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    out_path, paths = sys.argv[1], sys.argv[2:]
    rows = read_runs(paths)
    tests = decide_all(rows)
    agg = aggregate(rows)
    nr_runs = len({r["run"] for r in rows})
    print_headline(agg, nr_runs)
    print_work_sweep(agg)
    print_lookups(agg)
    print_counts(agg, tests)
    print_precision(agg, rows)
    print_all(agg)
    with open(out_path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
        writer.writeheader()
        for r in agg + rows:
            writer.writerow(r)
    return 0


if __name__ == "__main__":
    sys.exit(main())
