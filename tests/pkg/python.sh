# python.sh - the Python binding (python/ktune.py, ctypes over the freshly
# built libktune.so): errors become KtuneError with the library's message;
# a database that `ktune tune` filled is queried, a model trained on it
# predicts, runtime selection answers from it; where the library has the
# spec and tuning API, a spec, a problem, a tuning run and online tuning of
# a C kernel on the script's own buffers too.  Run by `make test-pkg`.
. "$(dirname "$0")/../cli/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
case $KTUNE in /*) ;; *) KTUNE=$ROOT/$KTUNE ;; esac
[ -e "$B/rel/libktune.so" ] || fail "no $B/rel/libktune.so: make all first"
export KTUNE_LIB="$B/rel/libktune.so" KTUNE_WORKER="$B/ktune-worker"
export PYTHONPATH="$ROOT/python" PYTHONDONTWRITEBYTECODE=1
cd "$TMP"
spec=$ROOT/tests/kernels/online.json

# Three tuned problems and a model of them, made by the command line.
for n in 4000 8000 16000; do
    "$KTUNE" tune "$spec" --problem N=$n --strategy random --budget 6 --db t.db \
        --cache cache >"$TMP/tune" 2>&1 || fail "tune: $(cat "$TMP/tune")"
done
"$KTUNE" train --db t.db --kernel online --model knn --out m.ktm >"$TMP/train" 2>&1 ||
    fail "train: $(cat "$TMP/train")"

python3 - "$spec" >"$TMP/out" 2>&1 <<'PY' || fail "python: $(cat "$TMP/out")"
import ctypes, sys, ktune
assert ktune.version().count(".") == 2
try:
    ktune.Database("absent.db")
    raise SystemExit("a missing database did not raise")
except ktune.KtuneError as e:
    assert e.code < 0 and "absent.db" in str(e), (e.name, str(e))
with ktune.Database("t.db") as db:
    rows = db.query(kernel="online", best=True)
    assert len(rows) == 3 and all(r["status"] == "ok" for r in rows), rows
    assert all("MODE=0" in r["config"] for r in rows), rows
    every = db.query(kernel="online", problem="N=4000")
    assert len(every) >= 3 and all(r["problem"] == "N=4000" for r in every), every

preds = ktune.Model("m.ktm").predict("N=12000", k=2, spec=sys.argv[1])
assert preds and "WORK=" in preds[0][0], preds

with ktune.Selector("t.db", sys.argv[1]) as sel:
    c = sel.select("N=8000")
    assert c.source == "database" and "MODE=0" in c.config, c
    c = sel.select("N=9000")
    assert c.source == "nearest" and c.from_problem == "N=8000", (c.source, c.from_problem)
    try:
        sel.select("M=3")
        raise SystemExit("a bad problem did not raise")
    except ktune.KtuneError as e:
        assert e.name == "EINVAL", e.name

if not hasattr(ktune._lib, "ktune_spec_load"):
    print("db, model, select; this libktune has no spec API yet")
    raise SystemExit(0)

spec = ktune.Spec(sys.argv[1])
assert spec.name == "online" and spec.params == ["WORK", "MODE"], spec.params
try:
    ktune.Spec("no-such-spec.json")
    raise SystemExit("a missing spec did not raise")
except ktune.KtuneError as e:
    assert e.name == "EIO" and "no-such-spec.json" in str(e), (e.name, str(e))
run = ktune.tune(spec, problem="N=2000", budget=4, strategy="random", db="t.db",
                 cache_dir="cache")
assert run.best_config and "MODE=0" in run.best_config, run
if not hasattr(ktune._lib, "ktune_online_open"):
    print("db, model, select, spec, tune; this libktune has no online API yet")
    raise SystemExit(0)

# Online tuning on the script's own buffers: y = 2x + 1.
n = 20000
x = (ctypes.c_float * n)(*[i % 13 for i in range(n)])
y = (ctypes.c_float * n)()
prob = ktune.Problem(spec, "N=%d" % n)
with ktune.Online(spec, db_path="t.db", cache_dir="cache", candidates=8) as on:
    for i in range(400):
        config, ms, explored = on.run(prob, [ctypes.c_int(n), x, y])
        assert "MODE=0" in config, config  # wrong ones never serve
        if i == 0:
            on.wait()
    assert all(y[i] == 2 * x[i] + 1 for i in range(0, n, 101))
    st = on.report(prob)
    assert st["calls"] == 400 and st["explored"] <= 41, st
print("db, model, select, spec, tune, online", st["best"])
PY
first=$(tail -1 "$TMP/out")
case $first in *"no spec API"*|*"no online API"*)
    pass "python: errors, query, predict and select through ktune.py ($first)"; exit 0 ;;
esac

# Every public function of include/ktune.h is reached from ktune.py.
n=0 missing=
for f in $(sed -n 's/^KTUNE_API [^(]*[ *]\(ktune_[a-z0-9_]*\)(.*/\1/p' "$ROOT/include/ktune.h"); do
    n=$((n + 1))
    grep -q "\"$f\"" "$ROOT/python/ktune.py" || missing="$missing $f"
done
[ "$n" -ge 134 ] || fail "found only $n KTUNE_API functions in ktune.h"
[ -z "$missing" ] || fail "ktune.py wraps no$missing"

# The rest of the API, each wrapper's results checked: data and tables,
# warnings, spaces, validation, a run's details and map, a replayed front,
# export and import, training, evaluation, analysis, the report, the
# strategy and transfer benchmarks, a selector over a loaded spec, hold.
mkdir sub
sed 's/"FormatVersion": 1}/"FormatVersion": 1, "Note": "x"}/' "$spec" >sub/warned.json
cp "$ROOT/tests/kernels/online.c" "$ROOT/tests/kernels/faulty_ref.c" sub/
python3 - "$ROOT" "$spec" >"$TMP/out2" 2>&1 <<'PY' || fail "python (API): $(cat "$TMP/out2")"
import ctypes, math, os, sys, ktune
root, spec_path = sys.argv[1], sys.argv[2]

# Every options struct the binding mirrors has the library's size (an
# _init writing past a shorter mirror corrupts the heap): _opts checks it.
inits = [f for f in vars(ktune).values()
         if isinstance(f, ctypes._CFuncPtr) and f.__name__.endswith("_init")
         and len(f.argtypes or ()) == 1 and hasattr(f.argtypes[0], "_type_")
         and "size" in dict(f.argtypes[0]._type_._fields_)]
assert len(inits) >= 11, [f.__name__ for f in inits]
for f in inits:
    ktune._opts(f.argtypes[0]._type_, f)

def raises(name, fn, *args, **kw):
    try:
        fn(*args, **kw)
    except ktune.KtuneError as e:
        assert e.name == name, (e.name, str(e))
        return str(e)
    raise SystemExit("%s%r did not raise %s" % (fn.__name__, args, name))

# Data, versions and the library's tables.
os.chdir("sub")  # data_path finds the repository from libktune.so, not from here
assert os.path.samefile(ktune.data_path("kernels/gemm/gemm-c.json"),
                        root + "/kernels/gemm/gemm-c.json")
assert "no/such" in raises("ENOTFOUND", ktune.data_path, "no/such")
os.chdir("..")
deps = dict(ktune.dependencies())
assert "SQLite" in deps and deps["SQLite"][0].isdigit(), deps
assert ktune.status_name(0) == "ok" and ktune.status_parse("crash") == 2
raises("ENOTFOUND", ktune.status_parse, "fine")
strategies = {s["name"]: s for s in ktune.strategies()}
assert strategies["brute_force"]["exhaustive"] and not strategies["random"]["exhaustive"]
assert ktune.strategy("map_elites")["implies_map"] and ktune.strategy("predict")["needs_model"]
assert "'nope'" in raises("ENOTFOUND", ktune.strategy, "nope")
assert ktune.objectives() == ["time", "energy", "edp", "pareto"], ktune.objectives()
assert ktune.targets() == ["time", "energy", "power"], ktune.targets()
methods = {m["name"]: m for m in ktune.methods()}
assert methods["cost"]["every_measurement"] and not methods["knn"]["every_measurement"]
ktune.blas_set_threads(1)
devs = ktune.devices()
assert devs and {d["backend"] for d in devs} <= {"cuda", "opencl"}, devs
assert all((d["ordinal"] >= 0) == (d["note"] == "") for d in devs), devs

# A spec's warnings reach the caller; its space; validation.
warned = []
ws = ktune.Spec("sub/warned.json", warn=warned.append)
assert len(warned) == 1 and "General.Note" in warned[0], warned
assert ktune.Spec(spec_path, space_only=True).params == ["WORK", "MODE"]
spec = ktune.Spec(spec_path)
assert spec.problem_defaults == {"N": 20000.0}, spec.problem_defaults
with ktune.Space(spec, "N=4000") as sp:
    configs = sp.configs()
    assert sp.count() == 21 and len(configs) == 21 and configs[0] == "WORK=1,MODE=0", configs
    assert sp.configs(limit=4) == configs[:4]
    sample = sp.sample(5, seed=3)
    assert len(set(sample)) == 5 and set(sample) <= set(configs), sample
    assert sp.cartesian == "21" and sp.ngroups >= 1, (sp.cartesian, sp.ngroups)
assert ktune.Space(spec, max_evals=1).count() == 21  # no conditions: nothing to bound
v = ktune.validate("sub/warned.json", warn=warned.append)
assert v.problems == [] and v.space == "21" and v.space_problem is None, v
assert len(warned) > 2 and "General.Note" in warned[1], warned  # and the T1 schema's
with open("bad.json", "w") as f:
    f.write(open(spec_path).read().replace('"Default": 16', '"Default": "x"'))
v = ktune.validate("bad.json")
assert v.problems and "bad.json" in v.problems[0], v

# A run's details, its map, a warning and progress.
seen = []
run = ktune.tune(spec, problem="N=3000", strategy="brute_force", db="t.db",
                 cache_dir="cache", map=True, progress=seen.append)
assert run.default_config == "WORK=16,MODE=0" and run.default["status"] == "ok", run.default
assert len(run.evaluated) == 21 and len(seen) == 21 and seen[-1]["done"] == 21
assert run.by_status["ok"] == 7 and sum(run.by_status.values()) == 21, run.by_status
assert run.best_config in [c for c, r in run.evaluated if r["status"] == "ok"]
assert "measure" in run.phases and run.phases["measure"] > 0, run.phases
assert run.front == [] and run.map and run.map.nfilled == len(run.map.elites) > 0
assert all(len(bins) == run.map.ndims for _, bins, _, _, _ in run.map.elites), run.map
assert all(lo <= hi for _, bins in run.map.dims for lo, hi in bins), run.map.dims
assert run.map.measured == [None] * run.map.ndims and run.map.unplaced == 0, run.map
assert run.energy_window_s == 0.3, run.energy_window_s  # no dimension reads energy
assert "twice" in raises("EINVAL", ktune.tune, spec, problem="N=3000", devices=[0, 0])
with ktune.MPI() as job:  # not started by mpirun: no job, the run is local
    assert (job.rank, job.size) == (0, 1)
    assert ktune.tune(spec, problem="N=3000", db="t.db", cache_dir="cache",
                      mpi=job).measured == 0  # every configuration is stored

# A replayed recording with energy: the time/energy front.
rec = root + "/tests/data/energy/saxpy-energy.csv"
run = ktune.tune(None, replay=rec, strategy="brute_force", objective="pareto",
                 cache_dir="cache")
fr = run.front
assert len(fr) >= 2 and all(r["status"] == "ok" for _, r in fr), fr
assert run.energy_window_s == 0, run.energy_window_s  # a replay measures nothing
assert all(a[1]["time_ms"] <= b[1]["time_ms"] and a[1]["energy_j"] > b[1]["energy_j"]
           for a, b in zip(fr, fr[1:])), fr
raises("ENOTFOUND", ktune.tune, None, replay=rec, objective="joules")

# Export and import, training, evaluation.
with ktune.Database("t.db") as db:
    csv = db.export("csv", kernel="online", ok_only=True)
    lines = csv.splitlines()
    assert lines[0].startswith("created,device,kernel") and len(lines) > 4, lines[:2]
    assert all(",\"online\"," in line for line in lines[1:]), lines[1]
    assert db.export("json", kernel="online", problem="N=3000", best=True).count("WORK") == 2
    assert db.query(front=True) == []  # no pareto run stored a front here
    assert "both best and front" in raises("EINVAL", db.query, best=True, front=True)
    raises("ENOTFOUND", db.export, "xml")
    model = db.train("online", method="knn", holdout=0.25, seed=2)
with open("ok.csv", "w") as f:
    f.write(csv)
with ktune.Database("copy.db", create=True) as db:
    st = db.import_("csv", "ok.csv")
    assert st["rows"] == st["added"] == len(lines) - 1, st
    assert db.import_("csv", "ok.csv")["added"] == 0
with ktune.Database("merged.db", create=True) as db:
    st = db.merge("t.db")
    assert st["rows"] == st["added"] > len(lines) - 1 and st["replaced"] == 0, st
    assert db.merge("t.db")["added"] == 0
    assert db.export("csv", kernel="online", ok_only=True) == csv
    raises("EINVAL", db.merge, "merged.db")
# Two runs' readings of one configuration, merged as their mean.
for name, ms, joules in (("r1", 2, 10), ("r2", 4, None)):
    with open(name + ".csv", "w") as f:
        f.write(lines[0] + "\n" + '"2026-11-24T00:00:00Z","gpu","syn","h","N=1","A=1",'
                '"ok",%g,%g,0,0,%s,,,10,""\n' % (ms, ms, "" if joules is None else joules))
    with ktune.Database(name + ".db", create=True) as db:
        db.import_("csv", name + ".csv")
with ktune.Database("mean.db", create=True) as db:
    st = db.merge_mean(["r1.db", "r2.db"])
    assert st == {"inputs": [{"rows": 1, "added": 1, "replaced": 0},
                             {"rows": 1, "added": 0, "replaced": 0}],
                  "averaged": 1, "readings": 2, "versions": 0}, st
    (r,) = db.query(kernel="syn")
    assert r["time_ms"] == 3 and r["min_ms"] == 2 and r["energy_j"] == 10, r
    assert "given twice" in raises("EINVAL", db.merge_mean, ["r1.db", "r1.db"])
with ktune.Database("r1.db") as r1, ktune.Database("r2.db") as r2:
    st = r1.retest(r2)  # one pair: time 2 against 4; energy in r1 only
    assert st["time"]["pairs"] == 1 and abs(st["time"]["rms"] - 2 / 3) < 1e-12, st
    assert st["time"]["offset"] == -0.5 and st["energy"]["pairs"] == 0, st
    assert "no configuration" in raises("ENOTFOUND", r1.retest, r2, kernel="other")
with ktune.Database("copy.db") as db:
    st = db.import_("kerneltuner", root + "/tests/data/kerneltuner/vector_add_a4000.json")
    assert st["kernel"] == "vector_add" and st["ok"] > 10, st
    # time = (1 + |A - 2|) (1 + B / 10): A matters most, B less.
    with open("syn.csv", "w") as f:
        f.write(lines[0] + "\n")
        for a in range(5):
            for b in range(1, 5):
                t = (1 + abs(a - 2)) * (1 + b / 10)
                f.write('"2026-11-24T00:00:00Z","gpu","syn","h","N=1","A=%d,B=%d","ok",'
                        '%g,%g,0,0,%g,%g,0,10,""\n' % (a, b, t, t, t * (100 + 20 * b) / 1000,
                                                       100 + 20 * b))
    db.import_("csv", "syn.csv")
    an = db.analyze("syn", rounds=40)
    assert an.rows == 20 and an.features == ["A", "B"] and an.tuning == 2, an
    assert set(an.fit) == {"time", "energy", "power"} and an.fit["time"]["r2"] > 0.5, an.fit
    assert an.importance["time"][0]["feature"] == "A", an.importance["time"]
    assert an.interactions["time"][0][:2] == ("A", "B"), an.interactions
    assert len(an.dependence["time"]["A"]) == 5, an.dependence
    assert an.ablation[0]["feature"] == "A" and an.ablation[0]["cost"] > 2.5 and an.agrees
    assert an.check == "agree" and an.ablation[1]["sd"] == 0, an.ablation
    assert [x["check"] for x in an.ablation[:2]] == ["none", "agree"], an.ablation
    assert an.importance["time"][0]["cost"] > 2 and an.importance["time"][0]["worst"] in "04"
    an = db.analyze("syn", rounds=40, weights=False)  # every row weighing the same
    assert an.rows == 20 and an.fit["time"]["r2"] > 0.5, an.fit
    an = db.analyze("syn", rounds=40, targets=["time"], reading_noise=0.02)
    assert an.reading_noise == 0.02 and abs(an.ablation[1]["sd"] - 0.02 * 2 ** 0.5) < 1e-9, an
    assert an.repeats == 1 and an.fit["time"]["r2_sd"] == 0, an.fit
    an = db.analyze("syn", rounds=40, targets=["time"], repeats=3)  # three fold seeds' means
    assert an.repeats == 3 and an.fit["time"]["r2_sd"] > 0, an.fit
    raises("ENOTFOUND", db.analyze, "nosuch")
    rep = db.report(kernel="syn", title="py <report>", no_analysis=True)
    assert rep.html.lstrip().lower().startswith("<!doctype html") and rep.kernels == 1
    assert rep.measurements == 20 and rep.figures > 0 and "py &lt;report&gt;" in rep.html
    raises("ENOTFOUND", db.report, kernel="nosuch")
info = model.info
assert (info.method, info.kernel, info.outputs) == ("knn", "online", ["WORK", "MODE"]), info
assert info.inputs == ["N"] and info.ntest >= 1 and model.candidates == [], info
model.save("k.ktm")
assert ktune.Model("k.ktm").predict("N=3000") == model.predict("N=3000")
ev_warned = []
ev = model.evaluate(widths=[1, 3], spec="sub/warned.json", warn=ev_warned.append)
assert len(ev_warned) == 1 and "'General.Note'" in ev_warned[0], ev_warned
assert ev.samples == info.ntest and set(ev.perfect) == {1, 3} and ev.valid == 100, ev
raises("EINVAL", model.evaluate, widths=[0])

# Benchmarks of strategies and of transfer, and a transferred run.
b = ktune.benchmark(None, rec, strategies=["random", "brute_force"], budgets=[4, 8],
                    seeds=3)
assert [(r["strategy"], r["budget"]) for r in b.rows] == [
    ("random", 4), ("random", 8), ("brute_force", 4), ("brute_force", 8)], b.rows
assert 0 < b.rows[1]["fraction"]["mean"] <= 1 and b.optimum_config and b.space > 8
assert len(b.curves["random"]) == 8 and b.curves["random"][-1] == b.rows[1]["fraction"]["mean"]
raises("EINVAL", ktune.benchmark, None, rec, strategies=["nope"])
D = root + "/tests/data/transfer/"
A, B, C = D + "rtx2080ti.json", D + "rtx3060.json", D + "rtx3090.json"
with ktune.Transfer([A, B]) as t:
    assert len(t.devices) == 2 and t.kernel == "cn_pnpoly", (t.kernel, t.devices)
    scores = [s for _, s in t.configs]
    assert scores[0] == max(scores) and 0 < scores[0] <= 1, scores[:3]
    run = ktune.tune(None, replay=C, transfer=t, budget=3, top=2)
    assert [c for c, _ in run.evaluated[1:3]] == [c for c, _ in t.configs[:2]], run.evaluated
assert "closed" in raises("EINVAL", lambda: t.kernel)  # not a crash
raises("EFORMAT", ktune.Transfer, [C, C])
tb = ktune.transfer_benchmark([A, B, C], budgets=[2], seeds=2)
assert tb.kernel == "cn_pnpoly" and tb.rows[-1]["device"] is None, tb.rows
assert all(0 <= r["transfer"] <= 1 for r in tb.rows), tb.rows

# A selector over a loaded spec, by values; the online hold.
with ktune.Selector("t.db", spec) as sel:
    assert sel.problem_names == ["N"] and sel.problem("N=3000") == [3000]
    c = sel.select_values(sel.problem("N=3000"))
    assert c.source == "database" and c.config == sel.select("N=3000").config, c
    assert len(sel) >= 4 and sel.refresh() is False
    raises("EINVAL", sel.problem, "M=1")
# The warnings of specs the library loads itself: a selector's spec path,
# an import's folder of solver specs.
warned = []
with ktune.Selector("t.db", "sub/warned.json", warn=warned.append) as sel:
    assert sel.select("N=3000").config, sel
assert len(warned) == 1 and "'General.Note'" in warned[0], warned
import sqlite3
os.mkdir("specs")
with open("specs/ToySolver.json", "w") as f:
    f.write('{"ConfigurationSpace": {"TuningParameters": [{"Name": "p0", "Type": "int", '
            '"Values": "[1, 2]"}], "Conditions": [], "ProblemParameters": [{"Name": '
            '"in_channels", "Default": 1}]}, "KernelSpecification": {"Language": "None", '
            '"KernelName": "ToySolver"}, "Note": 1}')
perf = sqlite3.connect("gfx000_1.db")
perf.executescript("CREATE TABLE config (id INTEGER PRIMARY KEY, in_channels INT);"
                   "CREATE TABLE perf_db (id INTEGER PRIMARY KEY, solver TEXT, config INT,"
                   " params TEXT); INSERT INTO config VALUES (1, 8), (2, 16);"
                   "INSERT INTO perf_db VALUES (1, 'ToySolver', 1, '1'),"
                   " (2, 'ToySolver', 2, '2');")
perf.commit()
perf.close()
with ktune.Database("copy.db") as db:
    st = db.import_("miopen", "gfx000_1.db", spec_dir="specs", warn=warned.append)
assert st["rows"] == 2 and st["named"] == 2 and st["device"] == "gfx000_1", st
assert len(warned) == 2 and "ToySolver.json: warning: unknown key 'Note'" in warned[1], warned
n = 5000
x = (ctypes.c_float * n)(*range(n))
y = (ctypes.c_float * n)()
prob = ktune.Problem(spec, "N=%d" % n)
with ktune.Online(spec, db_path="t.db", cache_dir="cache", candidates=4) as on:
    on.run(prob, [ctypes.c_int(n), x, y])
    assert on.hold(wait=True) is True
    on.run(prob, [ctypes.c_int(n), x, y])
    assert y[7] == 15
print("API: %d strategies, %d front points, transfer median %.2f" % (
    len(strategies), len(fr), tb.rows[-1]["transfer"]))
PY
pass "python: errors, query, predict, select, spec, tune, online ($first); the whole API ($(tail -1 "$TMP/out2"))"
