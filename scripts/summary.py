#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Results in brief, for the README: the kernels booted, their KUnit
tallies and splats, and the sizes and prefetch counts of the qemu
config, from results/boot-*.json and results/sizes-qemu.json.

A row is printed only if its result is current: made at a commit (its
"project" field) that holds the last change to the series and to the
code that boots or sizes (update-readme.py's rule); the others are
named as not current, with the command that remakes them.
"""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
upd = __import__("update-readme")

ORDER = {"qemu": 0, "debug": 1, "kcsan": 2, "bench": 3}


def current(project, paths):
    if not project or project.endswith("+changes") or project == "?":
        return False
    return upd.outdated(project, paths) is None


def main():
    results = sys.argv[1] if len(sys.argv) > 1 else os.path.join(upd.PROJECT, "results")
    print("Kernels booted under QEMU (TCG: functional only), KUnit suites passed/failed:")
    stale = []
    boots = []
    for path in glob.glob(os.path.join(results, "boot-*.json")):
        r = json.load(open(path))
        if r.get("config") not in ORDER:
            continue
        if not current(r.get("project"), upd.BOOTS):
            stale.append(os.path.basename(path))
            continue
        boots.append(r)
    for r in sorted(boots, key=lambda r: (ORDER[r["config"]], r["target"], r["variant"])):
        suites = " ".join(f"{n} {s['passed']}/{s['failed']}" for n, s in sorted(r["suites"].items()))
        print(f"  {r['config']:<6} {r['target']:<10} {r['variant']:<4} LIST_PREFETCH={r['list_prefetch']} "
              f"{r['status']:<5} splats {len(r['splats'])}  {suites}")
    if not boots:
        print("  (none current)")
    sizes = os.path.join(results, "sizes-qemu.json")
    if os.path.exists(sizes):
        s = json.load(open(sizes))
        if current(s.get("project"), upd.PRODUCERS["sizes-qemu.txt"][0]):
            v = s["variants"]
            print(f"Sizes, {s['target']} qemu config:   vanilla        off         on")
            print("  text (size vmlinux)    " + "".join(f"{v[x]['size']['text']:>11}" for x in ("vanilla", "off", "on")))
            print("  prefetch instructions  " + "".join(f"{v[x]['prefetches']['total']:>11}" for x in ("vanilla", "off", "on")))
            for pair, key in (("vanilla -> off", "bloat_vanilla_off"), ("off -> on", "bloat_off_on")):
                b = s[key]
                print(f"  bloat-o-meter {pair:<15} {b['after'] - b['before']:+d} bytes of function code")
        else:
            stale.append("sizes-qemu.json")
    for name in sorted(stale):
        print(f"  not current: results/{name} (make check-all, make sizes CONFIG=qemu)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
