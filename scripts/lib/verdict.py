#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The answer in words: do list prefetches pay on this CPU, where, and at
what size cost?

  verdict.py [--current-bench] BENCH.csv SIZES.txt...

BENCH.csv is scripts/lib/bench_runs.py's output (the 'all' rows: verdicts
that hold over every build, or 'unstable'); SIZES.txt are `make sizes`
results in order of preference (the x86_64 defconfig one, then the qemu
one): the first that is current (update-readme.py's rule) is cited, and
none if none is. With --current-bench, refuse a BENCH.csv whose bench.txt
was made by other benchmark code than today's. Every sentence is chosen
by a rule from those figures; nothing here is typed from a run. The
README quotes what this prints (make readme).
"""
import csv
import os
import re
import sys
import textwrap

# update-readme.py (make readme) is a stage script, one level up.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
upd = __import__("update-readme")

REGIMES = ("LLC", "DRAM")
# Bodies of this much work per node or less are the common case: a
# compare, a counter, a flag test (see docs/bench.md).
SHORT_WORK = 20


def load(path):
    with open(path) as f:
        return [r for r in csv.DictReader(f) if r["run"] == "all"]


def headline(rows, walk, regime, variant, work=None, lookups=None):
    for r in rows:
        if (r["headline"] == "1" and r["walk"] == walk and r["regime"] == regime
                and r["variant"] == variant and (work is None or int(r["work"]) == work)
                and (lookups is None or r["lookups"] == lookups)):
            return r
    return None


def pct(ratio):
    return f"{(float(ratio) - 1) * 100:+.1f} %"


def describe(cells):
    """'faster in DRAM (-27.6 %), equivalent in LLC (+0.1 %)' of (regime, row)."""
    return ", ".join(f"{r['verdict']} in {regime} ({pct(r['ratio'])})" for regime, r in cells)


def cells_of(rows, variant, **shape):
    found = []
    for regime in REGIMES:
        r = headline(rows, regime=regime, variant=variant, **shape)
        if r:
            found.append((regime, r))
    return found


def size_cost(path):
    """(config, bytes of function code default -> on, prefetches default, on, stamp)
    from a sizes result."""
    text = open(path).read()
    stamp = re.search(r"^# project (\S+?),", text, re.M)
    config = re.search(r"^Sizes: x86_64 (\S+),", text, re.M)
    block = re.search(r"bloat-o-meter -t vmlinux-default vmlinux-on\n.*?"
                      r"up/down: \S+ \(([-+]?\d+)\)", text, re.S)
    counts = dict(re.findall(r"^(default|on)\s+(\d+)\s", text, re.M))
    if not block or not counts or not config:
        return None
    return (config.group(1), int(block.group(1)), counts.get("default"), counts.get("on"),
            stamp.group(1) if stamp else "?")


def header(csv_path):
    """'On AMD EPYC (family 26, model 2), over 3 builds' from the CSV's bench.txt."""
    txt = re.sub(r"\.csv$", ".txt", csv_path)
    text = open(txt).read() if txt != csv_path else ""
    cpu = re.search(r"^cpu: (.*?); kernel", text, re.M)
    builds = re.search(r"^HEADLINE over (\d+) builds", text, re.M)
    return (f"On {cpu.group(1) if cpu else 'this CPU'} (make bench, "
            f"{builds.group(1) if builds else '?'} builds, verdicts that hold in every build).")


def current_sizes(paths):
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


def main():
    args = sys.argv[1:]
    check_bench = args[:1] == ["--current-bench"]
    args = args[1:] if check_bench else args
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

    short = [c for w in works if w <= SHORT_WORK
             for c in cells_of(rows, "prefetch", walk="list", work=w)]
    long_work = [w for w in works if w > SHORT_WORK]
    pays_at = None
    for w in works:
        if any(r["verdict"] == "faster" for _, r in cells_of(rows, "prefetch", walk="list", work=w)):
            pays_at = w
            break
    short_words = sorted({r["verdict"] for _, r in short})
    parts.append(
        f"List walks whose body does up to {SHORT_WORK} ns of work per node: a next-node "
        f"prefetch is {' or '.join(short_words) or 'not measured'} "
        f"(ratios {min(float(r['ratio']) for _, r in short):.3f} to "
        f"{max(float(r['ratio']) for _, r in short):.3f} in "
        f"{' and '.join(g for g in REGIMES if any(regime == g for regime, _ in short))})."
        if short else
        "List walks with short bodies were not measured.")
    if pays_at is None:
        parts.append(f"It is faster at no work per node up to {works[-1] if works else 0} ns.")
    else:
        at = cells_of(rows, "prefetch", walk="list", work=pays_at)
        parts.append(f"It first pays at {pays_at} ns of work per node: {describe(at)}.")
        if long_work and long_work[-1] != pays_at:
            parts.append(f"At {long_work[-1]} ns: "
                         f"{describe(cells_of(rows, 'prefetch', walk='list', work=long_work[-1]))}.")

    dep = cells_of(rows, "prefetch", walk="hash-lookup", lookups="dependent")
    ind = cells_of(rows, "prefetch", walk="hash-lookup", lookups="independent")
    if dep:
        parts.append(f"Hash lookups that wait for each other (a path walk): prefetch is {describe(dep)}.")
    if ind:
        parts.append(f"Independent lookups (keys known in advance, misses overlapping): "
                     f"prefetch is {describe(ind)}.")
    nonnull = [(regime, r, headline(rows, "hash-lookup", regime, "prefetch", lookups=r["lookups"]))
               for kind in ("dependent", "independent")
               for regime, r in cells_of(rows, "prefetch-nonnull", walk="hash-lookup", lookups=kind)]
    if nonnull:
        worse = sum(float(nn["ratio"]) > float(plain["ratio"]) for _, nn, plain in nonnull)
        better = sum(float(nn["ratio"]) < float(plain["ratio"]) for _, nn, plain in nonnull)
        if worse > better:
            why = "the hlist iterators' unconditional prefetch(NULL) stands."
        elif better > worse:
            why = "the NULL test pays more often than not, against the hlist iterators' choice."
        else:
            why = "neither form is ahead."
        parts.append(
            f"Skipping the prefetch of NULL at a chain's end (prefetch-nonnull) is slower than the "
            f"plain prefetch in {worse} and faster in {better} of these {len(nonnull)} lookup "
            f"cells: {why}")

    cited = current_sizes(sizes)
    cost = size_cost(cited) if cited else None
    if cost:
        config, delta, before, after, stamp = cost
        label = config if config == "defconfig" else f"{config} config"
        parts.append(f"The option costs x86_64 {label} {delta:+d} bytes of function "
                     f"code (bloat-o-meter default -> on) and takes its prefetch instructions "
                     f"from {before} to {after} ({upd.PRODUCERS[os.path.basename(cited)][1]}, "
                     f"project {stamp}).")
    else:
        parts.append("Its size cost is not stated: no current x86_64 sizes result "
                     "(make sizes CONFIG=qemu).")

    gains = [c for c in short + dep if c[1]["verdict"] == "faster"]
    losses = [c for c in short + dep + ind if c[1]["verdict"] == "slower"]
    if gains and not losses:
        defaults = ("x86_64's default (LIST_PREFETCH=n) leaves a measured gain unused on this CPU, at "
                    "the size above.")
    elif losses and not gains:
        defaults = ("x86_64's default (LIST_PREFETCH=n) is right on this CPU: where a prefetch differs at "
                    "all in short bodies and lookups, it costs.")
    elif gains and losses:
        defaults = ("x86_64's default (LIST_PREFETCH=n) is right for an arch-wide switch on this CPU: the "
                    "same prefetch pays in one regime and costs in another, so only a site "
                    "that knows its regime should prefetch.")
    else:
        defaults = ("x86_64's default (LIST_PREFETCH=n) costs nothing on this CPU: in short bodies and "
                    "lookups the prefetch makes no measured difference, and the option's "
                    "code is the size above.")
    if pays_at is not None and pays_at > SHORT_WORK:
        defaults += (f" Bodies of {pays_at} ns or more per node gain from it, which an "
                     "iterator cannot know: that is a per-site prefetch, not this switch.")
    defaults += (" The K7 default (on) is not judged here: this CPU is not a K7, and that "
                 "default rests on the 2010 measurements.")
    parts.append(defaults)
    print("\n".join(textwrap.wrap(" ".join(parts), 76)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
