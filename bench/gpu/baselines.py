"""baselines.py - the references ktune's GEMMs are compared with, on the GPU
machine, in the same call, in ROUNDS rounds (the table takes each one's
best): cuBLAS through PyTorch (FP32 without TF32, FP16, BF16, and FP8 E4M3
through torch._scaled_mm with BF16 output, default and fast accumulation)
and a Triton matmul (written here for ktune, FP16 and BF16) autotuned over
the 16 configurations of the Triton tutorial's list.  With --entries, each
round also times ktune's chosen configurations, by ktune itself (a pinned
`ktune tune`, its C worker) and from Python on the CUBIN ktune compiled
(harness.py), so the table shows that the Python method gives ktune's own
figure.  Timed as ktune times (timing.py: the L2 evicted by a 128 MiB
memset before each sample, events around the call, ktune's stopping rule,
median) with the GPU kept busy while Python enqueues, so that no host time
is timed; inputs uniform in [-1, 1).

usage: baselines.py [--rounds R] [--dtypes fp32,...] [--entries FILE --ktune KTUNE
                    --work DIR] SIZE...
  FILE: lines "DTYPE N SPEC PROBLEM KEY" (gemm_bench.sh writes it).
  --dtypes: time only these (of fp32 fp16 bf16 fp8 fp8fast; default all).
One line per measurement: LIBRARY DTYPE N MS TFLOPS key=value..."""
import argparse
import json
import os
import time

import torch
import triton
import triton.language as tl
from timing import Timer

DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16,
          "fp8": torch.float8_e4m3fn}


def configs():
    """The Triton tutorial's list (03-matrix-multiplication, CUDA): block
    sizes, stages and warps; GROUP_SIZE_M 8 throughout."""
    rows = [(128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4),
            (128, 64, 32, 4, 4), (64, 128, 32, 4, 4), (128, 32, 32, 4, 4),
            (64, 32, 32, 5, 2), (32, 64, 32, 5, 2), (128, 256, 128, 3, 8),
            (256, 128, 128, 3, 8), (256, 64, 128, 4, 4), (64, 256, 128, 4, 4),
            (128, 128, 128, 4, 4), (128, 64, 64, 4, 4), (64, 128, 64, 4, 4),
            (128, 32, 64, 4, 4)]
    return [triton.Config({"BM": m, "BN": n, "BK": k, "GROUP": 8}, num_stages=s, num_warps=w)
            for m, n, k, s, w in rows]


@triton.autotune(configs=configs(), key=["M", "N", "K"])
@triton.jit
def matmul_kernel(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    rows, cols = tl.cdiv(M, BM), tl.cdiv(N, BN)
    per_group = GROUP * cols
    first = pid // per_group * GROUP
    height = min(rows - first, GROUP)
    pm = first + (pid % per_group) % height
    pn = (pid % per_group) // height
    om = (pm * BM + tl.arange(0, BM)) % M
    on = (pn * BN + tl.arange(0, BN)) % N
    ok = tl.arange(0, BK)
    pa = a + om[:, None] * sam + ok[None, :] * sak
    pb = b + ok[:, None] * sbk + on[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        left = K - k * BK
        x = tl.load(pa, mask=ok[None, :] < left, other=0.0)
        y = tl.load(pb, mask=ok[:, None] < left, other=0.0)
        acc = tl.dot(x, y, acc)
        pa += BK * sak
        pb += BK * sbk
    cm = pm * BM + tl.arange(0, BM)
    cn = pn * BN + tl.arange(0, BN)
    tl.store(c + cm[:, None] * scm + cn[None, :] * scn, acc.to(c.dtype.element_ty),
             mask=(cm[:, None] < M) & (cn[None, :] < N))


def triton_mm(a, b):
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    grid = lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                        b.stride(1), c.stride(0), c.stride(1))
    return c


def rand(n, m, dt):
    return (torch.rand(n, m, device="cuda") * 2 - 1).to(dt)


def relerr(got, a, b):
    ref = a.double() @ b.double()
    return ((got.double() - ref).norm() / ref.norm()).item()


def cublas_calls(n, want):
    """(name, dtype, call, relerr) for cuBLAS at n^3, the dtypes in want."""
    out = []
    for name in [d for d in ("fp32", "fp16", "bf16") if d in want]:
        a, b = rand(n, n, DTYPES[name]), rand(n, n, DTYPES[name])
        out.append(("cublas", name, lambda a=a, b=b: a @ b, relerr(a @ b, a, b)))
    a = rand(n, n, torch.float8_e4m3fn)
    b = rand(n, n, torch.float8_e4m3fn).t()  # column-major, as cuBLAS's FP8 wants
    one = torch.tensor(1.0, device="cuda")
    for name, fast in [(d, d == "fp8fast") for d in ("fp8", "fp8fast") if d in want]:
        f = lambda a=a, b=b, fast=fast: torch._scaled_mm(  # noqa: E731
            a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16, use_fast_accum=fast)
        out.append(("cublas", name, f, relerr(f(), a, b)))
    return out


def triton_calls(n, want):
    out = []
    for name in [d for d in ("fp16", "bf16") if d in want]:
        a, b = rand(n, n, DTYPES[name]), rand(n, n, DTYPES[name])
        t0 = time.time()
        got = triton_mm(a, b)  # autotunes on the first call
        torch.cuda.synchronize()
        best = matmul_kernel.best_config
        cfg = "{}x{}x{}/s{}/w{}".format(best.kwargs["BM"], best.kwargs["BN"], best.kwargs["BK"],
                                        best.num_stages, best.num_warps)
        extra = (f"autotune={time.time() - t0:.1f}s configs={len(configs())} best={cfg}")
        out.append(("triton", name, lambda a=a, b=b: triton_mm(a, b), relerr(got, a, b), extra))
    return out


def tensor_maps(spec):
    """Whether the spec has a TensorMap argument (docs/SPEC.md)."""
    args = json.load(open(spec))["KernelSpecification"]["Arguments"]
    return any(a.get("MemoryType") == "TensorMap" for a in args)


def ktune_entries(path, kt, work):
    """(name, dtype, n, C timer, Python launch) for each chosen configuration."""
    import harness
    out = []
    for i, line in enumerate(open(path)):
        f = line.split()
        if len(f) != 5:
            continue
        dt, n, spec, problem, key = f[0], int(f[1]), f[2], f[3], f[4]
        # a compile cache of its own: the harness loads the cache's CUBIN of the kernel's
        # name, which must be this entry's, not another configuration's of the same size
        w = os.path.join(work, f"{dt}-{n}-{i}")
        best = harness.ktune_c(kt, spec, problem, key, w)  # compiles into w/cache
        launch, err = None, float("nan")
        if tensor_maps(spec):
            print(f"# {dt} {n}: not timed by the Python harness (a CUtensorMap argument, "
                  "which CuPy's launch cannot pass)", flush=True)
        else:
            launch = harness.Launch(spec, problem, key, os.path.join(w, "cache"))
            err = launch.gemm_error(n, n, n)
        c = lambda spec=spec, problem=problem, key=key, w=w: harness.ktune_c(  # noqa: E731
            kt, spec, problem, key, w)
        out.append((dt, n, key, c, launch, err, best))
    return out


def emit(lib, name, n, st, extra=""):
    flop = 2.0 * n ** 3
    print(f"{lib} {name} {n} {st['ms']:.4f} {flop / st['ms'] / 1e9:.1f} {extra}".rstrip(),
          flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--entries")
    ap.add_argument("--ktune")
    ap.add_argument("--work", default="/tmp/ktune-baselines")
    ap.add_argument("--dtypes", default="fp32,fp16,bf16,fp8,fp8fast")
    ap.add_argument("sizes", nargs="*", type=int)
    o = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.manual_seed(0)
    sizes = o.sizes or [4096, 8192]
    timer = Timer(busy=True)
    entries = ktune_entries(o.entries, o.ktune, o.work) if o.entries else []
    want = o.dtypes.split(",")
    calls = {n: (cublas_calls(n, want), triton_calls(n, want)) for n in sizes}
    for r in range(1, o.rounds + 1):
        for n in sizes:
            for dt, en, key, c, launch, err, first in entries:
                if en != n:
                    continue
                best = first if r == 1 else c()
                emit("ktune", dt, n, {"ms": best["time_ms"]}, f"round={r} key={key}")
                if launch is None:
                    continue
                st = timer.time(launch)
                emit("ktune-py", dt, n, st, f"round={r} relerr={err:.2e} reps={st['reps']}")
            cb, tr = calls[n]
            for lib, name, fn, err in cb:
                st = timer.time(fn)
                emit(lib, name, n, st, f"round={r} relerr={err:.2e} reps={st['reps']}")
            for lib, name, fn, err, extra in tr:
                st = timer.time(fn)
                emit(lib, name, n, st, f"round={r} relerr={err:.2e} reps={st['reps']}"
                     + (f" {extra}" if r == 1 else ""))
    print(f"timing: samples dropped (the GPU caught up with the host): {timer.retried}", flush=True)


if __name__ == "__main__":
    main()
