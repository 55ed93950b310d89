#!/usr/bin/env python3
"""public_table.py - the tables of bench/public_bench.sh from the JSON that
`ktune benchmark --json` wrote for each recording, with the exact expected
fraction of the optimum of uniform random sampling read from the recording
itself.

usage: public_table.py OUT DEFAULT_STRATEGY
OUT holds list.txt ("NAME FILE [--problem P]" per line) and NAME.json.
"""
import bz2
import json
import math
import sqlite3
import sys

# Budgets past a space are the whole space: the summary names them as asked.
LABELS = ("25", "50", "100", "200", "400")
POPULATION = ("genetic", "diff_evo", "pso", "model_guided", "ensemble", "map_elites")


def load_json(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:3] == b"BZh":
        raw = bz2.decompress(raw)
    return json.loads(raw)


def times_of(path, opts):
    """Every configuration of the recorded space: its time, or inf for a
    failure (invalid ones are outside the space)."""
    if path.endswith(".db"):
        prob = opts[opts.index("--problem") + 1] if "--problem" in opts else None
        db = sqlite3.connect(path)
        q = ("select m.status, m.time_ms from measurement m join problem p "
             "on p.id = m.problem_id" + (" where p.key = ?" if prob else ""))
        rows = db.execute(q, (prob,) if prob else ()).fetchall()
        return [t if s == "ok" else math.inf for s, t in rows if s != "invalid"]
    d = load_json(path)
    if "cache" in d:
        out = []
        for e in d["cache"].values():
            t = e.get("time")
            if isinstance(t, (int, float)):
                out.append(t)
            elif t != "InvalidConfig":
                out.append(math.inf)
        return out
    out = []
    for r in d["results"]:
        if r.get("invalidity") in ("constraints",):
            continue
        ok = r.get("invalidity") == "correct"
        out.append(r["measurements"][0]["value"] if ok else math.inf)
    return out


def random_expectation(times, k):
    """E[optimum / best of k distinct uniform draws]: the i-th fastest
    (1-based) is the best drawn with probability C(N-i, k-1) / C(N, k)."""
    t = sorted(times)
    n, opt = len(t), t[0]
    k = min(k, n)
    p = k / n            # i = 1
    e = 0.0
    for i in range(1, n - k + 2):
        e += p * (opt / t[i - 1] if math.isfinite(t[i - 1]) else 0.0)
        # C(N-i-1, k-1) / C(N-i, k-1) = (N-i-k+1) / (N-i)
        if n - i > 0:
            p *= (n - i - k + 1) / (n - i)
    return e


def fmt(v):
    return f"{v:.3f}"


def main():
    out, default = sys.argv[1], sys.argv[2]
    recs = [line.split() for line in open(f"{out}/list.txt") if line.strip()]
    wins, short, every = {}, [], []
    print(f"| recording (configurations, failed) | | 25 | 50 | 100 | 200 | 400 |")
    print("| --- " * 7 + "|")
    for name, path, *opts in recs:
        b = json.load(open(f"{out}/{name}.json"))
        times = times_of(path, opts)
        fails = sum(1 for x in times if not math.isfinite(x))
        res = {}
        for r in b["results"]:
            res.setdefault(r["strategy"], {})[r["budget"]] = r["mean"]
        budgets = sorted({r["budget"] for r in b["results"]})
        exact = {k: random_expectation(times, k) for k in budgets}
        others = [s for s in res if s not in (default, "brute_force")]
        # with only the default run (STRATEGIES=local_search), no "best other"
        best = {k: max(others, key=lambda s: res[s][k]) if others else None for k in budgets}
        cut = "" if budgets[-1] == 400 else f" (last: all {budgets[-1]})"
        print(f"| {name} ({b['space_size']}, {fails}){cut} | {default} | " +
              " | ".join(fmt(res[default][k]) for k in budgets) + " |")
        if others:
            print("| | best other | " +
                  " | ".join(f"{fmt(res[best[k]][k])} {best[k]}" for k in budgets) + " |")
        print("| | random | " + " | ".join(fmt(exact[k]) for k in budgets) + " |")
        for i, k in enumerate(budgets):
            w = wins.setdefault(i, [0, 0, 0, []])
            met = best[k] is not None and res[default][k] >= res[best[k]][k] - 0.0005
            w[0] += met
            w[1] += res[default][k] >= exact[k] - 0.0005
            w[2] += 1
            if not met and best[k] is not None:
                w[3].append(name)
        for s in POPULATION:
            for k in budgets[:2]:
                if s in res and res[s][k] < exact[k] - 0.0005:
                    short.append(f"{name}: {s} at {k}: {fmt(res[s][k])} < random {fmt(exact[k])}")
        every.append((name, b, res, budgets))
    print("\n'random': the exact expectation of uniform random sampling (k distinct "
          "configurations); ktune's random strategy measures the recording's first "
          "configuration (its default) and k-1 random ones.\n")
    print("| budget | default >= best other ktune strategy (within 0.0005) | default >= random | not met on |")
    print("| --- | --- | --- | --- |")
    for i in sorted(wins):
        w = wins[i]
        vs_best = f"{w[0]}/{w[2]}" if any(e[2].keys() - {default, "brute_force"} for e in every) else "-"
        print(f"| {LABELS[i] if i < len(LABELS) else i} | {vs_best} | {w[1]}/{w[2]} | "
              f"{', '.join(w[3]) or '-'} |")
    print("\nPopulation and surrogate strategies below random's expectation at 25 and 50: " +
          ("none" if not short else "\n- " + "\n- ".join(short)))
    for name, b, res, budgets in every:
        print(f"\n#### {name}: every strategy (mean of {b['seeds']} seeds; optimum "
              f"{b['optimum_ms']:.4g} ms)\n")
        print("| strategy | " + " | ".join(str(k) for k in budgets) + " |")
        print("| --- " * (len(budgets) + 1) + "|")
        for s in res:
            print(f"| {s} | " + " | ".join(fmt(res[s][k]) for k in budgets) + " |")


if __name__ == "__main__":
    main()
