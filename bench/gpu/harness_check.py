"""harness_check.py - proof that timing.py times fairly: ktune's own kernel,
one configuration, timed by ktune's C worker and by the Python harness
(timing.py on the CUBIN ktune compiled, harness.py) in alternating rounds;
the two must agree within TOLERANCE.  The old method (an idle GPU while
Python enqueues) is timed beside them, to show what it added.

usage: harness_check.py KTUNE WORK ROUNDS SPEC:PROBLEM:KEY...
Prints one line per round and one PASS/FAIL line per configuration; exit
status: the number of FAILs."""
import os
import sys

import harness
from timing import Timer

TOLERANCE = 0.03


def check(kt, work, rounds, spec, problem, key, busy, idle):
    w = os.path.join(work, f"{os.path.basename(spec)}-{problem}-{key}".replace(",", "_"))
    name = f"{os.path.basename(spec)} {problem} {key}"
    c_ms, py_ms = [], []
    launch = None
    for r in range(rounds):
        best = harness.ktune_c(kt, spec, problem, key, w)
        if launch is None:
            launch = harness.Launch(spec, problem, key, os.path.join(w, "cache"))
            p = dict(kv.split("=") for kv in problem.split(","))
            err = launch.gemm_error(int(p["M"]), int(p["N"]), int(p["K"]))
            print(f"{name}: harness launch grid={launch.grid} block={launch.block} "
                  f"shared={launch.shared} relerr={err:.2e}", flush=True)
        fair, old = busy.time(launch), idle.time(launch)
        c_ms.append(best["time_ms"])
        py_ms.append(fair["ms"])
        print(f"round {r + 1} {name}: ktune C {best['time_ms']:.4f} ms; harness "
              f"{fair['ms']:.4f} ms ({fair['reps']} samples x {fair['inner']}, spread "
              f"{100 * fair['spread']:.1f}%); idle-GPU method {old['ms']:.4f} ms; "
              f"harness / C {fair['ms'] / best['time_ms']:.3f}", flush=True)
    c, py = min(c_ms), min(py_ms)
    ok = abs(py / c - 1) <= TOLERANCE
    tf = f", {launch.flops / c / 1e9:.1f} vs {launch.flops / py / 1e9:.1f} TFLOP/s" \
        if launch.flops else ""
    print(f"{'PASS' if ok else 'FAIL'} harness = ktune C within {100 * TOLERANCE:.0f}%: "
          f"{name}: best of {rounds}: C {c:.4f} ms, harness {py:.4f} ms "
          f"({py / c:.3f}x){tf}; samples dropped (GPU caught up with the host): {busy.retried}", flush=True)
    return ok


def main():
    kt, work, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    busy, idle = Timer(busy=True), Timer(busy=False)
    fails = 0
    for item in sys.argv[4:]:
        spec, problem, key = item.split(":")
        fails += not check(kt, work, rounds, spec, problem, key, busy, idle)
    sys.exit(fails)


if __name__ == "__main__":
    main()
