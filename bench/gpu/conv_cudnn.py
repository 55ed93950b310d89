"""conv_cudnn.py - cuDNN (through PyTorch) on the convolution layers that
bench/gpu/conv.sh tunes ktune's kernels on, timed as ktune times
(timing.py: a 128 MiB memset evicts the L2 before each sample, events
around the call, ktune's stopping rule, the median), with the GPU kept busy
while Python enqueues so that no host time is timed.  cudnn.benchmark lets cuDNN try its algorithms
and keep the fastest (its own auto-tuning).  FP32 without TF32 is the
comparison; TF32 (tensor cores, 10-bit mantissa) is printed for scale.

Input: lines "name:N=32,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1" on stdin.
Output: one line per layer and mode: cudnn NAME MODE MS TFLOPS."""
import sys

import torch
import torch.nn.functional as F
from timing import Timer


def main():
    torch.backends.cudnn.benchmark = True
    timer = Timer()
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        name, prob = line.split(":", 1)
        p = {k: int(v) for k, v in (kv.split("=") for kv in prob.split(","))}
        x = torch.rand(p["N"], p["C"], p["H"], p["W"], device="cuda") * 2 - 1
        w = torch.rand(p["K"], p["C"], p["R"], p["S"], device="cuda") * 2 - 1
        P = (p["H"] + 2 * p["pad"] - p["R"]) // p["stride"] + 1
        Q = (p["W"] + 2 * p["pad"] - p["S"]) // p["stride"] + 1
        flops = 2 * p["N"] * p["K"] * P * Q * p["C"] * p["R"] * p["S"]
        ref = F.conv2d(x.double(), w.double(), stride=p["stride"], padding=p["pad"])
        for mode, tf32 in (("fp32", False), ("tf32", True)):
            torch.backends.cudnn.allow_tf32 = tf32
            fn = lambda: F.conv2d(x, w, stride=p["stride"], padding=p["pad"])
            err = ((fn().double() - ref).norm() / ref.norm()).item()
            fn()  # cudnn.benchmark's search, outside the timing
            ms = timer.time(fn)["ms"]
            print(f"cudnn {name} {mode} {ms:.4f} {flops / ms / 1e9:.2f} relerr={err:.1e}",
                  flush=True)


main()
