#!/bin/sh
# conv_profile.sh - on the GPU machine, in one call: Nsight Compute
# (--clock-control none) of one launch of ktune's FP16 convolution
# (conv_igemm_tma.cu, a configuration pinned) and of the kernel cuDNN FP16
# runs for the same layer (channels_last, cudnn.benchmark, the launch after
# 20 warm calls, between cudaProfilerStart and Stop), the summary lines of
# both into OUT/ncu-conv.txt.  ktune runs with --hang-factor 1e6: Nsight's
# replay of a 13 us kernel takes seconds, which the default hang rule (100
# times the reference's time a call, plus 1 s) calls a timeout.
#
#   sh bench/gpu/conv_profile.sh OUT PROBLEM KEY [BUNDLE]
#   e.g. PROBLEM=N=32,C=256,H=14,W=14,K=1024,R=1,S=1,stride=1,pad=0 (res4 1x1)
set -u
OUT=$1 PROB=$2 KEY=$3 B=${4:-build/bundle}
export KTUNE_WORKER=$B/ktune-worker LD_LIBRARY_PATH=$B/lib
SECTIONS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy
    --section LaunchStats --section WarpStateStats --section ComputeWorkloadAnalysis"
mkdir -p "$OUT"
python3 bench/gpu/pin_config.py kernels/conv/conv-igemm-tma-f16-cuda.json "$KEY" \
    >kernels/conv/pinned-prof.json
# shellcheck disable=SC2086 # SECTIONS is words
timeout 150 ncu --clock-control none --target-processes all -k "regex:^conv_igemm_tma\$" -c 1 \
    $SECTIONS "$B/ktune" tune kernels/conv/pinned-prof.json --problem "$PROB" \
    --db /tmp/prof-conv.db --cache /tmp/prof-cache --energy-window 0 --timeout 60 \
    --hang-factor 1e6 \
    >"$OUT/ncu-ktune.txt" 2>&1
echo "ncu ktune: rc=$?"
rm -f kernels/conv/pinned-prof.json
cat >/tmp/cudnn_one.py <<'PY'
import sys
import torch
import torch.nn.functional as F
p = {k: int(v) for k, v in (kv.split("=") for kv in sys.argv[1].split(","))}
torch.backends.cudnn.benchmark = True
x = (torch.rand(p["N"], p["C"], p["H"], p["W"], device="cuda") * 2 - 1).half()
w = (torch.rand(p["K"], p["C"], p["R"], p["S"], device="cuda") * 2 - 1).half()
x = x.to(memory_format=torch.channels_last)
w = w.to(memory_format=torch.channels_last)
for _ in range(20):
    F.conv2d(x, w, stride=p["stride"], padding=p["pad"])
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStart()
F.conv2d(x, w, stride=p["stride"], padding=p["pad"])
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStop()
PY
# shellcheck disable=SC2086
timeout 150 ncu --clock-control none --profile-from-start off -c 3 $SECTIONS \
    python3 /tmp/cudnn_one.py "$PROB" >"$OUT/ncu-cudnn.txt" 2>&1
echo "ncu cudnn: rc=$?"
for f in ktune cudnn; do
    echo "== $f"
    grep -E '^  [a-z_0-9]+.*\(|Duration|Compute \(SM\) Throughput|Memory Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|DRAM Throughput|Achieved Occupancy|Registers Per Thread|Grid Size|Block Size|Dynamic Shared|Warp Cycles Per Issued|Issue Slots Busy|Executed Ipc A|L2 Hit Rate|Mem Busy|Max Bandwidth|each warp of this workload spends|==ERR|==WARN' \
        "$OUT/ncu-$f.txt" | sed 's/  */ /g'
done | tee "$OUT/ncu-conv.txt"
