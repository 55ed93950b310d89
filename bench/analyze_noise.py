#!/usr/bin/env python3
"""analyze_noise.py - how much of a recording's spread its own measurement
noise explains: the ceiling that noise puts on a model's R-squared (in the
target's units), beside `ktune analyze`'s figures (docs/ANALYSIS.md).

    python3 bench/analyze_noise.py HUB_GIT_DIR

1. Time, the public Kernel Tuner recordings: bench/data/public keeps each
   configuration's mean time only, so the repetitions ("times") are read
   from the FAIR benchmark hub's caches (a git directory of
   https://github.com/AutoTuningAssociation/benchmark_hub, the commit
   bench/data/public/README.md names).  For each recording: the variance of
   a configuration's mean from its repetitions taken as independent
   (var/r), and from the difference of the means of their two halves
   (which also counts drift within the run); the ceiling is 1 minus the
   mean noise variance over the variance of the means.  Also the share of
   that variance the slowest 1 % of configurations carry, and the median
   relative spread (standard deviation over mean) of their repetitions.
2. Energy, the H100 GEMM database (bench/gpu/data/gemm-energy-h100.db):
   one reading per configuration, so its noise is estimated from the
   configurations measured again later (bench/gpu/logs/
   energy-tradeoff-2026-11-24-2, four rounds each): the relative
   difference between the database's reading and the re-measured median.
Standard library only.
"""
import bz2, glob, gzip, json, math, os, sqlite3, statistics as st, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HUB = {
    "convolution": "currently_unused/cachefiles/KernelTuner data/convolution/",
    "convolution_milo": "cachefiles/convolution_milo/",
    "dedispersion_milo": "cachefiles/dedispersion_milo/",
    "gemm": "currently_unused/cachefiles/KernelTuner data/gemm/",
    "pnpoly": "currently_unused/cachefiles/KernelTuner data/pnpoly/",
}


def time_noise(hub):
    print("| recording | device | rows | repetitions | ceiling (independent) | ceiling (halves) "
          "| variance of the slowest 1 % | their spread | all rows' spread |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for fam, path in HUB.items():
        for f in sorted(glob.glob(os.path.join(ROOT, "bench/data/public", fam, "*.json.bz2"))):
            name = os.path.basename(f).replace(".json.bz2", "")
            raw = subprocess.run(["git", "-C", hub, "show", f"HEAD:{path}{name}.json.gz"],
                                 capture_output=True, check=True).stdout
            j = json.loads(gzip.decompress(raw))
            ys, iid, half, cv = [], [], [], []
            for e in j["cache"].values():
                t, ts = e.get("time"), e.get("times")
                if not isinstance(t, (int, float)) or t <= 0 or not ts or len(ts) < 4:
                    continue
                r, h = len(ts), len(ts) // 2
                ys.append(t)
                iid.append(st.variance(ts) / r)
                half.append((sum(ts[:h]) / h - sum(ts[h:2 * h]) / h) ** 2 / 4)
                cv.append(st.stdev(ts) / st.mean(ts))
            n, mu = len(ys), st.mean(ys)
            tot = sum((y - mu) ** 2 for y in ys) / n
            top = sorted(range(n), key=lambda i: -ys[i])[:max(1, n // 100)]
            share = sum((ys[i] - mu) ** 2 for i in top) / n / tot
            reps = st.median(len(e["times"]) for e in j["cache"].values()
                             if isinstance(e.get("times"), list) and e["times"])
            print(f"| {fam} | {j['device_name'] or name} | {n} | {reps:.0f} | "
                  f"{1 - sum(iid) / n / tot:.4f} | {1 - sum(half) / n / tot:.4f} | {share:.2f} | "
                  f"{100 * st.median(cv[i] for i in top):.1f} % | {100 * st.median(cv):.1f} % |")


def energy_noise():
    db = sqlite3.connect("file:" + os.path.join(ROOT, "bench/gpu/data/gemm-energy-h100.db") +
                         "?mode=ro", uri=True)
    logs = os.path.join(ROOT, "bench/gpu/logs/energy-tradeoff-2026-11-24-2")
    q = ("SELECT m.energy_j FROM measurement m JOIN problem p ON p.id = m.problem_id JOIN "
         "kernel k ON k.id = p.kernel_id WHERE k.name = ? AND m.status = 'ok'")
    print("\n| kernel | rows | energy: sd / mean | configuration measured again | database "
          "| re-measured (4 rounds) | difference |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    diffs = {}
    for case, kern in [("gemm-wgmma-f16", "gemm-wgmma-f16-cuda"),
                       ("gemm-tma-f16", "gemm-tma-f16-cuda")]:
        e = [r[0] for r in db.execute(q, (kern,))]
        rel = math.sqrt(st.pvariance(e)) / st.mean(e)
        again = {}
        for f in sorted(glob.glob(os.path.join(logs, case + "-*.json"))):
            b = json.load(open(f))["best"]
            again.setdefault(b["key"], []).append(b["energy_j"])
        for key, es in again.items():
            row = db.execute(q + " AND m.config = ?", (kern, key)).fetchone()
            if not row:
                continue
            d = row[0] / st.median(es) - 1
            diffs.setdefault(kern, (rel, []))[1].append(d)
            print(f"| {kern} | {len(e)} | {100 * rel:.1f} % | `{key}` | {row[0]:.4f} J | "
                  f"{st.median(es):.4f} J (sd {100 * st.stdev(es) / st.mean(es):.1f} %) | "
                  f"{100 * d:+.1f} % |")
    every = [d for _, ds in diffs.values() for d in ds]
    rms = math.sqrt(sum(d * d for d in every) / len(every))
    print(f"\nroot mean square difference over the {len(every)} configurations: "
          f"{100 * rms:.1f} %")
    for kern, (rel, _) in diffs.items():
        print(f"{kern}: energy R2 ceiling with that noise 1 - ({100 * rms:.1f} / "
              f"{100 * rel:.1f})^2 = {1 - (rms / rel) ** 2:.2f}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    time_noise(sys.argv[1])
    energy_noise()
