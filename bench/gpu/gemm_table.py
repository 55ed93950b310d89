"""gemm_table.py OUT SIZE... - the table of gemm_bench.sh: for each size and
dtype, the best over the rounds of baselines.py (TFLOP/s) of ktune's tuned
configuration timed by ktune (C) and by the Python harness on the same
CUBIN, cuBLAS and Triton, the ratios of ktune's best to theirs, and the
issue's goals met or not; then every round's figures.  Reads
OUT/baselines.txt and OUT/tune-*.json."""
import json
import sys

NAMES = {"f32": "fp32", "f16": "fp16", "bf16": "bf16", "f8": "fp8"}
# ktune's FP8 GEMM accumulates in the tensor cores across all of K, as
# cuBLAS does with use_fast_accum (its default promotes partial sums to
# FP32 cores): the fp8fast row is the like-for-like one, and shows
# ktune's fp8 figure too.
KTUNE_ROW = {"fp8fast": "fp8"}
HARNESS_TOLERANCE = 0.03  # the Python harness against ktune's C, same CUBIN
ROWS = ["fp32", "fp16", "bf16", "fp8", "fp8fast"]
# (dtype, library, least ktune / library): issue 12's goals at 4096 and 8192
GOALS = [("fp16", "triton", 1.0), ("fp16", "cublas", 0.95), ("bf16", "triton", 1.0),
         ("bf16", "cublas", 0.95), ("fp32", "cublas", 0.95), ("fp8", "cublas", 0.9),
         ("fp8fast", "cublas", 0.9)]


def rounds(path):
    """{(library, dtype, n): [TFLOP/s per round]} and the extras of each."""
    got, extra = {}, {}
    try:
        lines = open(path).readlines()
    except OSError:
        return got, extra
    for line in lines:
        f = line.split()
        if len(f) >= 5 and f[0] in ("cublas", "triton", "ktune", "ktune-py"):
            k = (f[0], f[1], int(f[2]))
            got.setdefault(k, []).append(float(f[4]))
            extra.setdefault(k, {}).update(x.split("=", 1) for x in f[5:] if "=" in x)
    return got, extra


def tuning(out, dt, n):
    try:
        j = json.load(open(f"{out}/tune-{dt}-{n}.json"))
    except (OSError, ValueError):
        return ""
    return f"{j['seconds']:.0f} s, {j['measured']} / {j['space_size']}" if j.get("best") else ""


def fmt(x, spec=".1f"):
    return format(x, spec) if x else "-"


def main():
    out, sizes = sys.argv[1], [int(s) for s in sys.argv[2:]]
    got, extra = rounds(f"{out}/baselines.txt")
    best = {k: max(v) for k, v in got.items()}
    nr = max((len(v) for v in got.values()), default=0)
    print(f"TFLOP/s, best of {nr} rounds in one call (bench/gpu/baselines.py; the ratios are "
          "of these bests)\n")
    print("| size | dtype | ktune (C) | ktune (Python harness) | harness / C | cuBLAS "
          "| Triton | ktune / cuBLAS | ktune / Triton | ktune's tuning (s, measured / space) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    keys, verdicts = [], []
    for n in sizes:
        for name in ROWS:
            kn = KTUNE_ROW.get(name, name)
            k, kp = best.get(("ktune", kn, n)), best.get(("ktune-py", kn, n))
            cb, tr = best.get(("cublas", name, n)), best.get(("triton", name, n))
            if not (k or cb or tr):
                continue
            dt = {v: k2 for k2, v in NAMES.items()}.get(name, "")
            print(f"| {n}^3 | {name.upper()} | {fmt(k)} | {fmt(kp)} | "
                  f"{fmt(kp / k if k and kp else None, '.3f')} | {fmt(cb)} | {fmt(tr)} | "
                  f"{fmt(k / cb if k and cb else None, '.2f')} | "
                  f"{fmt(k / tr if k and tr else None, '.2f')} | {tuning(out, dt, n) or '-'} |")
            if k and kn == name:
                keys.append(f"{name.upper()} {n}^3: `{extra[('ktune', name, n)].get('key')}`")
        for name, lib, want in GOALS:
            k, b = best.get(("ktune", KTUNE_ROW.get(name, name), n)), best.get((lib, name, n))
            if b:
                r = f"{k / b:.2f}x" if k else "no ktune kernel"
                met = "met" if k and k / b >= want else "NOT met"
                verdicts.append(f"{name.upper()} {n}^3 ktune >= {want}x {lib}: {r}, {met}")
    ratios = [(best[("ktune-py",) + k[1:]] / v, k) for k, v in best.items()
              if k[0] == "ktune" and ("ktune-py",) + k[1:] in best]
    worst = max(ratios, key=lambda r: abs(r[0] - 1), default=None)
    print()
    if worst:
        ok = abs(worst[0] - 1) <= HARNESS_TOLERANCE
        print(f"{'PASS' if ok else 'FAIL'} harness = ktune's C timing within "
              f"{100 * HARNESS_TOLERANCE:.0f}% on {len(ratios)} rows (furthest: "
              f"{worst[1][1].upper()} {worst[1][2]}^3, harness / C {worst[0]:.3f})")
    else:
        print("FAIL harness: no row with both ktune's and the harness's figure")
    print()
    for line in keys:
        print("- " + line)
    print("\nGoals (issue 12):")
    for line in verdicts:
        print("- " + line)
    print("\nEvery round (TFLOP/s):\n")
    for k in sorted(got):
        print(f"- {k[0]} {k[1]} {k[2]}^3: " + ", ".join(f"{x:.1f}" for x in got[k]))


if __name__ == "__main__":
    main()
