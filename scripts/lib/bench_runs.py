#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The host benchmark's verdicts over several builds of listbench.

  bench_runs.py OUT.csv RUN.csv... [--crossover CSV...] [--chase CSV]
                [--uops STEP,NODE] [--refuse]
  bench_runs.py --brackets RUN.csv...

Each RUN.csv is one build of listbench (scripts/bench.sh places each
build's walkers elsewhere and runs the builds in turns, chunk by chunk,
so a drift of the machine hits every build alike). One build's intervals
describe that binary; whether a prefetch pays on the CPU is a claim about
every placement. So:

- every row carries its A/A control: the no-prefetch walker's second
  copy timed against the first in the same repetitions. A cell's control
  is the median of its builds'; it fails when off by more than 1 %.
  With --refuse, a run where more than 5 % of the cells' controls fail
  is refused (exit 3), naming the cells. (Per build, a control off by
  more than 1 % with 1 outside its interval is counted and named too,
  but one build's control of a branchy cell moves with the address
  alone: it is the cell's noise floor, which its verdicts must clear.)
- every (cell, form, build) keeps its paired-ratio sign tests, and
  Benjamini-Hochberg holds the false-discovery rate at 5 % over all of
  them at once, per family (difference; equivalence within +-2 %). A
  difference counts only beyond the control: faster below the control's
  interval, slower above it, and faster and slower count alike;
- a cell's verdict is a build's verdict when every build agrees, else
  'unstable' (with the builds interleaved in time, that is code
  placement); its ratio is the median of the builds' medians, its spread
  the lowest and highest of them, its interval the hull of the builds'.
- prefetch-nonnull and prefetch-cmov are also judged against prefetch by
  the same paired test (vs_* columns).

--brackets prints, per working set, the grid's work points between which
the prefetch starts to pay ("BYTES LO HI"), for scripts/bench.sh to
bisect (listbench --crossover); --crossover reads those bisections,
--chase the plain fresh-key chase (bench/chase.c) to set beside the
independent lookups.

OUT.csv has one row per cell, form and build, and one per cell and form
with run 'all' (the aggregate).
"""
import csv
import math
import statistics
import sys
from collections import Counter, OrderedDict

import verdicts

VARIANTS = ["prefetch", "prefetch-nonnull", "prefetch-cmov", "prefetchnta", "prefetchw"]
SHORT_VARIANTS = {"prefetch": "prefetch", "prefetch-nonnull": "nonnull",
                  "prefetch-cmov": "cmov", "prefetchnta": "nta", "prefetchw": "prefetchw"}
REGIMES = ["L1", "L2", "LLC", "TLB+LLC", "DRAM", "TLB+DRAM"]
SHAPE = ["walk", "shape", "layout", "list_len", "pages", "body", "work", "lookups", "load",
         "hits", "position"]
CELL = SHAPE + ["bytes"]
COLUMNS = ["walk", "layout", "body", "work", "lookups", "load", "hits", "position", "bytes",
           "run", "regime", "headline", "variant", "reps", "ns", "ratio", "ci_low", "ci_high",
           "spread_low", "spread_high", "verdict", "p_diff", "p_equiv",
           "control_ratio", "control_ci_low", "control_ci_high", "shape", "list_len", "pages",
           "pages_got", "vs_prefetch", "vs_ci_low", "vs_ci_high", "vs_p_diff", "vs_p_equiv",
           "vs_verdict", "hit_ratio", "nodes_per_lookup", "unused_prefetches",
           "null_prefetches", "overlap", "latency_ns", "work_steps", "budgets"]
WORDS = ("faster", "slower", "equivalent", "undecided")
CONTROL_LIMIT = 0.01       # a passed control reads 1.000 +- 1 %
CONTROL_FAILURES = 0.05    # more cells whose control failed than this: refused


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


def budgets(r):
    """The budgets listbench spent on a (cell, build): more than 1 where the control failed."""
    return int(r.get("budgets") or 1)


def cell_key(r):
    return tuple(r[c] for c in CELL)


def word(ratio, diff, equiv, low, high):
    """A verdict: equivalent, else a difference beyond the control's interval."""
    if equiv:
        return "equivalent"
    if diff and ratio < 1 and ratio < low:
        return "faster"
    if diff and ratio > 1 and ratio > high:
        return "slower"
    return "undecided"


def decide_all(rows):
    """Verdicts of every (cell, form, build), FDR over all of them."""
    tested = [r for r in rows if r["variant"] != "none"]
    diff = verdicts.benjamini_hochberg([float(r["p_diff"]) for r in tested])
    equiv = verdicts.benjamini_hochberg([float(r["p_equiv"]) for r in tested])
    for r, d, e in zip(tested, diff, equiv):
        r["verdict"] = word(float(r["ratio"]), d, e, float(r["control_ci_low"]),
                            float(r["control_ci_high"]))
    paired = [r for r in tested if r.get("vs_prefetch")]
    vs_diff = verdicts.benjamini_hochberg([float(r["vs_p_diff"]) for r in paired])
    vs_equiv = verdicts.benjamini_hochberg([float(r["vs_p_equiv"]) for r in paired])
    for r, d, e in zip(paired, vs_diff, vs_equiv):
        r["vs_verdict"] = word(float(r["vs_prefetch"]), d, e, float(r["control_ci_low"]),
                               float(r["control_ci_high"]))
    for r in rows:
        if r["variant"] == "none":
            r["verdict"] = "baseline"
    return len(tested)


def agree(words):
    words = set(words)
    return words.pop() if len(words) == 1 else "unstable"


def aggregate(rows):
    """One row per cell and form over the builds; the builds' rows gain spreads."""
    groups = OrderedDict()
    for r in rows:
        groups.setdefault(cell_key(r) + (r["variant"],), []).append(r)
    out = []
    for runs in groups.values():
        ratios = [float(r["ratio"]) for r in runs]
        controls = [float(r["control_ratio"]) for r in runs]
        for r in runs:
            r["spread_low"] = r["spread_high"] = r["ratio"]
        agg = dict(runs[0])
        agg.update({
            "run": "all",
            "regime": Counter(r["regime"] for r in runs).most_common(1)[0][0],
            "pages_got": Counter(r["pages_got"] for r in runs).most_common(1)[0][0],
            "reps": str(sum(int(r["reps"]) for r in runs)),
            "ns": f"{statistics.median(float(r['ns']) for r in runs):.4f}",
            "ratio": f"{statistics.median(ratios):.5f}",
            "ci_low": f"{min(float(r['ci_low']) for r in runs):.5f}",
            "ci_high": f"{max(float(r['ci_high']) for r in runs):.5f}",
            "spread_low": f"{min(ratios):.5f}",
            "spread_high": f"{max(ratios):.5f}",
            "control_ratio": f"{statistics.median(controls):.5f}",
            "control_ci_low": f"{min(float(r['control_ci_low']) for r in runs):.5f}",
            "control_ci_high": f"{max(float(r['control_ci_high']) for r in runs):.5f}",
            "verdict": agree(r["verdict"] for r in runs),
            "budgets": str(max(budgets(r) for r in runs)),
            "runs": len(runs),
        })
        if runs[0].get("vs_prefetch"):
            agg.update({
                "vs_prefetch": f"{statistics.median(float(r['vs_prefetch']) for r in runs):.5f}",
                "vs_ci_low": f"{min(float(r['vs_ci_low']) for r in runs):.5f}",
                "vs_ci_high": f"{max(float(r['vs_ci_high']) for r in runs):.5f}",
                "vs_verdict": agree(r["vs_verdict"] for r in runs),
            })
        for c in ("hit_ratio", "nodes_per_lookup", "unused_prefetches", "null_prefetches",
                  "overlap", "latency_ns"):
            agg[c] = f"{statistics.fmean(float(r[c]) for r in runs):.4f}"
        out.append(agg)
    mark_headline(out)
    mark_headline(rows)
    return out


def base_shape(r):
    """The grid's base: line nodes, shuffled, lists of 1024, 4 KiB pages."""
    return (r["shape"] == "line" and r["pages"] == "4k"
            and (r["walk"] != "list" or r["layout"] == "shuffled" and r["list_len"] == "1024"
                 and r["body"] == "touch"))


def headline_shape(r):
    if not base_shape(r):
        return False
    if r["walk"] == "list":
        return True
    return r["load"] == "1" and float(r["hits"]) == 0.5 and r["position"] == "uniform"


def mark_headline(rows):
    """Per shape and regime, the largest set of the base shape."""
    largest = {}
    for r in rows:
        if headline_shape(r):
            key = tuple(r[c] for c in SHAPE) + (r["regime"], r["run"])
            largest[key] = max(largest.get(key, 0), int(r["bytes"]))
    for r in rows:
        key = tuple(r[c] for c in SHAPE) + (r["regime"], r["run"])
        r["headline"] = "1" if headline_shape(r) and largest.get(key) == int(r["bytes"]) else "0"


def cell_text(r, width=3):
    return (f"{float(r['ratio']):.{width}f} [{float(r['spread_low']):.{width}f},"
            f"{float(r['spread_high']):.{width}f}] {r['verdict']}")


def control_text(r):
    return (f"{float(r['control_ratio']):.3f} [{float(r['control_ci_low']):.3f},"
            f"{float(r['control_ci_high']):.3f}]")


def shape_label(r):
    if r["walk"] == "list":
        return f"list, work {r['work']} ns"
    return f"lookups, {r['lookups']}"


def by_cell(agg):
    cells = OrderedDict()
    for r in agg:
        cells.setdefault(cell_key(r), {})[r["variant"]] = r
    return cells


def print_headline(agg, nr_runs):
    print(f"HEADLINE over {nr_runs} builds: time with each prefetch form / time without;")
    print("median of the builds' medians [lowest, highest of them] and the verdict where")
    print("every build agrees, else 'unstable'; 'control' is the A/A: the no-prefetch")
    print("walker's copy against itself [hull of the builds' 95 % intervals], which must")
    print("read 1.000. Lists: line nodes, shuffled, the body's work per node; lookups:")
    print("load factor 1, half the keys present, dependent (a path walk) or independent")
    shown = ["prefetch", "prefetch-nonnull", "prefetchnta", "prefetchw"]
    print(f"{'regime':<9} {'set':<8} {'walk':<22} {'control':<21}" +
          "".join(f" {v:<30}" for v in shown))
    order = {"list": 0, "hash-lookup": 1}
    for regime in REGIMES[::-1]:
        cells = OrderedDict()
        for r in agg:
            if r["headline"] == "1" and r["regime"] == regime and r["variant"] != "none":
                cells.setdefault((order[r["walk"]], int(r["work"]), r["lookups"]), {})[
                    r["variant"]] = r
        for key in sorted(cells):
            by_variant = cells[key]
            first = next(iter(by_variant.values()))
            print(f"{regime:<9} {size(first['bytes']):<8} {shape_label(first):<22} "
                  f"{control_text(first):<21}" +
                  "".join(f" {cell_text(by_variant[v]):<30}" if v in by_variant else " " * 31
                          for v in shown).rstrip())


def crossovers(paths):
    """{bytes: (hi over builds, [(run, lo, hi)])} from listbench --crossover."""
    found = {}
    for path in paths:
        for line in open(path):
            f = line.strip().split(",")
            if f[0] == "crossover":
                found.setdefault(int(f[2]), []).append((f[1], int(f[3]), int(f[4])))
    return {b: (max(hi for _, _, hi in runs), max(lo for _, lo, _ in runs), runs)
            for b, runs in found.items()}


def uops_text(ns, steps_per_ns, uops):
    if not uops or not steps_per_ns:
        return ""
    per_step, per_node = uops
    return f", ~{round(per_node + per_step * ns * steps_per_ns)} uops"


def print_work_sweep(agg, cross, uops):
    lists = [r for r in agg if r["walk"] == "list" and base_shape(r)]
    works = sorted({int(r["work"]) for r in lists})
    if not works:
        return
    print("\nWORK PER NODE (list walks, line nodes, shuffled, lists of 1024): prefetch / none")
    print("by the body's serial work per node (nominal ns), and the CROSSOVER: the smallest")
    print("work per node at which the prefetch is faster in every build, bisected between")
    print("the grid's points to within 10 ns (listbench --crossover; uops: the body's")
    print("instructions per node, a fused compare-and-branch as one, from the binary)")
    print(f"{'set':<8} {'regime':<9}" + "".join(f" {'work ' + str(w):<28}" for w in works)
          + "  crossover")
    by_set = OrderedDict()
    steps_per_ns = {}
    for r in lists:
        if r["variant"] == "prefetch":
            by_set.setdefault(int(r["bytes"]), {})[int(r["work"])] = r
            if int(r["work"]):
                steps_per_ns[int(r["bytes"])] = float(r["work_steps"]) / int(r["work"])
    for nbytes, by_work in sorted(by_set.items()):
        regime = next(iter(by_work.values()))["regime"]
        faster = [w for w in works if w in by_work and by_work[w]["verdict"] == "faster"]
        if nbytes in cross:
            hi, lo, runs = cross[nbytes]
            text = (f"{hi} ns (between {lo} and {hi}; builds: "
                    + ", ".join(f"{h}" for _, _, h in sorted(runs)) + ")"
                    + uops_text(hi, steps_per_ns.get(nbytes), uops))
        elif faster and faster[0] == works[0]:
            text = f"{works[0]} ns: faster at every work measured"
        elif faster:
            text = f"{faster[0]} ns (grid point; not bisected)"
        else:
            text = f"none up to {works[-1]} ns"
        print(f"{size(nbytes):<8} {regime:<9}" +
              "".join(f" {cell_text(by_work[w]) if w in by_work else '-':<28}" for w in works)
              + f"  {text}")
    none = {(int(r["bytes"]), int(r["work"])): float(r["ns"]) for r in lists
            if r["variant"] == "none"}
    smallest = min(b for b, _ in none)
    print(f"none ns per node at {size(smallest)}: " +
          ", ".join(f"work {w}: {none[(smallest, w)]:.1f}" for w in works
                    if (smallest, w) in none))


def brackets(agg):
    """(bytes, lo, hi) per set where the prefetch starts paying between grid points."""
    out = []
    lists = [r for r in agg if r["walk"] == "list" and base_shape(r) and r["variant"] == "prefetch"]
    for nbytes in sorted({int(r["bytes"]) for r in lists}):
        by_work = {int(r["work"]): r["verdict"] for r in lists if int(r["bytes"]) == nbytes}
        works = sorted(by_work)
        for i, w in enumerate(works):
            if by_work[w] == "faster":
                if i > 0 and w - works[i - 1] > 20:
                    out.append((nbytes, works[i - 1], w))
                break
    return out


def axis_of(r):
    """Which axis a non-base list cell varies, and its value."""
    if r["shape"] != "line":
        return "shape", r["shape"]
    if r["layout"] != "shuffled":
        return "layout", r["layout"]
    if r["list_len"] != "1024":
        return "list length", r["list_len"]
    if r["pages"] != "4k":
        return "pages", r["pages_got"]
    return None


def print_axes(agg):
    """Each axis against the base at the same set and work."""
    rows = [r for r in agg if r["variant"] == "prefetch"]
    base = {(r["walk"], r["bytes"], r["work"], r["lookups"]): r for r in rows
            if headline_shape(r) or (r["walk"] == "list" and base_shape(r))}
    axes = [r for r in rows if r["walk"] == "list" and not base_shape(r) or
            r["walk"] != "list" and r["pages"] != "4k"]
    if not axes:
        return
    print("\nAXES (each against the base at the same set and work: line nodes, shuffled,")
    print("lists of 1024, 4 KiB pages): prefetch / none [builds], verdict; control")
    print(f"{'set':<8} {'walk':<22} {'axis':<22} {'regime':<9} {'this cell':<30} "
          f"{'control':<21} {'the base':<30}")
    for r in axes:
        if r["walk"] == "list":
            axis, value = axis_of(r)
        else:
            axis, value = "pages", r["pages_got"]
        b = base.get((r["walk"], r["bytes"], r["work"], r["lookups"]))
        print(f"{size(r['bytes']):<8} {shape_label(r):<22} {axis + ' ' + value:<22} "
              f"{r['regime']:<9} {cell_text(r):<30} {control_text(r):<21} "
              f"{cell_text(b) if b else '-':<30}".rstrip())


def print_lookups(agg):
    rows = [r for r in agg if r["walk"] == "hash-lookup" and r["pages"] == "4k"]
    if not rows:
        return
    print("\nHASH LOOKUPS: per lookup, hits, chain nodes visited, prefetches of real nodes")
    print("never used, prefetches of NULL; the overlap factor ((nodes + 1 bucket) x chase")
    print("latency / ns per lookup: ~1 or less, one miss after another; well above 1,")
    print("lookups overlap); prefetch / none, and the NULL test against prefetch by the")
    print("same paired test: nonnull (a branch) and cmov (no branch) / prefetch")
    print(f"{'set':<8} {'reg':<9} {'lookups':<12} {'load':>4} {'hits':>5} {'match':<8}"
          f" {'nodes':>6} {'unused':>6} {'NULL':>6} {'overlap':>7} {'none ns':>8}"
          f"  {'prefetch':<28} {'nonnull/prefetch':<28} {'cmov/prefetch':<28}")
    for key, by_variant in by_cell(rows).items():
        r = by_variant["none"]

        def vs(v):
            x = by_variant.get(v)
            if not x or not x.get("vs_prefetch"):
                return "-"
            return f"{float(x['vs_prefetch']):.3f} {x['vs_verdict']}"
        print(f"{size(r['bytes']):<8} {r['regime']:<9} {r['lookups']:<12} {r['load']:>4}"
              f" {float(r['hits']):>5.2f} {r['position']:<8} {float(r['nodes_per_lookup']):>6.2f}"
              f" {float(r['unused_prefetches']):>6.2f} {float(r['null_prefetches']):>6.2f}"
              f" {float(r['overlap']):>7.2f} {float(r['ns']):>8.1f}  "
              f"{cell_text(by_variant['prefetch']):<28} {vs('prefetch-nonnull'):<28} "
              f"{vs('prefetch-cmov'):<28}".rstrip())


def read_chase(path):
    rows = []
    for line in open(path):
        f = line.strip().split(",")
        if f and f[0] == "chase":
            rows.append({"bytes": int(f[1]), "load": f[2], "hits": float(f[3]),
                         "ratio": float(f[4]), "ci_low": float(f[5]), "ci_high": float(f[6]),
                         "control": float(f[7]), "control_low": float(f[8]),
                         "control_high": float(f[9]), "rounds": int(f[10]),
                         "none_ns": float(f[11]), "form": f[12] if len(f) > 12 else "hlist"})
    return rows


def agreement(r, c):
    """Whether listbench's cell R and the chase C agree in sign (beyond +-2 %)
    and size: the chase's interval within 25 % of the effect (3 % at least)
    of the range of listbench's builds, which code placement spreads (at
    1 GiB, load 2: 1.065, 1.102 and 1.075 in one run's three builds)."""
    def side(x):
        return 0 if abs(math.log(x)) <= math.log(1.02) else (1 if x > 1 else -1)
    same_sign = side(float(r["ratio"])) == side(c["ratio"])
    low, high = math.log(float(r["spread_low"])), math.log(float(r["spread_high"]))
    gap = max(0.0, math.log(c["ci_low"]) - high, low - math.log(c["ci_high"]))
    return same_sign and gap <= max(0.03, 0.25 * abs(math.log(c["ratio"])))


def print_chase(agg, chase_rows):
    """listbench's independent lookups beside the plain chase of the same shape."""
    if not chase_rows:
        return []
    cells = {(int(r["bytes"]), r["load"], float(r["hits"])): r for r in agg
             if r["walk"] == "hash-lookup" and r["lookups"] == "independent"
             and r["variant"] == "prefetch" and base_shape(r) and r["position"] == "uniform"}
    print("\nCROSS-CHECK: independent lookups (64-byte nodes, 4 KiB pages, the match anywhere")
    print("in its chain), prefetch / none: listbench [builds] beside bench/chase.c, a plain")
    print("fresh-key chase with none of listbench's code [95 % CI] and its own A/A control.")
    print("lookup: the kernel's 2010 hlist_for_each_entry() written out with the bookkeeping")
    print("of listbench's lookups (nodes counted, the last kept, a word of its line read):")
    print("the shape listbench times; they agree when on the same side of +-2 % and the")
    print("chase's interval lies within 25 % of the effect (3 % at least) of the range of")
    print("listbench's builds (code placement spreads them). hlist: the bare iterator loop;")
    print("while: the tightest loop over the same nodes, for scale: the loop's code alone")
    print("moves what a next-node prefetch costs")
    print(f"{'set':<8} {'regime':<9} {'load':>4} {'hits':>5}  {'listbench':<30} {'form':<6} "
          f"{'chase':<24} {'chase control':<21}")
    results = []
    for c in chase_rows:
        r = cells.get((c["bytes"], c["load"], c["hits"]))
        if not r:
            continue
        text = (f"{size(c['bytes']):<8} {r['regime']:<9} {c['load']:>4} {c['hits']:>5.2f}  "
                f"{cell_text(r):<30} {c['form']:<6} "
                f"{c['ratio']:.3f} [{c['ci_low']:.3f},{c['ci_high']:.3f}]      "
                f"{c['control']:.3f} [{c['control_low']:.3f},{c['control_high']:.3f}]")
        if c["form"] == "lookup":
            ok = agreement(r, c)
            results.append(ok)
            text += f"  {'agree' if ok else 'DISAGREE'}"
        print(text)
    return results


def control_failed(r):
    """Off by more than the limit, and beyond its own interval of 1."""
    return (abs(float(r["control_ratio"]) - 1) > CONTROL_LIMIT
            and not float(r["control_ci_low"]) <= 1 <= float(r["control_ci_high"]))


def control_failures(rows):
    return [r for r in rows if r["variant"] == "none" and control_failed(r)]


def cell_control_failures(agg):
    """The cells whose control, the median of their builds', is off by more than 1 %."""
    return [r for r in agg if r["variant"] == "none"
            and abs(float(r["control_ratio"]) - 1) > CONTROL_LIMIT]


def cell_shape(r):
    """A cell's axes in a few words (its set apart)."""
    if r["walk"] == "list":
        return f"{r['shape']} {r['layout']} len {r['list_len']} {r['pages']} work {r['work']}"
    return (f"{r['shape']} {r['pages']} {r['lookups']} load {r['load']} "
            f"hits {float(r['hits']):.0%} {r['position']}")


def cell_name(r):
    walk = "list" if r["walk"] == "list" else "lookups"
    return f"{walk} {cell_shape(r)}, {size(r['bytes'])}"


def print_controls(rows, agg):
    cells = [r for r in rows if r["variant"] == "none"]
    nr_cells = sum(1 for r in agg if r["variant"] == "none")
    nr_off = len(cell_control_failures(agg))
    ratios = sorted(float(r["control_ratio"]) for r in cells)
    off = [r for r in cells if abs(float(r["control_ratio"]) - 1) > CONTROL_LIMIT]
    longer = [r for r in cells if budgets(r) > 1]
    print(f"\nA/A CONTROL: {nr_cells - nr_off} of {nr_cells} cells within +-{CONTROL_LIMIT:.0%} "
          f"(the median of the builds' controls; the run is refused where more than "
          f"{CONTROL_FAILURES:.0%} of the cells are not); {len(cells) - len(off)} of {len(cells)} "
          f"(cell, build) controls within +-{CONTROL_LIMIT:.0%}, range {ratios[0]:.3f} to "
          f"{ratios[-1]:.3f}, {len(control_failures(rows))} of them with 1 outside their "
          f"interval")
    print(f"measured longer (the control off at the budget: up to 3 budgets, every sample "
          f"counting): {len(longer)} of {len(cells)} (cell, build) pairs")
    for r in sorted(longer, key=lambda r: -budgets(r))[:10]:
        print(f"  build {r['run']}: {cell_name(r)}: {budgets(r)} budgets, control "
              f"{float(r['control_ratio']):.3f}")
    for r in sorted(off, key=lambda r: -abs(float(r["control_ratio"]) - 1))[:10]:
        print(f"  build {r['run']}: {cell_name(r)}: control {float(r['control_ratio']):.3f} "
              f"[{float(r['control_ci_low']):.3f},{float(r['control_ci_high']):.3f}]")


def print_precision(agg, rows):
    """How many of the headline cells' per-build intervals meet +-1 %."""
    heads = {cell_key(r) for r in agg if r["headline"] == "1"}
    runs = [r for r in rows if r["variant"] != "none" and cell_key(r) in heads]
    met = sum(max(float(r["ratio"]) - float(r["ci_low"]),
                  float(r["ci_high"]) - float(r["ratio"])) <= 0.01 * float(r["ratio"])
              for r in runs)
    print(f"precision: {met} of {len(runs)} headline intervals (cell, form, build) are within "
          "+-1 % (the target, or the cell's time budget ran out)")


def print_counts(agg, tests):
    counts = Counter(r["verdict"] for r in agg if r["variant"] != "none")
    cells = len({cell_key(r) for r in agg})
    print(f"\nverdicts over {cells} cells x {len(VARIANTS)} forms, each over every build: "
          + ", ".join(f"{w} {counts[w]}" for w in WORDS + ("unstable",)))
    print(f"false-discovery rate held at {verdicts.FDR:.0%} over all {tests} tests of all builds "
          f"(Benjamini-Hochberg, sign tests; equivalence within +-{verdicts.EQUIV_MARGIN:.0%}; "
          "a difference only beyond the A/A control's interval)")
    wide = [r for r in agg if r["variant"] != "none" and r["headline"] == "1"
            and float(r["spread_high"]) - float(r["spread_low"]) > 0.02]
    print(f"headline cells whose builds' medians differ by more than 2 % (code placement: the "
          f"builds take turns in time): {len(wide)}")


def print_all(agg):
    print("\nALL CELLS over the builds: ratio [lowest, highest build] verdict; control")
    print(f"{'walk':<11} {'shape':<44} {'set':>8} {'reg':<9} {'none ns':>9} {'control':<21}" +
          "".join(f" {SHORT_VARIANTS[v]:<27}" for v in VARIANTS))
    for by_variant in by_cell(agg).values():
        r = by_variant["none"]
        print(f"{r['walk']:<11} {cell_shape(r):<44} {size(r['bytes']):>8} {r['regime']:<9}"
              f" {float(r['ns']):>9.2f} {control_text(r):<21}" +
              "".join(f" {cell_text(by_variant[v]):<27}" if v in by_variant else " " * 28
                      for v in VARIANTS).rstrip())


def main(argv):
    if argv[:1] == ["--brackets"]:
        rows = read_runs(argv[1:])
        decide_all(rows)
        for b in brackets(aggregate(rows)):
            print(*b)
        return 0
    opts = {"--crossover": [], "--chase": [], "--uops": [], "--refuse": []}
    positional, current = [], None
    for a in argv:
        if a in opts:
            current = a
            if a == "--refuse":
                opts[a].append(True)
                current = None
        elif current:
            opts[current].append(a)
            if current in ("--chase", "--uops"):
                current = None
        else:
            positional.append(a)
    if len(positional) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out_path, paths = positional[0], positional[1:]
    uops = tuple(float(x) for x in opts["--uops"][0].split(",")) if opts["--uops"] else None
    rows = read_runs(paths)
    tests = decide_all(rows)
    agg = aggregate(rows)
    nr_runs = len({r["run"] for r in rows})
    cross = crossovers(opts["--crossover"])
    chase_rows = read_chase(opts["--chase"][0]) if opts["--chase"] else []
    print_headline(agg, nr_runs)
    print_controls(rows, agg)
    failed, cells = cell_control_failures(agg), [r for r in agg if r["variant"] == "none"]
    print_work_sweep(agg, cross, uops)
    print_axes(agg)
    print_lookups(agg)
    print_chase(agg, chase_rows)
    print_counts(agg, tests)
    print_precision(agg, rows)
    print_all(agg)
    with open(out_path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
        writer.writeheader()
        for r in agg + rows:
            writer.writerow(r)
    if opts["--refuse"] and len(failed) > CONTROL_FAILURES * len(cells):
        builds = {}
        for r in rows:
            if r["variant"] == "none":
                builds.setdefault(cell_key(r), []).append(f"{float(r['control_ratio']):.3f}")
        names = "; ".join(f"{cell_name(r)} ({float(r['control_ratio']):.3f}; builds "
                          f"{', '.join(builds.get(cell_key(r), []))})" for r in failed[:8])
        print(f"bench_runs: refused: the A/A control (the same code against itself) is off "
              f"by more than {CONTROL_LIMIT:.0%} in {len(failed)} of {len(cells)} cells, more "
              f"than {CONTROL_FAILURES:.0%}: {names}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
