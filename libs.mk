# libs.mk - the libraries ktune links against, for the Makefile and bench/bench.mk.
# Those with a pkg-config file of their own are ktune.pc's Requires.private,
# the others its Libs.private (what linking libktune.a needs besides it).
PC_REQUIRES = json-c sqlite3 zlib
PC_LIBS     = -lbz2 -lsvm -lxgboost -lopenblas -lpthread -ldl -lm
LIBS = -ljson-c -lsqlite3 -lz $(PC_LIBS)
# HDF5 (T1's BinaryHDF data files) is loaded at run time (src/measure/datafile.c
# says why): building needs only its header, from libhdf5-dev.
HDF5_CFLAGS := $(shell pkg-config --cflags hdf5 2>/dev/null)
