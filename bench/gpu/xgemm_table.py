"""xgemm_table.py - the table of bench/gpu/xgemm.sh from its CSV export
(`ktune db export csv`): each side's tuned best, the speed of OpenCL
relative to CUDA on every configuration both measured (t_CUDA / t_OpenCL:
1.0 is parity, 0.9 the issue's goal), each best measured again on both
sides, the public recordings' optima measured through OpenCL, and ktune's
own CUDA SGEMM.  Times are the median per call in ms, at M=N=K=SIZE.

usage: xgemm_table.py XGEMM.csv [SIZE]   (SIZE: default 4096)"""
import csv
import statistics
import sys

FLOP = 2 * int(sys.argv[2] if len(sys.argv) > 2 else 4096) ** 3


def gflops(ms):
    return FLOP / (ms * 1e-3) / 1e9


def rows_of(path):
    """kernel -> {config: time_ms} of the correct rows."""
    out = {}
    for r in csv.DictReader(open(path)):
        if r["status"] == "ok":
            out.setdefault(r["kernel"], {})[r["config"]] = float(r["time_ms"])
    return out


def line(name, cfg, ms):
    print(f"{name:<26} {ms:8.3f} ms {gflops(ms):8.0f} GFLOP/s  {cfg}")


def main():
    k = rows_of(sys.argv[1])
    ocl, cu = k.get("xgemm-opencl", {}), k.get("xgemm-cuda", {})
    for name, side in (("OpenCL", ocl), ("CUDA", cu)):
        if side:
            cfg = min(side, key=side.get)
            line(f"best of {len(side)} ({name})", cfg, side[cfg])
    both = sorted(set(ocl) & set(cu))
    if both:
        r = [cu[c] / ocl[c] for c in both]
        q = statistics.quantiles(r, n=10) if len(r) > 1 else r * 9
        print(f"t_CUDA/t_OpenCL over {len(r)} configurations both measured: median "
              f"{statistics.median(r):.3f}, p10 {q[0]:.3f}, p90 {q[-1]:.3f}, "
              f"min {min(r):.3f}, max {max(r):.3f}, >= 0.9: "
              f"{sum(x >= 0.9 for x in r)}/{len(r)}")
        top = sorted(both, key=cu.get)[:10]
        r10 = [cu[c] / ocl[c] for c in top]
        print(f"  over CUDA's 10 fastest: median {statistics.median(r10):.3f}, "
              f"min {min(r10):.3f}")
    pins = k.get("xgemm-opencl-pinned", {}), k.get("xgemm-cuda-pinned", {})
    for cfg in sorted(set(pins[0]) & set(pins[1])):
        t_o, t_c = pins[0][cfg], pins[1][cfg]
        print(f"pinned {cfg}: OpenCL {t_o:.3f} ms ({gflops(t_o):.0f} GFLOP/s), CUDA "
              f"{t_c:.3f} ms ({gflops(t_c):.0f}), t_CUDA/t_OpenCL {t_c / t_o:.3f}")
    for cfg in sorted(set(pins[0]) - set(pins[1])):
        line("pinned, OpenCL only", cfg, pins[0][cfg])
    for cfg, ms in k.get("gemm-cuda-pinned", {}).items():
        line("ktune SGEMM (gemm-cuda)", cfg, ms)


main()
