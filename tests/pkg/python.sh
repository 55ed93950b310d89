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
pass "python: errors, query, predict and select through ktune.py ($(tail -1 "$TMP/out"))"
