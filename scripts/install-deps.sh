#!/bin/sh
# install-deps.sh - install the Debian packages ktune needs, if missing.
# Runs apt-get (through sudo when not root) only when a package is absent,
# so it is cheap to call before every build.  clang and libclang-rt-dev
# (libclang_rt.fuzzer, the libFuzzer runtime) build the harnesses of
# `make fuzz`.  libhdf5-dev: the HDF5 header ktune builds against and the
# library it loads to read T1's BinaryHDF data files.  groff-base: the test
# that renders the generated manual page (tests/pkg/man.sh).  chromium: the
# headless browser that loads `ktune report`'s HTML (tests/cli/report.sh).
# ocl-icd-libopencl1 and pocl-opencl-icd: the OpenCL loader the OpenCL
# backend opens at run time and PoCL, the CPU OpenCL platform its tests run
# on; opencl-c-headers: CL/cl.h.  libopenmpi-dev and openmpi-bin: MPI for
# distributed tuning (`mpirun -n N ktune tune`) and its tests.
set -eu

PACKAGES="gcc make pkg-config libsqlite3-dev libjson-c-dev libopenblas-dev libbz2-dev zlib1g-dev libsvm-dev libxgboost-dev sqlite3 procps bzip2 time clang libclang-rt-dev python3 python3-jsonschema libhdf5-dev groff-base chromium ocl-icd-libopencl1 pocl-opencl-icd opencl-c-headers libopenmpi-dev openmpi-bin"

missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "install-deps: installing$missing" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
