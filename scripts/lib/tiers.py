#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sum up the recorded runs of make check, make check-all, make report and
make report-all.

Reads results/check-{cold,warm}.txt, results/check-all[-cold,-warm].txt,
results/report-{cold,warm}.txt and results/report-all-run.txt (written by
scripts/record-run.sh) and prints one line per run found:
the tier, the cache it started with, its tally, its wall time, the
project commit, the date and the host. The README quotes this.
"""
import os
import re
import sys

RUNS = [("make check", "check-cold"), ("make check", "check-warm"),
        ("make check-all", "check-all-cold"), ("make check-all", "check-all-after-check"),
        ("make check-all", "check-all"),
        ("make check-all", "check-all-warm"), ("make report", "report-cold"),
        ("make report", "report-warm"), ("make report-all", "report-all-run"),
        ("make uml-bench", "uml-bench-cold"), ("make uml-bench", "uml-bench-warm")]


# make uml-bench's lines judging its A/A controls, one per set of them.
AA_CONTROLS = re.compile(r"^(A/A controls(?: \(swept paths\))?): (\d+ of \d+) read", re.M)


def aa_controls(text):
    """[(label, 'N of M')]: the A/A control tallies a make uml-bench run printed."""
    return AA_CONTROLS.findall(text)


def summary(path):
    text = open(path).read()
    field = {}
    m = re.search(r"^# project (\S+), (\S+)$", text, re.M)
    field["commit"], field["date"] = (m.group(1), m.group(2)) if m else ("?", "?")
    m = re.search(r"^# host: (.*)$", text, re.M)
    field["host"] = m.group(1).split(",")[0] if m else "?"
    m = re.search(r"^# cache: (\S+)(?: \((\d+) finished builds\))?", text, re.M)
    field["cache"] = (m.group(1) + (f" ({m.group(2)} builds)" if m.group(2) else "")) if m else "?"
    tallies = re.findall(r"^(\d+ passed, \d+ failed(?:, \d+ skipped)?)$", text, re.M)
    field["tally"] = tallies[-1] if tallies else "no tally (did not finish)"
    # make report runs steps, not tests: its tally is which of them failed.
    if not tallies and "\nlist-prefetch report (make report)" in text:
        failed = re.findall(r"^report: failed steps: (.*?) \(their errors", text, re.M)
        field["tally"] = f"failed steps: {failed[-1]}" if failed else "every step succeeded"
    # make uml-bench decides, or refuses, a run: its tally is its controls.
    controls = [tally for _, tally in aa_controls(text)]
    if not tallies and controls:
        field["tally"] = "A/A controls " + ", ".join(c.replace(" of ", "/") for c in controls) + " pass"
    if not tallies and "the run is refused: its A/A controls" in text:
        field["tally"] = "refused: its A/A controls failed"
    cached = re.findall(r"^# cached: (\d+) of the \d+ passes", text, re.M)
    reused = re.findall(r"^# reused: (\d+) boots", text, re.M)
    if tallies and cached:
        also = f", {reused[-1]} boots reused" if reused else ""
        field["tally"] = field["tally"].replace(" passed", f" passed ({cached[-1]} cached{also})", 1)
    # The last: a make report record holds its check-all's run first.
    m = ([None] + list(re.finditer(r"^# exit (\d+) after (\d+)s$", text, re.M)))[-1]
    field["exit"], field["seconds"] = (int(m.group(1)), int(m.group(2))) if m else (None, None)
    return field


def main():
    # tiers.py [RESULTS [NAME...]]: only these recorded runs (default: all).
    results = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "results")
    wanted = set(sys.argv[2:])
    print(f"  {'command':<15} {'cache':<16} {'wall':>8}  {'exit':>4}  {'tally':<52} commit, date, host")
    found = 0
    for tier, name in RUNS:
        path = os.path.join(results, name + ".txt")
        if (wanted and name not in wanted) or not os.path.exists(path):
            continue
        f = summary(path)
        # The row is labelled by the command the record ran, not the
        # tier its name says (a record may hold another command).
        first = open(path).readline()
        tier = first[2:].strip() if first.startswith("$ ") else tier
        wall = f"{f['seconds'] // 60}m{f['seconds'] % 60:02d}s" if f["seconds"] is not None else "?"
        print(f"  {tier:<15} {f['cache']:<16} {wall:>8}  {f['exit'] if f['exit'] is not None else '?':>4}  "
              f"{f['tally']:<52} {f['commit']}, {f['date']}, {f['host']}")
        found += 1
    return 0 if found else 1


if __name__ == "__main__":
    sys.exit(main())
