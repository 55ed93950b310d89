# xgemm.sh - the OpenCL kernels of issue 15: kernels/xgemm (a GEMM in
# CLBlast's Xgemm space, one source for OpenCL and CUDA) and
# kernels/conv/conv1x1-opencl.json (a 1x1 convolution in the space of
# MIOpen's ConvOclDirectFwd1x1).
#   - both Xgemm specs count the public recordings' space (17,956), and a
#     spec replays a recording whose parameters are its own: a brute force
#     of the spec's space over the RTX 3090 recording finds every
#     configuration there (so the spaces are one) and the recorded optimum;
#     a recording of other parameters is one line naming the first;
#   - the 1x1 convolution's space is MIOpen's solver's for FP32 forward
#     problems, and empty for the problems the kernel does not compute;
#   - where an OpenCL platform is (PoCL in CI), a few configurations of
#     each kernel are tuned at small problems and all verify against the
#     reference; without one that part is skipped.
# The CUDA spec's compilation through NVRTC is in tests/test_thirdparty.c.
. "$(dirname "$0")/lib.sh"
REC=bench/data/public/gemm/RTX_3090.json.bz2
XCL=kernels/xgemm/xgemm-opencl.json
XCU=kernels/xgemm/xgemm-cuda.json
CONV=kernels/conv/conv1x1-opencl.json

for s in "$XCL" "$XCU"; do
    [ "$("$KTUNE" space "$s")" = 17956 ] || fail "$s: $("$KTUNE" space "$s")"
done
cmp -s "$XCL" "$XCU" && fail "the two Xgemm specs are one file"
diff "$XCL" "$XCU" | grep '^[<>]' | grep -v '"BenchmarkName"\|"Language"' &&
    fail "the Xgemm specs differ beyond their name and language"
pass "both Xgemm specs count the public recordings' 17956 configurations"

"$KTUNE" tune "$XCL" --replay "$REC" --strategy brute_force --cache "$TMP/cache" \
    --json >"$TMP/bf.json"
python3 - "$TMP/bf.json" <<'PY' || fail "replay: $(cat "$TMP/bf.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["space_size"] == 17956 and d["measured"] == 17956, d
assert d["device"] == "NVIDIA GeForce RTX 3090", d["device"]
assert d["best"]["key"] == ("MWG=128,NWG=128,KWG=32,MDIMC=16,NDIMC=8,MDIMA=16,NDIMB=32,"
                            "KWI=2,VWM=8,VWN=2,STRM=0,STRN=0,SA=1,SB=1,PRECISION=32"), d["best"]
assert abs(d["best"]["time_ms"] - 5.65784) < 1e-4, d["best"]
PY
"$KTUNE" tune "$XCU" --replay "$REC" --strategy random --budget 30 --seed 4 \
    --cache "$TMP/cache" --json >"$TMP/r.json"
[ "$(json_get "$TMP/r.json" measured)" = 30 ] || fail "random replay: $(cat "$TMP/r.json")"
pass "the Xgemm specs replay the RTX 3090 recording: one space, its optimum"

expect_fail 1 "RTX_3090.json.bz2: its parameter 1 is 'MWG', the spec's 'MR'" \
    "$KTUNE" tune kernels/gemm/gemm-c.json --replay "$REC" --budget 5 --cache "$TMP/cache"
pass "a recording of other parameters is refused, naming the first"

# problem C H W K N S [fp16]: a 1x1 convolution's 26 fields.
problem() {
    echo "spatial_dim=2,in_channels=$1,in_h=$2,in_w=$3,in_d=1,fil_h=1,fil_w=1,fil_d=1,\
out_channels=$4,batchsize=$5,pad_h=0,pad_w=0,pad_d=0,conv_stride_h=$6,conv_stride_w=$6,\
conv_stride_d=0,dilation_h=1,dilation_w=1,dilation_d=0,bias=0,group_count=1,fp16=${7:-0},\
bf16=0,fwd=1,bwd=0,wrw=0"
}
for p in "64 28 28 64 16 1" "24 7 7 40 2 1" "32 9 9 48 2 2" "256 56 56 64 8 1"; do
    P=$(problem $p)
    a=$("$KTUNE" space "$CONV" --problem "$P")
    b=$("$KTUNE" space kernels/miopen/ConvOclDirectFwd1x1.json --problem "$P")
    [ "$a" = "$b" ] && [ "$a" -gt 0 ] || fail "$p: $a configurations, MIOpen's solver $b"
done
n=$("$KTUNE" space "$CONV" --problem "$(problem 64 28 28 64 16 1 1)")
[ "$n" = 0 ] || fail "an FP16 problem has $n configurations"
pass "the 1x1 convolution's space is MIOpen's solver's (FP32 forward; none for FP16)"

# ---- on an OpenCL platform (PoCL in CI), else skipped
export POCL_CACHE_DIR="$TMP/pocl"   # PoCL's own kernel cache, not $HOME's
# ok_all FILE N: the run's JSON says N measured, all verified.
ok_all() {
    python3 - "$1" "$2" <<'PY' || fail "$(cat "$1")"
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
assert d["measured"] == n and d["statuses"]["ok"] == n, (d["measured"], d["statuses"])
PY
}
status_of "$KTUNE" tune "$XCL" --problem M=64,N=128,K=96 --strategy random --budget 5 \
    --seed 2 --db "$TMP/x.db" --cache "$TMP/cache" --json >"$TMP/x.json" 2>"$TMP/x.err"
if [ "$rc" != 0 ] && grep -Eq "ICD loader|no OpenCL platform is installed" "$TMP/x.err"; then
    echo "skip the OpenCL runs of xgemm.sh: $(cat "$TMP/x.err")"
    exit 0
fi
[ "$rc" = 0 ] || fail "Xgemm on OpenCL: $(cat "$TMP/x.err")"
ok_all "$TMP/x.json" 5
pass "Xgemm through OpenCL: 5 random configurations verified against the reference"

# A forward problem MIOpen's solver takes its "v0" branch for (C % 16 != 0),
# and one of its "v1" branch (C, K % 16 == 0), narrowed to 16 output
# channels and 1 pixel a work-item: wider register tiles take PoCL seconds
# to build at their first launch, which the worker counts as a hang.
"$KTUNE" tune "$CONV" --problem "$(problem 24 7 7 40 2 1)" --strategy random --budget 4 \
    --seed 3 --db "$TMP/c.db" --cache "$TMP/cache" --json >"$TMP/c0.json"
ok_all "$TMP/c0.json" 4
python3 - "$CONV" "$TMP/c1-spec.json" <<'PY'
import json, os, sys
spec = json.load(open(sys.argv[1]))
for p in spec["ConfigurationSpace"]["TuningParameters"]:
    if p["Name"] == "n_out_pix_tiles":
        p["Values"], p["Default"] = "[16]", 16
    if p["Name"] == "out_pix_tile0":
        p["Values"], p["Default"] = "[0, 1]", 1
k = spec["KernelSpecification"]
k["KernelFile"] = k["ReferenceKernel"]["KernelFile"] = os.path.abspath("kernels/conv/conv1x1.cl")
json.dump(spec, open(sys.argv[2], "w"))
PY
"$KTUNE" tune "$TMP/c1-spec.json" --problem "$(problem 32 8 8 32 2 1)" --strategy random \
    --budget 3 --seed 3 --db "$TMP/c.db" --cache "$TMP/cache" --json >"$TMP/c1.json"
ok_all "$TMP/c1.json" 3
pass "the 1x1 convolution through OpenCL: 7 configurations of two problems verified"
