#!/usr/bin/env python3
"""trim.py - make the compact copies of the FAIR benchmark hub's exhaustive
Kernel Tuner caches that bench/public_bench.sh replays (README.md says what
they are and where they come from).

Each output keeps Kernel Tuner's cache layout with only what a replay needs:
device_name, kernel_name, problem_size, tune_params_keys, tune_params and,
per entry, its "time" (ms, 6 significant digits) or its failure marker,
and the spread of the repetitions it was the mean of ("spread": (p75 -
p25) / median, 2 significant digits; the repetitions themselves would
make the files ten times larger), which ktune's import stores as the
row's spread and `ktune analyze` reads as the measurement's noise.

usage: trim.py HUB_REPO_GIT_DIR OUT_DIR
"""
import bz2
import gzip
import json
import os
import subprocess
import sys

GPUS_MILO = ["A100", "A4000", "A6000", "MI250X", "W6600", "W7800"]
GPUS_KT = ["RTX_2080_Ti", "RTX_3060_laptop", "RTX_3090", "RTX_Titan"]
SOURCES = (
    [(f"cachefiles/{k}_milo/{g}.json.gz", f"{k}_milo/{g}.json.bz2")
     for k in ("convolution", "dedispersion") for g in GPUS_MILO] +
    [(f"currently_unused/cachefiles/KernelTuner data/{k}/{g}.json.gz",
      f"{k}/{g}.json.bz2") for k in ("convolution", "gemm", "pnpoly") for g in GPUS_KT])
# The hub's MI250X caches leave device_name empty; the README names the GPU.
DEVICE_FIX = {"": "AMD Instinct MI250X"}


def quantile(xs, q):
    """Linear interpolation between the closest ranks, as ktune's worker."""
    pos = q * (len(xs) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def spread(times):
    """(p75 - p25) / median of the repetitions, as ktune stores it."""
    xs = sorted(times)
    med = quantile(xs, 0.5)
    return (quantile(xs, 0.75) - quantile(xs, 0.25)) / med if med > 0 else 0.0


def entry(e):
    t = e.get("time")
    if isinstance(t, (int, float)):
        out = {"time": float(f"{t:.6g}")}
        times = e.get("times")
        if isinstance(times, list) and len(times) > 1:
            out["spread"] = float(f"{spread(times):.2g}")
        return out
    if isinstance(t, str):
        return {"time": t}
    raise ValueError(f"entry without a time or marker: {e}")


def trim(d):
    ps = d.get("problem_size")
    out = {
        "device_name": DEVICE_FIX.get(d["device_name"], d["device_name"]),
        "kernel_name": d["kernel_name"],
        "problem_size": ps if isinstance(ps, list) else [ps],
        "tune_params_keys": d["tune_params_keys"],
        "tune_params": d["tune_params"],
        "objective": "time",
        "cache": {k: entry(e) for k, e in d["cache"].items()},
    }
    return out


def main():
    repo, outdir = sys.argv[1], sys.argv[2]
    for src, dst in SOURCES:
        raw = subprocess.run(["git", "-C", repo, "show", "HEAD:" + src],
                             check=True, capture_output=True).stdout
        d = trim(json.loads(gzip.decompress(raw)))
        path = os.path.join(outdir, dst)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        text = json.dumps(d, separators=(",", ":")).replace('},"', '},\n"')
        with open(path, "wb") as f:
            f.write(bz2.compress(text.encode(), 9))
        print(f"{dst}: {len(d['cache'])} entries, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
