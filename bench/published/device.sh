#!/bin/sh
# device.sh - kt_sim.py for both Kernel Tuner releases, one after the other,
# on the GPU machine's CPUs (README.md beside this file).
#
#   bench/published/device.sh OUTDIR FIRST_SEED SEEDS WALL [kt_sim options]
#
# WALL: seconds for each release.  Expects Kernel Tuner and python-constraint
# under build/published/ (README.md says how to make that folder).
set -u
out=$1 first=$2 seeds=$3 wall=$4
shift 4
P=build/published
mkdir -p "$out"
{
    echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC') $(uname -n), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
    python3 -c 'import sys, numpy, scipy, sklearn; print("python", sys.version.split()[0], "numpy", numpy.__version__, "scipy", scipy.__version__, "scikit-learn", sklearn.__version__)'
} >>"$out/log.txt" 2>&1
for v in "kt140 pc26 1.4.0" "kt043 pc14 0.4.3"; do
    set -- $v "$@"
    kt=$1 pc=$2 rel=$3
    shift 3
    echo "# Kernel Tuner $rel: kt_sim.py --first-seed $first --seeds $seeds --wall $wall $*" >>"$out/log.txt"
    python3 bench/published/kt_sim.py --kt "$P/$kt" --constraint "$P/$pc" \
        --out "$out/runs-kt$rel-s$first.jsonl" --first-seed "$first" --seeds "$seeds" \
        --wall "$wall" "$@" >>"$out/log.txt" 2>&1
    echo "# exit $? at $(date -u '+%H:%M:%S UTC')" >>"$out/log.txt"
done
