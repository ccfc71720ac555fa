#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge one boot from what kunit.py parse and the splat scan left.

Reads kunit.py's JSON (KernelCI format), checks that every required
suite is present and that none of its cases failed, and writes the
boot's result as JSON. Exit status 0 only when the boot passed.
"""
import argparse
import json
import os
import sys


def suites(group):
    """Yield (name, cases) for every suite in the KUnit JSON tree."""
    for sub in group.get("sub_groups", []):
        if sub.get("test_cases"):
            yield sub["name"], sub["test_cases"]
        yield from suites(sub)


def count(cases, status):
    return sum(1 for case in cases if case["status"] == status)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kunit-json", required=True)
    parser.add_argument("--required", nargs="*", default=[])
    parser.add_argument("--splats", required=True,
                        help="file with one splat line per line")
    parser.add_argument("--guest-output",
                        help="file with what the guest's programs printed")
    parser.add_argument("--field", action="append", default=[],
                        metavar="NAME=VALUE", help="copied into the result")
    parser.add_argument("--problem", action="append", default=[],
                        help="a problem found by the caller")
    parser.add_argument("--output", required=True)
    args = parser.parse_args()

    try:
        with open(args.kunit_json) as f:
            tree = json.load(f)
    except (OSError, ValueError) as err:
        tree = {}
        print(f"boot_result: no KUnit results: {err}", file=sys.stderr)

    result = dict(field.split("=", 1) for field in args.field)
    result["suites"] = {
        name: {"passed": count(cases, "PASS"), "failed":
               count(cases, "FAIL") + count(cases, "ERROR"),
               "skipped": count(cases, "SKIP"),
               "failed_cases": [c["name"] for c in cases
                                if c["status"] in ("FAIL", "ERROR")]}
        for name, cases in suites(tree)}
    with open(args.splats) as f:
        result["splats"] = [line.rstrip("\n") for line in f if line.strip()]

    result["guest_output"] = []
    if args.guest_output:
        with open(args.guest_output) as f:
            result["guest_output"] = [line.rstrip("\n") for line in f
                                      if line.strip()]

    problems = [f"suite {name} is missing" for name in args.required
                if name not in result["suites"]]
    problems += [f"suite {name}: {s['failed']} failed: "
                 + ", ".join(s["failed_cases"])
                 for name, s in result["suites"].items() if s["failed"]]
    problems += [f"splat: {line}" for line in result["splats"]]
    problems += args.problem
    result["problems"] = problems
    result["status"] = "fail" if problems else "pass"

    with open(args.output + f".tmp.{os.getpid()}", "w") as f:
        json.dump(result, f, indent=2, sort_keys=True)
        f.write("\n")

    os.replace(args.output + f".tmp.{os.getpid()}", args.output)

    for name, s in sorted(result["suites"].items()):
        print(f"  {name:<16} passed {s['passed']:3}  failed {s['failed']:3}"
              f"  skipped {s['skipped']:3}")
    for problem in problems:
        print(f"  FAIL: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
