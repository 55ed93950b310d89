#!/bin/sh
# online_cuda.sh - online tuning of CUDA kernels on the GPU machine, in one
# call: tests/test_online_cuda (the device part serves the application's
# own device buffers), then the CUDA online example
# (examples/online_gemm_cuda.sh) on the FP16 GEMM, three shapes, each
# against `ktune tune`'s best.  Prepare here (D = build/NAME in /work/main):
#   make bundle build/rel/tests/test_online_cuda; cp -r build/bundle
#   build/rel/tests/test_online_cuda examples/online_gemm_cuda.sh
#   bench/gpu/online_cuda.sh into D; build examples/online_gemm_cuda.c
#   against build/rel/libktune.a into D (rpath $ORIGIN/bundle/lib)
# There: D=build/NAME OUT=... sh build/NAME/online_cuda.sh
# (CALLS, TUNE_S, SHAPES override the stream's calls, each offline tune's
# seconds and the shapes.)
set -u
SHAPES=${SHAPES:-M=4096,N=4096,K=4096 M=2048,N=2048,K=2048 M=8192,N=1024,K=4096}
ROOT=$PWD D=$PWD/${D:-build/cuonline}
export KTUNE_WORKER=$D/bundle/ktune-worker LD_LIBRARY_PATH=$D/bundle/lib
echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
echo "cpus: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
KT_TEST_SRCDIR=$ROOT KT_TEST_TIMEOUT=150 $D/test_online_cuda 2>&1 | tee $OUT/test_online_cuda.txt
W=$(mktemp -d) && cd "$W" || exit 1
start=$(date +%s)
sh $D/online_gemm_cuda.sh $D/bundle/ktune $D/online_gemm_cuda \
    $ROOT/kernels/gemm/gemm-f16-cuda.json ${CALLS:-2000} ${TUNE_S:-30} $SHAPES 2>&1 | tee $OUT/online.txt
echo "example: $(( $(date +%s) - start )) s; load: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a $OUT/online.txt
$D/bundle/ktune db list --db online.db > $OUT/online-db.txt 2>&1
$D/bundle/ktune db best --db offline.db > $OUT/offline-best.txt 2>&1
echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
