"""gemm_table.py OUT SIZE... - the table of gemm_bench.sh: for each size,
ktune's tuned GEMM (TFLOP/s, fraction of cuBLAS, tuning seconds and
configurations measured) beside cuBLAS and Triton, from OUT/tune-*.json
and OUT/baselines.txt."""
import json
import sys


def baselines(path):
    got = {}
    try:
        lines = open(path).readlines()
    except OSError:
        return got
    for line in lines:
        f = line.split()
        if len(f) >= 5 and f[0] in ("cublas", "triton"):
            extra = dict(x.split("=", 1) for x in f[5:] if "=" in x)
            got[(f[0], f[1], int(f[2]))] = (float(f[4]), extra)
    return got


def ktune(out, dt, n):
    try:
        j = json.load(open(f"{out}/tune-{dt}-{n}.json"))
    except (OSError, ValueError):
        return None
    best = j.get("best")
    if not best:
        return None
    return best["gflops"] / 1e3, j["seconds"], j["measured"], j["space_size"], best["key"]


def main():
    out, sizes = sys.argv[1], [int(s) for s in sys.argv[2:]]
    base = baselines(f"{out}/baselines.txt")
    names = {"f32": "fp32", "f16": "fp16", "bf16": "bf16"}
    print("| size | dtype | ktune TFLOP/s | x cuBLAS | tuning s (measured / space) "
          "| cuBLAS | Triton (autotune s / configs) | ktune x Triton |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    bests = []
    for n in sizes:
        for dt, name in names.items():
            k = ktune(out, dt, n)
            cb = base.get(("cublas", name, n), (None, {}))[0]
            tr, ex = base.get(("triton", name, n), (None, {}))
            cells = [f"{n}^3", name.upper()]
            if k:
                cells += [f"{k[0]:.1f}", f"{k[0] / cb:.2f}" if cb else "",
                          f"{k[1]:.0f} ({k[2]} / {k[3]})"]
                bests.append(f"{name.upper()} {n}^3: `{k[4]}`")
            else:
                cells += ["", "", ""]
            trc = f"{tr:.1f} ({ex.get('autotune', '?')} / {ex.get('configs', '?')})" if tr else ""
            cells += [f"{cb:.1f}" if cb else "", trc,
                      f"{k[0] / tr:.2f}" if k and tr else ""]
            print("| " + " | ".join(cells) + " |")
    print()
    for b in bests:
        print("- " + b)


if __name__ == "__main__":
    main()
