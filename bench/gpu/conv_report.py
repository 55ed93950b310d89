"""conv_report.py - the tables of bench/gpu/conv.sh: for each layer, ktune's
tuned implicit-GEMM and direct kernels beside cuDNN (FP32 and TF32, timed
by conv_cudnn.py as ktune times, with no host launch time inside: see
timing.py), the FP16 tensor-core implicit GEMM beside cuDNN FP16
(channels_last), and the compile/measure overlap's configurations per
second.  Each table is printed where its runs are in RUNS_DIR.

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


def fp32_table(runs, layers, cd):
    if not any(load(os.path.join(runs, f"{l.split(':', 1)[0]}-{k}.json"))
               for l in layers for k in ("igemm", "direct")):
        return
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


F16_KERNELS = (("igemm-tc-f16", "mma.sync"), ("igemm-wgmma-f16", "wgmma"),
               ("igemm-tma-f16", "wgmma + TMA"))


def fp16_table(runs, layers, cd):
    """ktune's FP16 tensor-core kernels (conv_igemm_tc.cu, mma.sync,
    conv_igemm_wgmma.cu and conv_igemm_tma.cu) against cuDNN FP16, all NHWC; the ratio is cuDNN's
    time over the fastest ktune kernel's (issue 12's goal: 0.9 or more on
    each layer)."""
    rows = []
    for l in layers:
        name, prob = l.split(":", 1)
        ks = [best(load(os.path.join(runs, f"{name}-{k}.json"))) for k, _ in F16_KERNELS]
        c16 = cd.get((name, "fp16"))
        if c16 or any(t for t, _, _ in ks):
            rows.append((name, prob, ks, c16))
    if not rows:
        return
    print("| layer (N=32, FP16, NHWC) | GFLOP | " +
          " | ".join(f"ktune {label}" for _, label in F16_KERNELS) +
          " | cuDNN FP16 | cuDNN time / ktune time |")
    print("| --- | --- | " + "--- | " * len(F16_KERNELS) + "--- | --- |")
    for name, prob, ks, c16 in rows:
        flops = gflop(prob)
        fmt = lambda t: f"{t * 1e3:.1f} us, {flops / t:.0f} TFLOP/s" if t else "-"
        cells = " | ".join(fmt(t) + (f" `{key}`" if key else "") for t, _, key in ks)
        tk = min((t for t, _, _ in ks if t), default=None)
        ratio = f"{c16 / tk:.2f}x" if tk and c16 else "-"
        print(f"| {name} `{prob}` | {flops:.2f} | {cells} | {fmt(c16)} | {ratio} |")
    print()


def energy_table(runs, layers):
    print("| best configuration | time | energy per call | average power | SM clock |")
    print("| --- | --- | --- | --- | --- |")
    for l in layers:
        name = l.split(":", 1)[0]
        for k in ("igemm", "direct") + tuple(k for k, _ in F16_KERNELS):
            r = load(os.path.join(runs, f"{name}-{k}.json"))
            b = r.get("best") if r else None
            if b:
                e = b.get("energy_j")
                print(f"| {name} {k} | {b['time_ms']:.3f} ms |"
                      f" {e * 1e3:.1f} mJ | {b['power_w']:.0f} W |" if e else
                      f"| {name} {k} | {b['time_ms']:.3f} ms | unknown | unknown |",
                      f" {b.get('sm_clock_mhz', 0):.0f} MHz |")
    print()


def overlap_table(runs):
    if not load(os.path.join(runs, "overlap-batch.json")):
        return
    print("| compile/measure | energy window | measured | seconds | waiting for NVRTC |"
          " configurations/s |")
    print("| --- | --- | --- | --- | --- | --- |")
    for mode in ("batch", "stream", "batch-E0", "stream-E0"):
        r = load(os.path.join(runs, f"overlap-{mode}.json"))
        if r:
            window = "none" if mode.endswith("E0") else "0.3 s"
            print(f"| {mode.split('-')[0]} | {window} | {r['measured']} | {r['seconds']:.1f} |"
                  f" {r.get('compile_wait_s', 0):.1f} s | {r['measured'] / r['seconds']:.2f} |")


def main():
    runs, layers = sys.argv[1], sys.argv[2].split()
    cd = cudnn_times(runs)
    fp32_table(runs, layers, cd)
    fp16_table(runs, layers, cd)
    energy_table(runs, layers)
    overlap_table(runs)


main()
