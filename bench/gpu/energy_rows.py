"""energy_rows.py CSV - the energy check of run.sh on a `ktune db export
csv`: a first line "rows verified with-energy", then each verified row's
time, energy, power and clock, or the reason its energy is missing."""
import csv
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
ok = [r for r in rows if r["status"] == "ok"]
good = [r for r in ok if r["energy_j"] and float(r["energy_j"]) > 0 and float(r["time_ms"]) > 0]
print(len(rows), len(ok), len(good))
for r in ok:
    if r in good:
        print(f"  {r['problem']} {r['config']}: {float(r['time_ms']):.3f} ms, "
              f"{float(r['energy_j']):.3f} J, {float(r['power_w']):.0f} W, "
              f"{r['sm_clock_mhz']} MHz")
    else:
        print(f"  {r['problem']} {r['config']}: {float(r['time_ms']):.3f} ms, NO ENERGY: "
              f"{r['detail'] or '(no reason recorded)'}")
