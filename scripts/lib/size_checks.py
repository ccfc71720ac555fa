#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Assert the size properties of a 'make sizes' result.

Not fixed numbers, but what the series must do:
 - vanilla->default changes some functions (the swept walks at least), and
   only functions defined in .c files the series touches (the sweep, and the tests it adds or extends);
 - vanilla->default does not grow the code it shares with vanilla: the sum of
   bloat-o-meter deltas outside the series' test code (the files it
   adds, and the KUnit test files it extends, lib/list-test.c) is <= 0;
   with --prefetch-is-no-code (a compiler that makes no instruction of
   prefetch(), clang on x86_64) the sweep has little to remove and the
   register allocation around what it removes decides the sign: the sum
   is printed, not judged (make codegen judges where the code differs);
 - default->on grows the code (bloat-o-meter total);
 - on has more prefetch instructions than default.
Symbols are mapped to files with nm on the default build's object files.
"""
import argparse
import json
import subprocess
import sys


def base_name(symbol):
    """bloat-o-meter strips .N; also fold .isra/.constprop/.cold clones."""
    return symbol.split(".")[0]


def symbols_of(objects):
    names = set()
    for obj in objects:
        out = subprocess.run(["nm", "--defined-only", obj], capture_output=True,
                             text=True, check=True).stdout
        names.update(base_name(line.split()[-1]) for line in out.splitlines()
                     if len(line.split()) == 3)
    return names


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("sizes_json")
    parser.add_argument("--run-id", help="fail unless the result is of this run")
    parser.add_argument("--touched", nargs="*", default=[],
                        help="objects of .c files the series modifies")
    parser.add_argument("--added", nargs="*", default=[],
                        help="objects of .c files the series adds")
    parser.add_argument("--tests", nargs="*", default=[],
                        help="objects of the KUnit test files the series modifies")
    parser.add_argument("--prefetch-is-no-code", action="store_true",
                        help="the compiler makes no instruction of prefetch()")
    args = parser.parse_args()

    sizes = json.load(open(args.sizes_json))
    touched = symbols_of(args.touched)
    own = symbols_of(args.added) | symbols_of(args.tests)
    failures = 0

    def check(ok, message):
        nonlocal failures
        print(("ok      " if ok else "FAILED  ") + message)
        failures += not ok

    if args.run_id is not None:
        check(sizes.get("run_id") == args.run_id,
              f"the result is of this run ({sizes.get('run_id')})")

    changed = sizes["bloat_vanilla_default"]["functions"]
    # The swept walks lose their prefetch: an empty list means the
    # result was not read, not that the series is clean.
    check(bool(changed), f"vanilla->default: {len(changed)} functions changed (want at least the swept walks)")
    stray = sorted(f for f in changed if base_name(f) not in touched | own)
    check(not stray, f"vanilla->default: {len(changed)} functions changed, all in files "
          f"the series touches" + (f"; not: {', '.join(stray)}" if stray else ""))

    shared = sum(d for f, d in changed.items() if base_name(f) not in own)
    new = sum(d for f, d in changed.items() if base_name(f) in own)
    if args.prefetch_is_no_code:
        print(f"note    vanilla->default: shared code {shared:+d} bytes, not judged: this compiler "
              f"makes no instruction of prefetch(); the series' tests add {new:+d} bytes")
    else:
        check(shared <= 0, f"vanilla->default: shared code {shared:+d} bytes (<= 0); "
              f"the series' tests add {new:+d} bytes")

    bloat = sizes["bloat_default_on"]
    check(bloat["after"] > bloat["before"],
          f"default->on: function code {bloat['before']} -> {bloat['after']} bytes "
          f"({bloat['after'] - bloat['before']:+d})")

    pf = {v: sizes["variants"][v]["prefetches"]["total"] for v in sizes["variants"]}
    check(pf["on"] > pf["default"],
          f"prefetch instructions: vanilla {pf['vanilla']}, default {pf['default']}, on {pf['on']}")
    check(pf["default"] <= pf["vanilla"],
          "default has no more prefetch instructions than vanilla")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
