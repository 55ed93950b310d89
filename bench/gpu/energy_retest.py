"""energy_retest.py - two recordings of the same configurations (two ktune
databases; only the configurations both hold count), read against each
other: each run's power over the other run's, in the order the run measured
them (medians of GROUP, default 15: a drift along a run shows there), and the energy retest
noise (root mean square of 2 (a - b) / (a + b)), spread over configurations
(standard deviation over mean), the R2 ceiling of one reading
(1 - rms^2 / 2 / spread^2) and the largest pair, with and without the first
15 configurations run 1 measured.

usage: energy_retest.py KTUNE RUN1.db RUN2.db [GROUP]"""
import csv
import io
import math
import statistics
import subprocess
import sys


def rows(ktune, db):
    out = subprocess.run([ktune, "db", "export", "csv", "--db", db], capture_output=True,
                         text=True, check=True).stdout
    return {r["config"]: r for r in csv.DictReader(io.StringIO(out))}


def main():
    ktune, dbs = sys.argv[1], sys.argv[2:4]
    group = int(sys.argv[4]) if len(sys.argv) > 4 else 15
    runs = [rows(ktune, db) for db in dbs]
    both = set(runs[0]) & set(runs[1])
    runs = [{k: r for k, r in run.items() if k in both} for run in runs]
    for s in (0, 1):
        order = sorted(runs[s].values(), key=lambda r: r["created"])
        rat = [float(r["power_w"]) / float(runs[1 - s][r["config"]]["power_w"]) for r in order]
        print(f"run {s + 1} power / run {2 - s}'s, medians of {group} in measuring order:",
              [round(statistics.median(rat[i:i + group]), 3) for i in range(0, len(rat), group)])
        print(f"  measured {order[0]['created'][11:16]}-{order[-1]['created'][11:16]} UTC,"
              f" groups starting at", [order[i]["created"][11:16] for i in range(0, len(rat), group)])
    first = [r["config"] for r in sorted(runs[0].values(), key=lambda r: r["created"])]
    for skip in (0, 15):
        keys = first[skip:]
        a = [float(runs[0][k]["energy_j"]) for k in keys]
        b = [float(runs[1][k]["energy_j"]) for k in keys]
        d = [2 * (x - y) / (x + y) for x, y in zip(a, b)]
        rms = math.sqrt(sum(v * v for v in d) / len(d))
        sd = statistics.stdev(a + b) / statistics.mean(a + b)
        print(f"without the first {skip}: {len(keys)} pairs, energy retest rms "
              f"{100 * rms:.1f}%, spread {100 * sd:.1f}%, R2 ceiling "
              f"{1 - rms * rms / 2 / sd / sd:.3f}, largest pair {100 * max(map(abs, d)):.1f}%")


if __name__ == "__main__":
    main()
