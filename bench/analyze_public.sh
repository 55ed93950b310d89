#!/bin/sh
# analyze_public.sh - `ktune analyze` over every public recording the
# repository ships (bench/data/public: Kernel Tuner caches of five kernels
# on 4-6 GPUs each; tests/data/kerneltuner) and the H100 GEMM database
# with energy and the two H100 Xgemm caches (bench/gpu/data) and the
# synthetic one with energy (tests/data/energy), one kernel and device at
# a time, as the table in docs/ANALYSIS.md; then the count of the
# ablation's verdicts on the ranking (agree / tie / disagree).
#
#   [KEEP=DIR] [OPTS=...] sh bench/analyze_public.sh [KTUNE]     (default build/ktune)
# KEEP: also keep each pair's `ktune analyze --json` output in DIR.  OPTS: more options
# for every `ktune analyze`, e.g. OPTS="--reading-noise 0.01" (the ablation's verdicts
# with 1 % of between-run noise a reading).
set -eu
K=${1:-build/ktune}
KEEP=${KEEP:-}
T=$(mktemp -d /tmp/ktune-analyze.XXXXXX)
trap 'rm -rf "$T"' EXIT
# one database per kernel family: the two convolutions share a kernel name
for f in bench/data/public/*/*.json.bz2 tests/data/kerneltuner/*.json; do
    fam=$(basename "$(dirname "$f")")
    "$K" import kerneltuner "$f" --db "$T/$fam.db" >/dev/null
done
"$K" import csv tests/data/energy/saxpy-energy.csv --db "$T/energy.db" >/dev/null
cp bench/gpu/data/gemm-energy-h100.db "$T/h100.db"
for f in bench/gpu/data/xgemm-h100-*.json.bz2; do
    bzcat "$f" >"$T/x.json"
    "$K" import kerneltuner "$T/x.json" --db "$T/h100-xgemm.db" >/dev/null
done
rm -f "$T/x.json"
echo "| recording | kernel | device | rows | time R2 | R2 (log) | MAPE | Spearman | energy R2 | top parameter (predicted cost) | top by mean abs SHAP | ablation: first / most costly other (sd) | check | seconds |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for db in "$T"/*.db; do
    sqlite3 "$db" "SELECT DISTINCT k.name, d.name FROM measurement m JOIN problem p ON
        p.id = m.problem_id JOIN kernel k ON k.id = p.kernel_id JOIN device d ON
        d.id = m.device_id WHERE m.status = 'ok' ORDER BY 1, 2" |
    while IFS='|' read -r kern dev; do
        # shellcheck disable=SC2086 # OPTS is a list of options
        "$K" analyze --db "$db" --kernel "$kern" --device "$dev" --json ${OPTS:-} >"$T/out.json" \
            2>"$T/err" || { echo "| $(basename "$db" .db) | $kern | $dev | $(cat "$T/err") |"; continue; }
        [ -z "$KEEP" ] || cp "$T/out.json" \
            "$KEEP/$(echo "$(basename "$db" .db)-$kern-$dev" | tr -c 'A-Za-z0-9._\n-' '_').json"
        python3 - "$T/out.json" "$(basename "$db" .db)" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
t = j["models"]["time"]
e = j["models"].get("energy")
f = lambda v: "n/a" if v is None else f"{v:.3f}"
secs = sum(m["seconds"] for m in j["models"].values())
imp = t["importance"][0]
shap = max(t["importance"], key=lambda i: i["mean_abs"])["feature"]
ab = j["ablation"]
o = max(ab[1:], key=lambda a: a["cost"]) if len(ab) > 1 else None
sd = "unknown" if o and o["sd"] is None else f"{100 * o['sd']:.1f}%" if o else ""
abl = f"{ab[0]['cost']:.3f}x / {o['feature']} {o['cost']:.3f}x ({sd})" if o else \
    f"{ab[0]['cost']:.3f}x"
print(f"| {sys.argv[2]} | {j['kernel']} | {j['device']} | {j['rows']} | {f(t['r2'])} | "
      f"{f(t['r2_log'])} | {t['mape']:.1f}% | {f(t['spearman'])} | "
      f"{f(e['r2']) if e else 'no energy'} | {imp['feature']} {imp['cost']:.3f}x | {shap} | "
      f"{abl} | {j['ablation_check']} | {secs:.0f} |")
PY
    done
done | tee "$T/table"
awk -F' [|] ' '{ n[$(NF-1)]++ } END { printf "\nagree %d, tie %d, disagree %d of %d\n",
    n["agree"], n["tie"], n["disagree"], n["agree"] + n["tie"] + n["disagree"] }' "$T/table"
