#!/bin/sh
# ptx_hashes.sh - the PTX hashes (bench/ptx_hashes.c) of a sample of every
# CUDA spec that includes kernels/gemm/mma.cuh or hopper.cuh (and through
# them common.cuh), tma.cuh or wgmma_stage.cuh, with the problems test_cuda
# compiles: run it before and
# after a change to those headers and compare the two outputs (cmp), which
# must be identical when the change only moves code.  Needs NVRTC
# (LD_LIBRARY_PATH=/usr/local/cuda/lib64), not a GPU.  About 3 minutes on
# two cores.   sh bench/ptx_hashes.sh >before.txt
set -eu
# PTX_HASHES: a program built before, to run in another tree (the old one)
BUILD=${BUILD:-build}
T=${PTX_HASHES:-$BUILD/bench/ptx_hashes}
[ -n "${PTX_HASHES:-}" ] ||
    make --no-print-directory -f bench/bench.mk BUILD="$BUILD" "$T" >&2
$T kernels/gemm/gemm-f16-cuda.json 10
$T kernels/gemm/gemm-bf16-cuda.json 6 "M=1000,N=1003,K=517"
$T kernels/conv/conv-igemm-tc-f16-cuda.json 10
$T kernels/conv/conv-igemm-tc-f16-cuda.json 6 "C=512,H=7,W=7,K=512"
$T kernels/conv/conv-igemm-tc-f16-cuda.json 4 "N=3,C=13,H=17,W=19,K=37,stride=2"
$T kernels/conv/conv-igemm-wgmma-f16-cuda.json 6
$T kernels/conv/conv-igemm-wgmma-f16-cuda.json 4 "C=512,H=7,W=7,K=512"
$T kernels/conv/conv-igemm-wgmma-f16-cuda.json 3 "N=3,C=13,H=17,W=19,K=37,stride=2"
$T kernels/gemm/gemm-wgmma-f16-cuda.json 8
$T kernels/gemm/gemm-wgmma-bf16-cuda.json 4 "M=1000,N=1003,K=517"
$T kernels/gemm/gemm-wgmma-ws-f16-cuda.json 4
$T kernels/gemm/gemm-wgmma-ws-bf16-cuda.json 3 "M=1000,N=1003,K=517"
$T kernels/gemm/gemm-tma-f16-cuda.json 4
$T kernels/gemm/gemm-tma-bf16-cuda.json 3 "M=777,N=1024,K=1000"
$T kernels/gemm/gemm-tma-f8-cuda.json 4
$T kernels/gemm/gemm-tma-f8-cuda.json 3 "M=1000,N=1003,K=528"
$T kernels/conv/conv-igemm-tma-f16-cuda.json 6
$T kernels/conv/conv-igemm-tma-f16-cuda.json 4 "N=32,C=256,H=14,W=14,K=1024,R=1,S=1,stride=1,pad=0"
