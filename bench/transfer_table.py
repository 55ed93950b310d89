#!/usr/bin/env python3
"""transfer_table.py - docs/ANALYSIS.md's transfer table: `ktune benchmark
--transfer` over each kernel's public recordings (bench/data/public), each
device held out in turn, as Markdown, with the medians over every held-out
device.  Run from the repository root after `make`:
    python3 bench/transfer_table.py [SEEDS]
"""
import glob, json, os, statistics, subprocess, sys

seeds = sys.argv[1] if len(sys.argv) > 1 else "20"
ktune = os.environ.get("KTUNE", "build/ktune")
print("| kernel | held-out device | 0: transfer | cold | 10: transfer | warm | cold "
      "| 20: transfer | warm | cold |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
every = []
for folder in sorted(glob.glob("bench/data/public/*/")):
    files = ",".join(sorted(glob.glob(folder + "*.json.bz2")))
    out = subprocess.run([ktune, "benchmark", "--transfer", files, "--seeds", seeds,
                          "--json"], check=True, capture_output=True, text=True).stdout
    rows = json.loads(out)["results"]
    kernel = os.path.basename(folder.rstrip("/"))
    for i in range(0, len(rows), 3):
        r0, r10, r20 = rows[i:i + 3]
        name = r0["device"] or "**median**"
        if r0["device"]:
            every.append((r0, r10, r20))
        print(f"| {kernel} | {name} | {r0['transfer']:.3f} | {r0['cold']:.3f} "
              f"| {r10['transfer']:.3f} | {r10['warm']:.3f} | {r10['cold']:.3f} "
              f"| {r20['transfer']:.3f} | {r20['warm']:.3f} | {r20['cold']:.3f} |")
med = lambda k, c: statistics.median(r[k][c] for r in every)
print(f"| all | **median of {len(every)}** | {med(0, 'transfer'):.3f} | {med(0, 'cold'):.3f} "
      f"| {med(1, 'transfer'):.3f} | {med(1, 'warm'):.3f} | {med(1, 'cold'):.3f} "
      f"| {med(2, 'transfer'):.3f} | {med(2, 'warm'):.3f} | {med(2, 'cold'):.3f} |")
