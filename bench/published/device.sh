#!/bin/sh
# device.sh - kt_sim.py for both Kernel Tuner releases, one after the other,
# on the GPU machine's CPUs (README.md beside this file): 1.4.0 without
# bayes_opt, 0.4.3 without bayes_opt (it needs scikit-optimize, absent
# there), then 1.4.0's bayes_opt alone (the slowest by far, so it gets its
# own wall time and fewer seeds).  Seeds FIRST, FIRST+1, ... until each
# part's wall time (seconds) is spent; results in OUT/runs-*.jsonl, the log
# in OUT/log.txt.
#
#   bench/published/device.sh OUT FIRST FIRST_BO WALL_140 WALL_043 WALL_BO
#
# Expects Kernel Tuner and python-constraint under build/published/
# (README.md says how to make that folder).
set -u
out=$1 first=$2 first_bo=$3 w140=$4 w043=$5 wbo=$6
P=build/published
ALL=random_sample,genetic_algorithm,simulated_annealing,pso,firefly_algorithm,diff_evo,mls,greedy_mls,greedy_ils,ordered_greedy_mls,basinhopping,dual_annealing,minimize
mkdir -p "$out"
{
    echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC') $(uname -n), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
    python3 -c 'import sys, numpy, scipy, sklearn; print("python", sys.version.split()[0], "numpy", numpy.__version__, "scipy", scipy.__version__, "scikit-learn", sklearn.__version__)'
} >>"$out/log.txt" 2>&1
part() { # NAME KT CONSTRAINT FIRST WALL STRATEGIES
    echo "# $1: kt_sim.py --kt $P/$2 --first-seed $4 --seeds 100 --wall $5 --strategies $6" >>"$out/log.txt"
    python3 "$(dirname "$0")/kt_sim.py" --kt "$P/$2" --constraint "$P/$3" --out "$out/runs-$1-s$4.jsonl" \
        --first-seed "$4" --seeds 100 --wall "$5" --strategies "$6" >>"$out/log.txt" 2>&1
    echo "# exit $? at $(date -u '+%H:%M:%S UTC')" >>"$out/log.txt"
}
part kt1.4.0 kt140 pc26 "$first" "$w140" "$ALL"
part kt0.4.3 kt043 pc14 "$first" "$w043" "$ALL"
part kt1.4.0-bayes_opt kt140 pc26 "$first_bo" "$wbo" bayes_opt
