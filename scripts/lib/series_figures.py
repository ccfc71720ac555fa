#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The series' in-kernel figures, from a result: never typed.

  series_figures.py RESULT              print every section made from RESULT
  series_figures.py RESULT --apply DIR  write them into the series in DIR

RESULT is results/uml-bench.txt (make uml-bench). The cover letter also
quotes each result beside it that a source line of its own names,
'  (results/examples/NAME, project COMMIT, DATE)': all of QUOTES
(codegen, sizes, include graph, KCSAN, the x86_64 bisect), as the file
holds it or the part QUOTES keeps, and the bisect record of any other
configuration, its tally (bisect_part); each indented, between the
paragraph that introduces it and its source line. The cover letter's
section runs from its first line (FIRST) to 'Not measured:'; each patch
that sweeps a path (07-10) has a block from 'Measured natively:' to the
blank line before 'The workload:' (or, where it has none yet, one is put
before 'The workload:'). The test that the series cites the quoted
result compares both with what this makes.
"""
import glob
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from uml_bench import SWEPT  # noqa: E402  (the patch of each swept path)

FIRST = "The kernel's own code on the real CPU:"
MEASURED = "Measured on the real CPU, under User-Mode Linux:"
# How v1's blocks began: replaced by MEASURED's when the patch is rewritten.
MEASURED_V1 = "Measured natively:"
WORKLOAD = "The workload:"
# The swept path of each patch, as uml_bench.py names it (its SWEPT,
# whose values are how its decision lines name the patch).
PATCHES = {name.split()[0]: path for path, name in SWEPT.items()}
# How a run heads its swept paths' table, timed within one boot (the
# switch kernel): runs before it decide no sweep patch, and are refused.
WITHIN_BOOT = "A/A within each boot:"


def run_of(txt):
    """The run ids of the boots line: one, or several (runs added up) joined."""
    boots = re.search(r"boots: (\S+)", txt).group(1).rstrip(";,")
    return " and ".join(os.path.basename(b.rstrip("/")) for b in boots.split(","))


def section(txt):
    run = run_of(txt)
    lines = txt.splitlines()
    rows = []
    for line in lines:
        if re.match(r"^(list|lookup|rcu|skb)\s+\d+ [KM]iB", line):
            f = line.split()
            # walk, set, unit, n, off ns, on ns, ratio, [CI], verdict, builds
            rows.append(f"  {f[0]:<7} {f[1] + ' ' + f[2]:>8} {f[4]:>7} {f[5]:>7}  "
                        f"{f[6]} {f[7]:<15} {f[8]:<11} {f[9]}")
    pick = [next(x for x in lines if x.startswith(p))
            for p in ("precision (iterators)", "precision (headline", "verdicts (iterators",
                      "in-kernel and user-space") if any(x.startswith(p) for x in lines)]
    decisions = [x for x in lines if x.startswith("patch ")]
    if WITHIN_BOOT not in txt:
        raise SystemExit("series_figures: the result times no swept path within one boot"
                         " (a run before the switch kernel): make uml-bench")
    moved = "moved / default" in txt
    intro = (f"{FIRST} User-Mode Linux kernels of the series (x86_64 host, the CPU above, "
             f"one CPU, mem=1536M, 4 KiB pages; 'make uml-bench', lab run {run}). The "
             "iterators are compiled by the kernel's build in both forms into the same kernel "
             "(the option unset and set), and each boot times both over the same slab objects "
             "in a random order, sample by sample; the boots of "
             + ("three kernels (the default's, the on one's and the default's built again "
                "with its code moved: three builds" if moved else
                "two kernels (the default's and the on one's: two builds")
             + ', "unstable" where they disagree); on / off, median of the boots\' ratios '
             "[95 % CI], FDR 5 %:")
    return textwrap.fill(intro, 72, break_on_hyphens=False) + """

  walk         set  off ns   on ns  on / off [95 % CI]    verdict     builds
""" + "\n".join(rows) + "\n" + "\n".join("  " + p for p in pick) + """

""" + textwrap.fill(
        "The four swept walks (patches 7-10), each driven through its own code path "
        "in a UML kernel of the series whose list prefetches sit behind a run-time flag,"
        " timed with the flag on, off and on again within each boot"
        " (Tiny RCU callbacks, a TCP socket's backlog released, a blk-mq batch completed,"
        " reclaim under memory pressure; each patch has its figures and its workload). What they"
        " decide:", 72, break_on_hyphens=False) + "\n\n" + "\n".join("  " + d for d in decisions) + "\n\n"


def interval_at(tokens, i):
    """The interval 'r [lo,hi]' at tokens[i], a claimed '[lo,hi]' after it if
    any (uml_bench.py widens on / off by the A/A floor of its boots),
    the verdict, and the index after them."""
    text = f"{tokens[i]} {tokens[i + 1]}"
    i += 2
    if i < len(tokens) and tokens[i].startswith("["):
        text += f", claimed {tokens[i]}"
        i += 1
    return text, tokens[i], i + 1


def path_rows(txt, path):
    """(set, on / off interval, verdict, A/A control) per set of PATH in
    a within-boot run's table."""
    rows = []
    for line in txt.splitlines():
        f = line.split()
        if not f or f[0] != path or len(f) < 10:
            continue
        on, on_v, i = interval_at(f, 6)
        control = f"{f[i]} {f[i + 1]}" if i + 1 < len(f) and f[i] != "-" else "-"
        rows.append((f"{f[1]} {f[2]}", on, on_v, control))
    return rows


def cpu_label(txt):
    """The CPU the UML kernels ran on, as the result's header names it."""
    labelled = re.search(r"^UML \(ARCH=um\) on (.+?\(family \d+, model \d+\)),"
                         r"(?: host kernel \S+,)?( inside an? \S+ VM,)?", txt, re.M)
    if labelled:
        return labelled.group(1) + (labelled.group(2) or "").rstrip(",")
    cpu = re.search(r"^UML \(ARCH=um\) on ([^,]+),", txt, re.M).group(1)
    family = re.search(r"boots: \S*cpus/[a-z0-9-]*-f(\d+)m", txt)
    return cpu + (f" (family {family.group(1)})" if family else "")


def decided_line(txt, path):
    """The result's decision of the patch that sweeps PATH, as the
    message words it."""
    m = re.search(rf"^patch {re.escape(SWEPT[path])}: (.*)$", txt, re.M)
    if not m:
        raise SystemExit(f"series_figures: the result decides nothing of patch {SWEPT[path]}")
    # A wrapped line must not start with '+' or '-' (a diff's marks).
    return ("What the lab decides of this patch: "
            + m.group(1).replace("rounds for +-1 %", "rounds to narrow it to 1 %")
            .replace("boots for +-1 %", "boots to narrow it to 1 %"))


def patch_block(txt, path):
    """The measured block of the patch that sweeps PATH, from a run of the
    switch kernel (the paths timed both ways within each boot)."""
    if WITHIN_BOOT not in txt:
        raise SystemExit("series_figures: the result times no swept path within one boot"
                         " (a run before the switch kernel): make uml-bench")
    rows = path_rows(txt, path)
    if not rows:
        raise SystemExit(f"series_figures: no row of {path} in the result")
    boots = re.search(r"within each of (\d+) boots", txt).group(1)
    intro = (f"{MEASURED} this path driven through its own code in a User-Mode Linux kernel "
             "of the series with CONFIG_LIST_PREFETCH=y, every list prefetch behind a "
             f"run-time flag (the lab's own UML patch), on an {cpu_label(txt)}, {boots} boots "
             f"('make uml-bench' of the list-prefetch lab, run {run_of(txt)}); in each boot, "
             "every sample timed with the flag on, off and on again over fresh nodes; on / "
             "off, median of the boots' ratios [95% CI], claimed with the floor of the A/A "
             "control (on again / on), verdict with the FDR held at 5%:")
    table = []
    for size, on, on_v, control in rows:
        # Within 75 columns, as checkpatch wants a message.
        table.append(f"  {size:>7}  {'on/off':<7} {on} {on_v}")
        table.append(f"  {'':>7}  {'A/A':<7} {control} (on again / on)")
    return (textwrap.fill(intro, 72, break_on_hyphens=False) + "\n\n" + "\n".join(table) + "\n\n"
            + textwrap.fill(decided_line(txt, path), 72, break_on_hyphens=False) + "\n\n")


def sizes_part(lines):
    """Of a sizes result: size's table, the deltas, bloat-o-meter's
    summaries (without the per-function rows) and the prefetch counts."""
    out, para = [], []
    for line in lines + [""]:
        if line.strip():
            para.append(line)
            continue
        first = para[0] if para else ""
        if first.lstrip().startswith("text ") or first.startswith("vanilla -> "):
            out += para + [""]
        elif first.startswith("bloat-o-meter "):
            keep = [first] + [x for x in para if x.startswith("add/remove:")]
            keep += list(dict.fromkeys(x for x in para if x.startswith("Total:")))
            out += keep + [""]
        elif first.startswith("prefetch instructions"):
            table = [x for x in para if not x.startswith("(")]
            out += table[:table.index("by section:")] if "by section:" in table else table
            out += [""]
        para = []
    return out[:-1]


def runs_of_values(steps):
    """[(step, value)] as 'n at step 1', 'y at steps 2-14': one per run
    of consecutive steps with the same value."""
    runs = []
    for step, value in steps:
        if runs and runs[-1][2] == value and runs[-1][1] == step - 1:
            runs[-1][1] = step
        else:
            runs.append([step, step, value])
    return [f"{v} at step {a}" if a == b else f"{v} at steps {a}-{b}" for a, b, v in runs]


def bisect_part(lines):
    """Of a bisect record of one more configuration: its config and
    compiler lines, the tally of its steps per variant, and every step
    that did not build (the x86_64 record is quoted whole)."""
    rows = [x.split() for x in lines if re.match(r"^(ok|FAILED)\s+\d+ ", x)]
    if not rows:
        raise SystemExit("series_figures: a bisect record without a step")
    tally = []
    for variant in dict.fromkeys(r[2] for r in rows):
        mine = [r for r in rows if r[2] == variant]
        ok = sum(r[0] == "ok" for r in mine)
        tally.append(f"{variant}: {ok} of {len(mine)} steps build, LIST_PREFETCH "
                     + ", ".join(runs_of_values([(int(r[1]), r[3]) for r in mine])))
    failed = [x for x in lines if x.startswith("FAILED")]
    return lines[:2] + ["; ".join(tally)] + failed


# The results the cover letter quotes, and the part of each it shows.
QUOTES = {
    "codegen-x86_64.txt": None,
    "sizes-defconfig.txt": sizes_part,
    "include-graph-x86_64.txt": None,
    "kcsan.txt": None,
    "bisect-x86_64.txt": None,
}
# Beside those, the cover may quote the bisect record of any other
# configuration (a source line of its own names it): the tally only.
OTHER_BISECT = re.compile(r"bisect-[a-z0-9_-]+\.txt$")


def quoted_names(cover):
    """The results COVER quotes: QUOTES, each, and the other bisect
    records it names."""
    names = re.findall(r"^  \(results/examples/([^,]+), ", cover, re.M)
    missing = [q for q in QUOTES if q not in names]
    unknown = [n for n in names if n not in QUOTES and not OTHER_BISECT.match(n)]
    if missing or unknown:
        raise SystemExit("series_figures: the cover letter must quote " + ", ".join(QUOTES)
                         + (f"; it lacks {', '.join(missing)}" if missing else "")
                         + (f"; nothing here makes {', '.join(unknown)}" if unknown else ""))
    return names


def quote(result_dir, name):
    """(body lines, source line) of a quoted result."""
    lines = open(os.path.join(result_dir, name)).read().splitlines()
    m = re.match(r"# project (\S+), (\S+?)[;\s]", lines[0])
    body = lines[1:]
    part = QUOTES.get(name, bisect_part)
    body = part(body) if part else body
    return ([("  " + x).rstrip() for x in body],
            f"  (results/examples/{name}, project {m.group(1)}, {m.group(2)})")


def put_quote(text, name, body, source):
    """TEXT with the block above NAME's source line replaced."""
    lines = text.split("\n")
    at = [i for i, x in enumerate(lines) if x.startswith(f"  (results/examples/{name}, ")]
    if len(at) != 1:
        raise SystemExit(f"series_figures: the cover letter has {len(at)} source lines "
                         f"for results/examples/{name}; want one, below its quote")
    end = at[0]
    start = end - 1
    while start > 0 and (not lines[start] or lines[start].startswith(" ")):
        start -= 1
    return "\n".join(lines[:start + 1] + [""] + body + ["", source] + lines[end + 1:])


def put_patch_block(text, block):
    """TEXT (a patch) with its measured block replaced, or put before WORKLOAD."""
    end = text.index(WORKLOAD)
    start = text.find(MEASURED)
    start = text.find(MEASURED_V1) if start < 0 else start
    start = end if start < 0 or start > end else start
    return text[:start] + block + text[end:]


def put_cover_section(text, sect):
    end = text.index("Not measured:")
    start = text.find(FIRST)
    start = end if start < 0 else start
    return text[:start] + sect + text[end:]


def main():
    if len(sys.argv) not in (2, 4) or len(sys.argv) == 4 and sys.argv[2] != "--apply":
        print(__doc__, file=sys.stderr)
        return 2
    txt = open(sys.argv[1]).read()
    made = {"0000": section(txt)}
    made.update({nr: patch_block(txt, path) for nr, path in PATCHES.items()})
    if len(sys.argv) == 2:
        for nr, text in made.items():
            print(f"== {nr}\n{text}", end="")
        return 0
    for nr, text in made.items():
        (name,) = glob.glob(os.path.join(sys.argv[3], f"{nr}-*.patch" if nr == "0000"
                                         else f"00{nr}-*.patch"))
        old = open(name).read()
        if nr == "0000":
            new = put_cover_section(old, text)
            for quoted in quoted_names(new):
                new = put_quote(new, quoted, *quote(os.path.dirname(sys.argv[1]), quoted))
        else:
            new = put_patch_block(old, text)
        open(name, "w").write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
