#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The answer in words: do list prefetches pay on this CPU, where, and at
what size cost?

  verdict.py [--current-bench] [--uml UML.txt|none] BENCH.csv SIZES.txt...

BENCH.csv is scripts/lib/bench_runs.py's output (the 'all' rows: verdicts
that hold over every build, or 'unstable'); SIZES.txt are `make sizes`
results in order of preference (the x86_64 defconfig one, then the qemu
one): the first that is current (update-readme.py's rule) is cited, and
none if none is. With --current-bench, refuse a BENCH.csv whose bench.txt
was made by other benchmark code than today's.

UML.txt is make uml-bench's result (by default the first current one of
results/uml-bench.txt and results/examples/uml-bench.txt; 'none': the
host bench alone), the
kernel's own iterators and the sweep patches' sites timed on the same
CPU: with it the verdict opens with one sentence a reader can act on,
drawn from both sources, adds the in-kernel regimes, every disagreement
between the two sources (explained where the lab has tested why, else
named unexplained), what is not known, and ends with three lines: what
of the series to send, to drop and to hold, from the per-patch
decisions of the UML run.

The rules are symmetric: a faster cell is a gain wherever a slower one
is a loss, in every family of cells (list walks with short bodies, with
longer ones, dependent and independent lookups); 'unstable' (builds
disagree: code placement) and 'undecided' are neither, and no sentence
rests on them. Every regime whose verdict differs from the regime before
it (by set size) is named. Nothing here is typed from a run. The README
quotes what this prints (make readme).
"""
import csv
import os
import re
import sys
import textwrap

# update-readme.py (make readme) is a stage script, one level up.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
upd = __import__("update-readme")
# The UML result's readers, beside this file.
from series_figures import cpu_label, run_of  # noqa: E402
from uml_bench import SWEPT, decisions  # noqa: E402

# Bodies of this much work per node or less are the common case: a
# compare, a counter, a flag test (see docs/bench.md).
SHORT_WORK = 20
DECIDED = ("faster", "slower", "equivalent")


def load(path):
    with open(path) as f:
        return [r for r in csv.DictReader(f) if r["run"] == "all"]


def pct(ratio):
    return f"{(float(ratio) - 1) * 100:+.1f} %"


def headline_cells(rows, variant, walk, work=None, lookups=None):
    """[(regime, row)] of the headline cells of one shape, by set size."""
    found = [r for r in rows
             if r["headline"] == "1" and r["walk"] == walk and r["variant"] == variant
             and (work is None or int(r["work"]) == work)
             and (lookups is None or r["lookups"] == lookups)]
    return [(r["regime"], r) for r in sorted(found, key=lambda r: int(r["bytes"]))]


def pct_short(ratio):
    return f"{(float(ratio) - 1) * 100:+.1f}"


def describe(cells):
    """Runs of regimes (by set size) with one verdict, 'then' where it
    changes: 'faster in L1, L2 (-16.4, -11.1 %), then equivalent in DRAM
    (-0.3 %)'."""
    runs = []
    for regime, r in cells:
        if runs and runs[-1][0] == r["verdict"]:
            runs[-1][1].append((regime, r))
        else:
            runs.append((r["verdict"], [(regime, r)]))
    return ", then ".join(
        f"{verdict} in {', '.join(g for g, _ in group)} "
        f"({', '.join(pct_short(r['ratio']) for _, r in group)} %)"
        for verdict, group in runs)


def size_cost(path):
    """(config, bytes of function code default -> on, prefetches default, on, stamp)
    from a sizes result."""
    text = open(path).read()
    stamp = re.search(r"^# project (\S+?),", text, re.M)
    config = re.search(r"^Sizes: x86_64 (\S+),", text, re.M)
    block = re.search(r"bloat-o-meter -t vmlinux-default vmlinux-on\n.*?"
                      r"up/down: \S+ \(([-+]?\d+)\)", text, re.S)
    # sizes.sh counts the KUnit test code apart: the cost is the rest.
    kernel = re.search(r"bloat-o-meter -t vmlinux-default vmlinux-on\n.*?"
                       r"^of which KUnit tests: .*?; kernel code: ([-+]?\d+) B$", text, re.S | re.M)
    what = "bytes of kernel code, KUnit tests apart" if kernel else "bytes of function code"
    block = kernel or block
    counts = dict(re.findall(r"^(default|on)\s+(\d+)\s", text, re.M))
    if not block or not counts or not config:
        return None
    return (config.group(1), int(block.group(1)), counts.get("default"), counts.get("on"),
            stamp.group(1) if stamp else "?", what)


def header(csv_path):
    """'On AMD EPYC (family 26, model 2) (make bench, 3 builds ...).' from bench.txt."""
    txt = re.sub(r"\.csv$", ".txt", csv_path)
    text = open(txt).read() if txt != csv_path and os.path.exists(txt) else ""
    cpu = re.search(r"^cpu: (.*?); kernel", text, re.M)
    builds = re.search(r"^HEADLINE over (\d+) builds", text, re.M)
    caches = re.search(r"^caches \((\w+)\)", text, re.M)
    control = re.search(r"^A/A CONTROL: (\d+) of (\d+) cells within", text, re.M)
    return (f"On {cpu.group(1) if cpu else 'this CPU'} (make bench, "
            f"{builds.group(1) if builds else '?'} builds taking turns; a verdict holds in "
            f"every build, beyond the A/A control"
            + (f" ({control.group(1)} of {control.group(2)} cells within 1 %)" if control else "")
            + (f"; caches from {caches.group(1)}" if caches else "") + "; ratios in % of the "
            "time without prefetch, by set size).")


def first_current(paths):
    """The first of PATHS that is a current result, or None."""
    for path in paths:
        if os.path.exists(path) and upd.staleness(os.path.basename(path),
                                                  os.path.dirname(path)) is None:
            return path
    return None


def bench_staleness(csv_path):
    """None if the bench.txt beside CSV_PATH is of today's benchmark code."""
    txt = re.sub(r"\.csv$", ".txt", csv_path)
    st = upd.stamp(txt) if os.path.exists(txt) else None
    if not st:
        return f"{txt} has no stamp"
    if st[1]:
        return f"{txt} was made from uncommitted changes"
    return upd.outdated(st[0], upd.PRODUCERS["bench.txt"][0])


def crossovers(csv_path):
    """[(set, regime, ns, uops)] of the bisected crossovers in bench.txt's work table."""
    txt = re.sub(r"\.csv$", ".txt", csv_path)
    if not os.path.exists(txt):
        return []
    return re.findall(r"^(\d+ [KMG]iB)\s+(\S+)\s.*?  (\d+) ns \(between \d+ and \d+;[^)]*\)"
                      r"(?:, ~(\d+) uops)?", open(txt).read(), re.M)


def crossover_text(found):
    """The crossovers in words, equal ones together."""
    groups = {}
    for size, regime, n, u in found:
        groups.setdefault((n, u), []).append(f"{size} ({regime})")
    return [f"{n} ns" + (f" (~{u} uops per node)" if u else "") + f" at {', '.join(sets)}"
            for (n, u), sets in groups.items()]


def families(rows, works):
    """(name, cells) of every family of headline cells."""
    out = []
    short = [w for w in works if w <= SHORT_WORK]
    for w in works:
        kind = "short" if w in short else "long"
        out.append((f"list walks at {w} ns of work per node", kind,
                    headline_cells(rows, "prefetch", "list", work=w)))
    out.append(("dependent lookups (a path walk)", "lookup",
                headline_cells(rows, "prefetch", "hash-lookup", lookups="dependent")))
    out.append(("independent lookups (keys known in advance, misses overlapping)", "lookup",
                headline_cells(rows, "prefetch", "hash-lookup", lookups="independent")))
    return out


def axes_text(rows):
    """The kernel-shaped axes against the base at the largest set measured."""
    axes = [r for r in rows if r["variant"] == "prefetch" and r["walk"] == "list"
            and (r["shape"] != "line" or r["pages"] != "4k" or r["list_len"] != "1024"
                 or r["layout"] != "shuffled")]
    if not axes:
        return None
    largest = max(int(r["bytes"]) for r in axes)
    work = max(int(r["work"]) for r in axes if int(r["bytes"]) == largest)
    parts = []
    for r in axes:
        if int(r["bytes"]) != largest or int(r["work"]) != work:
            continue
        if r["shape"] != "line":
            what = f"{r['shape']} nodes"
        elif r["pages"] != "4k":
            what = f"2 MiB pages ({r['pages_got']})"
        elif r["list_len"] != "1024":
            what = f"lists of {r['list_len']}"
        else:
            what = f"{r['layout']} nodes"
        parts.append(f"{what} {r['verdict']} ({pct(r['ratio'])})")
    base = [r for r in rows if r["variant"] == "prefetch" and r["walk"] == "list"
            and int(r["bytes"]) == largest and int(r["work"]) == work and r["shape"] == "line"
            and r["pages"] == "4k" and r["list_len"] == "1024" and r["layout"] == "shuffled"]
    lead = (f"base {base[0]['verdict']} ({pct(base[0]['ratio'])})" if base else "base not measured")
    return (f"Other shapes at {work} ns of work per node, at the largest set "
            f"({base[0]['regime'] if base else '?'}; {lead}): " + ", ".join(parts) + ".")


def null_test(rows):
    """The NULL test against plain prefetch, paired, over the lookup cells."""
    parts = []
    for variant, label in (("prefetch-nonnull", "a branch"), ("prefetch-cmov", "no branch")):
        cells = [r for r in rows if r["variant"] == variant and r["walk"] == "hash-lookup"
                 and r.get("vs_verdict")]
        if not cells:
            continue
        count = {w: sum(r["vs_verdict"] == w for r in cells) for w in DECIDED}
        parts.append((variant, label, count, len(cells)))
    if not parts:
        return None
    words = []
    for variant, label, count, n in parts:
        words.append(f"{variant} ({label}) faster in {count['faster']}, slower in "
                     f"{count['slower']}, equivalent in {count['equivalent']} of {n} lookup cells")
    gains = sum(c["faster"] for _, _, c, _ in parts)
    losses = sum(c["slower"] for _, _, c, _ in parts)
    if losses > gains:
        why = "the hlist iterators' unconditional prefetch(NULL) stands."
    elif gains > losses:
        why = "skipping NULL pays more often than it costs, against the hlist iterators' choice."
    else:
        why = "neither way of treating NULL is ahead."
    return "Skipping the prefetch of NULL at a chain's end (paired against prefetch): " + \
        "; ".join(words) + ": " + why


# The in-kernel walks that are the iterators' own (the others explain
# one of them: skb_links and skb_shuffled, docs/uml.md).
UML_WALKS = ("list", "lookup", "rcu", "skb")
# Disagreements between the sources that the lab has tested an
# explanation of, by walk (docs/uml.md says how): the rest are named
# unexplained.
EXPLAINED = {}
UML_ROW = re.compile(r"^(\w+)\s+(\d+) ([KM]iB)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+) "
                     r"\[([\d.]+),([\d.]+)\]\s+(faster|slower|equivalent|undecided|unstable)\b")


def uml_cells(text):
    """{walk: [(set label, ratio, verdict)]} of a UML result's iterator table."""
    cells = {}
    for line in text.splitlines():
        m = UML_ROW.match(line)
        if m and m.group(1) not in SWEPT:
            cells.setdefault(m.group(1), []).append((f"{m.group(2)} {m.group(3)}",
                                                     float(m.group(7)), m.group(10)))
    return cells


def uml_where(cells, verdict):
    """'list 16 KiB (-11.3 %), ...' of the iterator cells with VERDICT."""
    return ", ".join(f"{walk} {label} ({pct(ratio)})" for walk in UML_WALKS
                     for label, ratio, v in cells.get(walk, []) if v == verdict)


def uml_paragraphs(text):
    """The in-kernel sentences, the disagreements, and the decisions."""
    cells = uml_cells(text)
    cpu, run = cpu_label(text), run_of(text)
    made = re.match(r"# project ([0-9a-f]+)", text)
    run += f", project {made.group(1)}" if made else ""
    parts = [f"In the kernel (make uml-bench, run {run}: the kernel's own iterators under "
             f"User-Mode Linux on {cpu}, both forms in one kernel, per cell beyond its A/A "
             "control):"]
    for verdict, words in (("faster", "the iterators' prefetch pays in"),
                           ("slower", "it costs in"), ("equivalent", "it does not matter in")):
        where = uml_where(cells, verdict)
        parts.append(f"{words} {where};" if where else f"{words} no cell;")
    undecided = sum(1 for w in UML_WALKS for _, _, v in cells.get(w, []) if v not in DECIDED)
    parts.append(f"{undecided} cells undecided or unstable.")
    body, links = cells.get("skb", []), cells.get("skb_links", [])
    gains = [label for label, _, v in body if v == "faster"]
    costs = [label for label, _, v in links if v == "slower"]
    if gains and costs:
        parts.append(f"The skb queue walk gains where it has a body ({', '.join(gains)}) and the "
                     f"same walk over its links alone costs ({', '.join(costs)}): a next-node "
                     "prefetch pays when the step has work to hide it behind (docs/uml.md).")
    m = re.search(r"^in-kernel and user-space ratios disagree beyond both intervals: (.*)$",
                  text, re.M)
    disagree = [] if not m or m.group(1).startswith("nowhere") else m.group(1).split("; ")
    if disagree:
        parts.append("Where the two sources disagree: " + "; ".join(
            f"{d} ({EXPLAINED.get(d.split()[0], 'unexplained')})" for d in disagree) + ".")
    else:
        parts.append("The two sources agree wherever both measured a cell.")
    return parts, cells


def decision_lines(text, series_count):
    """Send, drop and hold: the series as the UML run's decisions leave it."""
    drop, hold, stands = [], [], []
    for subject, words in decisions(text).items():
        if words.startswith("the prefetch pays at"):
            drop.append(f"'{subject}' ({words.split(':')[0].replace('the prefetch ', 'its prefetch ')})")
        elif words.endswith("the removal stands"):
            stands.append(f"'{subject}'")
        else:
            hold.append(f"'{subject}'")
    return [f"Send: the series, {series_count} patches (patches/series)"
            + (f", with {', '.join(stands)} (removal measured harmless)" if stands else "") + ".",
            "Drop: " + ("; ".join(drop) if drop else "nothing") + ".",
            "Hold for an RFC: " + (", ".join(hold) + " (undecided at the precision reached)"
                                   if hold else "nothing") + "."]


def series_count():
    path = os.path.join(upd.PROJECT, "patches", "series")
    return sum(1 for line in open(path) if line.strip() and not line.startswith("#"))


def chase_text(csv_path):
    txt = re.sub(r"\.csv$", ".txt", csv_path)
    if not os.path.exists(txt):
        return None
    rows = re.findall(r"^\d+ [KMG]iB\s+\S+\s+\d+\s+[\d.]+\s+.*\slookup\s.*\s(agree|DISAGREE)$",
                      open(txt).read(), re.M)
    if not rows:
        return None
    return (f"The independent lookups agree with a plain fresh-key chase of the same lookup, "
            f"written anew (bench/chase.c), in {rows.count('agree')} of {len(rows)} cells.")


def main():
    args = sys.argv[1:]
    check_bench = args[:1] == ["--current-bench"]
    args = args[1:] if check_bench else args
    # Without --uml: the first current make uml-bench result, this
    # checkout's or the quoted one; --uml none: the host bench alone.
    uml_path = first_current([os.path.join(upd.PROJECT, "results", "uml-bench.txt"),
                              os.path.join(upd.PROJECT, "results", "examples", "uml-bench.txt")])
    if args[:1] == ["--uml"] and len(args) > 1:
        uml_path, args = (None if args[1] == "none" else args[1]), args[2:]
    uml = open(uml_path).read() if uml_path else None
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    bench, sizes = args[0], args[1:]
    why = bench_staleness(bench) if check_bench else None
    if why:
        print(f"verdict: {bench}: {why}; remake it: make bench", file=sys.stderr)
        return 1
    rows = load(bench)
    if not rows:
        print(f"verdict: {bench} has no aggregate rows (run 'make bench')", file=sys.stderr)
        return 1
    works = sorted({int(r["work"]) for r in rows if r["walk"] == "list" and r["headline"] == "1"})
    parts = [header(bench)]
    gains, losses = [], []
    for name, kind, cells in families(rows, works):
        if not cells:
            continue
        parts.append(f"{name[0].upper()}{name[1:]}: prefetch is {describe(cells)}.")
        if kind != "long":
            gains += [(name, g) for g, r in cells if r["verdict"] == "faster"]
            losses += [(name, g) for g, r in cells if r["verdict"] == "slower"]
    found = crossovers(bench)
    cross = crossover_text(found)
    if cross:
        parts.append("The smallest work per node at which it is faster in every build "
                      "(bisected): " + ", ".join(cross) + ".")
    for text in (axes_text(rows), null_test(rows), chase_text(bench)):
        if text:
            parts.append(text)

    cited = first_current(sizes)
    cost = size_cost(cited) if cited else None
    if cost:
        config, delta, before, after, stamp, what = cost
        label = config if config == "defconfig" else f"{config} config"
        parts.append(f"The option costs x86_64 {label} {delta:+d} {what} "
                     f"(bloat-o-meter default -> on) and takes its prefetch instructions "
                     f"from {before} to {after} ({upd.PRODUCERS[os.path.basename(cited)][1]}, "
                     f"project {stamp}).")
    else:
        parts.append("Its size cost is not stated: no current x86_64 sizes result "
                     "(make sizes CONFIG=qemu).")

    def where(found):
        by_family = {}
        for name, regime in found:
            by_family.setdefault(name.split(" (")[0], []).append(regime)
        return "; ".join(f"{n} in {', '.join(g)}" for n, g in by_family.items())
    if gains:
        parts.append(f"Where an iterator's prefetch pays on this CPU: {where(gains)}.")
    if losses:
        parts.append(f"Where it costs: {where(losses)}.")
    if gains and not losses:
        defaults = ("x86_64's default (LIST_PREFETCH=n) leaves a measured gain unused on this "
                    "CPU, at the size above.")
    elif losses and not gains:
        defaults = ("x86_64's default (LIST_PREFETCH=n) is right on this CPU: where an "
                    "iterator's prefetch differs at all in short bodies and lookups, it costs.")
    elif gains and losses:
        defaults = ("x86_64's default (LIST_PREFETCH=n) is right for an arch-wide switch on "
                    "this CPU: the same prefetch pays in some regimes and costs in others, so "
                    "only a site that knows its regime should prefetch.")
    else:
        defaults = ("x86_64's default (LIST_PREFETCH=n) costs nothing measured on this CPU: in "
                    "short bodies and lookups no cell is faster or slower in every build, and "
                    "the option's code is the size above.")
    long_faster = [w for w in works if w > SHORT_WORK and any(
        r["verdict"] == "faster" for _, r in headline_cells(rows, "prefetch", "list", work=w))]
    if found:
        defaults += (f" Bodies of {max(int(n) for _, _, n, _ in found)} ns or more per node "
                     "(bisected) gain from it "
                     "past L2, which an iterator cannot know: that is a per-site prefetch, not "
                     "this switch.")
    elif long_faster:
        defaults += (f" Bodies of {long_faster[0]} ns or more per node gain from it, which an "
                     "iterator cannot know: that is a per-site prefetch, not this switch.")
    defaults += (" The K7 default (on) is not judged here: this CPU is not a K7, and that "
                 "default rests on the 2010 measurements.")
    parts.append(defaults)
    if not uml:
        print("\n".join(textwrap.wrap(" ".join(parts), 76)))
        return 0
    kernel, cells = uml_paragraphs(uml)
    kernel_gains = any(v == "faster" for w in UML_WALKS for _, _, v in cells.get(w, []))
    kernel_losses = any(v == "slower" for w in UML_WALKS for _, _, v in cells.get(w, []))
    pays, costs = bool(gains) or kernel_gains, bool(losses) or kernel_losses
    if pays and costs:
        first = ("keep CONFIG_LIST_PREFETCH off, as x86_64's default has it: a prefetch in every "
                 "iterator pays in some regimes and costs in others, in user space and in the "
                 "kernel, so it is a choice for a site that knows its regime, not for an "
                 "architecture-wide switch")
    elif pays:
        first = ("turning CONFIG_LIST_PREFETCH on would pay: the iterators' prefetch is faster "
                 "where it differs at all, in user space and in the kernel")
    elif costs:
        first = ("keep CONFIG_LIST_PREFETCH off, as x86_64's default has it: where the "
                 "iterators' prefetch differs at all, it costs")
    else:
        first = ("CONFIG_LIST_PREFETCH makes no measured difference either way; x86_64's default "
                 "(off) saves its code")
    cpu = header(bench).split(" (make bench")[0].replace("On ", "", 1)
    out = [f"The answer on {cpu}: {first}.", "",
           re.sub(r"^On .*? \(make bench,", "In user space (make bench,", " ".join(parts)), "",
           " ".join(kernel), "",
           "Not known: other CPUs (these runs are one machine's), bare metal (a KVM guest "
           "here), and the K7, whose default rests on the 2010 measurements.", ""]
    print("\n".join("\n".join(textwrap.wrap(p, 76)) for p in out))
    print("\n".join("\n".join(textwrap.wrap(p, 76, subsequent_indent="  "))
                    for p in decision_lines(uml, series_count())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
