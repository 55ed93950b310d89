#!/bin/sh
# thirdparty.sh - on the GPU machine, in one call (about 4 minutes): every
# third-party CUDA spec shipped under kernels/bat and kernels/ktt, and every
# runnable CUDA T1 file of the public suites under tests/data/t1, tuned by a
# capped random search, each configuration classified (ok, invalid,
# compile_error, runtime_error, timeout, wrong_result against the default
# configuration's outputs, since none of these specs has a reference
# kernel), then one table: configurations measured, the count of each
# status, the best time against the default configuration's.
#
#   make bundle                          (here; carry build/bundle)
#   bench/gpu/thirdparty.sh OUT [KTUNE]  (there; KTUNE default build/bundle/ktune)
# Environment: TIME (seconds per spec, default 14), BUDGET (configurations
# per spec, default 60), SEED (default 1); the defaults fit the 15 specs
# in one call of about 4 minutes.  ONLY: the names of the specs to run,
# separated by spaces (e.g. ONLY="GEMM bat-FFT"), default all.
# Not run: tests/data/t1/ktt/CoulombSum3d.json (its expected output,
# Coulomb3d.bin, is not public: kernels/ktt/CoulombSum3d is that spec with
# a reference run instead), BAT's MD and Reduction (no KernelSpecification:
# spaces only) and KTT's CoulombSum2d (OpenCL).
set -u
OUT=${1:-${OUT:-/tmp/ktune-thirdparty}}
KT=${2:-build/bundle/ktune}
TIME=${TIME:-14} BUDGET=${BUDGET:-60} SEED=${SEED:-1}
export KTUNE_WORKER=${KTUNE_WORKER:-$(dirname "$KT")/ktune-worker}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
echo "ktune $($KT --version 2>/dev/null | head -n 1), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "each: ktune tune SPEC --strategy random --budget $BUDGET --time $TIME --seed $SEED --energy-window 0"
[ -n "${ONLY:-}" ] && echo "only: $ONLY"
fails=0
table=""
# KTT's tutorial reads b from ArgumentData.bin, which KTT's example writes
# at run time: b[i] = i, so that result = a + b + 3 = 2i + 3, the spec's
# expected values
tut="$OUT/ktt-tutorial"
mkdir -p "$tut"
cp tests/data/t1/ktt/KernelTuningCudaScript.json tests/data/t1/ktt/CudaKernel.cu "$tut/"
python3 -c 'import struct, sys; sys.stdout.buffer.write(struct.pack("<1048576f", *range(1048576)))' \
    > "$tut/ArgumentData.bin"
T=tests/data/t1
for entry in GEMM:kernels/bat/GEMM/GEMM-CAFF.json pnpoly:kernels/bat/pnpoly/pnpoly-CAFF.json \
             TRIAD:kernels/bat/TRIAD/TRIAD-CAFF.json nbody:kernels/bat/nbody/nbody-CAFF.json \
             MD5Hash:kernels/bat/MD5Hash/MD5Hash-CAFF.json \
             convolution:kernels/bat/convolution/convolution-CAFF.json \
             CoulombSum3d:kernels/ktt/CoulombSum3d/CoulombSum3dCudaScript.json \
             bat-hotspot:$T/bat/hotspot/hotspot-CAFF.json \
             bat-builtin_vectors:$T/bat/builtin_vectors/builtin_vectors-CAFF.json \
             bat-FFT:$T/bat/FFT/FFT-CAFF.json ktt-Nbody:$T/ktt/Nbody/NbodyScript.json \
             ktt-ClTuneGemm:$T/ktt/ClTuneGemm/ClTuneGemm.json \
             ktt-tutorial:$tut/KernelTuningCudaScript.json \
             kt-convolution:$T/kerneltuner/test_T1_input.json \
             kt-cache_file:$T/kerneltuner/test_cache_file_T1_input.json; do
    name=${entry%%:*} spec=${entry#*:}
    case " ${ONLY:-$name} " in *" $name "*) ;; *) continue ;; esac
    echo "== $name ($spec)"
    # a spec that hangs (a kernel that never ends) costs at most 2 TIME + 60 s
    timeout $((2 * TIME + 60)) $KT tune "$spec" --strategy random --budget "$BUDGET" --time "$TIME" --seed "$SEED" \
        --energy-window 0 --db "$OUT/$name.db" --cache "$OUT/cache" \
        > "$OUT/$name.txt" 2> "$OUT/$name.err"
    rc=$?
    cat "$OUT/$name.txt"
    grep -v 'warning: unknown key\|Search\.' "$OUT/$name.err" | tail -n 5
    $KT db list --db "$OUT/$name.db" > "$OUT/$name-list.txt" 2>&1
    # every status but ok with its first detail, so each failure is explained
    awk -F '  ' '$4 != "ok" && !seen[$4]++ { print "  " $4 ": " $3 ": " substr($6, 1, 150) }' \
        "$OUT/$name-list.txt"
    counts=$(awk -F '  ' '{ n[$4]++ } END { for (s in n) printf "%s %d, ", s, n[s] }' \
        "$OUT/$name-list.txt" | sed 's/, $//')
    rows=$(wc -l < "$OUT/$name-list.txt")
    best=$(awk '/^best/ { getline; sub(/,$/, "", $2); print $1, $2 }' "$OUT/$name.txt")
    # "default  KEY: invalid" when the spec's own conditions exclude it
    def=$(awk '/^default/ { if (sub(/.*: /, "")) { print; exit } getline
                            sub(/,$/, "", $2); print $1, $2 }' "$OUT/$name.txt")
    speed=$(awk '/^speed-up/ { print $2 }' "$OUT/$name.txt")
    [ "$rc" -eq 0 ] && [ "$rows" -gt 0 ] || fails=$((fails + 1))
    table="$table
| $name | $rc | $rows | $counts | ${best:-none} | ${def:-none} | ${speed:-} |"
done
echo
echo "| spec | exit | measured | statuses | best | default | speed-up |"
echo "| --- | --- | --- | --- | --- | --- | --- |$table"
echo "failed specs: $fails"
exit $fails
