"""energy_own_time.py - what the energy window's own time per call (the
label since 2026-11-29 10:00 UTC: energy_j / power_w) says against the
timing phase's median (time_ms), in ktune databases: for each, the SM
clock and the window's time over the timing's (10th, 50th and 90th
percentiles); for two recordings of the same configurations, each
quantity's retest (median ratio, standard deviation of the log ratio,
root mean square of 2 (a - b) / (a + b), spread over configurations and
the R2 ceiling of one reading, 1 - rms^2 / 2 / spread^2), the label before
(power_w * time_ms) beside.

usage: energy_own_time.py KTUNE DB [DB2]"""
import math
import statistics
import sys

from energy_retest import rows


def num(r, key):
    return float(r[key]) if r[key] else None


QUANTITIES = {
    "time_ms": lambda r: num(r, "time_ms"),
    "power_w": lambda r: num(r, "power_w"),
    "energy_j (window's own calls)": lambda r: num(r, "energy_j"),
    "power x timing median (the label before)":
        lambda r: r["power_w"] and num(r, "power_w") * num(r, "time_ms") * 1e-3,
    "window's time per call":
        lambda r: r["energy_j"] and num(r, "energy_j") / num(r, "power_w") * 1e3,
}


def pct(v, digits=3):
    v = sorted(v)
    return ", ".join(f"{name} {v[i]:.{digits}f}" for name, i in
                     (("p10", len(v) // 10), ("median", len(v) // 2), ("p90", 9 * len(v) // 10)))


def describe(name, run):
    clock = [num(r, "sm_clock_mhz") for r in run.values()]
    line = f"{name}: {len(run)} ok; SM clock (MHz) {pct(clock, 0)}"
    own = QUANTITIES["window's time per call"]
    ratio = [own(r) / num(r, "time_ms") for r in run.values() if own(r)]
    if ratio:
        line += f"; window's time per call / timing median: {pct(ratio)}"
    print(line)


def retest(name, a, b, get):
    keys = [k for k in a if k in b and get(a[k]) and get(b[k])]
    if len(keys) < 2:
        return
    x, y = [get(a[k]) for k in keys], [get(b[k]) for k in keys]
    logs = [math.log(p / q) for p, q in zip(x, y)]
    rms = math.sqrt(sum((2 * (p - q) / (p + q)) ** 2 for p, q in zip(x, y)) / len(x))
    sd = statistics.stdev(x + y) / statistics.mean(x + y)
    print(f"{name}: {len(keys)} pairs, median ratio {math.exp(statistics.median(logs)):.3f}, "
          f"sd of the log ratio {statistics.pstdev(logs):.3f}, retest rms {100 * rms:.1f}%, "
          f"spread {100 * sd:.1f}%, R2 ceiling of one reading {1 - rms * rms / 2 / sd / sd:.3f}")


def main():
    ktune, dbs = sys.argv[1], sys.argv[2:4]
    runs = [{k: r for k, r in rows(ktune, db).items() if r["status"] == "ok"} for db in dbs]
    for db, run in zip(dbs, runs):
        describe(db, run)
    if len(runs) == 2:
        for name, get in QUANTITIES.items():
            retest(name, runs[0], runs[1], get)


main()
