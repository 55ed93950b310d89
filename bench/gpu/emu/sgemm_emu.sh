#!/bin/sh
# sgemm_emu.sh - check kernels/gemm/gemm.cu on the CPU (no GPU needed): for
# each configuration key given ("BM=128,BN=256,...,AT=1,SK=0"), build the kernel
# with g++ against emu.h and run it at shapes that take the interior fast
# path, the edges, partial k-tiles, K and N not multiples of 4, and a
# matrix smaller than one tile; one line per configuration.  At these
# shapes the spec's SK=132 shares every tile among up to 132 blocks; an SK
# of 3 to 11 in the key also checks whole waves beside the shared tiles.
#
#   bench/gpu/emu/sgemm_emu.sh KEY...
#   build/ktune space kernels/gemm/gemm-cuda.json --list | shuf -n 20 | xargs bench/gpu/emu/sgemm_emu.sh
# KERNEL: another copy of gemm.cu to check (default the shipped one); CXX:
# the C++ compiler (default c++, else clang++, which ktune's dependencies
# install); tests/cli/sgemm_emu.sh runs it in `make check`.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
KERNEL=${KERNEL:-$HERE/../../../kernels/gemm/gemm.cu}
CXX=${CXX:-$(command -v c++ || command -v clang++ || echo c++)}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
# the kernel without its PTX helpers (smem_addr .. cp_wait), which emu.h
# provides, and with its shared memory the emulator's
python3 - "$KERNEL" "$W/kernel.cu" <<'PY'
import sys
s = open(sys.argv[1]).read()
i, j = s.index("__device__ __forceinline__ unsigned smem_addr"), s.index("/* Rows [r0, r0 + BR)")
s = s[:i] + s[j:]
s = s.replace("extern __shared__ __align__(16) float smem[];", "float *smem = emu_smem;")
open(sys.argv[2], "w").write(s)
PY
cp "$HERE/emu.h" "$HERE/emu_main.cpp" "$W/"
rc=0
for key in "$@"; do
    defs=$(echo "$key" | tr ',' '\n' | sed 's/^/-D/' | tr '\n' ' ')
    if ! "$CXX" -O1 -std=c++17 -pthread $defs "$W/emu_main.cpp" -o "$W/t" 2>"$W/err"; then
        echo "$key: build failed: $(head -c 300 "$W/err")"; rc=1; continue
    fi
    line="$key:"
    for s in "64 64 32" "77 70 45" "130 131 33" "256 128 64" "100 200 17" "200 100 5" \
        "128 256 100" "3 5 7"; do
        r=$("$W/t" $s) || rc=1
        line="$line $r;"
    done
    echo "$line"
done
exit $rc
