#!/bin/sh
# run.sh - on the GPU machine, in one call: the CUDA backend's checks and a
# first tuning run of the CUDA SGEMM, beside cuBLAS (through PyTorch).
#
#   make bundle                       (here: build/bundle travels with carry)
#   bench/gpu/run.sh [OUT]            (there)
set -u
OUT=${1:-${OUT:-/tmp/ktune-gpu}}
mkdir -p "$OUT"
K=build/bundle/ktune
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader | tee "$OUT/gpu.txt"
$K space kernels/gemm/gemm-cuda.json --count | tee "$OUT/space.txt"
# planted faults: each configuration classified, the best a correct one
$K tune tests/kernels/faulty-cuda.json --db "$OUT/faulty.db" --cache "$OUT/cache" \
    --timeout 5 --json > "$OUT/faulty.json" 2> "$OUT/faulty.err"; echo "faulty: rc=$?"
$K db list --db "$OUT/faulty.db" > "$OUT/faulty.txt"
cat "$OUT/faulty.txt" | cut -c1-160
# odd shapes: every sampled configuration verified (the second shape takes
# the float4 paths inside the matrix and the scalar ones at its edges)
for shape in M=1000,N=1003,K=517 M=1000,N=1004,K=516; do
    $K tune kernels/gemm/gemm-cuda.json --problem $shape --strategy random \
        --budget 24 --seed 3 --db "$OUT/gpu.db" --cache "$OUT/cache" --timeout 20 \
        --json > "$OUT/odd.json" 2> "$OUT/odd.err"; echo "odd shape $shape: rc=$?"
    grep -A8 '"statuses"' "$OUT/odd.json" | tr -d '\n '; echo
done
# tuning at 4096^3: a random 150 of the valid configurations
$K tune kernels/gemm/gemm-cuda.json --problem M=4096,N=4096,K=4096 --strategy random --budget 150 \
    --db "$OUT/gpu.db" --cache "$OUT/cache" --timeout 20 --jobs 16 --json \
    > "$OUT/tune4096.json" 2> "$OUT/tune4096.err"; echo "4096: rc=$?"
$K db list --db "$OUT/gpu.db" > "$OUT/list.txt"
python3 - <<'PY' > "$OUT/cublas.txt" 2>&1
import torch
torch.backends.cuda.matmul.allow_tf32 = False
for n in (1024, 4096):
    a = torch.randn(n, n, device="cuda"); b = torch.randn(n, n, device="cuda")
    for _ in range(3): a @ b
    torch.cuda.synchronize()
    s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(20):
        s.record(); a @ b; e.record(); e.synchronize(); ts.append(s.elapsed_time(e))
    ts.sort(); ms = ts[len(ts)//2]
    print(f"cuBLAS FP32 (no TF32) {n}^3: {ms:.3f} ms, {2*n**3/ms/1e9:.1f} TFLOP/s")
PY
cat "$OUT/cublas.txt"
grep -E '"(measured|space_size|seconds|time_ms|gflops|key)"' "$OUT/odd.json" "$OUT/tune4096.json"
grep -A8 '"statuses"' "$OUT/tune4096.json"
for f in faulty odd tune4096; do tail -n 2 "$OUT/$f.err"; done
