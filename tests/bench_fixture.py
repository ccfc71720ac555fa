# SPDX-License-Identifier: GPL-2.0
"""Doctored listbench runs for the tests of scripts/lib/bench_runs.py.

write_runs(DIR, CELLS, control=(ratio, lo, hi), off={cell: control}, off_runs)
writes DIR/run-{1,2,3}.csv as listbench --chunk would: CELLS maps
(walk, lookups, work) to the prefetch ratio of builds 1, 2 and 3 (every
form takes it, with p = 1e-9); each row's A/A control is CONTROL, or
OFF's for that cell in the builds OFF_RUNS.
"""
import csv
import os

COLUMNS = ("run,walk,shape,layout,list_len,pages,pages_got,body,work,work_steps,lookups,load,"
           "hits,position,bytes,regime,latency_ns,headline,variant,reps,ns,ns_low,ns_high,"
           "ratio,ci_low,ci_high,p_diff,p_equiv,verdict,control_ratio,control_ci_low,"
           "control_ci_high,vs_prefetch,vs_ci_low,vs_ci_high,vs_p_diff,vs_p_equiv,hit_ratio,"
           "nodes_per_lookup,unused_prefetches,null_prefetches,overlap").split(",")
FORMS = ("prefetch", "prefetch-nonnull", "prefetch-cmov", "prefetchnta", "prefetchw")


def row(run, walk, lookups, work, variant, ratio, p, control):
    list_walk = walk == "list"
    vs = variant in ("prefetch-nonnull", "prefetch-cmov")
    return dict(zip(COLUMNS, [
        run, walk, "line", "shuffled" if list_walk else "hashed", 1024 if list_walk else 0,
        "4k", "4k", "touch" if list_walk else "compare", work, work, lookups,
        0 if list_walk else 1, "0.00" if list_walk else "0.50", "-" if list_walk else "uniform",
        1 << 30, "DRAM", 200, 0, variant, 100, 100, 99, 101, ratio, ratio * 0.995,
        ratio * 1.005, p, 1, "-", control[0], control[1], control[2],
        1.0 if vs else "", 0.99 if vs else "", 1.01 if vs else "", 1 if vs else "",
        1e-9 if vs else "", 0.5, 1.2, 0.2, 0.6, 1.0]))


def write_runs(directory, cells, control, off=None, off_runs=("1", "2", "3")):
    os.makedirs(directory, exist_ok=True)
    for i, run in enumerate(("1", "2", "3")):
        with open(os.path.join(directory, f"run-{run}.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, COLUMNS)
            w.writeheader()
            for (walk, lookups, work), ratios in cells.items():
                c = (off or {}).get((walk, lookups, work), control) if run in off_runs else control
                w.writerow(row(run, walk, lookups, work, "none", 1.0, 1, c))
                for v in FORMS:
                    w.writerow(row(run, walk, lookups, work, v, ratios[i], 1e-9, c))
