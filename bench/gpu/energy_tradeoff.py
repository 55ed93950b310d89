"""energy_tradeoff.py - the picks and the table of energy_tradeoff.sh.

  energy_tradeoff.py picks SEARCH.json   the front's fastest configuration
      ("fast"), its most frugal within 10% of the fastest's time
      ("frugal10") and its most frugal ("frugal"), one line per distinct
      configuration: "ROLE[+ROLE...] KEY"
  energy_tradeoff.py table OUT           per case, the re-measured medians
      of each pick, the energy saved against "fast" and the slowdown"""
import glob
import json
import os
import statistics
import sys

SLOWDOWN = 1.10


def picks(path):
    front = json.load(open(path))["front"]
    if not front:
        sys.exit(f"{path}: the search kept no time/energy front")
    fast = min(front, key=lambda r: r["time_ms"])
    near = [r for r in front if r["time_ms"] <= SLOWDOWN * fast["time_ms"]]
    roles = {}
    for role, row in (("fast", fast), ("frugal10", min(near, key=lambda r: r["energy_j"])),
                      ("frugal", min(front, key=lambda r: r["energy_j"]))):
        roles.setdefault(row["key"], []).append(role)
    for key, names in roles.items():
        print("+".join(names), key)


def medians(out, case, role):
    rows = []
    for f in sorted(glob.glob(f"{out}/re/{case}-{role}-*.json")):
        best = json.load(open(f)).get("best") or {}
        if best.get("status") == "ok" and best.get("energy_j") is not None:
            rows.append((best["time_ms"], best["energy_j"]))
    if not rows:
        return None
    return (statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows),
            len(rows))


def table(out):
    print("| case | front | fastest: ms, J | most frugal within 10%: ms, J | most frugal: ms, J |")
    print("|---|---|---|---|---|")
    for p in sorted(glob.glob(f"{out}/*.picks")):
        case = os.path.basename(p)[:-len(".picks")]
        search = json.load(open(f"{out}/{case}.json"))
        got = {}
        for line in open(p):
            names, key = line.split()
            m = medians(out, case, names)
            for n in names.split("+"):
                got[n] = (m, key)
        base = got["fast"][0]
        cells = []
        for role in ("fast", "frugal10", "frugal"):
            m, key = got[role]
            if m is None or base is None:
                cells.append(f"no reading ({key})")
                continue
            cells.append(f"{m[0]:.4f}, {m[1]:.4f} ({m[0] / base[0]:.2f}x time, "
                         f"{100 * (1 - m[1] / base[1]):+.1f}% energy saved; n={m[2]}) `{key}`")
        print(f"| {case} | {len(search['front'])} of {search.get('measured', '?')} |", " | ".join(cells), "|")


if __name__ == "__main__":
    {"picks": picks, "table": table}[sys.argv[1]](sys.argv[2])
