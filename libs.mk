# libs.mk - the libraries ktune links against, for the Makefile and bench/bench.mk.
# Those with a pkg-config file of their own are ktune.pc's Requires.private,
# the others its Libs.private (what linking libktune.a needs besides it).
PC_REQUIRES = json-c sqlite3 zlib
PC_LIBS     = -lbz2 -lsvm -lxgboost -lopenblas -lpthread -ldl -lm
LIBS = -ljson-c -lsqlite3 -lz $(PC_LIBS)
# HDF5 (T1's BinaryHDF data files) is loaded at run time (src/measure/datafile.c
# says why): building needs only its header, from libhdf5-dev.
HDF5_CFLAGS := $(shell pkg-config --cflags hdf5 2>/dev/null)
# MPI (distributed tuning, src/tune/mpi.c) where OpenMPI's pkg-config file is
# found (Debian's libopenmpi-dev); without it ktune builds and runs as one
# process, and a run started by mpirun with several ranks is refused.
MPI_LIBS := $(shell pkg-config --libs ompi-c 2>/dev/null)
ifneq ($(MPI_LIBS),)
MPI_CFLAGS := -DKT_HAVE_MPI $(shell pkg-config --cflags ompi-c 2>/dev/null)
PC_REQUIRES += ompi-c
LIBS += $(MPI_LIBS)
endif
