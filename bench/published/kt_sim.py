#!/usr/bin/env python3
"""kt_sim.py - Kernel Tuner's own optimisation algorithms, run in Kernel
Tuner's simulation mode on the held-out recordings (bench/data/public/), so
that ktune's default can be compared with the published algorithms
themselves (docs/SEARCH.md, "GPU recordings").  Kernel Tuner is a tool for
this benchmark only, like Triton for the GPU baselines: it is never part of
ktune; README.md beside this file says how to obtain it.

    python3 bench/published/kt_sim.py --kt DIR --constraint DIR --out RUNS.jsonl
        [--data bench/data/public] [--seeds 10] [--budgets 25,50,100,200,400]
        [--strategies a,b,...] [--only SUBSTRING] [--jobs 16] [--wall S]
        [--run-limit S]

--kt is a directory holding Kernel Tuner's `kernel_tuner` package (a release
tree), --constraint one holding python-constraint's `constraint` package.
Every (recording, strategy, seed) task runs each budget B as its own
`tune_kernel(..., simulation_mode=True, strategy=S, strategy_options=
{"max_fevals": B})`, seeded through Python's and NumPy's global generators,
and writes one JSON line per run to --out as it finishes: the mean fraction
of the optimum is then computed by table.py exactly as `ktune benchmark`
does (src/tune/benchmark.c): the recording's optimum (its fastest correct
configuration) over the best correct time among the first B distinct
configurations the run evaluated, 0 if none of them ran correctly; a failed
configuration (compile or runtime failure in the recording) costs an
evaluation; configurations outside the recording are outside the space.
Tasks go seed by seed, so that --wall (seconds; tasks not started by then
are skipped) leaves whole seeds.

What is not Kernel Tuner's own code here: the space is restricted to the
recorded configurations (a restriction function, as Kernel Tuner 1.4's
tune_cache does, but keeping failed ones in the space as ktune and the
recordings' authors do); the cache file is read once per process (Kernel
Tuner would re-read and rewrite it in every call; the content is the same);
the search space is built once per recording and process (memoised, the
same list each time); NumPy 2 removed aliases that Kernel Tuner 0.4.3 still
uses (np.NaN), which are put back.
"""
import argparse
import bz2
import json
import math
import multiprocessing as mp
import os
import random
import signal
import sys
import tempfile
import time
import traceback
from collections import OrderedDict

STRATEGIES = ("random_sample", "genetic_algorithm", "simulated_annealing", "pso",
              "firefly_algorithm", "diff_evo", "mls", "greedy_mls", "greedy_ils",
              "ordered_greedy_mls", "basinhopping", "dual_annealing", "minimize",
              "bayes_opt")

# ------------------------------------------------------------- recordings


def load_recording(path):
    """A trimmed cache: its keys, tune_params and per-entry time (a number
    or a failure marker)."""
    d = json.loads(bz2.decompress(open(path, "rb").read()))
    if isinstance(d["problem_size"], int):
        d["problem_size"] = [d["problem_size"]]
    return d


def value_of(token, values):
    """The tune_params value whose str() is token (cache keys are made so)."""
    for v in values:
        if str(v) == token:
            return v
    raise ValueError(f"value {token} not among {values}")


def write_cache(d, path):
    """Kernel Tuner's cache layout with the parameter values in each entry,
    as Kernel Tuner writes them (the trimmed files keep them in the key
    only); entries listed in key order, so the first is the recording's
    first (ktune's default)."""
    keys = d["tune_params_keys"]
    cache = OrderedDict()
    for k, e in d["cache"].items():
        entry = OrderedDict((p, value_of(t, d["tune_params"][p]))
                            for p, t in zip(keys, k.split(",")))
        entry["time"] = e["time"]
        cache[k] = entry
    out = OrderedDict(device_name=d["device_name"], kernel_name=d["kernel_name"],
                      problem_size=d["problem_size"], tune_params_keys=keys,
                      tune_params=d["tune_params"], objective="time", cache=cache)
    with open(path, "w") as f:  # Kernel Tuner 0.4 reads a file ending "}\n}" as closed
        f.write(json.dumps(out)[:-1] + "\n}")
    times = [e["time"] for e in d["cache"].values() if isinstance(e["time"], (int, float))]
    return min(times), len(d["cache"])


# ------------------------------------------------------------- the worker

W = {}          # per process: Kernel Tuner, its version, memoised recordings


def shim_numpy():
    import numpy as np
    for name, val in (("NaN", np.nan), ("Inf", np.inf), ("infty", np.inf),
                      ("float_", np.float64), ("product", np.prod)):
        if not hasattr(np, name):
            setattr(np, name, val)


STUBS = {"jsonschema": ("validate", "ValidationError"), "xmltodict": ("parse",)}


def stub_absent():
    """Kernel Tuner imports jsonschema and xmltodict at module level but
    calls them only to validate T1/T4 files (jsonschema.validate) and to
    read nvidia-smi's XML (xmltodict.parse), never in simulation mode; where
    they are absent a stub stands in that fails loudly if ever called."""
    import importlib.util
    import types
    stubbed = []
    for name, attrs in STUBS.items():
        if importlib.util.find_spec(name) is None:
            mod = types.ModuleType(name)

            def called(*a, _n=name, **k):
                raise RuntimeError(f"kt_sim.py: stub {_n} called")
            for at in attrs:
                setattr(mod, at, called)
            sys.modules[name] = mod
            stubbed.append(name)
    return stubbed


def worker_init(kt_dir, constraint_dir):
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if W:
        return      # forked from a warmed-up main process
    sys.path[:0] = [kt_dir, constraint_dir]
    shim_numpy()
    W["stubbed"] = stub_absent()
    import warnings
    warnings.simplefilter("ignore")
    import kernel_tuner
    from kernel_tuner import util, interface
    W["kt"], W["util"], W["interface"] = kernel_tuner, util, interface
    W["v1"] = hasattr(interface, "tune_cache")
    W["recs"] = {}
    memo_cache_reads(util)
    memo_searchspace()


def memo_cache_reads(util):
    """Read each cache file once per process; later calls get a fresh
    top-level dict over the same entries, and the file is never rewritten."""
    orig = util.read_cache
    memo = {}

    def read_cache(path, open_cache=True):
        if path not in memo:
            memo[path] = orig(path, open_cache=False)
        d = memo[path]
        return dict(d, cache=dict(d["cache"]))
    util.read_cache = read_cache
    for mod in list(sys.modules.values()):
        if getattr(mod, "__name__", "").startswith("kernel_tuner") and \
                getattr(mod, "read_cache", None) is orig:
            mod.read_cache = read_cache


def memo_searchspace():
    """Build each recording's search space once per process: the private
    builder is wrapped, everything else of Searchspace runs as released."""
    from kernel_tuner import searchspace as ss
    cls = ss.Searchspace
    name = next(n for n in dir(cls) if n.endswith("__build_searchspace"))
    orig = getattr(cls, name)
    memo = {}

    def build(self, *args, **kw):
        plain = (int, float, str, bool, list, tuple, type(None))   # not the solver object
        key = (W.get("current"), repr([a for a in args if isinstance(a, plain)]),
               repr(sorted((k, v) for k, v in kw.items() if isinstance(v, plain))))
        if key not in memo:
            memo[key] = orig(self, *args, **kw)
        r = memo[key]
        if isinstance(r, tuple) and r and isinstance(r[0], list):
            return (list(r[0]),) + tuple(r[1:])
        return r
    setattr(cls, name, build)


def restriction(d):
    """Only the recorded configurations (failed ones included) exist."""
    keys = d["tune_params_keys"]
    space = set(d["cache"])
    if W["v1"]:
        from constraint import FunctionConstraint
        return [FunctionConstraint(lambda *v: ",".join(map(str, v)) in space)]
    return lambda p: ",".join(str(p[k]) for k in keys) in space


def recording(name, path):
    if name not in W["recs"]:
        d = json.load(open(path))
        W["recs"][name] = (d, restriction(d))
    return W["recs"][name]


def score(d, results, budget, optimum):
    """ktune benchmark's fraction: optimum over the best correct time among
    the first `budget` distinct configurations evaluated; 0 if none."""
    keys = d["tune_params_keys"]
    seen, best = set(), math.inf
    for r in results:
        k = ",".join(str(r[p]) for p in keys)
        if k in seen:
            continue
        if len(seen) == budget:
            break
        seen.add(k)
        t = r.get("time")
        if "__error__" not in r and isinstance(t, (int, float)) and math.isfinite(t):
            best = min(best, t)
    return (optimum / best if math.isfinite(best) else 0.0), len(seen), best


class RunTimeout(Exception):
    pass


def on_alarm(signum, frame):
    raise RunTimeout()


def run_task(task):
    name, path, optimum, strategy, seed, budgets, run_limit = task
    d, restr = recording(name, path)
    W["current"] = name
    out = []
    for b in budgets:
        random.seed(seed)
        import numpy as np
        np.random.seed(seed)
        t0 = time.perf_counter()
        row = dict(recording=name, strategy=strategy, budget=b, seed=seed)
        signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, run_limit)
        try:
            kw = dict(restrictions=restr, strategy=strategy, lang="CUDA",
                      strategy_options={"max_fevals": b}, cache=path,
                      simulation_mode=True, quiet=True, verbose=False)
            res, _ = W["kt"].tune_kernel(d["kernel_name"], "", d["problem_size"], [],
                                         OrderedDict(d["tune_params"]), **kw)
            signal.setitimer(signal.ITIMER_REAL, 0)
            row["fraction"], row["evals"], best = score(d, res, b, optimum)
            row["best_ms"] = best if math.isfinite(best) else None
            row["results"] = len(res)
        except RunTimeout:
            row["error"] = f"over {run_limit} s"
        except Exception as e:  # recorded, not fatal: the table shows it
            signal.setitimer(signal.ITIMER_REAL, 0)
            row["error"] = f"{type(e).__name__}: {e}"[:300]
            row["trace"] = traceback.format_exc()[-1500:]
        row["seconds"] = round(time.perf_counter() - t0, 4)
        out.append(row)
    return out


# ------------------------------------------------------------------ main


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kt", required=True)
    ap.add_argument("--constraint", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--data", default="bench/data/public")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--budgets", default="25,50,100,200,400")
    ap.add_argument("--strategies", default=",".join(STRATEGIES))
    ap.add_argument("--only", default="")
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--wall", type=float, default=1e9)
    ap.add_argument("--run-limit", type=float, default=120)
    a = ap.parse_args()
    t_start = time.time()
    budgets = [int(x) for x in a.budgets.split(",")]
    strategies = a.strategies.split(",")
    tmp = tempfile.mkdtemp(prefix="kt_sim.")
    recs = []
    for kernel in sorted(os.listdir(a.data)):
        kdir = os.path.join(a.data, kernel)
        if not os.path.isdir(kdir):
            continue
        for f in sorted(os.listdir(kdir)):
            name = f"{kernel}-{f[:-len('.json.bz2')]}"
            if f.endswith(".json.bz2") and a.only in name:
                path = os.path.join(tmp, name + ".json")
                optimum, size = write_cache(load_recording(os.path.join(kdir, f)), path)
                recs.append((name, path, optimum, size))
    # seed-major order: a wall limit leaves whole seeds; slow strategies first
    tasks = [(n, p, o, s, seed, budgets, a.run_limit)
             for seed in range(a.first_seed, a.first_seed + a.seeds)
             for s in strategies for n, p, o, _ in recs]
    kt_dir = os.path.abspath(a.kt)
    # warm up here, then fork: the workers inherit every recording's cache
    # and search space instead of each building them again
    t0 = time.time()
    worker_init(kt_dir, os.path.abspath(a.constraint))
    for n, p, o, _ in recs:
        run_task((n, p, o, "random_sample", 0, [1], 600))
    signal.signal(signal.SIGINT, signal.default_int_handler)
    warm_s = time.time() - t0
    print(f"kt_sim: {len(recs)} recordings loaded in {warm_s:.0f} s; stubs: {W['stubbed']}",
          file=sys.stderr)
    with open(a.out, "w") as out:
        out.write(json.dumps(dict(meta=dict(
            argv=sys.argv, kt=kt_dir, date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            host=os.uname().nodename, cpus=os.cpu_count(), python=sys.version.split()[0],
            stubbed=W["stubbed"], warmup_s=round(warm_s),
            recordings={n: dict(optimum_ms=o, configurations=s) for n, _, o, s in recs}))) + "\n")
        done = skipped = 0
        with mp.get_context("fork").Pool(a.jobs, worker_init, (kt_dir, os.path.abspath(a.constraint))) as pool:
            pending = []
            for t in tasks:
                pending.append(pool.apply_async(run_task, (t,)))
            for t, r in zip(tasks, pending):
                left = a.wall - (time.time() - t_start)
                try:   # past the wall, only what has already finished
                    if left <= 0 and not r.ready():
                        raise mp.TimeoutError
                    rows = r.get(timeout=max(left, 0))
                except mp.TimeoutError:
                    skipped += 1
                    continue
                for row in rows:
                    out.write(json.dumps(row) + "\n")
                out.flush()
                done += 1
            pool.terminate()
        print(f"kt_sim: {done} tasks done, {skipped} not finished within {a.wall} s, "
              f"{time.time() - t_start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
