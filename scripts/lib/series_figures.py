#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The series' in-kernel figures, from a result: never typed.

  series_figures.py RESULT              print every section made from RESULT
  series_figures.py RESULT --apply DIR  write them into the series in DIR
  series_figures.py RESULT --placement DIR
                                        exit 1 unless each sweep patch is where
                                        RESULT's decision puts it: the series
                                        (DIR) if its removal stands, else DIR/held

RESULT is results/uml-bench.txt (make uml-bench). The cover letter also
quotes each result beside it that a source line of its own names,
'  (results/examples/NAME, project COMMIT, DATE)': all of QUOTES
(codegen, qemu config sizes, KCSAN, the x86_64 bisect, the host bench's verdict), as the file
holds it or the part QUOTES keeps, and the bisect record of any other
configuration, its tally (bisect_part); each indented, between the
paragraph that introduces it and its source line. The cover letter's
section runs from its first line (FIRST) to 'Not measured:'; each patch
that sweeps a path (SWEPT, in the series or held back) has a block
from 'Measured natively:' to the blank line before 'The workload:'
(or, where it has none yet, one is put before 'The workload:'). The test that the series cites the quoted
result compares both with what this makes. A result stamped '+changes'
or one update-readme.py --check calls stale is refused (current_stamp).
"""
import glob
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from uml_bench import SWEPT, decisions  # noqa: E402  (the patch of each swept path)
# update-readme.py (make readme) is a stage script, one level up: its
# stamp() reads a result's '# project COMMIT, DATE' line.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
upd = __import__("update-readme")

FIRST = "The kernel's own code on the real CPU:"
# checkpatch's width for a message, the cover letter's too.
WIDTH = 75
MEASURED = "Measured on the real CPU, under User-Mode Linux:"
# How v1's blocks began: replaced by MEASURED's when the patch is rewritten.
MEASURED_V1 = "Measured natively:"
WORKLOAD = "The workload:"
# The patch of each swept path is found by its subject (SWEPT's values,
# as the decision lines name it), in the series or among the held ones.
# How a run heads its swept paths' table, timed within one boot (the
# switch kernel): runs before it decide no sweep patch, and are refused.
WITHIN_BOOT = "A/A within each boot:"


def run_of(txt):
    """The run ids of the boots line: one, or several (runs added up) joined."""
    boots = re.search(r"boots: (\S+)", txt).group(1).rstrip(";,")
    return " and ".join(os.path.basename(b.rstrip("/")) for b in boots.split(","))


def wrap(text, indent="", width=WIDTH):
    """TEXT filled to WIDTH columns (checkpatch's 75 for a message), its
    lines after the first indented by INDENT too."""
    return textwrap.fill(text, width, initial_indent=indent, subsequent_indent=indent,
                         break_on_hyphens=False, break_long_words=False)


def short_decision(line):
    """A decision line of the result in short: an undecided patch's sets,
    the widths of their intervals and the boots +-1 % would take, and
    how many lean faster within their A/A floor."""
    m = re.match(r"^patch ('[^']+'): not decided \((.*)\): not sent as measured", line)
    if not m:
        return line.replace(" (the RFC list, docs/series.md)", "")
    sizes = re.findall(r"(\d+ [KM]iB) undecided", m.group(2))
    cells = re.findall(r"([\d.]+) %, ~(\d+) boots", m.group(2))
    floor = m.group(2).count("within the A/A floor")
    if not sizes or len(cells) + floor != len(sizes):
        return line.replace(" (the RFC list, docs/series.md)", "")
    widths = sorted(float(c[0]) for c in cells)
    boots = sorted(int(c[1]) for c in cells)
    said = []
    if cells:
        said.append(f"intervals {widths[0]:.1f}-{widths[-1]:.1f} % wide, ~{boots[0]}-{boots[-1]} "
                    "boots for +-1 %" if len(cells) > 1 else
                    f"an interval {widths[0]:.1f} % wide, ~{boots[0]} boots for +-1 %")
    if floor:
        said.append(f"{floor} faster within its A/A floor" if floor == 1 else
                    f"{floor} faster within their A/A floors")
    return f"patch {m.group(1)}: undecided at {', '.join(sizes)} ({'; '.join(said)}): held back"


def section(txt):
    """The cover letter's in-kernel section: the iterators' headline cells
    (each walk at its largest set; the whole table is in the result), how
    many of them are within +-1 % and the verdicts' tally, then the
    decision of each sweep patch."""
    run = run_of(txt)
    lines = txt.splitlines()
    largest = {}
    for line in lines:
        m = re.match(r"^(list|lookup|rcu|skb)\s+(\d+) ([KM])iB", line)
        if m:
            kib = int(m.group(2)) * (1024 if m.group(3) == "M" else 1)
            if kib >= largest.get(m.group(1), (0, ""))[0]:
                largest[m.group(1)] = (kib, line)
    rows = []
    for _, line in largest.values():
        f = line.split()
        # walk, set, unit, n, off ns, on ns, ratio, [CI], verdict, builds
        rows.append(f"  {f[0]:<7} {f[1] + ' ' + f[2]:>7} {f[4]:>7} {f[5]:>7}  {f[6]} {f[7]:<15} {f[8]}")
    pick = [next(x for x in lines if x.startswith(p)).split("; wider:")[0]
            for p in ("precision (headline",) if any(x.startswith(p) for x in lines)]
    decisions = [short_decision(x) for x in lines if x.startswith("patch ")]
    if WITHIN_BOOT not in txt:
        raise SystemExit("series_figures: the result times no swept path within one boot"
                         " (a run before the switch kernel): make uml-bench")
    moved = "moved / default" in txt
    intro = (f"{FIRST} UML on {cpu_label(txt)} (make uml-bench, run {run}). "
             "Each boot times the iterators built both ways into one kernel, over the "
             "same slab objects; "
             + ("three builds (default, on, default moved)" if moved else "two builds")
             + "; on / off, median of the boots [95 % CI], each at its largest set:")
    return (wrap(intro) + "\n\n  walk        set  off ns   on ns  on / off [95 % CI]    verdict\n"
            + "\n".join(rows) + "\n"
            + "\n".join(wrap(p, "  ") for p in pick) + "\n\n"
            + wrap("The four open-coded walks through their real work (callbacks freeing "
                   "objects, a TCP backlog, null_blk bios, reclaim under pressure), the "
                   "prefetch behind a flag timed on, off and on again in each boot:")
            + "\n\n" + "\n".join(wrap(d, "  ") for d in decisions) + "\n\n")


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
    words = decisions(txt).get(SWEPT[path])
    if words is None:
        raise SystemExit(f"series_figures: the result decides nothing of patch {SWEPT[path]}")
    # A wrapped line must not start with '+' or '-' (a diff's marks).
    return ("What the lab decides of this patch: "
            + words.replace("rounds for +-1 %", "rounds to narrow it to 1 %")
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
    """Of a sizes result: bloat-o-meter's change of each step, and the
    prefetch instructions of each build (the tables are in the file)."""
    out, para, counts = [], [], []
    for line in lines + [""]:
        if line.strip():
            para.append(line)
            continue
        first = para[0] if para else ""
        if first.startswith("bloat-o-meter "):
            a, b = (x.replace("vmlinux-", "") for x in first.split()[-2:])
            change = re.search(r"\((-?\d+)\)$", next((x for x in para if x.startswith("add/remove:")), ""))
            total = next((x for x in para if x.startswith("Total:")), "")
            chg = re.search(r"chg (\S+)", total)
            split = re.search(r"^of which KUnit tests: ([-+]\d+) B .*; kernel code: ([-+]\d+) B$",
                              "\n".join(para), re.M)
            if change and chg:
                out.append(f"bloat-o-meter {a} -> {b}: {int(change.group(1)):+d} B ({chg.group(1)})")
                if split:
                    out.append(f"  of which kernel code {split.group(2)} B, "
                               f"KUnit tests {split.group(1)} B")
        elif first.startswith("prefetch instructions"):
            counts = [f"{x.split()[0]} {x.split()[1]}" for x in para[2:]
                      if re.match(r"^\s*\S+\s+\d+\s", x)]
        para = []
    if counts:
        out.append("prefetch instructions: " + ", ".join(counts))
    return out


def codegen_part(lines):
    """Of a codegen result: its verdict, the swept functions' prefetches
    if any, and what failed (the table is in the file)."""
    objects = [x for x in lines if re.match(r"^  \S+\.o\s+\d+", x)]
    keep = [f"{len(objects)} objects compared ("
            f"{sum('[untouched]' not in x for x in objects)} of them modified by the series)"]
    keep += [x.strip() for x in lines if x.strip().startswith("FAIL:")]
    keep += [x for x in lines if x.startswith("verdict:")]
    return [w for x in keep for w in wrap(x, width=WIDTH - 2).splitlines()]


def kcsan_part(lines):
    """Of a KCSAN table: one line per kernel (its result, KUnit's tally,
    rcutorture's end and the KCSAN reports)."""
    out, kernel = [], None

    def flush():
        if kernel:
            out.extend(wrap(", ".join(kernel), width=WIDTH - 2).splitlines())

    for line in lines:
        m = re.match(r"^  (\S+)\s+(\S+)\s+LIST_PREFETCH=(\S)\s+(\S+)\s+splats (\d+)\s+KUnit passed/failed: (.*)",
                     line)
        if m:
            flush()
            counts = [tuple(map(int, x.split("/"))) for x in re.findall(r"\d+/\d+", m.group(6))]
            kernel = [f"{m.group(1)} {m.group(2)}: {m.group(4)}"
                      + (f", {m.group(5)} splats" if m.group(5) != "0" else ""),
                      f"KUnit {sum(c[0] for c in counts)}/{sum(c[1] for c in counts)}"]
        elif kernel and "rcutorture: End of test:" in line:
            kernel.append("rcutorture " + line.split("End of test:")[1].split()[0])
        elif kernel and "KCSAN data-race reports:" in line:
            new = re.search(r"(\d+) new\)", line)
            kernel.append(f"KCSAN {new.group(1) if new else '?'} new")
    flush()
    return out


def verdict_part(lines):
    """Of the host bench's verdict: where an iterator's prefetch pays,
    where it costs, and what that says of the default (the regimes and
    the rest are in the file)."""
    text = " ".join(x.strip() for x in lines)
    keep = [x for x in re.split(r"(?<=[.])\s+", text)
            if x.startswith(("Where an iterator's prefetch pays", "Where it costs",
                             "x86_64's default"))]
    if len(keep) != 3:
        raise SystemExit("series_figures: the verdict does not say where an iterator's "
                         "prefetch pays, where it costs and what of the default")
    return wrap(" ".join(keep), width=WIDTH - 2).splitlines()


def runs_of_values(steps):
    """[(step, value)] as 'n at step 1', 'y at steps 2-14': one per run
    of consecutive steps with the same value."""
    runs = []
    for step, value in steps:
        if runs and runs[-1][2] == value and runs[-1][1] == step - 1:
            runs[-1][1] = step
        else:
            runs.append([step, step, value])
    return [f"{v} at {a}" if a == b else f"{v} at {a}-{b}" for a, b, v in runs]


def bisect_part(lines):
    """Of a bisect record: its configuration and compiler, the tally of
    its steps per variant, and every step that did not build."""
    rows = [x.split() for x in lines if re.match(r"^(ok|FAILED)\s+\d+ ", x)]
    if not rows:
        raise SystemExit("series_figures: a bisect record without a step")
    config = re.match(r"^Bisect build: (\S+ \S+) config", lines[0])
    compiler = [w for w in lines[1].split() if "gcc" in w or "clang" in w][:1] + lines[1].split()[-1:]
    tally = []
    for variant in dict.fromkeys(r[2] for r in rows):
        mine = [r for r in rows if r[2] == variant]
        ok = sum(r[0] == "ok" for r in mine)
        tally.append(f"{variant} {ok} of {len(mine)} build ("
                     + ", ".join(runs_of_values([(int(r[1]), r[3]) for r in mine])) + ")")
    failed = [x for x in lines if x.startswith("FAILED")]
    head = f"{config.group(1) if config else '?'}, {' '.join(compiler)}: "
    return wrap(head + "; ".join(tally), width=WIDTH - 2).splitlines() + failed


# The results the cover letter quotes, and the part of each it shows.
QUOTES = {
    "codegen-x86_64.txt": codegen_part,
    "sizes-qemu.txt": sizes_part,
    "kcsan.txt": kcsan_part,
    "bisect-x86_64.txt": bisect_part,
    "verdict.txt": verdict_part,
}
# Beside those, the cover may quote the bisect record of any other
# configuration (a source line of its own names it), as bisect_part does.
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


def committed_stamp(path):
    """(commit, date) of the result at PATH (update-readme.py's stamp());
    refuses one made from uncommitted changes ('+changes'), or with no
    commit: the series cites what a commit of the lab made, nothing else."""
    name = os.path.basename(path)
    made = upd.stamp(path)
    if not made or made[0] == "?":
        raise SystemExit(f"series_figures: {name} has no '# project COMMIT, DATE' stamp")
    commit, dirty, date = made
    if dirty:
        raise SystemExit(f"series_figures: {name} was made from uncommitted changes at "
                         f"{commit}: remake it from a clean checkout")
    return commit, date


def current_stamp(path):
    """committed_stamp() of the result at PATH, refusing as well one that
    update-readme.py --check calls stale (its producers or the series'
    code changed since it was made): the figure would be withdrawn from
    the README while the cover letter still sent it."""
    made = committed_stamp(path)
    why = upd.staleness(os.path.basename(path), os.path.dirname(path))
    if why:
        raise SystemExit(f"series_figures: {os.path.basename(path)} is stale: {why}")
    return made


def quote(result_dir, name):
    """(body lines, source line) of a quoted result."""
    path = os.path.join(result_dir, name)
    commit, date = current_stamp(path)
    body = open(path).read().splitlines()[1:]
    body = QUOTES.get(name, bisect_part)(body)
    return ([("  " + x).rstrip() for x in body],
            f"  (results/examples/{name}, project {commit}, {date[:10]})")


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
    return "\n".join(lines[:start + 1] + [""] + body + [source] + lines[end + 1:])


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


def patch_of(patches, subject):
    """The patch in PATCHES (the series) or PATCHES/held whose subject
    starts with SUBJECT (its subsystem's prefix)."""
    found = [name for name in sorted(glob.glob(os.path.join(patches, "0*.patch"))
                                     + glob.glob(os.path.join(patches, "held", "0*.patch")))
             if re.search(rf"^Subject: \[PATCH[^]]*\] {re.escape(subject)}: ",
                          open(name).read(), re.M)]
    if len(found) != 1:
        raise SystemExit(f"series_figures: {len(found)} patches of '{subject}' in {patches}"
                         " and its held/, want 1")
    return found[0]


def placement_problems(txt, patches):
    """Where the result's decisions and the patches' places disagree: a
    patch whose removal stands belongs in the series (PATCHES), any other
    (its prefetch pays: dropped; undecided: not sent as measured) in
    PATCHES/held."""
    problems = []
    decided = decisions(txt)
    for subject in SWEPT.values():
        words = decided.get(subject)
        if words is None:
            problems.append(f"the result decides nothing of '{subject}'")
            continue
        held = os.path.basename(os.path.dirname(patch_of(patches, subject))) == "held"
        stands = words.endswith("the removal stands")
        if stands and held:
            problems.append(f"'{subject}': its removal stands, yet it is held back (move it into the series)")
        elif not stands and not held:
            problems.append(f"'{subject}': {words}; yet it is in the series (move it to held/)")
    return problems


def main():
    if len(sys.argv) == 4 and sys.argv[2] == "--placement":
        problems = placement_problems(open(sys.argv[1]).read(), sys.argv[3])
        for p in problems:
            print(f"series_figures: {p}")
        return 1 if problems else 0
    if len(sys.argv) not in (2, 4) or len(sys.argv) == 4 and sys.argv[2] != "--apply":
        print(__doc__, file=sys.stderr)
        return 2
    txt = open(sys.argv[1]).read()
    current_stamp(sys.argv[1])
    made = {"0000": section(txt)}
    made.update({path: patch_block(txt, path) for path in SWEPT})
    if len(sys.argv) == 2:
        for key, text in made.items():
            print(f"== {key if key == '0000' else SWEPT[key]}\n{text}", end="")
        return 0
    for key, text in made.items():
        if key == "0000":
            (name,) = glob.glob(os.path.join(sys.argv[3], "0000-*.patch"))
        else:
            name = patch_of(sys.argv[3], SWEPT[key])
        old = open(name).read()
        if key == "0000":
            new = put_cover_section(old, text)
            for quoted in quoted_names(new):
                new = put_quote(new, quoted, *quote(os.path.dirname(sys.argv[1]), quoted))
        else:
            new = put_patch_block(old, text)
        open(name, "w").write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
