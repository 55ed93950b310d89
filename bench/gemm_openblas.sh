#!/bin/sh
# gemm_openblas.sh - run ktune's tuned CPU SGEMM and OpenBLAS side by side.
#
#   bench/gemm_openblas.sh DB M N K [reps]
#
# Takes the best configuration that DB holds for the gemm kernel at problem
# M,N,K (from `ktune db best`), builds bench/gemm_openblas.c with it (the
# same compiler flags ktune uses), and runs both libraries alternately in
# one process with the configuration's thread count.
set -eu
[ $# -ge 4 ] || { echo "usage: $0 DB M N K [reps]" >&2; exit 2; }
DB=$1 M=$2 N=$3 K=$4 REPS=${5:-20}
BUILD=${BUILD:-build}
KTUNE=${KTUNE:-$BUILD/ktune}

config=$("$KTUNE" db best --db "$DB" --kernel gemm --problem "M=$M,N=$N,K=$K" |
         awk '{ print $3; exit }')
[ -n "$config" ] || { echo "$0: no ok measurement of gemm at M=$M,N=$N,K=$K in $DB" >&2; exit 1; }
defines=$(echo "$config" | sed 's/^/-D/; s/,/ -D/g')
echo "configuration: $config"
mkdir -p "$BUILD/bench"
# shellcheck disable=SC2086
cc -std=gnu11 -D_GNU_SOURCE -O3 -march=native -fopenmp -Wall -Wextra -Werror $defines \
   bench/gemm_openblas.c kernels/gemm/gemm.c -lopenblas -lm -o "$BUILD/bench/gemm_openblas"
"$BUILD/bench/gemm_openblas" "$M" "$N" "$K" "$REPS"
