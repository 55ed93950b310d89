#!/bin/sh
# conv_energy.sh - on the GPU machine: how often NVML's energy counter
# steps, then chosen convolution configurations measured again, twice each
# (energy per call, average power, SM clock), and the compile/measure
# overlap with and without the energy window.
#
#   bench/gpu/conv_energy.sh OUT CHOSEN [OVERLAP_BUDGET]
#
# CHOSEN: lines "layer kernel problem key" (kernel: igemm or direct), such
# as bench/gpu/conv_chosen.txt (the winners of a conv.sh run).
set -u
OUT=$1 CHOSEN=$2 BO=${3:-48}
K=build/bundle/ktune
W=/tmp/ktune-conv-energy
rm -rf "$W" && mkdir -p "$W/runs" "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit \
    --format=csv,noheader
python3 - <<'PY'
import time, torch, pynvml
pynvml.nvmlInit()
h = pynvml.nvmlDeviceGetHandleByIndex(0)
a = torch.randn(8192, 8192, device="cuda")
steps, last, t0 = [], pynvml.nvmlDeviceGetTotalEnergyConsumption(h), time.time()
while time.time() - t0 < 1.5:
    a @ a
    torch.cuda.synchronize()
    e = pynvml.nvmlDeviceGetTotalEnergyConsumption(h)
    if e != last:
        steps.append(time.time())
        last = e
gaps = sorted(b - a for a, b in zip(steps, steps[1:]))
print(f"NVML energy counter under load: {len(steps)} steps in 1.5 s, median gap "
      f"{1e3 * gaps[len(gaps) // 2]:.1f} ms (min {1e3 * gaps[0]:.1f}, max {1e3 * gaps[-1]:.1f})")
PY
while read -r layer kern prob key; do
    pinned=kernels/conv/pinned-$layer-$kern.json
    python3 bench/gpu/pin_config.py kernels/conv/conv-$kern-cuda.json "$key" >"$pinned"
    for rep in 1 2; do
        $K tune "$pinned" --problem "$prob" --db "$W/energy-$rep.db" --cache "$W/cache" \
            --json </dev/null >"$W/runs/energy-$layer-$kern-$rep.json" 2>/dev/null
        echo "$layer $kern rep $rep: $(grep -E '"(time_ms|energy_j|power_w|sm_clock_mhz)"' \
            "$W/runs/energy-$layer-$kern-$rep.json" | head -4 | tr -d '\n ')"
    done
done <"$CHOSEN"
L2=N=32,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1
for mode in batch stream batch-E0 stream-E0; do
    opt=
    case $mode in batch*) opt=--no-overlap ;; esac
    case $mode in *E0) opt="$opt --energy-window 0" ;; esac
    $K tune kernels/conv/conv-igemm-cuda.json --problem $L2 --strategy random \
        --budget "$BO" --seed 11 --db "$W/overlap-$mode.db" --cache "$W/cache-$mode" \
        --timeout 20 --jobs 15 --json $opt >"$W/runs/overlap-$mode.json" \
        2>"$W/runs/overlap-$mode.err"
    echo "overlap $mode rc=$? $(grep -E '"(measured|seconds|compile_wait_s)"' \
        "$W/runs/overlap-$mode.json" | tr -d '\n ')"
done
tar czf "$OUT/energy-runs.tgz" -C "$W" runs
