#!/bin/sh
# energy_tradeoff.sh - on the GPU machine: how much energy per call the
# energy-optimal configuration saves against the time-optimal one, and at
# what slowdown (issue 14), with the card's clock and power settings as
# found: only the tuning parameters move the trade-off.
#
# For each case: a search with --objective pareto (the time/energy front of
# what it measured), then the front's fastest configuration, its most
# frugal one, and the most frugal one within 10% of the fastest's time
# measured again, each pinned, in alternation for ROUNDS rounds (so that
# drift in temperature and clocks falls on all three), with a longer
# energy window. bench/gpu/energy_tradeoff.py prints the table.
#
#   bench/gpu/energy_tradeoff.sh OUT [BUNDLE]    (BUNDLE: default build/bundle)
# Environment: ROUNDS (3), WINDOW (1.0 s energy window when re-measuring),
# T_GEMM, T_CONV: seconds of each search (75, 60); PICKS=DIR: no searches,
# the picks (and search JSON) of an earlier run in DIR are measured again;
# CASES: the cases to run (default all five, by name); WARMUP: each
# re-measurement's --energy-warmup (default 15 s).
set -u
OUT=$1 B=${2:-build/bundle}
K=$B/ktune HERE=$(dirname "$0")
ROUNDS=${ROUNDS:-3} WINDOW=${WINDOW:-1.0}
mkdir -p "$OUT/re"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit \
    --format=csv,noheader | tee "$OUT/gpu.txt"
date -u +%Y-%m-%dT%H:%M:%SZ | tee -a "$OUT/gpu.txt"

tune() { # OUTFILE SPEC PROBLEM [OPTIONS...]   (sh has no local variables:
    # this function's names must not be the callers')
    t_out=$1 t_spec=$2 t_problem=$3
    shift 3
    $K tune "$t_spec" --problem "$t_problem" --seed 7 --cache /tmp/ktune-tradeoff \
        --jobs 16 --timeout 20 --json "$@" </dev/null >"$t_out" 2>"${t_out%.json}.err"
}

case_run() { # NAME SPEC PROBLEM STRATEGY SECONDS
    name=$1 spec=$2 p=$3
    case " ${CASES:-$name} " in *" $name "*) ;; *) return ;; esac
    if [ -n "${PICKS:-}" ]; then
        cp "$PICKS/$name.json" "$OUT/$name.json"
    else
        tune "$OUT/$name.json" "$spec" "$p" --strategy "$4" --time "$5" \
            --objective pareto --db "$OUT/$name.db"
        echo "$name: search rc=$?"
    fi
    python3 "$HERE/energy_tradeoff.py" picks "$OUT/$name.json" >"$OUT/$name.picks" || return
    for r in $(seq "$ROUNDS"); do
        while read -r which key; do
            pinned=$(dirname "$spec")/.tradeoff-$name-$which.json
            python3 "$HERE/pin_config.py" "$spec" "$key" >"$pinned"
            tune "$OUT/re/$name-$which-$r.json" "$pinned" "$p" \
                --energy-window "$WINDOW" --energy-warmup "${WARMUP:-15}" --db "$OUT/re/$name-$which-$r.db"
            rm -f "$pinned"
        done <"$OUT/$name.picks"
    done
}

G=M=4096,N=4096,K=4096
case_run gemm-wgmma-f16 kernels/gemm/gemm-wgmma-f16-cuda.json $G brute_force "${T_GEMM:-75}"
case_run gemm-tma-f16 kernels/gemm/gemm-tma-f16-cuda.json $G random "${T_GEMM:-75}"
case_run sgemm kernels/gemm/gemm-cuda.json $G random "${T_GEMM:-75}"
case_run conv-res2-3x3 kernels/conv/conv-igemm-tma-f16-cuda.json \
    N=32,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1 random "${T_CONV:-60}"
case_run conv-res4-1x1 kernels/conv/conv-igemm-tma-f16-cuda.json \
    N=32,C=256,H=14,W=14,K=1024,R=1,S=1,stride=1,pad=0 random "${T_CONV:-60}"
python3 "$HERE/energy_tradeoff.py" table "$OUT" | tee "$OUT/table.md"
