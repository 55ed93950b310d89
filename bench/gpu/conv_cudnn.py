"""conv_cudnn.py - cuDNN (through PyTorch) on the convolution layers that
bench/gpu/conv.sh tunes ktune's kernels on, timed as ktune times
(timing.py: a 128 MiB memset evicts the L2 before each sample, events
around the call, ktune's stopping rule, the median), with the GPU kept busy
while Python enqueues so that no host time is timed.  cudnn.benchmark lets cuDNN try its algorithms
and keep the fastest (its own auto-tuning).  Modes: fp32 (TF32 off: the
comparison for ktune's FP32 kernels), tf32 (tensor cores, 10-bit mantissa,
for scale), fp16 (half inputs and output, channels_last: NHWC activations
and KRSC filters, the layouts of ktune's conv_igemm_tc.cu, so both sides
compute the same thing from the same memory order), bf16 (the same in
bfloat16).

usage: conv_cudnn.py [--kernels] [MODE...]   (default: fp32 tf32)
--kernels adds the names of the GPU kernels one call runs (torch.profiler),
which say which of cuDNN's algorithms it picked.
Input: lines "name:N=32,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1" on stdin.
Output: one line per layer and mode: cudnn NAME MODE MS TFLOPS relerr=E
layout=L (L: the output's memory order, nchw or nhwc)."""
import sys

import torch
import torch.nn.functional as F
from timing import Timer

MODES = {"fp32": (torch.float32, False), "tf32": (torch.float32, True),
         "fp16": (torch.float16, False), "bf16": (torch.bfloat16, False)}


def layer_inputs(p, dtype):
    """Random inputs in [-1, 1); 16-bit ones in channels_last."""
    x = torch.rand(p["N"], p["C"], p["H"], p["W"], device="cuda") * 2 - 1
    w = torch.rand(p["K"], p["C"], p["R"], p["S"], device="cuda") * 2 - 1
    if dtype != torch.float32:
        x = x.to(dtype).to(memory_format=torch.channels_last)
        w = w.to(dtype).to(memory_format=torch.channels_last)
    return x, w


def layout(y):
    if y.is_contiguous():
        return "nchw"
    return "nhwc" if y.is_contiguous(memory_format=torch.channels_last) else "other"


def kernel_names(fn):
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return ";".join(sorted({e.key for e in prof.key_averages()}))


def main():
    args = sys.argv[1:]
    names = "--kernels" in args
    modes = [a for a in args if a != "--kernels"] or ["fp32", "tf32"]
    torch.backends.cudnn.benchmark = True
    timer = Timer()
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        name, prob = line.split(":", 1)
        p = {k: int(v) for k, v in (kv.split("=") for kv in prob.split(","))}
        P = (p["H"] + 2 * p["pad"] - p["R"]) // p["stride"] + 1
        Q = (p["W"] + 2 * p["pad"] - p["S"]) // p["stride"] + 1
        flops = 2 * p["N"] * p["K"] * P * Q * p["C"] * p["R"] * p["S"]
        for mode in modes:
            dtype, tf32 = MODES[mode]
            torch.backends.cudnn.allow_tf32 = tf32
            x, w = layer_inputs(p, dtype)
            ref = F.conv2d(x.double(), w.double(), stride=p["stride"], padding=p["pad"])
            fn = lambda: F.conv2d(x, w, stride=p["stride"], padding=p["pad"])
            y = fn()
            err = ((y.double() - ref).norm() / ref.norm()).item()
            fn()  # cudnn.benchmark's search, outside the timing
            ms = timer.time(fn)["ms"]
            print(f"cudnn {name} {mode} {ms:.4f} {flops / ms / 1e9:.2f} relerr={err:.1e} "
                  f"layout={layout(y)}" + (f" kernels={kernel_names(fn)}" if names else ""),
                  flush=True)


main()
