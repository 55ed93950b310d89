# libs.mk - the libraries ktune links against, for the Makefile and bench/bench.mk.
LIBS = -ljson-c -lsqlite3 -lbz2 -lz -lsvm -lxgboost -lopenblas -lpthread -ldl -lm
# HDF5 (T1's BinaryHDF data files) is loaded at run time (src/measure/datafile.c
# says why): building needs only its header, from libhdf5-dev.
HDF5_CFLAGS := $(shell pkg-config --cflags hdf5 2>/dev/null)
