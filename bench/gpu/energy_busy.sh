#!/bin/sh
# energy_busy.sh - on the GPU machine, in one call (about 2.5 minutes on the H200): does the
# energy reading depend on how busy the host is?  Six SGEMM configurations at 4096^3 (the
# FP32 choice with SK, NREG and TAIL each both ways) measured with energy by two builds of
# ktune, OLD and NEW, each on a quiet host and with every core of the host kept busy by
# `yes` (as NVRTC's compiles keep it during a tuning run).  Before 2026-11-29 the worker
# read the energy counter between batches of about 5 ms, and the GPU idled while the host
# did (the counter's and the clock's reads, the messages to the tuner); NEW keeps batches
# queued while the host reads (the backend's run_busy) and, since the second version, times
# on the GPU any gap before each batch and reads no power over a span that idled more than
# 2% (the row's detail says so), and since the third dates each counter read between the
# clock reads before and after it.  Prints each configuration's power per build and host,
# the ratio loaded / quiet, and the reason for each row without power; then, as a check
# that owes nothing to ktune's reader, NEW's reading of one configuration over a 3 s window
# beside nvidia-smi's instantaneous power sampled every 100 ms meanwhile.
#
#   sh bench/gpu/energy_busy.sh OUT OLD_BUNDLE NEW_BUNDLE    (OLD_BUNDLE -: NEW alone, half the time)
set -u
OUT=$1 OLD=$2 NEW=$3
BUILDS="old new"; [ "$OLD" = - ] && BUILDS=new
HERE=$(cd "$(dirname "$0")" && pwd)
D=/tmp/ktune-energy-busy
rm -rf "$D"; mkdir -p "$D/kernels" "$OUT"
cp -r kernels/gemm "$D/kernels/"
# the FP32 choice's tiles; SK, NREG and TAIL as each use of it says
TILES=BM=128,BN=256,BK=32,WM=32,WN=128,TM=8,TN=16,STAGES=3,GM=8,MINB=1,AT=1
python3 "$HERE/narrow_spec.py" "$D/kernels/gemm/gemm-cuda.json" \
    $TILES,SK=0/132,NREG=0/228,TAIL=0/1 >"$D/kernels/gemm/narrow.json"
# ktune of bundle B tunes spec S (in $D/kernels/gemm) by brute force into $D/DB.db, with
# the options after; what it prints goes to standard output
tune() { # B S DB [OPTIONS...]
    tb=$1 ts=$2 tdb=$3
    shift 3
    KTUNE_WORKER=$tb/ktune-worker LD_LIBRARY_PATH=$tb/lib "$tb/ktune" tune \
        "$D/kernels/gemm/$ts.json" --problem M=4096,N=4096,K=4096 --strategy brute_force \
        --db "$D/$tdb.db" --cache "$D/cache" --timeout 30 "$@" </dev/null 2>&1
}
nvidia-smi --query-gpu=name,driver_version,power.limit,temperature.gpu --format=csv,noheader
# the container's CPU quota and how often it stalled us: one suspect for the busy host's low
# readings (a throttled cgroup stops the worker too, for the rest of each period)
throttled() { grep -E 'nr_throttled|throttled_usec' /sys/fs/cgroup/cpu.stat 2>/dev/null | tr '\n' ' '; }
echo "cpus $(nproc), cpu.max $(cat /sys/fs/cgroup/cpu.max 2>/dev/null || echo unknown)"
for build in $BUILDS; do
    B=$OLD; [ $build = new ] && B=$NEW
    for host in quiet loaded; do
        pids=
        if [ $host = loaded ]; then
            for i in $(seq "$(nproc)"); do yes >/dev/null & pids="$pids $!"; done
        fi
        t0=$(date +%s)
        tune "$B" narrow "$build-$host" >"$D/$build-$host.txt"
        echo "$build $host: rc=$? $(($(date +%s) - t0)) s, load $(cut -d' ' -f1 /proc/loadavg)," \
            "cgroup $(throttled)"
        [ -n "$pids" ] && kill $pids
        "$B/ktune" db export csv --db "$D/$build-$host.db" >"$OUT/$build-$host.csv"
    done
done
# the independent check: one configuration, a 3 s window after the 15 s warm-up, while
# nvidia-smi samples the board's power
python3 "$HERE/narrow_spec.py" "$D/kernels/gemm/gemm-cuda.json" \
    $TILES,SK=132,NREG=228,TAIL=1 >"$D/kernels/gemm/pin.json"
nvidia-smi --query-gpu=power.draw.instant --format=csv,noheader,nounits -lms 100 \
    >"$OUT/smi.txt" 2>&1 &
smi=$!
tune "$NEW" pin pin --energy-window 3 >/dev/null
kill $smi
"$NEW/ktune" db export csv --db "$D/pin.db" >"$OUT/pin.csv"
python3 - "$OUT" <<'PY'
import csv, statistics, sys
row = next(csv.DictReader(open(f"{sys.argv[1]}/pin.csv")))
smi = [float(x) for x in open(f"{sys.argv[1]}/smi.txt") if x.strip().replace(".", "").isdigit()]
busy = [x for x in smi if x > max(smi) / 2]  # the samples while the kernel ran
detail = f" ({row['detail']})" if row["detail"] else ""
print(f"one configuration, 3 s window: ktune {row['power_w'] or 'none'} W{detail};"
      f" nvidia-smi power.draw.instant while busy: median {statistics.median(busy):.1f} W,"
      f" quartiles {statistics.quantiles(busy)[0]:.1f}-{statistics.quantiles(busy)[2]:.1f} W,"
      f" {len(busy)} of {len(smi)} samples")
PY
python3 - "$OUT" $BUILDS <<'PY'
import csv, statistics, sys
runs, why = {}, {}
builds = sys.argv[2:]
for b in builds:
    for h in ("quiet", "loaded"):
        for r in csv.DictReader(open(f"{sys.argv[1]}/{b}-{h}.csv")):
            if r["power_w"]:
                runs.setdefault((b, h), {})[r["config"]] = float(r["power_w"])
            else:
                why[b, h, r["config"]] = r["detail"]
nan = float("nan")
keys = sorted({k for (_, _, k) in why} | {k for v in runs.values() for k in v})
print("power (W) of each configuration (nan: none read; the reasons follow); ratio loaded / quiet")
print("config | old quiet | old loaded | ratio | new quiet | new loaded | ratio")
for k in keys:
    v = [runs.get((b, h), {}).get(k, nan) for b in ("old", "new") for h in ("quiet", "loaded")]
    v = [x if x else nan for x in v]
    tail = ",".join(p for p in k.split(",") if p.split("=")[0] in ("SK", "NREG", "TAIL"))
    print(f"{tail} | {v[0]:.1f} | {v[1]:.1f} | {v[1] / v[0]:.3f} | {v[2]:.1f} | {v[3]:.1f} |"
          f" {v[3] / v[2]:.3f}")
def median_ratio(a, b):
    r = [runs[a][k] / runs[b][k] for k in keys if runs.get(a, {}).get(k) and runs.get(b, {}).get(k)]
    return f"{statistics.median(r):.3f} over {len(r)}" if r else "none"
for b in builds:
    print(f"{b}: median loaded / quiet {median_ratio((b, 'loaded'), (b, 'quiet'))}")
print(f"new / old, quiet host: median {median_ratio(('new', 'quiet'), ('old', 'quiet'))}")
for (b, h, k), d in sorted(why.items()):
    print(f"no power, {b} {h}: {k}: {d}")
PY
