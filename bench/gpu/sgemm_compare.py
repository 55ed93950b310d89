"""sgemm_compare.py - the SGEMM measurements of sgemm_side.sh's CSV export compared by the
values of a few tuning parameters: for each size and each combination of those values, the
number of configurations measured, the best TFLOP/s, and the median and highest ratio of a
configuration's speed to the same configuration (every other parameter equal) with the base
values.  sgemm_sk.sh, sgemm_nreg.sh, sgemm_gm.sh and sgemm_tail.sh print their summaries so.

usage: sgemm_compare.py CSV NAME,... BASE,...     e.g. sgemm_compare.py side.csv SK,TAIL 0,0"""
import csv
import statistics
import sys

path, names, base = sys.argv[1], sys.argv[2].split(","), tuple(sys.argv[3].split(","))
by = {}
for r in csv.DictReader(open(path)):
    if r["status"] != "ok":
        continue
    n = int(r["problem"].split(",")[0][2:])
    kv = dict(p.split("=") for p in r["config"].split(","))
    rest = ",".join(f"{k}={v}" for k, v in kv.items() if k not in names)
    by.setdefault(n, {}).setdefault(rest, {})[tuple(kv[k] for k in names)] = \
        2 * n ** 3 / float(r["time_ms"]) / 1e9
label = lambda vals: ",".join(f"{k}={v}" for k, v in zip(names, vals))  # noqa: E731
for n, cfgs in sorted(by.items()):
    print(f"== {n}^3: best TFLOP/s, and the median and highest ratio to the same configuration"
          f" with {label(base)}")
    for vals in sorted({v for c in cfgs.values() for v in c}, key=lambda v: tuple(map(int, v))):
        tf = [c[vals] for c in cfgs.values() if vals in c]
        ratio = [c[vals] / c[base] for c in cfgs.values() if vals in c and base in c]
        line = f"{label(vals)}: n={len(tf)} best {max(tf):.1f}"
        if ratio:
            line += f" median ratio {statistics.median(ratio):.3f} highest {max(ratio):.3f}"
        print(line)
