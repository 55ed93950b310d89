# map_measured.sh - MAP-Elites along a measured dimension, through --replay
# of the synthetic time/energy recording (tests/data/energy, as
# objective.sh): a spec of its space whose behaviour dimensions are BLOCK
# and the measured energy per call.  A run of the whole space leaves, cell
# by cell, the map computed here from the recording (energy bins the
# quantiles of the recorded energies, each cell's best by the objective);
# rows whose energy was not read are counted and not placed, and the bins
# are cut without them; a shorter run's map is consistent with the
# recording; a map along energy with an energy window of 0 and a spec that
# gives both Expression and Measured are one-line errors.
. "$(dirname "$0")/lib.sh"
REC=tests/data/energy/saxpy-energy.csv
cat >"$TMP/saxpy.json" <<'EOF'
{"General": {"BenchmarkName": "saxpy-energy", "FormatVersion": 1},
 "ConfigurationSpace": {
   "TuningParameters": [
     {"Name": "BLOCK", "Type": "int", "Values": "[64, 128, 256, 512]", "Default": 64},
     {"Name": "UNROLL", "Type": "int", "Values": "[1, 2, 4]", "Default": 1},
     {"Name": "VEC", "Type": "int", "Values": "[1, 2, 4]", "Default": 1}],
   "ProblemParameters": [{"Name": "N", "Default": 1048576}],
   "BehaviourDimensions": [
     {"Name": "block", "Expression": "BLOCK"},
     {"Name": "energy", "Measured": "energy", "Bins": 3}]},
 "KernelSpecification": {"Language": "None", "KernelName": "saxpy"}}
EOF
tune() {
    rec=$1; shift
    "$KTUNE" tune "$TMP/saxpy.json" --replay "$rec" --cache "$TMP/cache" \
        --strategy map_elites --json "$@"
}

# The recording with the energy of three configurations not read.
python3 - "$REC" "$TMP/holes.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head = rows[0]
w = csv.writer(open(sys.argv[2], "w", newline=""))
w.writerow(head)
for r in rows[1:]:
    if r[head.index("config")] in ("BLOCK=64,UNROLL=4,VEC=2", "BLOCK=256,UNROLL=1,VEC=1",
                                   "BLOCK=512,UNROLL=2,VEC=4"):
        r[head.index("energy_j")] = r[head.index("power_w")] = ""
    w.writerow(r)
PY

tune "$REC" --budget 36 >"$TMP/full.time.json"
tune "$REC" --budget 36 --objective energy >"$TMP/full.energy.json"
tune "$TMP/holes.csv" --budget 36 >"$TMP/holes.json"
for seed in 1 2 3; do
    tune "$REC" --budget 12 --seed $seed >"$TMP/part.$seed.json"
done

python3 - "$REC" "$TMP" <<'PY' || fail "see above"
import csv, json, sys
rec, tmp = sys.argv[1:]
BLOCKS = [64, 128, 256, 512]
def recording(path):
    """config -> (time, energy or None) of the correct rows."""
    out = {}
    for r in csv.DictReader(open(path)):
        if r["status"] == "ok":
            out[r["config"]] = (float(r["time_ms"]),
                                float(r["energy_j"]) if r["energy_j"] else None)
    return out
def block_bin(key):
    return BLOCKS.index(int(key.split(",")[0].split("=")[1]))
def quantile_bins(values, want):
    """[(lo, hi)] of the distinct values cut into min(n, want) equal runs."""
    v = sorted(set(values))
    n, nb = len(v), min(len(v), want)
    return [(min(x for r, x in enumerate(v) if r * nb // n == b),
             max(x for r, x in enumerate(v) if r * nb // n == b)) for b in range(nb)]
def bin_of(bins, x):
    return next(b for b, (lo, hi) in enumerate(bins) if lo <= x <= hi)
def check_dims(m):
    d0, d1 = m["dimensions"]
    assert d0["name"] == "block" and "measured" not in d0, d0
    assert d1["name"] == "energy" and d1["measured"] == "energy", d1
    assert d0["bins"] == [[b, b] for b in BLOCKS], d0
    return d1["bins"]

def check_full(path, rows, cost, unplaced):
    m = json.load(open(path))["map"]
    bins = check_dims(m)
    placed = {k: p for k, p in rows.items() if p[1] is not None}
    want_bins = quantile_bins([p[1] for p in placed.values()], 3)
    assert [tuple(b) for b in bins] == want_bins, (path, bins, want_bins)
    want = {}
    for k, p in placed.items():
        c = (block_bin(k), bin_of(want_bins, p[1]))
        if c not in want or cost(p) < cost(placed[want[c]]):
            want[c] = k
    assert m["cells"] == 4 * len(want_bins) and m["unplaced"] == unplaced, (path, m)
    got = {tuple(e["bins"]): e for e in m["elites"]}
    assert m["filled"] == len(m["elites"]) == len(want) and set(got) == set(want), \
        (path, sorted(got), sorted(want))
    for c, e in got.items():
        k = want[c]
        assert e["key"] == k, (path, c, e["key"], k)
        assert e["cell"] == c[0] * len(want_bins) + c[1], (path, e)
        assert abs(e["time_ms"] - rows[k][0]) < 1e-12 and abs(e["energy_j"] - rows[k][1]) < 1e-12
    return len(want)

full = recording(rec)
energies = [p[1] for p in full.values()]
assert len(set(energies)) == len(energies) == 35, "the recording's energies must differ"
n = check_full(f"{tmp}/full.time.json", full, lambda p: p[0], 0)
check_full(f"{tmp}/full.energy.json", full, lambda p: p[1], 0)
check_full(f"{tmp}/holes.json", recording(f"{tmp}/holes.csv"), lambda p: p[0], 3)
print(f"  the whole space: {n} of 12 cells filled")

# A run of 12: its bins are quantiles of the energies it placed (its
# correct evaluations), each elite lies in its cell as recorded.
for seed in (1, 2, 3):
    d = json.load(open(f"{tmp}/part.{seed}.json"))
    m = d["map"]
    bins = check_dims(m)
    placed = d["statuses"]["ok"]  # the compile error is a failure, not unplaced
    assert d["measured"] == 12 and placed >= 11 and m["unplaced"] == 0, d
    assert len(bins) == 3 and m["cells"] == 12, m
    assert all(lo <= hi for lo, hi in bins), bins
    assert all(bins[b][1] < bins[b + 1][0] for b in range(2)), bins
    assert all(x in energies for b in bins for x in b), bins
    for b, (lo, hi) in enumerate(bins):  # bin b holds its share of what was placed
        share = sum(1 for r in range(placed) if r * 3 // placed == b)
        assert sum(1 for x in energies if lo <= x <= hi) >= share, (seed, bins, b)
    for e in m["elites"]:
        t, j = full[e["key"]]
        assert e["time_ms"] == t and e["energy_j"] == j, e
        assert e["bins"] == [block_bin(e["key"]), bin_of(bins, j)], (seed, e, bins)
PY
pass "a run of the whole space: the map along BLOCK and measured energy, cell by cell as computed from the recording (time and energy objectives)"
pass "rows without energy are counted, not placed, and the bins are cut without them"
pass "a run of a third of the space: quantile bins of the energies it placed, each elite in its cell"

# The text map says which dimension is measured, and what was not placed.
"$KTUNE" tune "$TMP/saxpy.json" --replay "$TMP/holes.csv" --cache "$TMP/cache" \
    --strategy map_elites --budget 36 >"$TMP/holes.txt"
grep -q "^map      [0-9]* of 12 cells filled over block (4 bins), energy (measured: energy in J per call, 3 bins)$" \
    "$TMP/holes.txt" || fail "text map: $(cat "$TMP/holes.txt")"
grep -q "^         3 correct evaluations not placed: " "$TMP/holes.txt" ||
    fail "text map, unplaced: $(cat "$TMP/holes.txt")"
pass "the text map names the measured dimension and counts what it could not place"

# Every dimension measured: the run fills at random, then breeds.
sed 's/"Name": "block", "Expression": "BLOCK"/"Name": "time", "Measured": "time"/' \
    "$TMP/saxpy.json" >"$TMP/all.json"
"$KTUNE" tune "$TMP/all.json" --replay "$REC" --cache "$TMP/cache" --strategy map_elites \
    --budget 12 --json >"$TMP/all.out"
python3 - "$TMP/all.out" <<'PY' || fail "every dimension measured: $(cat "$TMP/all.out")"
import json, sys
d = json.load(open(sys.argv[1]))
m = d["map"]
assert d["measured"] == 12 and [x["measured"] for x in m["dimensions"]] == ["time", "energy"]
assert m["cells"] == 12 and 1 <= m["filled"] <= 12, m
PY
pass "a spec whose every dimension is measured runs"

cp kernels/gemm/gemm.c kernels/gemm/gemm_ref.c "$TMP/"
sed 's/"Name": "register tile", "Expression": "MR \* NR"/"Name": "register tile", "Measured": "energy"/' \
    kernels/gemm/gemm-c.json >"$TMP/gemm-e.json"
grep -q '"Measured": "energy"' "$TMP/gemm-e.json" || fail "gemm-e.json: no Measured"
expect_fail 1 "gemm-e.json: behaviour dimension 'register tile' is the measured energy, and an energy window of 0 takes no energy readings" \
    "$KTUNE" tune "$TMP/gemm-e.json" --strategy map_elites --energy-window 0 \
    --db "$TMP/g.db" --cache "$TMP/cache"
sed 's/"Name": "register tile", "Expression": "MR \* NR"/"Name": "register tile", "Expression": "MR * NR", "Measured": "energy"/' \
    kernels/gemm/gemm-c.json >"$TMP/both.json"
expect_fail 1 "both.json: ConfigurationSpace.BehaviourDimensions\[0\]: give Expression or Measured, not both" \
    "$KTUNE" tune "$TMP/both.json" --strategy map_elites --db "$TMP/g.db"
[ "$(wc -l <"$TMP/err")" = 1 ] || fail "both: $(cat "$TMP/err")"
pass "a measured energy dimension with no energy readings, and Expression with Measured, are one-line errors"

# The default energy window: 1 s where a map places configurations by their
# measured energy (MAP-Elites, or any strategy with --map), else the time
# default (0.3 s); a window asked for stays; a replay measures nothing (0).
# The CPU backend reads no energy, so these runs only check the choice.
has_window() { # JSON EXPECTED: the run's energy_window_s is EXPECTED
    python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["energy_window_s"] != float(sys.argv[2]))' "$@"
}
window() { # SPEC EXPECTED TUNE-OPTIONS...
    spec=$1 want=$2; shift 2
    "$KTUNE" tune "$spec" --problem M=64,N=64,K=64 --budget 1 --warm 0 --db "$TMP/w.db" \
        --cache "$TMP/cache" --json "$@" >"$TMP/w.json"
    has_window "$TMP/w.json" "$want" || fail "$spec $*: $(grep energy_window "$TMP/w.json")"
}
window "$TMP/gemm-e.json" 1 --strategy map_elites
window "$TMP/gemm-e.json" 1 --strategy random --map
window "$TMP/gemm-e.json" 0.3 --strategy random
window kernels/gemm/gemm-c.json 0.3 --strategy map_elites
window "$TMP/gemm-e.json" 2 --strategy map_elites --energy-window 2
has_window "$TMP/full.time.json" 0 || fail "a replay: $(grep energy_window "$TMP/full.time.json")"
pass "the default energy window is 1 s with a map along measured energy, else 0.3 s; a replay's is 0"

# The report's map of the same rows (a database of the recording with
# holes): its energy bins are the run's, and it counts the rows without.
"$KTUNE" import csv "$TMP/holes.csv" --db "$TMP/holes.db" >/dev/null
"$KTUNE" report --db "$TMP/holes.db" --spec "$TMP/saxpy.json" --output "$TMP/r.html" >/dev/null
grep -q "measured: energy, its bins the quantiles of the values of the rows placed (3 rows without the value are not)" \
    "$TMP/r.html" || fail "report: the map does not say energy is measured"
python3 - "$TMP/holes.json" "$TMP/r.html" <<'PY' || fail "report: energy bins"
import json, re, sys
bins = json.load(open(sys.argv[1]))["map"]["dimensions"][1]["bins"]
want = ["%s-%s" % (format(lo, "g"), format(hi, "g")) for lo, hi in bins]
page = open(sys.argv[2]).read()
fig = page[page.index('data-kind="map"'):]
fig = fig[:fig.index("</figure>")]
got = re.findall(r'text-anchor="end">([0-9.e-]+-[0-9.e-]+)</text>', fig)
assert got == want, (got, want)
PY
pass "the report's map along measured energy: the run's bins, the rows without energy counted"
