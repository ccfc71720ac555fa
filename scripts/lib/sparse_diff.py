#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What sparse says of a variant that it does not say of vanilla.

  sparse_diff.py VANILLA_LOG VARIANT_LOG...

Each log is the output of 'make C=2' over the same objects. A diagnostic
is (file, kind, message): line numbers are left out, since the series
moves the lines of the files it touches. Prints, per variant, how many
warnings and errors sparse gave and which of them vanilla did not give
(as many times as they occur beyond vanilla's count); exit status 1 if
any variant has one, 2 if a log holds no sparse run at all.
"""
import collections
import re
import sys

DIAG = re.compile(r"^(?P<file>[^:\s]+\.[ch]):\d+:\d+: (?P<kind>warning|error): (?P<msg>.*)$")
# kbuild prints "  CHECK   file.c" for each file it runs sparse on.
CHECKED = re.compile(r"^\s+CHECK\s+(\S+\.c)$")


def read(path):
    diags = collections.Counter()
    checked = set()
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = DIAG.match(line)
            if m:
                diags[(m["file"], m["kind"], m["msg"])] += 1
            m = CHECKED.match(line)
            if m:
                checked.add(m.group(1))
    return diags, checked


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    base, base_checked = read(sys.argv[1])
    status = 0
    for path in sys.argv[1:]:
        diags, checked = read(path)
        if not checked:
            print(f"{path}: sparse checked no file (no 'CHECK' line): was C=2 given?")
            return 2
        new = diags - base
        kinds = collections.Counter(kind for (_, kind, _), n in diags.items() for _ in range(n))
        print(f"{path}: {len(checked)} files checked, {kinds['warning']} warnings, "
              f"{kinds['error']} errors, {sum(new.values())} new against vanilla")
        for (file, kind, msg), n in sorted(new.items()):
            print(f"  new: {file}: {kind}: {msg}" + (f" (x{n})" if n > 1 else ""))
        status |= 1 if new else 0
    return status


if __name__ == "__main__":
    sys.exit(main())
