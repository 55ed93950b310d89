"""baselines.py - the references ktune's GEMMs are compared with, on the GPU
machine, in the same run: cuBLAS through PyTorch (FP32 without TF32, FP16,
BF16) and a Triton matmul (written here for ktune, FP16 and BF16)
autotuned over the 16 configurations of the Triton tutorial's list.  One
line per measurement: library dtype n ms tflops [extra].  Timed as ktune
times its kernels: CUDA events around one call, the L2 cache evicted (a
128 MiB write) before each, median of 50 after warm-up; inputs uniform in
[-1, 1)."""
import sys
import time

import torch
import triton
import triton.language as tl
from timing import median_ms

SIZES = [int(s) for s in sys.argv[1:]] or [1024, 2048, 4096, 8192]


FLUSH = []  # 128 MiB, written before each timed call: evicts the 50 MB L2


def flush():
    if not FLUSH:
        FLUSH.append(torch.empty(32 << 20, dtype=torch.int32, device="cuda"))
    FLUSH[0].fill_(1)


def bench(fn):
    return median_ms(fn, before=flush)


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


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.manual_seed(0)
    for n in SIZES:
        flop = 2.0 * n ** 3
        for name, dt in (("fp32", torch.float32), ("fp16", torch.float16),
                         ("bf16", torch.bfloat16)):
            a = (torch.rand(n, n, device="cuda") * 2 - 1).to(dt)
            b = (torch.rand(n, n, device="cuda") * 2 - 1).to(dt)
            ms = bench(lambda: a @ b)
            print(f"cublas {name} {n} {ms:.4f} {flop / ms / 1e9:.1f}", flush=True)
            if dt is torch.float32:
                continue
            ref = (a.float() @ b.float())
            t0 = time.time()
            got = triton_mm(a, b)  # autotunes on first call
            torch.cuda.synchronize()
            tune_s = time.time() - t0
            err = ((got.float() - ref).norm() / ref.norm()).item()
            ms = bench(lambda: triton_mm(a, b))
            best = matmul_kernel.best_config
            cfg = "{}x{}x{}/s{}/w{}".format(best.kwargs["BM"], best.kwargs["BN"], best.kwargs["BK"],
                                            best.num_stages, best.num_warps)
            print(f"triton {name} {n} {ms:.4f} {flop / ms / 1e9:.1f} relerr={err:.2e} "
                  f"autotune={tune_s:.1f}s configs={len(configs())} best={cfg}", flush=True)


if __name__ == "__main__":
    main()
