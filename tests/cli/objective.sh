# objective.sh - `ktune tune --objective time|energy|edp|pareto` through
# --replay of a recording with time and energy (tests/data/energy: a
# synthetic ktune CSV, and the database, T4 and Kernel Tuner files made
# from it): an exhaustive run's best and front equal those computed here
# from the CSV; every strategy runs with every objective, its best is a
# recorded point and a pareto run's front is non-dominated; an objective
# that needs energy on rows without it is one clear line, as are an energy
# window of 0 and an unknown objective.
. "$(dirname "$0")/lib.sh"
REC=tests/data/energy/saxpy-energy.csv
"$KTUNE" import csv "$REC" --db "$TMP/rec.db" >/dev/null
"$KTUNE" db export t4 --db "$TMP/rec.db" >"$TMP/rec.t4.json"
"$KTUNE" db export kerneltuner --db "$TMP/rec.db" >"$TMP/rec.kt.json"

# The strategies `ktune tune --help` lists (those that take no model).
STRATEGIES=$("$KTUNE" tune --help |
    awk '/--strategy NAME/ {on = 1; next} on && /predict/ {exit}
         on && $1 ~ /^[a-z_]+$/ {print $1}')
[ "$(echo "$STRATEGIES" | wc -l)" -ge 10 ] || fail "strategies: $STRATEGIES"

# Exhaustive runs of every objective, from each form of the recording.
for f in "$REC" "$TMP/rec.db" "$TMP/rec.t4.json" "$TMP/rec.kt.json"; do
    for o in time energy edp pareto; do
        "$KTUNE" tune --replay "$f" --cache "$TMP/cache" --strategy brute_force \
            --objective "$o" --json >"$TMP/bf.$(basename "$f").$o.json"
    done
done
# Every strategy with every objective, at a third of the space.
for s in $STRATEGIES; do
    for o in time energy edp pareto; do
        "$KTUNE" tune --replay "$REC" --strategy "$s" --objective "$o" --budget 12 \
            --seed 3 --json >"$TMP/run.$s.$o.json" ||
            fail "$s --objective $o: $(cat "$TMP/run.$s.$o.json")"
    done
done

python3 - "$REC" "$TMP" $STRATEGIES <<'PY' || fail "see above"
import csv, glob, json, os, sys
rec, tmp, strategies = sys.argv[1], sys.argv[2], sys.argv[3:]
rows = {r["config"]: (float(r["time_ms"]), float(r["energy_j"]))
        for r in csv.DictReader(open(rec)) if r["status"] == "ok"}
cost = {"time": lambda p: p[0], "energy": lambda p: p[1],
        "edp": lambda p: p[0] * p[1], "pareto": lambda p: p[0] * p[1]}
def dominates(a, b):
    return a[0] <= b[0] and a[1] <= b[1] and a != b
front = sorted((k for k, p in rows.items()
                if not any(dominates(q, p) for q in rows.values())),
               key=lambda k: rows[k][0])
assert len(front) >= 3, front
def check(name, d, o, exhaustive):
    assert d["objective"] == o, (name, d["objective"])
    best = d["best"]["key"]
    got = (d["best"]["time_ms"], d["best"]["energy_j"])
    assert abs(got[0] - rows[best][0]) < 1e-9 and abs(got[1] - rows[best][1]) < 1e-12, \
        (name, best, got)
    want = min(rows, key=lambda k: cost[o](rows[k]))
    if exhaustive:
        assert best == want, (name, best, want)
    if o != "pareto":
        assert "front" not in d, name
        return
    keys = [p["key"] for p in d["front"]]
    pts = [(p["time_ms"], p["energy_j"]) for p in d["front"]]
    assert best in keys, (name, best, keys)
    assert all(not dominates(a, b) for a in pts for b in pts), (name, pts)
    assert pts == sorted(pts), (name, "not fastest first")
    for k, p in zip(keys, pts):
        assert abs(p[0] - rows[k][0]) < 1e-9 and abs(p[1] - rows[k][1]) < 1e-12, (name, k)
    if exhaustive:
        assert keys == front, (name, keys, front)
for path in glob.glob(os.path.join(tmp, "bf.*.json")):
    check(path, json.load(open(path)), path.rsplit(".", 2)[1], True)
for s in strategies:
    for o in cost:
        d = json.load(open(os.path.join(tmp, f"run.{s}.{o}.json")))
        assert d["measured"] == 12, (s, o, d["measured"])
        check(f"{s}/{o}", d, o, False)
        if s == "map_elites":
            assert d["map"]["cells"], (s, o)
PY
pass "every objective through replay (CSV, database, T4, Kernel Tuner): best and front as computed from the recording"
pass "every strategy with every objective: a recorded best, a non-dominated front ($(echo $STRATEGIES | wc -w) strategies)"

# The text report: the best by the objective and the front, fastest first.
"$KTUNE" tune --replay "$REC" --strategy brute_force --objective pareto >"$TMP/p.txt"
grep -q '^best     BLOCK=128,UNROLL=4,VEC=4 (least energy-delay product)$' "$TMP/p.txt" ||
    fail "pareto text: $(cat "$TMP/p.txt")"
grep -q '^front    6 configurations' "$TMP/p.txt" || fail "pareto text: $(cat "$TMP/p.txt")"
[ "$(sed -n '/^front/,$p' "$TMP/p.txt" | sed -n 2p | awk '{print $NF}')" = BLOCK=512,UNROLL=2,VEC=4 ] ||
    fail "pareto text, fastest first: $(cat "$TMP/p.txt")"
"$KTUNE" tune --replay "$REC" --strategy brute_force --objective energy >"$TMP/e.txt"
grep -q '^best     BLOCK=128,UNROLL=4,VEC=2 (least energy per call)$' "$TMP/e.txt" ||
    fail "energy text: $(cat "$TMP/e.txt")"
grep -q 'front' "$TMP/e.txt" && fail "a front without pareto: $(cat "$TMP/e.txt")"
pass "text: the best by the objective, and the front of a pareto run"

# The map of an exhaustive run holds each cell's best by the objective:
# the fastest for time, the least energy per call (and that energy) for
# energy, as computed here from the recording's rows in the cell's bins.
for o in time energy; do
    "$KTUNE" tune --replay "$REC" --strategy brute_force --objective "$o" --map --json \
        >"$TMP/map.$o.json"
done
python3 - "$REC" "$TMP" <<'PY' || fail "see above"
import csv, json, sys
rec, tmp = sys.argv[1:]
rows = [r for r in csv.DictReader(open(rec)) if r["status"] == "ok"]
def params(key):
    return {k: float(v) for k, v in (kv.split("=") for kv in key.split(","))}
for o, col in (("time", "time_ms"), ("energy", "energy_j")):
    m = json.load(open(f"{tmp}/map.{o}.json"))["map"]
    dims = m["dimensions"]
    assert m["filled"] == len(m["elites"]) > 1, m
    for e in m["elites"]:
        def inside(r):
            p = params(r["config"])
            return all(lo <= p[d["name"]] <= hi
                       for d, b in zip(dims, e["bins"]) for lo, hi in [d["bins"][b]])
        cell = [r for r in rows if inside(r)]
        want = min(cell, key=lambda r: float(r[col]))
        assert e["key"] == want["config"], (o, e, want["config"])
        assert abs(e["time_ms"] - float(want["time_ms"])) < 1e-9, (o, e)
        assert abs(e["energy_j"] - float(want["energy_j"])) < 1e-12, (o, e)
PY
pass "--map keeps each cell's best by the objective (time, energy), with its energy"

# Rows without energy: one line naming the configuration, not a time run.
bzcat bench/data/gemm-cpu-256-a1.csv.bz2 >"$TMP/noenergy.csv"
for o in energy edp pareto; do
    expect_fail 1 "^ktune: error: objective '$o' needs the energy of the configurations, but the recording has none for MR=" \
        "$KTUNE" tune --replay "$TMP/noenergy.csv" --objective "$o"
    [ "$(wc -l <"$TMP/err")" = 1 ] || fail "$o: $(cat "$TMP/err")"
done
"$KTUNE" tune --replay "$TMP/noenergy.csv" --objective time --budget 5 >/dev/null

# The first correct row decides: a later one without energy (a reading that
# failed) is counted and not ranked; a first one without stops the run.
python3 - "$REC" "$TMP" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head = rows[0]
def blank(keys, out):
    w = csv.writer(open(out, "w", newline=""), quoting=csv.QUOTE_MINIMAL)
    w.writerow(head)
    for r in rows[1:]:
        if r[head.index("config")] in keys:
            r = list(r)
            r[head.index("energy_j")] = r[head.index("power_w")] = ""
        w.writerow(r)
blank({"BLOCK=128,UNROLL=4,VEC=2"}, sys.argv[2] + "/holes.csv")   # the frugal one
blank({"BLOCK=64,UNROLL=1,VEC=1"}, sys.argv[2] + "/first.csv")    # the default
PY
"$KTUNE" tune --replay "$TMP/holes.csv" --strategy brute_force --objective energy --json >"$TMP/h.json"
python3 - "$TMP/h.json" "$REC" <<'PY' || fail "holes: $(cat "$TMP/h.json")"
import csv, json, sys
d = json.load(open(sys.argv[1]))
rows = {r["config"]: float(r["energy_j"]) for r in csv.DictReader(open(sys.argv[2]))
        if r["status"] == "ok" and r["config"] != "BLOCK=128,UNROLL=4,VEC=2"}
assert d["no_energy"] == 1, d["no_energy"]
assert d["best"]["key"] == min(rows, key=rows.get), d["best"]["key"]
PY
"$KTUNE" tune --replay "$TMP/holes.csv" --strategy brute_force --objective energy >"$TMP/h.txt"
grep -q '^1 correct without an energy reading: not ranked$' "$TMP/h.txt" || fail "holes: $(cat "$TMP/h.txt")"
expect_fail 1 "objective 'energy' needs the energy of the configurations, but the recording has none for BLOCK=64,UNROLL=1,VEC=1" \
    "$KTUNE" tune --replay "$TMP/first.csv" --strategy brute_force --objective energy
expect_fail 1 "objective 'energy' needs energy readings, and an energy window of 0 takes none" \
    "$KTUNE" tune tests/kernels/faulty.json --objective energy --energy-window 0 \
    --db "$TMP/x.db" --cache "$TMP/cache"
[ ! -e "$TMP/x.db" ] || fail "energy window 0: the run opened a database"
expect_fail 2 "unknown objective 'speed' \(time, energy, edp or pareto\)" \
    "$KTUNE" tune --replay "$REC" --objective speed
pass "no energy: one line for each objective that needs it (a recording without, a first row without, an energy window of 0); a later row without is not ranked; unknown objective: usage"

# A pareto run's front stays in the database: `ktune db front` gives it,
# fastest first, as the run printed it. This machine may read no energy,
# so nine live rows get made-up energies (the faster, the costlier: each
# correct one is on the front) and a second run answers from them.
ODB="$TMP/front.db"
"$KTUNE" tune tests/kernels/online.json --strategy random --budget 9 --seed 2 \
    --db "$ODB" --cache "$TMP/cache" >/dev/null 2>&1 || fail "live run"
expect_fail 1 "no time/energy front in '$ODB' \(hint: 'ktune tune --objective pareto' stores one\)" \
    "$KTUNE" db front --db "$ODB"
sqlite3 "$ODB" "UPDATE measurement SET energy_j = 1.0 / time_ms WHERE status = 'ok'"
"$KTUNE" tune tests/kernels/online.json --strategy random --budget 9 --seed 2 \
    --db "$ODB" --cache "$TMP/cache" --objective pareto --json >"$TMP/front.json" ||
    fail "pareto run: $(cat "$TMP/front.json")"
"$KTUNE" db front --db "$ODB" --json >"$TMP/dbfront.json" || fail "db front --json"
"$KTUNE" db front --db "$ODB" >"$TMP/dbfront.txt" || fail "db front"
python3 - "$TMP/front.json" "$TMP/dbfront.json" "$TMP/dbfront.txt" <<'PY' || fail "see above"
import json, sys
run, rows = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
text = open(sys.argv[3]).read().splitlines()
assert run["measured"] == 0 and len(run["front"]) >= 2, run
want = [p["key"] for p in run["front"]]
assert [r["config"] for r in rows] == [p["config"] for p in run["front"]], rows
assert [r["energy_j"] for r in rows] == [p["energy_j"] for p in run["front"]], rows
assert [line.split()[2] for line in text] == want, text
assert all(line.endswith(" J") for line in text), text
PY
expect_fail 1 "no time/energy front in '$ODB' for that filter" \
    "$KTUNE" db front --db "$ODB" --kernel other
pass "db front: a pareto run's stored front, fastest first with its energy, as the run gave it; none stored: one line"
