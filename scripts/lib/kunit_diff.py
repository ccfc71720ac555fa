#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Two runs of the same KUnit corpus, compared test by test.

  kunit_diff.py BASE.json CHANGED.json

The JSON files are kunit.py's (--json): suites nest in sub_groups, each
with its test_cases and their status (PASS, FAIL, SKIP...). Every case
is named by its suite path and its name. Printed: each run's totals,
every case whose status differs or that only one run has, and every
case that fails in both (listed, not hidden: it is not the series').
The last line is the verdict: the cases that pass in BASE and do not in
CHANGED (or are missing from it), if any. Exit status 0 once compared
(whatever was found), 1 when a file holds no test case.
"""
import json
import sys


def cases(path):
    """{'suite/.../case': status} of a kunit.py JSON file."""
    found = {}

    def walk(node, prefix):
        for sub in node.get("sub_groups", []):
            name = f"{prefix}{sub['name']}"
            for case in sub.get("test_cases", []):
                found[f"{name}/{case['name']}"] = case["status"]
            walk(sub, name + "/")

    walk(json.load(open(path)), "")
    return found


def totals(found):
    statuses = sorted(set(found.values()))
    return ", ".join(f"{sum(s == v for v in found.values())} {s.lower()}" for s in statuses)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    base, changed = cases(sys.argv[1]), cases(sys.argv[2])
    if not base or not changed:
        print(f"kunit_diff: no test case in {sys.argv[1] if not base else sys.argv[2]}")
        return 1
    print(f"base:    {len(base)} cases: {totals(base)}")
    print(f"changed: {len(changed)} cases: {totals(changed)}")
    differ = sorted(k for k in base.keys() & changed.keys() if base[k] != changed[k])
    only_base = sorted(base.keys() - changed.keys())
    only_changed = sorted(changed.keys() - base.keys())
    both_fail = sorted(k for k in base.keys() & changed.keys()
                       if base[k] == changed[k] == "FAIL")
    worse = [k for k in differ if base[k] == "PASS"] + only_base
    for title, keys, line in (
            ("status differs", differ, lambda k: f"{k}: {base[k]} -> {changed[k]}"),
            ("only in base", only_base, lambda k: f"{k}: {base[k]}"),
            ("only in changed", only_changed, lambda k: f"{k}: {changed[k]}"),
            ("failing in both", both_fail, lambda k: k)):
        print(f"{title}: {len(keys)}")
        for k in keys:
            print(f"  {line(k)}")
    print(f"verdict: {'regressions: ' + str(len(worse)) if worse else 'no case passes in base and not in changed'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
