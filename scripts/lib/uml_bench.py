#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The in-kernel walks under UML, decided: does CONFIG_LIST_PREFETCH=y pay?

  uml_bench.py RUN[,RUN...] [HOST_BENCH.csv]   the tables and verdicts
                                     (runs of the same kernels add up)
  uml_bench.py --extract BOOT_DIR     the samples of BOOT_DIR as samples.csv

RUN is a directory holding either samples.csv (what --extract wrote:
a run kept in results/cpus/<cpu>/uml-runs/) or boot-<round>-<variant>.log,
the consoles of the UML kernels of scripts/uml-bench.sh (variants
default: the series as the architecture has it, moved: the default's
code elsewhere, on, and switch: on behind a run-time flag), booted
A B C D D C B A. Each console has umlbench's lines

  umlbench: walk=W [form=F] set_kib=K nodes=N placement=P sample=S ns_per_node=X

(placement: the set allocated anew; the boot's value of a cell is the
geometric mean over its placements of their median samples).

A boot is the unit that varies: where its memory lands (UML's memory is
a host file, mapped anew each boot) and where its code lands move a walk
by more than its samples do, and more than a prefetch does. So each
comparison is made within a boot: the iterators are timed in both forms
(umlbench_walks_off.c, umlbench_walks_on.c) over the same nodes; the
swept paths in the switch kernel (lab/um/0003: every list prefetch
behind a flag), each sample timed with the flag on, off and on again.
Each boot gives one ratio per walk or path and set; the ratios give the
median ratio, its distribution-free 95 % interval and the sign tests of
scripts/lib/verdicts.py, with the false-discovery rate held over all
cells of a table (the host benchmark's statistics).

With the host benchmark's CSV, each cell is set beside the user-space
walk of the same shape and size (a shuffled list with a touching body and
no extra work; dependent hash lookups at load factor 1, half hits), and
a disagreement beyond both intervals is named.

The swept paths (walk=tiny_rcu, tcp_backlog, blk_batch, lru_reclaim) get a
table of their own, with their A/A control (on_again / on), and a line
per patch of the series that sweeps one: a site whose prefetch
measurably pays keeps it, and the patch is to be dropped.
"""
import csv
import glob
import math
import os
import re
import statistics
import sys

import verdicts

LINE = re.compile(r"umlbench: walk=(\S+)(?: form=(\w+))? set_kib=(\d+) nodes=(\d+)"
                  r"(?: placement=(\d+))? sample=(\d+) ns_per_node=([\d.]+)")
KERNEL = re.compile(r"^Linux version (\S+)", re.M)
# A cold path's region under 1000 clock steps: reported, not timed.
TOO_SHORT = re.compile(r"umlbench: walk=(\S+)(?: form=\w+)? set_kib=(\d+) nodes=\d+ placement=\d+ "
                       r"sample=\d+ region_ns=(\d+) too_short")
SAMPLES = "samples.csv"
COLUMNS = ["round", "variant", "walk", "form", "set_kib", "placement", "ns"]
# Runs recorded before the variant "off" was named "default" (their
# consoles and samples.csv say "off") read as the same variant.
RENAMED_VARIANTS = {"off": "default"}
HOST_SHAPE = {"list": ("list", "0", "-"), "rcu": ("list", "0", "-"),
              "lookup": ("hash-lookup", "0", "dependent")}


def note_too_short(short, walk, kib, ns):
    """SHORT: {(walk, kib): the shortest region, ns} of the cold paths'
    regions too short to time."""
    key = (walk, int(kib))
    short[key] = min(short.get(key, int(ns)), int(ns))


def console_cells(directory):
    """{(round, variant): {(walk, kib[, form]): {placement: [ns, ...]}}} of
    the consoles in DIRECTORY, the kernels' version, and the regions too
    short to time."""
    boots, kernels, short = {}, set(), {}
    for path in glob.glob(os.path.join(directory, "boot-*-*.log")):
        m = re.search(r"boot-(\d+)-(\w+)\.log$", path)
        if not m:
            continue
        text = open(path, errors="replace").read()
        kernels.update(KERNEL.findall(text))
        variant = RENAMED_VARIANTS.get(m.group(2), m.group(2))
        cells = boots.setdefault((int(m.group(1)), variant), {})
        for walk, kib, ns in TOO_SHORT.findall(text):
            note_too_short(short, walk, kib, ns)
        for walk, form, kib, _, placement, _, ns in LINE.findall(text):
            key = (walk, int(kib), form) if form else (walk, int(kib))
            cells.setdefault(key, {}).setdefault(int(placement or 0), []).append(float(ns))
    return boots, kernels, short


def extract(directory):
    """samples.csv: a line per boot, cell and placement, its samples in order."""
    boots, kernels, short = console_cells(directory)
    if not boots:
        print(f"uml_bench: no umlbench samples in {directory}", file=sys.stderr)
        return 1
    out = csv.writer(sys.stdout, lineterminator="\n")
    print(f"# kernel {' '.join(sorted(kernels))}")
    for (walk, kib), ns in sorted(short.items()):
        print(f"# too_short {walk} {kib} {ns}")
    out.writerow(COLUMNS)
    for (rnd, variant), cells in sorted(boots.items()):
        for key, placements in sorted(cells.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2:])):
            for placement, ns in sorted(placements.items()):
                out.writerow([rnd, variant, key[0], key[2] if len(key) == 3 else "", key[1],
                              placement, " ".join(f"{x:g}" for x in ns)])
    return 0


def read_boots(directory):
    """The cells of a run: from its samples.csv if it has one, else its consoles."""
    path = os.path.join(directory, SAMPLES)
    if not os.path.exists(path):
        return console_cells(directory)
    boots, kernels, short = {}, set(), {}
    with open(path) as f:
        kernels.update(f.readline().split()[2:])
        lines = list(f)
        for line in lines:
            if line.startswith("# too_short "):
                note_too_short(short, *line.split()[2:5])
        for r in csv.DictReader(line for line in lines if not line.startswith("#")):
            key = ((r["walk"], int(r["set_kib"]), r["form"]) if r["form"]
                   else (r["walk"], int(r["set_kib"])))
            boots.setdefault((int(r["round"]), RENAMED_VARIANTS.get(r["variant"], r["variant"])), {}).setdefault(key, {})[
                int(r["placement"])] = [float(x) for x in r["ns"].split()]
    return boots, kernels, short


def read_runs(runs):
    """The boots of one or more runs, as one run: runs of the same kernels
    (built from the same trees) add up, their rounds numbered on; runs of
    other kernels do not, and stop here."""
    boots, kernels, short = {}, None, {}
    for run in runs:
        more, theirs, too_short = read_boots(run)
        if kernels is not None and theirs != kernels:
            print(f"uml_bench: {run} booted other kernels ({' '.join(sorted(theirs))}) than "
                  f"{runs[0]} ({' '.join(sorted(kernels))}): runs add up only with the same kernels",
                  file=sys.stderr)
            return None, None, None
        kernels = theirs
        offset = max((r for r, _ in boots), default=0)
        boots.update({(r + offset, v): cells for (r, v), cells in more.items()})
        for (walk, kib), ns in too_short.items():
            note_too_short(short, walk, kib, ns)
    return boots, kernels, short


def boot_value(cell):
    """One boot's ns per node at a cell: over placements, the geometric mean of medians."""
    return statistics.geometric_mean(statistics.median(ns) for ns in cell.values())


def host_cells(path):
    """{(walk, bytes): row} of the host benchmark's aggregate rows, prefetch."""
    if not path or not os.path.exists(path):
        return {}
    cells = {}
    for r in csv.DictReader(open(path)):
        if r.get("run") != "all" or r["variant"] != "prefetch":
            continue
        # The base shape: line nodes, lists of 1024, 4 KiB pages (v3 had no other).
        if (r.get("shape", "line") != "line" or r.get("pages", "4k") != "4k"
                or r.get("list_len", "1024") not in ("1024", "0")):
            continue
        for walk, (hwalk, work, lookups) in HOST_SHAPE.items():
            if (r["walk"] == hwalk and r["work"] == work and r["lookups"] == lookups
                    and (hwalk != "list" or r["layout"] == "shuffled" and r["body"] == "touch")
                    and (hwalk != "hash-lookup" or r["load"] == "1" and float(r["hits"]) == 0.5
                         and r["position"] == "uniform")):
                cells[(walk, int(r["bytes"]))] = r
    return cells


def size(kib):
    return f"{kib // 1024} MiB" if kib >= 1024 else f"{kib} KiB"


# The open-coded walks the sweep patches convert, and the patch that
# converts each, by its subject's prefix (in patches/ while its decision
# is "the removal stands", else held back in patches/held/).
SWEPT = {"tiny_rcu": "rcu: tiny", "tcp_backlog": "net: sock", "blk_batch": "blk-mq",
         "lru_reclaim": "mm: vmscan"}
# v1's names of the last two (hot nodes, a stub handler, a stand-in for
# memory pressure): the samples of runs kept from then decide nothing.
V1_PATHS = {"backlog", "reclaim"}
# How umlbench drives each site, cold, through its real work: one region
# of >= 1000 clock steps per sample.
REAL_WORK = {"tiny_rcu": "call_rcu() callbacks freeing their slab objects",
             "tcp_backlog": "TCP over loopback, tcp_v4_do_rcv() taking every segment",
             "blk_batch": "polled reads of null_blk, bio_endio() running",
             "lru_reclaim": "page-cache reads of null_blk past mem=, kswapd and direct reclaim"}


def cell_ratio(obs, key):
    """The paired ratio of (variant, baseline) medians at one cell, with both."""
    r = verdicts.paired_ratio(obs)
    if r:
        r.update({"walk": key[0], "kib": key[1], "base_ns": statistics.median(o[1] for o in obs),
                  "ns": statistics.median(o[0] for o in obs)})
    return r


def compare(boots, pairs, key, variant):
    """The paired ratio variant / default at one cell, a ratio per round."""
    obs = []
    for p in pairs:
        a, b = boots[(p, "default")].get(key, {}), boots.get((p, variant), {}).get(key, {})
        if a and b:
            obs.append((boot_value(b), boot_value(a)))
    return cell_ratio(obs, key)


def across_boots(boots, key):
    """The A/A control across boots at one cell: the moved kernel (the
    default's configuration, its code 1104 bytes further on: lab/um/0002)
    against the default, a ratio per round. Same code, other addresses,
    other boots: what placement and booting alone move."""
    rounds = sorted({p for p, v in boots if v == "moved" and (p, "default") in boots})
    return compare(boots, rounds, key, "moved") if rounds else None


def control_floor(control):
    """How far the same code moves against itself at a cell: the farther
    end of its A/A control's interval from 1, as a log ratio, either
    direction."""
    return max(abs(math.log(control["ci_low"])), abs(math.log(control["ci_high"])))


def claim(r, control):
    """A path's ratio, its claimed interval and verdict: its 95 % interval
    widened by the floor of its A/A control (on_again / on, the same
    state timed twice in the same samples), so the control reads 1.000
    within it, as an A/A must; faster or slower only where the widened
    interval excludes 1 (and the sign test, FDR held, agrees), equivalent
    only where it lies within +-2 %; without the control, no verdict."""
    if not control:
        if r["verdict"] in ("faster", "slower", "equivalent"):
            r["why"] = "no A/A control in these boots"
            r["verdict"] = "undecided"
        return
    floor = control_floor(control)
    r["claim_low"], r["claim_high"] = r["ci_low"] * math.exp(-floor), r["ci_high"] * math.exp(floor)
    tested = r["verdict"]
    if tested == "faster" and r["claim_high"] >= 1 or tested == "slower" and r["claim_low"] <= 1:
        r["verdict"] = "undecided"
        r["why"] = f"{tested}, within the A/A floor ({100 * floor:.1f} %)"
    elif tested == "equivalent" and not (r["claim_low"] >= 0.98 and r["claim_high"] <= 1.02):
        r["verdict"] = "undecided"
        r["why"] = f"equivalent, but the A/A control alone moves it {100 * floor:.1f} %"


def interval(r):
    return f"{r['ratio']:.3f} [{r['ci_low']:.3f},{r['ci_high']:.3f}]"


def precise(r):
    """Whether a cell's 95 % interval lies within +-1 % of its ratio."""
    return half_width(r) <= 0.01


def headline_precision(results):
    """The headline cells, as the host benchmark's: each walk at its largest
    set (past the LLC, where a prefetch can hide a miss)."""
    largest = {}
    for r in results:
        largest[r["walk"]] = max(largest.get(r["walk"], 0), r["kib"])
    heads = [r for r in results if r["kib"] == largest[r["walk"]]]
    missed = [f"{r['walk']} {size(r['kib'])} ({100 * half_width(r):.1f} % over {r['n']} boots;"
              f" +-1 % would take ~{boots_for_precision(r)} boots)"
              for r in heads if not precise(r)]
    return (f"precision (headline cells, each walk at its largest set): "
            f"{len(heads) - len(missed)} of {len(heads)} intervals within +-1 %"
            + (f"; wider: {', '.join(missed)}" if missed else ""))


def half_width(r):
    """The larger side of a cell's 95 % interval, relative to its ratio."""
    return max(r["ratio"] - r["ci_low"], r["ci_high"] - r["ratio"]) / r["ratio"]


def boots_for_precision(r):
    """How many boots would bring a cell's interval within +-1 %: an
    interval narrows as the square root of its boots, so where the boots
    themselves spread widely, more rounds are no cure."""
    return math.ceil(r["n"] * (half_width(r) / 0.01) ** 2)


def summary_lines(results, what):
    met = sum(precise(r) for r in results)
    words = ("faster", "slower", "equivalent", "undecided", "unstable")
    return [f"precision ({what}): {met} of {len(results)} intervals within +-1 %",
            f"verdicts ({what}; FDR 5 % over these cells, equivalence within +-2 %): " + ", ".join(
                f"{w} {sum(r['verdict'] == w for r in results)}" for w in words
                if w != "unstable" or any(r["verdict"] == w for r in results))]


def iterator_key(key):
    """A cell of the iterators' walks, both forms timed (the swept paths'
    forms are the switch kernel's states)."""
    return len(key) == 3 and key[0] not in SWEPT and key[0] not in V1_PATHS


def forms_ratio(boots, chosen, key, a="on", b="off"):
    """Two forms of a walk (an iterator's, or a path's states in the switch
    kernel), timed in the same samples of each boot: a / b, a ratio per boot."""
    obs = []
    for boot in chosen:
        x, y = boots[boot].get(key + (a,)), boots[boot].get(key + (b,))
        if x and y:
            obs.append((boot_value(x), boot_value(y)))
    return cell_ratio(obs, key)


# A control reads 1.000: off by more than its limit, and its sign test
# rejecting 1 (the false-discovery rate held over the table's controls),
# it fails.
CONTROL_LIMIT = 0.01
# The standing check is another function: walk_rcu(), list's loop under
# rcu_read_lock() (nothing under Tiny RCU), compiled apart. In L1 (16 KiB,
# ~2.4 ns a node) where that loop sits moves it: 0.989 unaligned (run
# 7b1af33, refused), then aligned 1.007 and 1.025 in two runs of one
# build (cee5b5b's full and short runs). It guards against the walk-order
# artifact (list against rcu 0.66-0.79 in v1), so it fails beyond 5 %.
STANDING_LIMIT = 0.05
# The controls of a boot: (walk, form) over (walk, form) of the same
# nodes in the same samples, and each one's limit. list_copy is list's
# code at another address (the A/A control); rcu the standing check.
CONTROLS = ((("list_copy", "off"), ("list", "off"), CONTROL_LIMIT),
            (("list_copy", "on"), ("list", "on"), CONTROL_LIMIT),
            (("rcu", "off"), ("list", "off"), STANDING_LIMIT))
# The kernels whose boots time the iterators: two builds of the default
# configuration (the second with its code moved) and the on variant.
BUILDS = ("default", "on", "moved")


def control_ratio(boots, chosen, kib, a, b, limit=CONTROL_LIMIT):
    """a / b at set KIB, one ratio per boot (both in the same samples)."""
    obs = []
    for boot in chosen:
        x, y = boots[boot].get((a[0], kib, a[1])), boots[boot].get((b[0], kib, b[1]))
        if x and y:
            obs.append((boot_value(x), boot_value(y)))
    r = verdicts.paired_ratio(obs)
    if r:
        r.update({"kib": kib, "name": f"{a[0]}-{a[1]} / {b[0]}-{b[1]}", "limit": limit})
    return r


def control_failures(rows):
    """Which controls fail: off by more than 1 %, and their sign test
    rejecting 1 with the false-discovery rate held over all the run's
    controls (a dozen 95 % intervals hold 1 in every one only half the
    time, though the method is sound: a set whose boots are bimodal, as
    this VM's share of the LLC makes the 4 MiB one, would refuse runs at
    random)."""
    off = verdicts.benjamini_hochberg([r["p_diff"] for r in rows])
    return [abs(r["ratio"] - 1) > r.get("limit", CONTROL_LIMIT) and d for r, d in zip(rows, off)]


def control_table(boots, chosen):
    """The A/A controls per set; {kib: the list copy's control, off form}, failures."""
    kibs = sorted({k[1] for b in chosen for k in boots[b] if iterator_key(k)})
    rows = [r for kib in kibs for a, b, limit in CONTROLS
            if (r := control_ratio(boots, chosen, kib, a, b, limit))]
    if not rows:
        print("A/A controls: none in these boots (umlbench before its list_copy walk)")
        return {}, []
    print("A/A controls, in every boot: the same code over the same nodes in the same samples"
          " must read 1.000 (list_copy: list's code at another address); per boot the ratio of"
          " medians, n boots, median [95 % CI]; a control fails off by more than 1 % with its sign"
          " test rejecting 1 (the false-discovery rate held at 5 % over the run's controls). The"
          " standing check, rcu: list's loop compiled apart under rcu_read_lock() (nothing under"
          " Tiny RCU), guards against the walk-order artifact; another function, whose place"
          " moves it a few per cent in L1, it fails off by more than 5 %")
    print(f"{'control':<28} {'set':>8} {'n':>4}  {'ratio [95% CI]':<24} {'':<6}")
    failed = []
    for r, bad in zip(rows, control_failures(rows)):
        if bad:
            failed.append(f"{r['name']} at {size(r['kib'])}: {interval(r)}")
        print(f"{r['name']:<28} {size(r['kib']):>8} {r['n']:>4}  {interval(r):<24} "
              f"{'FAILED' if bad else 'ok'}"
              + ("" if r["limit"] == CONTROL_LIMIT else f" (standing check, {100 * r['limit']:.0f} %)"))
    print(f"A/A controls: {len(rows) - len(failed)} of {len(rows)} read 1.000 within their limit "
          "(or their sign test does not reject 1)")
    print()
    return ({r["kib"]: r for r in rows if r["name"] == "list_copy-off / list-off"}, failed)


def iterator_table(boots, host):
    """Each boot times both forms over the same nodes: one ratio per boot;
    the kernels of the two variants are two builds, whose intervals must
    agree (else 'unstable': the code's placement decides, not the option).
    Returns the A/A controls that failed, or None if no boot timed the iterators."""
    chosen = sorted(b for b in boots if any(iterator_key(k) for k in boots[b]))
    control, failed = control_table(boots, chosen)
    keys = sorted({k[:2] for b in chosen for k in boots[b] if iterator_key(k) and k[0] != "list_copy"},
                  key=lambda k: (k[1], k[0]))
    results = []
    for key in keys:
        r = forms_ratio(boots, chosen, key)
        if not r:
            continue
        r["builds"] = [forms_ratio(boots, [b for b in chosen if b[1] == v], key)
                       for v in BUILDS]
        r["across"] = across_boots(boots, key + ("off",))
        results.append(r)
    if not results:
        return None
    verdicts.decide(results)
    for r in results:
        c = control.get(r["kib"])
        # A difference counts only beyond the A/A control's interval at its set.
        if c and r["verdict"] in ("faster", "slower") and c["ci_low"] <= r["ratio"] <= c["ci_high"]:
            r["verdict"] = "undecided"
        builds = [b for b in r["builds"] if b]
        if any(a["ci_high"] < b["ci_low"] for a in builds for b in builds):
            r["verdict"] = "unstable"
    print(f"The iterators: {len(chosen)} boots, each timing both forms of every walk (the"
          " kernel's iterators compiled with CONFIG_LIST_PREFETCH unset and set) over the same"
          " nodes, sample by sample in alternating order; per boot, the ratio of the forms'"
          " medians (the geometric mean over the boot's placements of a set); n boots, their median ratio [95 % CI]; 'builds': the same over the"
          " default kernel's boots, the on kernel's and the moved kernel's (builds whose code"
          " sits elsewhere: 'unstable' where they disagree); 'moved / default': the A/A"
          " control across boots, the off form's ns per node in the moved kernel (the"
          " default's configuration, its code moved: lab/um/0002) over the default's, round"
          " by round: how far placement alone moves a kernel's walk, and why every"
          " comparison here is made within one boot)")
    if all(sum(1 for b in r["builds"] if b) < 2 for r in results):
        print("one build only (the default kernel's): the code's placement is not"
              " checked, so no cell can say 'unstable' (make uml-bench boots three)")
    print(f"{'walk':<12} {'set':>8} {'n':>4} {'off ns':>8} {'on ns':>8}  "
          f"{'on / off [95% CI]':<24} {'verdict':<11} {'builds':<20} "
          f"{'moved / default (A/A)':<24} {'user space (make bench)':<34}")
    disagreements = []
    for r in results:
        h = host.get((r["walk"], r["kib"] * 1024))
        hostcol = (interval({k: float(h[k]) for k in ("ratio", "ci_low", "ci_high")})
                   + f" {h['verdict']}" if h else "-")
        builds = "/".join(f"{b['ratio']:.3f}" if b else "-" for b in r["builds"])
        across = interval(r["across"]) if r["across"] else "-"
        print(f"{r['walk']:<12} {size(r['kib']):>8} {r['n']:>4} {r['base_ns']:>8.2f} "
              f"{r['ns']:>8.2f}  {interval(r)}    {r['verdict']:<11} {builds:<20} "
              f"{across:<24} {hostcol}")
        if h and (r["ci_high"] < float(h["ci_low"]) or r["ci_low"] > float(h["ci_high"])):
            disagreements.append(f"{r['walk']} {size(r['kib'])}: in-kernel {r['ratio']:.3f}, "
                                 f"user space {float(h['ratio']):.3f}")
    print("\n".join(summary_lines(results, "iterators")))
    print(headline_precision(results))
    if host:
        print("in-kernel and user-space ratios disagree beyond both intervals: "
              + ("; ".join(disagreements) if disagreements else "nowhere they were both measured"))
    else:
        print("no host benchmark results to compare with (make bench)")
    return failed


# How decision() words a patch's line: "patch 'SUBJECT': WORDS". Read
# back by decisions() for series_figures.py, verdict.py and status.py.
DECISION = re.compile(r"^patch '([^']+)': (.*)$", re.M)


def decisions(text):
    """{subject: what the run decides of that patch} of a result's text."""
    return dict(DECISION.findall(text))


def decision(path, rows):
    """What the figures say of the patch that sweeps PATH: the prefetch
    faster anywhere keeps it (the patch is dropped); equivalent or slower
    everywhere, the removal stands; else the patch is not sent as
    measured (docs/series.md's RFC list says what it would take)."""
    pays = [size(r["kib"]) for r in rows if r["verdict"] == "faster"]
    costs = [size(r["kib"]) for r in rows if r["verdict"] == "slower"]
    open_cells = [r for r in rows if r["verdict"] not in ("faster", "slower", "equivalent")]
    if pays:
        return (f"patch '{SWEPT[path]}': the prefetch pays at {', '.join(pays)}: "
                "keep it (drop the patch)")
    if open_cells:
        need = ", ".join(f"{size(r['kib'])} {r['verdict']} ("
                         + (r.get("why") or f"{100 * half_width(r):.1f} %, "
                            f"~{boots_for_precision(r)} boots for +-1 %") + ")"
                         for r in open_cells)
        return (f"patch '{SWEPT[path]}': not decided ({need}): not sent as measured "
                "(the RFC list, docs/series.md)")
    words = ", ".join(f"{size(r['kib'])} {r['verdict']}" for r in rows)
    return (f"patch '{SWEPT[path]}': the prefetch pays nowhere ({words}"
            f"{'; it costs at ' + ', '.join(costs) if costs else ''}): the removal stands")


def path_table(boots, too_short):
    """The swept paths, timed both ways within each boot of the switch
    kernel. Returns the A/A controls that failed."""
    chosen = sorted(b for b in boots if b[1] == "switch")
    keys = sorted({k[:2] for b in chosen for k in boots[b] if len(k) == 3 and k[0] in SWEPT},
                  key=lambda k: (list(SWEPT).index(k[0]), k[1]))
    rows = [(r, forms_ratio(boots, chosen, k, "on_again", "on"))
            for k in keys if (r := forms_ratio(boots, chosen, k))]
    if not rows:
        print("\nThe swept paths: not timed within one boot (no boot of the switch kernel,"
              " lab/um/0003: make uml-bench)")
        return []
    effects = [r for r, _ in rows]
    controls = [c for _, c in rows if c]
    verdicts.decide(effects)
    for c, bad in zip(controls, control_failures(controls)):
        c["failed"] = bad
    failed = [f"{c['walk']} on_again / on at {size(c['kib'])}: {interval(c)}"
              for c in controls if c["failed"]]
    for r, c in rows:
        claim(r, c)
    print()
    print(f"The swept paths, each driven through the kernel's own code (guest/umlbench), timed"
          f" both ways within each of {len(chosen)} boots of the switch kernel (the series with"
          " CONFIG_LIST_PREFETCH=y, every list prefetch behind a flag: lab/um/0003): per sample,"
          " the path over fresh nodes with the flag on, off and on again, in an order that"
          " cycles through all six; per boot, the ratio of the states' medians (the geometric"
          " mean over the boot's placements); n boots, their median ratio [95 % CI]. The flag"
          " switches every list prefetch of the kernel: the site's and any its path's work runs.")
    print("A/A within each boot: on_again / on, the same state timed twice in the same samples;"
          " it fails off by more than 1 % with its sign test rejecting 1 (FDR 5 % over these"
          " controls); the farther end of its interval from 1 is the A/A floor, by which the"
          " claimed interval [claimed] of on / off is widened either way; a verdict holds only"
          " where the claimed interval says so (faster or slower: it excludes 1; equivalent:"
          " it lies within +-2 %)")
    print(f"{'path':<11} {'set':>8} {'n':>4} {'off ns':>8} {'on ns':>8}  "
          f"{'on / off [95% CI] [claimed]':<40} {'verdict':<11} "
          f"{'on_again / on (A/A)':<24} {'floor':>6}")
    for r, c in rows:
        claimed = interval(r) + (f" [{r['claim_low']:.3f},{r['claim_high']:.3f}]"
                                 if "claim_low" in r else "")
        ccol = (f"{interval(c):<24} {100 * control_floor(c):>5.1f}%"
                + (" FAILED" if c["failed"] else "")) if c else "-"
        print(f"{r['walk']:<11} {size(r['kib']):>8} {r['n']:>4} {r['base_ns']:>8.2f} "
              f"{r['ns']:>8.2f}  {claimed:<40} {r['verdict']:<11} {ccol}")
    print("\n".join(summary_lines(effects, "swept paths")))
    print(f"A/A controls (swept paths): {len(controls) - len(failed)} of {len(controls)} read 1.000"
          " within 1 % (or their sign test does not reject 1)")
    print("cold, through their real work (nodes aged past 2x the LLC, one region of >= 1000"
          " clock steps per sample): " + "; ".join(f"{k}: {v}" for k, v in REAL_WORK.items()))
    for (walk, kib), ns in sorted(too_short.items()):
        print(f"not timed: {walk} {size(kib)}: its region lasted {ns / 1000:.0f} us, under 1000 of"
              " UML's 256 ns clock steps (256 us); short regions are not summed")
    for path in SWEPT:
        mine = [r for r, _ in rows if r["walk"] == path]
        if mine:
            print(decision(path, mine))
    return failed


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    if sys.argv[1] == "--extract":
        return extract(sys.argv[2]) if len(sys.argv) == 3 else 2
    runs = sys.argv[1].split(",")
    boots, kernels, too_short = read_runs(runs)
    if boots is None:
        return 1
    print(f"kernels: {' '.join(sorted(kernels)) or 'unknown'}")
    host = host_cells(sys.argv[2] if len(sys.argv) > 2 else None)
    failed = iterator_table(boots, host)
    if failed is None:
        print(f"uml_bench: no boot timed the iterators in {sys.argv[1]}", file=sys.stderr)
        return 1
    failed += path_table(boots, too_short)
    if failed:
        print("uml_bench: refused: the A/A controls (the same code against itself) failed: "
              + "; ".join(failed), file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
