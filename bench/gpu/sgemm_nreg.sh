#!/bin/sh
# sgemm_nreg.sh - on the GPU machine, in one call (150 s on the H200, 2026-11-28): the SGEMM's
# register cap (gemm-cuda.json's NREG, __maxnreg__) measured against none.
#   1. with nvcc on the machine: the BK=32 8 x 16 configuration built with SK 0 and 132 and
#      each cap of CAPS, its registers (ptxas) and its k-tile loop's FFMA register-bank
#      pairs (sass_banks.py on cuobjdump's listing);
#   2. sgemm_side.sh: 8 random capped configurations verified at each of three shapes, the
#      best tile region (BM=128, BN=256, BK=32; 12 warp and thread tilings) with SK 0 and 132
#      and every cap of CAPS at 4096^3 and 8192^3 (brute force, ktune's timing), then each
#      size's best in three fair rounds beside cuBLAS; the best and the median ratio to the
#      same configuration uncapped, for each SK and cap.
# The spec ships the caps this found best (0, 216, 228, 248); CAPS may hold others.
# Log: bench/gpu/logs/sgemm-nreg-2026-11-28.txt.
#
#   sh bench/gpu/sgemm_nreg.sh OUT [BUNDLE]     (BUNDLE: default build/bundle, from `make bundle`)
set -u
OUT=$1 B=${2:-build/bundle}
HERE=$(dirname "$0")
CAPS=${CAPS:-0/200/208/212/216/220/224/228/232/236/240/248}
D=/tmp/ktune-sgemm-nreg
rm -rf "$D"; mkdir -p "$D/kernels" "$D/sass" "$OUT"
ln -sfn "$(cd "$B" && pwd)" "$D/bundle"
cp -r kernels/gemm "$D/kernels/"
export KTUNE_WORKER=$D/bundle/ktune-worker LD_LIBRARY_PATH=$D/bundle/lib
if command -v nvcc >/dev/null && command -v cuobjdump >/dev/null; then
    T="-DBM=128 -DBN=256 -DBK=32 -DWM=128 -DWN=32 -DTM=8 -DTN=16 -DSTAGES=3 -DGM=8 -DMINB=1 -DAT=1"
    for sk in 0 132; do
        for r in $(echo "$CAPS" | tr '/' ' '); do
            n=$D/sass/sk${sk}_nreg$r
            { nvcc -arch=sm_90a -cubin $T -DSK=$sk -DNREG=$r -Xptxas -v kernels/gemm/gemm.cu \
                -o "$n.cubin" 2>&1 | grep -o "Used [0-9]* registers" >"$n.regs"
              cuobjdump -sass "$n.cubin" >"$n.sass"; } &
        done
    done
    wait
    grep . "$D"/sass/*.regs | sed "s#$D/sass/##"
    python3 "$HERE/sass_banks.py" "$D"/sass/*.sass | sed "s#$D/sass/##"
fi
R="BK=32,WM=32/64/128,WN=32/64/128,TM=8/16,TN=8/16,STAGES=3/4,GM=8,MINB=1,AT=1,SK=0/132,TAIL=0"
CHECK_SET="SK=0/132,NREG=$(echo "$CAPS" | sed 's#^0/##')" \
CHECK_SHAPES="M=3000,N=3001,K=517 M=1000,N=1003,K=9001 M=4096,N=4096,K=260" \
NARROW="BM=128,BN=256,$R,NREG=$CAPS" SIZES="4096 8192" BASELINES=1 ROUNDS=3 \
    sh "$HERE/sgemm_side.sh" "$OUT" "$D"
echo "sgemm_side.sh rc=$?"
python3 "$HERE/sgemm_compare.py" "$OUT/sgemm-side.csv" SK,NREG 0,0
