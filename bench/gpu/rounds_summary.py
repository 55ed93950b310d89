"""rounds_summary.py - the fair rounds of baselines.py (its output lines) summed up: for each
size, library and ktune configuration, TFLOP/s in each round (from the times), the median, the
best, and the best over the reference library's best at that size.  Where several ktune
configurations were timed, their keys show only the parameters in which they differ.
sgemm_tail.sh and tma_8192.sh print their rounds so.

usage: rounds_summary.py ROUNDS.txt REFERENCE      e.g. rounds_summary.py rounds.txt cublas"""
import collections
import statistics
import sys

path, ref = sys.argv[1], sys.argv[2]
v = collections.defaultdict(list)
for line in open(path):
    f = line.split()
    if len(f) < 5 or f[0] not in ("ktune", "cublas", "triton"):
        continue
    key = next((x[4:] for x in f if x.startswith("key=")), "")
    v[(int(f[2]), f[0], key)].append(2 * int(f[2]) ** 3 / float(f[3]) / 1e9)
keys = [dict(p.split("=") for p in k.split(",")) for (_, _, k) in v if k]
differ = {p for k in keys for p in k if len({kk.get(p) for kk in keys}) > 1}
best_ref = {n: max(x) for (n, lib, _), x in v.items() if lib == ref}
print(f"TFLOP/s in each fair round (from the times); the median; the best, over {ref}'s best")
for (n, lib, key), x in sorted(v.items()):
    if differ:
        key = ",".join(p for p in key.split(",") if p.split("=")[0] in differ)
    print(f"{n}^3 {lib} {key}: {' '.join(f'{y:.2f}' for y in x)}; median"
          f" {statistics.median(x):.2f}; best {max(x):.2f} = {max(x) / best_ref[n]:.3f}x {ref}")
