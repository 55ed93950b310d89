#!/bin/sh
# sgemm_gm.sh - on the GPU machine, in one call: the SGEMM's tile order (gemm-cuda.json's GM,
# the block rows that sweep the columns together) measured at large sizes, where the spec
# allowed only GM=8 until 2026-11-29.
#   sgemm_side.sh over a copy of the spec whose GM takes GMS and whose large-size condition
#   admits every GM: 8 random configurations of those GM verified at each of three odd shapes,
#   the best tile region (BM=128, BN=256, BK=32, STAGES=3, 12 warp and thread tilings) with
#   each GM of GMS and caps CAPS at 4096^3 and 8192^3 (brute force, ktune's timing), then each
#   size's best in three fair rounds beside cuBLAS; for each GM the best and the median ratio
#   to the same configuration with GM=8.
#
#   sh bench/gpu/sgemm_gm.sh OUT [BUNDLE]     (BUNDLE: default build/bundle, from `make bundle`)
set -u
OUT=$1 B=${2:-build/bundle}
HERE=$(dirname "$0")
GMS=${GMS:-1/2/4/8/16/32} CAPS=${CAPS:-0/216/228}
D=/tmp/ktune-sgemm-gm
rm -rf "$D"; mkdir -p "$D/kernels" "$OUT"
ln -sfn "$(cd "$B" && pwd)" "$D/bundle"
cp -r kernels/gemm "$D/kernels/"
python3 - "$D/kernels/gemm/gemm-cuda.json" "$GMS" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
space = spec["ConfigurationSpace"]
for p in space["TuningParameters"]:
    if p["Name"] == "GM":
        p["Values"] = str([int(v) for v in sys.argv[2].split("/")])
for c in space["Conditions"]:
    c["Expression"] = c["Expression"].replace(" and GM == 8", "")
json.dump(spec, open(sys.argv[1], "w"), indent=1)
PY
R="BK=32,WM=32/64/128,WN=32/64/128,TM=8/16,TN=8/16,STAGES=3,MINB=1,AT=1,SK=0"
CHECK_SET="GM=$GMS,NREG=$CAPS" \
CHECK_SHAPES="M=3000,N=3001,K=517 M=1000,N=1003,K=9001 M=4096,N=4096,K=260" \
NARROW="BM=128,BN=256,$R,GM=$GMS,NREG=$CAPS" SIZES="4096 8192" BASELINES=1 ROUNDS=3 \
    sh "$HERE/sgemm_side.sh" "$OUT" "$D"
echo "sgemm_side.sh rc=$?"
python3 "$HERE/sgemm_compare.py" "$OUT/sgemm-side.csv" GM 8
