#!/bin/sh
# xgemm.sh - on the GPU machine, in one call: the Xgemm space (CLBlast's,
# kernels/xgemm) at M=N=K=4096 tuned through NVIDIA's OpenCL and through
# CUDA with the same strategy, seed and budget, so that both sides measure
# the same configurations (random sampling of one space with one seed);
# then each side's best measured again on the other side, the four public
# recordings' optima (RTX 2080 Ti, RTX 3060 laptop, RTX 3090, Titan RTX)
# measured through OpenCL, and ktune's own CUDA SGEMM (gemm-cuda.json, its
# default configuration) for context.  The OpenCL run is exported as a
# Kernel Tuner cache (a new recording of the public GEMM space) and every
# measurement as CSV; xgemm_table.py prints the table last.  OUT gets 6
# files: run.txt (all that is printed), ocl.json and cuda.json (the two
# runs' summaries), xgemm.csv, xgemm-h100-opencl.json and table.txt.
#
#   make bundle   (here; copy build/bundle, kernels/xgemm, kernels/gemm and
#                  bench/gpu/{xgemm.sh,xgemm_table.py,pin_config.py} into DIR)
#   sh DIR/bench/gpu/xgemm.sh OUT DIR      (there)
#
# BUDGET (default 300) configurations a side, each side capped at TIME
# (default 120) seconds; SEED (default 1); STRATEGY (default random); SIZE
# (default 4096) is M = N = K; PLATFORM (default NVIDIA) the OpenCL
# platform (a part of its name: "Portable" tries the script on PoCL).
set -u
OUT=$1 DIR=$2
HERE=$(dirname "$0")
DIR=$(cd "$DIR" && pwd)
KT=$DIR/bundle/ktune W=/tmp/ktune-xgemm
BUDGET=${BUDGET:-300} TIME=${TIME:-120} SEED=${SEED:-1} STRATEGY=${STRATEGY:-random}
SIZE=${SIZE:-4096} PLATFORM=${PLATFORM:-NVIDIA}
P=M=$SIZE,N=$SIZE,K=$SIZE
export KTUNE_WORKER=$DIR/bundle/ktune-worker LD_LIBRARY_PATH=$DIR/bundle/lib
rm -rf "$OUT" "$W"
mkdir -p "$OUT" "$W"
X=$DIR/kernels/xgemm

# The ICD loader lists NVIDIA's OpenCL only where a vendors file or
# OCL_ICD_FILENAMES names it: where `ktune devices` shows no such platform,
# a vendors folder of our own adds the driver's library.  (On the GPU
# machine OCL_ICD_FILENAMES names it; CUDA's ICD loader used to cut that
# variable for the worker: bench/gpu/logs/opencl-env-2026-11-25.txt.)
find_platform() {
    "$KT" devices 2>&1 | grep '^opencl' | grep -q "$PLATFORM" && return 0
    icd=$(ldconfig -p | awk '/libnvidia-opencl.so.1/ { print $NF; exit }')
    [ -n "$icd" ] || icd=$(find /usr/lib /usr/lib64 /usr/local -name 'libnvidia-opencl.so.1' \
        2>/dev/null | head -n 1)
    echo "no $PLATFORM platform; the driver's OpenCL library: ${icd:-none}"
    [ -n "$icd" ] || return 1
    mkdir -p "$W/icd"
    cp /etc/OpenCL/vendors/*.icd "$W/icd/" 2>/dev/null
    echo "$icd" >"$W/icd/nvidia.icd"
    export OCL_ICD_VENDORS=$W/icd
    "$KT" devices 2>&1 | grep '^opencl' | grep -q "$PLATFORM" && return 0
    export OCL_ICD_FILENAMES=$icd
    "$KT" devices 2>&1 | grep '^opencl' | grep -q "$PLATFORM"
}

all() {
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader ||
    echo "no nvidia-smi"
date -u +"start %Y-%m-%dT%H:%M:%SZ"
ls /etc/OpenCL/vendors 2>&1 | tr '\n' ' '
ldconfig -p | grep -i opencl
find_platform || echo "still no OpenCL platform named $PLATFORM"
echo "OCL_ICD_VENDORS=${OCL_ICD_VENDORS:-} OCL_ICD_FILENAMES=${OCL_ICD_FILENAMES:-}"
"$KT" devices

# tune SPEC NAME [OPTIONS]: one run into the shared database, its JSON
# summary into OUT/NAME.json.
tune() {
    spec=$1 name=$2
    shift 2
    start=$(date +%s)
    "$KT" tune "$spec" --problem $P --db "$W/xgemm.db" --cache "$W/cache" --jobs 16 \
        --energy-window 0 --timeout 20 --json "$@" >"$W/$name.json" 2>"$W/$name.err"
    echo "$name: rc=$? $(($(date +%s) - start)) s $(tr -d '\n ' <"$W/$name.json" |
        grep -o '"measured":[0-9]*\|"statuses":{[^}]*}' | tr '\n' ' ')"
    tail -n 3 "$W/$name.err"
}
side() { # side SPEC NAME [OPTIONS]: the same search on either language
    spec=$1 name=$2
    shift 2
    tune "$spec" "$name" --strategy "$STRATEGY" --seed "$SEED" --budget "$BUDGET" \
        --time "$TIME" "$@"
}
side "$X/xgemm-opencl.json" ocl --platform "$PLATFORM"
side "$X/xgemm-cuda.json" cuda

best() { # the best key of a run's summary, nothing when the run failed
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["best"]["key"])' "$1" \
        2>/dev/null
}
# pin SPEC KEY NAME [OPTIONS]: KEY alone, measured again (a pinned copy of
# the spec, beside it: its kernel file is found relative to the spec).
pin() {
    spec=$1 key=$2 name=$3
    shift 3
    [ -n "$key" ] || { echo "pin-$name: skipped (no key)"; return; }
    python3 "$HERE/pin_config.py" "$spec" "$key" >"$(dirname "$spec")/pin-$name.json"
    tune "$(dirname "$spec")/pin-$name.json" "pin-$name" "$@"
}
ocl_best=$(best "$W/ocl.json") cuda_best=$(best "$W/cuda.json")
pin "$X/xgemm-opencl.json" "$ocl_best" ocl-best-on-ocl --platform "$PLATFORM"
pin "$X/xgemm-cuda.json" "$ocl_best" ocl-best-on-cuda
pin "$X/xgemm-opencl.json" "$cuda_best" cuda-best-on-ocl --platform "$PLATFORM"
pin "$X/xgemm-cuda.json" "$cuda_best" cuda-best-on-cuda
# the public recordings' optima (bench/data/public/gemm), through OpenCL
T=KWG=32,KWI=2,STRM=0,STRN=0,PRECISION=32
pin "$X/xgemm-opencl.json" MWG=128,NWG=128,MDIMC=16,NDIMC=8,MDIMA=16,NDIMB=32,VWM=8,VWN=2,SA=1,SB=1,$T \
    rtx3090-on-ocl --platform "$PLATFORM"
pin "$X/xgemm-opencl.json" MWG=128,NWG=128,MDIMC=16,NDIMC=8,MDIMA=16,NDIMB=32,VWM=8,VWN=4,SA=0,SB=1,$T \
    rtx2080ti-on-ocl --platform "$PLATFORM"
pin "$X/xgemm-opencl.json" MWG=128,NWG=128,MDIMC=16,NDIMC=8,MDIMA=8,NDIMB=32,VWM=8,VWN=4,SA=0,SB=1,$T \
    rtx3060-on-ocl --platform "$PLATFORM"
pin "$X/xgemm-opencl.json" MWG=128,NWG=128,MDIMC=16,NDIMC=8,MDIMA=32,NDIMB=32,VWM=4,VWN=4,SA=0,SB=1,$T \
    titanrtx-on-ocl --platform "$PLATFORM"
# ktune's own SGEMM, its default configuration
pin "$DIR/kernels/gemm/gemm-cuda.json" \
    BM=128,BN=128,BK=16,WM=64,WN=64,TM=16,TN=8,STAGES=2,GM=8,MINB=1,AT=1,SK=0 sgemm

"$KT" db export csv --db "$W/xgemm.db" >"$OUT/xgemm.csv"
dev=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["device"])' \
    "$W/ocl.json" 2>/dev/null)
cp "$W/ocl.json" "$W/cuda.json" "$OUT/"
"$KT" db export kerneltuner --db "$W/xgemm.db" --kernel xgemm-opencl --device "$dev" \
    --problem $P >"$OUT/xgemm-h100-opencl.json"
date -u +"end %Y-%m-%dT%H:%M:%SZ"
python3 "$HERE/xgemm_table.py" "$OUT/xgemm.csv" "$SIZE" | tee "$OUT/table.txt"
}
all 2>&1 | tee "$OUT/run.txt"
