# libs.mk - the libraries ktune links against, for the Makefile and bench/bench.mk.
LIBS = -ljson-c -lsqlite3 -lbz2 -lsvm -lxgboost -lopenblas -lpthread -ldl -lm
