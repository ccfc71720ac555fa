#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Copy results into results/examples/ and quote them in README.md, docs/ and
the series (scripts/lib/series_figures.py writes the cover letter's and patches
07-10's quotes).

README.md and each page of docs/ mark a quoted result as
    <!-- begin: results/examples/NAME -->
    ...
    <!-- end: results/examples/NAME -->
and this replaces what is between the markers with the file, verbatim,
in a code block: the figures are what the commands printed, never typed.

Provenance: every result starts with a stamp, '# project COMMIT, DATE'
(scripts/lib/lab.sh's result_stamp; record-run.sh's on its second line). A
result is quoted only if it is current: made from a clean checkout, at
a commit whose series and producing code (PRODUCERS) hold what they hold
now: the series' code without its messages, its comments and the files
no build reads (MAINTAINERS, Documentation/, scripts/coccinelle/: only
make audit reads the rule, and its result counts them), and no new
file counted under configs/ or guest/ but for run records (outdated()).
A stale one is not quoted; its block says so, naming the file, the
change it predates and the command that remakes it, and the exit status
is 1.

  update-readme.py [NAME...]   copy these results (default: every one
                               that exists) and quote everything
  update-readme.py --check     change nothing; exit 1 if a block quotes
                               what its file does not hold, or a stale
                               result as if it were current
"""
import os
import re
import shutil
import subprocess
import sys

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The helpers (tiers.py and the formatters) live in scripts/lib/.
sys.path.insert(0, os.path.join(PROJECT, "scripts", "lib"))
# The config sets of the checker kernels (debug, kcsan) and the KCSAN
# races parse.sh sets aside: only their own boots read them, never a
# measured figure.
CHECKER_CONFIGS = [":(exclude)configs/debug.config", ":(exclude)configs/sets/debug.conf",
                   ":(exclude)configs/kcsan.config", ":(exclude)configs/sets/kcsan.conf",
                   ":(exclude)configs/kcsan-known-races.txt"]
# The UML bench kernels' own target, config set and variant: only
# make uml-bench builds from them (kunit.py's UML builds take
# configs/uml-kunit.config).
UML_CONFIGS = ["configs/targets/um.conf", "configs/targets/um.config", "configs/sets/uml.conf",
               "configs/variants/moved.config", "configs/variants/switch.config"]
NOT_UML_CONFIGS = [f":(exclude){c}" for c in UML_CONFIGS]
SERIES = ["patches", "configs"] + CHECKER_CONFIGS + NOT_UML_CONFIGS
# The series as the kernels without KUnit build it (defconfig, UML's
# bench kernels): its code but the KUnit test files (KUNIT_TESTS).
SERIES_KERNEL = ["patches:kernel", "configs"] + CHECKER_CONFIGS
SERIES_NO_TESTS = SERIES_KERNEL + NOT_UML_CONFIGS
# guest/umlbench is built into UML kernels only, never into a QEMU guest.
# The boot tables cover the checker kernels: every config counts.
BOOTS = ["patches", "configs", *NOT_UML_CONFIGS, "guest", ":(exclude)guest/umlbench",
         "scripts/boot.sh", "scripts/parse.sh",
         "scripts/lib/boot_result.py", "scripts/initramfs.sh", "scripts/configure.sh", "scripts/build.sh"]
CHECKS = SERIES + ["guest", "scripts", "tests", "bench"]
BENCH = ["bench", "scripts/bench.sh", "scripts/lib/bench_runs.py", "scripts/lib/bench_code.py",
         "scripts/lib/verdicts.py"]
# What makes the sizes (size_checks.py only judges them).
SIZES = ["scripts/sizes.sh", "scripts/count-prefetches.sh", "scripts/lib/alt_prefetches.py"]
CODEGEN = ["scripts/codegen.sh", "scripts/lib/codegen_check.py"]
# What makes the UML timings.
UML = ["patches:lab", "configs"] + CHECKER_CONFIGS + ["guest/umlbench", "lab/um", "scripts/uml-bench.sh",
                       "scripts/lib/uml_bench.py", "scripts/uml-tree.sh", "scripts/lib/verdicts.py"]
# What each quoted result depends on, and the command that remakes it.
PRODUCERS = {
    "bench.txt": (BENCH, "make bench"),
    "bench.png": (BENCH, "make bench"),
    "bench-cpus.txt": (BENCH + ["scripts/lib/bench_cpus.py"], "make bench"),
    "bench-checks.txt": (BENCH, "make bench"),
    # The sizes it cites are checked as such (CITES).
    "verdict.txt": (BENCH + ["scripts/lib/verdict.py"], "make bench (sizes remade: make verdict)"),
    "sizes-qemu.txt": (SERIES + SIZES, "make sizes CONFIG=qemu"),
    "sizes-defconfig.txt": (SERIES_NO_TESTS + SIZES, "make sizes CONFIG=defconfig"),
    # make report's: the option's cost alone (default and on, no vanilla).
    "sizes-qemu-option.txt": (SERIES + SIZES, "scripts/sizes.sh --option qemu"),
    "codegen-x86_64.txt": (SERIES + CODEGEN, "make codegen"),
    "sizes-qemu-x86_64-llvm.txt": (SERIES + SIZES, "make sizes TOOLCHAIN=llvm"),
    "codegen-x86_64-llvm.txt": (SERIES + CODEGEN, "make codegen TOOLCHAIN=llvm"),
    # A table of the four above (CITES): current while they are.
    "toolchains-x86_64.txt": (["scripts/toolchains.sh", "scripts/lib/toolchains.py"], "make toolchains"),
    "sparse-x86_64.txt": (SERIES + ["scripts/sparse.sh", "scripts/lib/sparse_diff.py"], "make sparse"),
    "distcc-loopback.txt": (["scripts/distcc-loopback.sh", "scripts/lib/distcc.sh"],
                            "make distcc-loopback"),
    "include-graph-x86_64.txt": (SERIES + ["scripts/include-graph.sh"],
                                 "scripts/codegen.sh && scripts/include-graph.sh"),
    "targets.txt": (BOOTS + ["scripts/report.sh"], "make targets (or make report-all)"),
    "debug.txt": (BOOTS + ["scripts/report.sh"], "make debug (or make report-all)"),
    "kcsan.txt": (BOOTS + ["scripts/report.sh"], "make kcsan (or make report-all)"),
    "kcsan-planted-x86_64.txt": (BOOTS + ["lab/kcsan", "scripts/kcsan-planted.sh"], "make kcsan-planted"),
    "report.txt": (CHECKS, "make report"),
    "report-all.txt": (CHECKS, "make report-all"),
    "stage-times.txt": (CHECKS, "make report"),
    "uml-bench.txt": (UML, "make uml-bench"),
    "uml-bench-short.txt": (UML, "scripts/uml-bench.sh --short"),
    "uml-bench-unsettled.txt": (UML, "scripts/uml-bench.sh --short --unsettled"),
    "uml-kunit-all.txt": (SERIES + ["guest/umlbench", "lab/um", "scripts/uml-kunit.sh",
                                    "scripts/uml-tree.sh", "scripts/lib/kunit_diff.py"],
                          "scripts/uml-kunit.sh --all"),
    "guest-bench.txt": (BOOTS + ["scripts/guest-bench.sh", "scripts/lib/guest_bench.py",
                                 "scripts/lib/verdicts.py"], "make guest-bench"),
    "audit.txt": (["patches:all", "audit", "scripts/audit.sh"], "make audit"),
    "failures.txt": (["scripts", "tests/50-faults.sh"], "make check"),
    "bisect-x86_64.txt": (["patches", "scripts/bisect-build.sh"], "make bisect"),
    "bisect-i386-mk7.txt": (["patches", "scripts/bisect-build.sh"],
                            "make bisect TARGET=i386-mk7 BISECT_VARIANTS=default"),
    "bisect-arm64.txt": (["patches", "scripts/bisect-build.sh"],
                         "make bisect TARGET=arm64 BISECT_VARIANTS=default"),
    "bisect-x86_64-llvm.txt": (["patches", "scripts/bisect-build.sh"],
                               "TOOLCHAIN=llvm make bisect BISECT_VARIANTS=default"),
    "check-cold.txt": (CHECKS, "scripts/record-run.sh check-cold make check (empty cache)"),
    "check-warm.txt": (CHECKS, "scripts/record-run.sh check-warm make check"),
    "check-all.txt": (CHECKS, "scripts/record-run.sh check-all make check-all"),
    "check-all-after-check.txt": (CHECKS, "scripts/record-run.sh check-all-after-check make check-all"),
    "check-all-cold.txt": (CHECKS, "scripts/record-run.sh check-all-cold make check-all "
                                   "(empty cache, CHECK_CACHE=0 BOOT_REUSE=0)"),
    "check-all-warm.txt": (CHECKS, "scripts/record-run.sh check-all-warm make check-all"),
    "report-cold.txt": (CHECKS, "scripts/record-run.sh report-cold make report (empty cache)"),
    "report-warm.txt": (CHECKS, "scripts/record-run.sh report-warm make report"),
    "report-all-run.txt": (CHECKS, "scripts/record-run.sh report-all-run make report-all"),
    "uml-bench-cold.txt": (UML, "scripts/record-run.sh uml-bench-cold make uml-bench (empty cache)"),
    "uml-bench-warm.txt": (UML, "scripts/record-run.sh uml-bench-warm make uml-bench"),
    "tiers.txt": (CHECKS, "the scripts/record-run.sh runs of make check and make check-all"),
    "summary.txt": (["scripts/lib/summary.py"], "make readme (after make check-all)"),
    "status.txt": (["scripts/lib/status.py"], "make readme"),
}
# The stamp of a file without one of its own (a picture).
STAMP_OF = {"bench.png": "bench.txt"}
# Results that cite another: current only while what they cite is.
CITES = {"verdict.txt": ["sizes-defconfig.txt", "sizes-qemu.txt", "sizes-qemu-option.txt",
                         "uml-bench.txt"],
         "toolchains-x86_64.txt": ["sizes-qemu.txt", "sizes-qemu-x86_64-llvm.txt",
                                   "codegen-x86_64.txt", "codegen-x86_64-llvm.txt"]}
# Of these, a result cites only those whose command it names: the verdict
# cites the defconfig sizes, or the qemu ones when those were current, and
# make uml-bench's result when it had a current one.
CITED_BY_COMMAND = {"verdict.txt"}
STAMP = re.compile(r"^# project ([0-9a-f]+|\?)(\+changes)?, (\S+?)[;\s]", re.M)
BLOCK = re.compile(r"(<!-- begin: (\S+) -->\n).*?(<!-- end: \2 -->)", re.S)


def git(*args):
    return subprocess.run(["git", "-C", PROJECT] + list(args), capture_output=True,
                          text=True, check=False)


def stamp(path):
    """(commit, dirty, date) of a result, or None."""
    with open(path, errors="replace") as f:
        head = "".join(f.readline() for _ in range(3))
    m = STAMP.search(head)
    return (m.group(1), bool(m.group(2)), m.group(3)) if m else None


def adopt(made, quoted):
    """Copy this checkout's result MADE over the quoted QUOTED, unless the
    quoted one is newer (a result committed since, from another machine
    or run): an older local result never replaces it. Dates are the
    stamps' (ISO 8601, UTC: they sort as strings)."""
    mine, theirs = stamp(made), stamp(quoted) if os.path.exists(quoted) else None
    if mine and theirs and theirs[2] > mine[2]:
        print(f"update-readme: {os.path.relpath(made, PROJECT)} ({mine[2]}) is older than the quoted "
              f"{os.path.relpath(quoted, PROJECT)} ({theirs[2]}): kept the quoted one", file=sys.stderr)
        return
    shutil.copy(made, quoted)


def cites(name, source):
    """The results that the result SOURCE, named NAME, cites."""
    cited = CITES.get(name, [])
    if name not in CITED_BY_COMMAND:
        return cited
    text = " ".join(open(source).read().split())
    return [c for c in cited if PRODUCERS[c][1] in text]


def staleness(name, examples):
    """None if the quoted result is current, else why it is not."""
    paths, command = PRODUCERS.get(name, (CHECKS, "its producer"))
    source = os.path.join(examples, STAMP_OF.get(name, name))
    if name == "tiers.txt":
        return tiers_staleness(examples)
    s = stamp(source) if os.path.exists(source) else None
    if not s:
        return f"it has no '# project COMMIT, DATE' stamp; remake it: {command}"
    commit, dirty, date = s
    if dirty:
        return f"it was made from uncommitted changes at {commit}; remake it: {command}"
    if name in RECORDS:
        # A run record is quoted with its commit and date, not withdrawn.
        return None
    why = outdated(commit, paths)
    if why:
        return f"made at {commit} ({date}), {why}; remake it: {command}"
    for cited in cites(name, source):
        cited_why = staleness(cited, examples)
        if cited_why:
            return f"it cites {cited}, which is not current ({cited_why}); remake both"
        cited_stamp = stamp(os.path.join(examples, cited))
        if cited_stamp and f"project {cited_stamp[0]}" not in " ".join(open(source).read().split()):
            return f"it cites another {cited} than results/examples/ holds; remake it: {command}"
    return None


# Directories whose new files nothing made before them reads: a target,
# a config set or a guest program is used where an existing file names it.
# Run records (their paths hold tests/) count every new file all the same.
NAMED_BY_OTHERS = ("configs", "guest")


def outdated(commit, paths):
    """None if PATHS hold at HEAD what they held at COMMIT, else which of
    them changed since. Of patches/, only the series' code counts (not its
    messages, not its comments: series_code()); of NAMED_BY_OTHERS, only
    files that existed at COMMIT, unless PATHS are a run record's."""
    excluded = [p for p in paths if p.startswith(":(exclude)")]
    exempt = [] if "tests" in paths else [p for p in paths if p in NAMED_BY_OTHERS]
    plain = [p for p in paths if p not in SERIES_FORMS and p not in exempt
             and p not in excluded]
    changed = []
    if plain:
        changed += git("diff", "--name-only", commit, "HEAD", "--", *plain,
                       *excluded).stdout.split()
    if exempt:
        changed += git("diff", "--name-only", "--diff-filter=CDMRT", commit, "HEAD", "--",
                       *exempt, *excluded).stdout.split()
    if changed:
        more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
        return f"before {', '.join(changed[:3])}{more} changed"
    for form, (unbuilt_too, tests_too, held_too) in SERIES_FORMS.items():
        if form in paths and series_code(commit, unbuilt_too, tests_too, held_too) != \
                series_code("HEAD", unbuilt_too, tests_too, held_too):
            return "before the series' code changed" + (" (or the held patches')" if held_too else "")
    return None


# How a result names the series, and what of it counts: (the files no
# build reads, the KUnit test files, the patches held back from the series
# in patches/held/). The audit and the UML bench kernels take the held
# patches on top of the series: for them the series and the held patches
# count as one set of patches, whichever side of the line a patch is on.
SERIES_FORMS = {"patches": (False, True, False), "patches:all": (True, True, True),
                "patches:kernel": (False, False, False), "patches:lab": (False, False, True)}


COMMENT = re.compile(r"^[-+]\s*(/\*.*|\*.*|\*/\s*|//.*)?$")
# A Kconfig file's help text (indented by a tab and two spaces) is read
# by people, not by a build: like a comment.
KCONFIG = re.compile(r"^diff --git a/\S*Kconfig\S* ")
KCONFIG_HELP = re.compile(r"^[-+]\t  ")


# Files of the tree that no build, boot or measurement reads (the
# coccinelle rule is read by make audit only: its result names the
# series as "patches:all", the series with these files).
UNBUILT = re.compile(r"^diff --git a/(MAINTAINERS|Documentation/\S*|scripts/coccinelle/\S*) ")
# KUnit test files (scripts/lib/lab.sh's KUNIT_TEST_FILES): built only where
# CONFIG_KUNIT is, which the defconfig and UML bench kernels lack.
KUNIT_TESTS = re.compile(r"^diff --git a/\S*(-test|_test|_kunit)\.c ")


def code_lines(diff, unbuilt_too=False, tests_too=True):
    """A patch's diff as code: the files and the lines it adds or removes,
    without comment lines, Kconfig help text, blank lines, blob ids and
    line numbers (a comment moves neither code nor anything a build
    makes of it), and
    without the files no build reads (UNBUILT), unless UNBUILT_TOO, and
    the KUnit test files (KUNIT_TESTS) unless TESTS_TOO."""
    out = []
    unbuilt = kconfig = False
    for line in diff.splitlines():
        if line.startswith("diff --git "):
            unbuilt = (not unbuilt_too and bool(UNBUILT.match(line))) or \
                (not tests_too and bool(KUNIT_TESTS.match(line)))
            kconfig = bool(KCONFIG.match(line))
            if not unbuilt:
                out.append(line)
        elif unbuilt or (kconfig and KCONFIG_HELP.match(line)):
            continue
        elif line[:1] in "+-" and not line.startswith(("+++", "---")) and not COMMENT.match(line):
            out.append(line)
    return "\n".join(out)


def series_code(rev, unbuilt_too=False, tests_too=True, held_too=False):
    """The series at REV as code: each patch's diff, without its message
    or comments (code_lines()). With HELD_TOO, the patches of patches/held/
    too, and the patches' code in an order of its own (sorted): moving a
    patch between the series and the held ones changes no code built
    from both."""
    names = git("ls-tree", "--name-only", rev, "patches/").stdout.split()
    if held_too:
        names += git("ls-tree", "--name-only", rev, "patches/held/").stdout.split()
    code = []
    for name in sorted(n for n in names if n.endswith(".patch") and "/0000-" not in n):
        text = git("show", f"{rev}:{name}").stdout
        start = text.find("\ndiff --git ")
        code.append(code_lines(text[start:], unbuilt_too, tests_too) if start >= 0 else "")
    return "\n".join(sorted(code) if held_too else code)


def tiers_staleness(examples):
    """tiers.txt sums up recorded runs: it must hold at least one."""
    path = os.path.join(examples, "tiers.txt")
    if not re.search(r"^  \S.* ([0-9a-f]{7,})(?: \(\d+ commits before \S+\))?, (\S+), ",
                     open(path).read(), re.M):
        return "it sums up no recorded run; record one: scripts/record-run.sh check-warm make check"
    return None


# The recorded runs (record-run.sh), as tiers.py sums them up.
RECORDS = [f"{name}.txt" for _, name in __import__("tiers").RUNS]


def write_tiers(results, examples):
    """tiers.txt from every recorded run: a record is not withdrawn when
    the code changes; a line under the table names those made before."""
    kept = [n for n in RECORDS if os.path.exists(os.path.join(examples, n))
            and not staleness(n, examples)]
    table = subprocess.run([sys.executable, os.path.join(PROJECT, "scripts", "lib", "tiers.py"), examples]
                           + ([n[:-4] for n in kept] or ["none-current"]), capture_output=True,
                           text=True, check=False).stdout
    # Each record against the code it times (make check's: the scripts
    # and tests; make uml-bench's: the UML kernels and their bench).
    made_at = {n: stamp(os.path.join(examples, n))[0] for n in kept}
    older = sorted({made_at[n] for n in kept if outdated(made_at[n], PRODUCERS[n][0])})
    head = git("rev-parse", "--short=7", "HEAD").stdout.strip()
    # A record older than the code it times says so in its own row.
    for commit in older:
        n = git("rev-list", "--count", f"{commit}..HEAD").stdout.strip()
        table = table.replace(f" {commit}, ", f" {commit} ({n} commits before {head}), ")
    with open(os.path.join(results, "tiers.txt"), "w") as f:
        f.write(table)
        if older:
            f.write("  (N commits before: scripts or tests changed since that record; "
                    "a new record shows the current code's time)\n")
    shutil.copy(os.path.join(results, "tiers.txt"), examples)


def notice(name, why):
    """What a block says instead of a stale result: the same until the
    result is remade, whatever commit comes next (make readme prints why)."""
    command = PRODUCERS.get(name, (None, "its producer"))[1]
    return (f"(not quoted: results/examples/{name} is not current: older than the code "
            f"that makes it, or without a stamp; 'make readme' says which; remake it: {command})")


def quote_blocks(text, examples, problems, check_only):
    def quote(match):
        path = os.path.join(PROJECT, match.group(2))
        name = os.path.basename(path)
        if not os.path.exists(path):
            problems.append(f"{match.group(2)} does not exist")
            return match.group(0)
        why = staleness(name, examples)
        if why:
            problems.append(f"{match.group(2)}: {why}")
            body = notice(name, why)
        elif name.endswith(".png"):
            return match.group(0)
        else:
            body = open(path).read().rstrip("\n")
        return f"{match.group(1)}```\n{body}\n```\n{match.group(3)}"
    return BLOCK.sub(quote, text)


def pages():
    docs = os.path.join(PROJECT, "docs")
    return [os.path.join(PROJECT, "README.md")] + sorted(
        os.path.join(docs, n) for n in os.listdir(docs) if n.endswith(".md"))


def readme_stamp():
    """The stamp of what make readme writes itself: lab.sh's project_commit
    (+changes for changed or untracked files outside results/), as every
    result has, and the date."""
    project = subprocess.run(["bash", "-c", '. "$1/scripts/lib/lab.sh" && project_commit', "_", PROJECT],
                             capture_output=True, text=True, check=False).stdout.strip() or "?"
    date = subprocess.run(["date", "-u", "+%Y-%m-%dT%H:%M:%SZ"], capture_output=True,
                          text=True, check=False).stdout.strip()
    return f"# project {project}, {date}; command: make readme"


def write_generated(results, examples, name, text):
    """results/NAME, and its copy in results/examples/."""
    with open(os.path.join(results, name), "w") as f:
        f.write(text)
    shutil.copy(os.path.join(results, name), examples)


def write_summary(results, examples, stamp_line):
    """summary.txt: the current boots and sizes (summary.py checks each)."""
    body = subprocess.run([sys.executable, os.path.join(PROJECT, "scripts", "lib", "summary.py"), results],
                          capture_output=True, text=True, check=False).stdout
    write_generated(results, examples, "summary.txt", f"{stamp_line}\n{body}")


def write_status(results, examples, stamp_line):
    """status.txt: what the current results say (status.py), then what is
    withdrawn and the command that remakes it."""
    current, withdrawn = [], []
    for name in PRODUCERS:
        if name in ("tiers.txt", "summary.txt", "status.txt"):
            continue
        if not os.path.exists(os.path.join(examples, STAMP_OF.get(name, name))):
            continue
        (withdrawn if staleness(name, examples) else current).append(name)
    body = subprocess.run([sys.executable, os.path.join(PROJECT, "scripts", "lib", "status.py"),
                           examples] + current, capture_output=True, text=True, check=True).stdout
    lines = [stamp_line, "What the current results say (each line read from its result):",
             body.rstrip()]
    if withdrawn:
        lines.append("Withdrawn until remade (their code changed since): "
                     + "; ".join(f"{n} ({PRODUCERS[n][1]})" for n in sorted(withdrawn)))
    write_generated(results, examples, "status.txt", "\n".join(lines) + "\n")


def main():
    check_only = sys.argv[1:] == ["--check"]
    only = set() if check_only else set(sys.argv[1:])
    results = os.path.join(PROJECT, "results")
    examples = os.path.join(results, "examples")
    if not check_only:
        os.makedirs(examples, exist_ok=True)
        for name in PRODUCERS:
            if name in ("tiers.txt", "summary.txt", "status.txt") or (only and name not in only):
                continue
            if os.path.exists(os.path.join(results, name)):
                adopt(os.path.join(results, name), os.path.join(examples, name))
        write_tiers(results, examples)
        stamp_line = readme_stamp()
        write_summary(results, examples, stamp_line)
        write_status(results, examples, stamp_line)
        # The series quotes results/examples/ too: written from the same copy.
        subprocess.run([sys.executable, os.path.join(PROJECT, "scripts", "lib", "series_figures.py"),
                        os.path.join(examples, "uml-bench.txt"), "--apply",
                        os.path.join(PROJECT, "patches")], check=True)
    problems, mismatched = [], []
    for page in pages():
        old = open(page).read()
        new = quote_blocks(old, examples, problems, check_only)
        if check_only:
            if new != old:
                mismatched.append(os.path.relpath(page, PROJECT))
            continue
        with open(page + f".tmp.{os.getpid()}", "w") as f:
            f.write(new)
        os.replace(page + f".tmp.{os.getpid()}", page)
    for problem in sorted(set(problems)):
        print(f"update-readme: {problem}", file=sys.stderr)
    for page in mismatched:
        print(f"update-readme: {page} does not quote what its result files hold "
              "(or quotes a stale one as current); run 'make readme'", file=sys.stderr)
    if check_only:
        return 1 if mismatched else 0
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
