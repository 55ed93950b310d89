"""conv_report.py - the table of bench/gpu/conv.sh: for each layer, ktune's
tuned implicit-GEMM and direct kernels beside cuDNN (FP32 and TF32, timed
by conv_cudnn.py as ktune times, with no host launch time inside: see
timing.py), and the compile/measure overlap's configurations per second.

usage: conv_report.py RUNS_DIR LAYERS   (LAYERS: conv.sh's name:problem lines)"""
import json
import os
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def cudnn_times(runs):
    out = {}
    try:
        with open(os.path.join(runs, "cudnn.txt")) as f:
            for line in f:
                w = line.split()
                if len(w) >= 5 and w[0] == "cudnn":
                    out[(w[1], w[2])] = float(w[3])
    except OSError:
        pass
    return out


def best(run):
    if not run or not run.get("best"):
        return None, None, ""
    b = run["best"]
    return b["time_ms"], b.get("gflops"), b["key"]


def gflop(prob):
    p = {k: int(v) for k, v in (kv.split("=") for kv in prob.split(","))}
    P = (p["H"] + 2 * p["pad"] - p["R"]) // p["stride"] + 1
    Q = (p["W"] + 2 * p["pad"] - p["S"]) // p["stride"] + 1
    return 2 * p["N"] * p["K"] * P * Q * p["C"] * p["R"] * p["S"] / 1e9


def main():
    runs, layers = sys.argv[1], sys.argv[2].split()
    cd = cudnn_times(runs)
    print("| layer (N=32, FP32) | GFLOP | ktune implicit GEMM | ktune direct | cuDNN FP32 |"
          " cuDNN time / ktune time | cuDNN TF32 |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for l in layers:
        name, prob = l.split(":", 1)
        ig, di = (load(os.path.join(runs, f"{name}-{k}.json")) for k in ("igemm", "direct"))
        (ti, gi, ki), (td, gd, kd) = best(ig), best(di)
        flops = gflop(prob)
        f32, t32 = cd.get((name, "fp32")), cd.get((name, "tf32"))
        tk = min(t for t in (ti, td) if t) if (ti or td) else None

        def cell(t, g, k, run):
            if not t:
                return "none"
            return (f"{t:.3f} ms, {g / 1e3:.1f} TFLOP/s ({run['measured']} measured, "
                    f"{run['seconds']:.0f} s) `{k}`")

        fmt = lambda t: f"{t:.3f} ms, {flops / t:.1f} TFLOP/s" if t else "-"
        ratio = f"{f32 / tk:.2f}x" if f32 and tk else "-"
        print(f"| {name} `{prob}` | {flops:.2f} | {cell(ti, gi, ki, ig)} | "
              f"{cell(td, gd, kd, di)} | {fmt(f32)} | {ratio} | {fmt(t32)} |")
    print()
    print("| best configuration | time | energy per call | average power | SM clock |")
    print("| --- | --- | --- | --- | --- |")
    for l in layers:
        name = l.split(":", 1)[0]
        for k in ("igemm", "direct"):
            r = load(os.path.join(runs, f"{name}-{k}.json"))
            b = r.get("best") if r else None
            if b:
                e = b.get("energy_j")
                print(f"| {name} {k} | {b['time_ms']:.3f} ms |"
                      f" {e * 1e3:.1f} mJ | {b['power_w']:.0f} W |" if e else
                      f"| {name} {k} | {b['time_ms']:.3f} ms | unknown | unknown |",
                      f" {b.get('sm_clock_mhz', 0):.0f} MHz |")
    print()
    print("| compile/measure | energy window | measured | seconds | waiting for NVRTC |"
          " configurations/s |")
    print("| --- | --- | --- | --- | --- | --- |")
    for mode in ("batch", "stream", "batch-E0", "stream-E0"):
        r = load(os.path.join(runs, f"overlap-{mode}.json"))
        if r:
            window = "none" if mode.endswith("E0") else "0.3 s"
            print(f"| {mode.split('-')[0]} | {window} | {r['measured']} | {r['seconds']:.1f} |"
                  f" {r.get('compile_wait_s', 0):.1f} s | {r['measured'] / r['seconds']:.2f} |")


main()
