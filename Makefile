# ktune - build, test and demo.
#
#   make demo    install missing Debian packages, build, tune the CPU SGEMM
#   make check   install missing packages, build, run every test (also
#                under AddressSanitizer and UndefinedBehaviorSanitizer)
#   make         build build/ktune
#   make bench   the benchmarks under bench/

CC      ?= cc
BUILD   ?= build
JSON_CFLAGS := $(shell pkg-config --cflags json-c 2>/dev/null)
include libs.mk
CFLAGS_COMMON = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Iinclude -Isrc $(JSON_CFLAGS) \
                $(HDF5_CFLAGS)

# Two flavours of the same sources: release, and sanitised for the tests.
REL_FLAGS  = -O2 -g
ASAN_FLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
             -fno-sanitize-recover=undefined

LIB_SRC  = $(wildcard src/core/*.c src/store/*.c src/backend/*.c src/ml/*.c src/api/*.c \
                      src/measure/*.c src/search/*.c src/tune/*.c)
CLI_SRC  = $(wildcard src/cli/*.c)
TEST_SRC = $(filter-out tests/test_gemm_kernel.c,$(wildcard tests/test_*.c))
HEADERS  = $(wildcard include/*.h src/*/*.h tests/*.h)

REL_OBJ  = $(LIB_SRC:%.c=$(BUILD)/rel/%.o)
ASAN_OBJ = $(LIB_SRC:%.c=$(BUILD)/asan/%.o)
REL_TESTS  = $(TEST_SRC:tests/%.c=$(BUILD)/rel/tests/%)
ASAN_TESTS = $(TEST_SRC:tests/%.c=$(BUILD)/asan/tests/%)

.PHONY: all deps demo check test test-asan test-cli bench bundle clean

all: $(BUILD)/ktune $(BUILD)/ktune-worker

deps:
	@./scripts/install-deps.sh

$(BUILD)/rel/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(REL_FLAGS) -c $< -o $@

$(BUILD)/asan/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(ASAN_FLAGS) -c $< -o $@

$(BUILD)/rel/libktune.a: $(REL_OBJ)
	ar rcs $@ $^

$(BUILD)/asan/libktune.a: $(ASAN_OBJ)
	ar rcs $@ $^

$(BUILD)/ktune: $(CLI_SRC:%.c=$(BUILD)/rel/%.o) $(BUILD)/rel/libktune.a
	$(CC) $(REL_FLAGS) -o $@ $^ $(LIBS)

$(BUILD)/asan/ktune: $(CLI_SRC:%.c=$(BUILD)/asan/%.o) $(BUILD)/asan/libktune.a
	$(CC) $(ASAN_FLAGS) -o $@ $^ $(LIBS)

# The measurement worker program, started by the tuner beside it.
$(BUILD)/ktune-worker: $(BUILD)/rel/src/worker/main.o $(BUILD)/rel/libktune.a
	$(CC) $(REL_FLAGS) -o $@ $^ $(LIBS)

$(BUILD)/asan/ktune-worker: $(BUILD)/asan/src/worker/main.o $(BUILD)/asan/libktune.a
	$(CC) $(ASAN_FLAGS) -o $@ $^ $(LIBS)

$(BUILD)/rel/tests/%: tests/%.c $(BUILD)/rel/libktune.a $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(REL_FLAGS) -o $@ $< $(BUILD)/rel/libktune.a $(LIBS)

$(BUILD)/asan/tests/%: tests/%.c $(BUILD)/asan/libktune.a $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(ASAN_FLAGS) -o $@ $< $(BUILD)/asan/libktune.a $(LIBS)

# The SGEMM kernel is checked against its reference once per configuration
# listed in the test's "// CONFIG:" lines.
$(BUILD)/gemm-kernel.stamp: tests/test_gemm_kernel.c kernels/gemm/gemm.c kernels/gemm/gemm_ref.c tests/test.h
	@mkdir -p $(BUILD)/gemm-kernel
	@set -e; n=0; grep '^// CONFIG:' tests/test_gemm_kernel.c | sed 's|^// CONFIG:||' | \
	while read -r defs; do n=$$((n+1)); \
	  echo "gemm kernel with $$defs"; \
	  $(CC) -std=gnu11 -D_GNU_SOURCE -O2 -march=native -fopenmp -Wall -Wextra -Werror -Iinclude \
	    $$defs -o $(BUILD)/gemm-kernel/t$$n tests/test_gemm_kernel.c -lm; \
	  KT_TEST_SRCDIR=. $(BUILD)/gemm-kernel/t$$n; done
	@touch $@

# Environment for the tests: the sanitiser must let a faulty kernel's
# SIGSEGV kill the worker (that is what the tests check).  Test programs
# find the worker program through KTUNE_WORKER.
TEST_ENV = KT_TEST_SRCDIR=. KT_TEST_TIMEOUT=300 \
           ASAN_OPTIONS=handle_segv=0:handle_sigbus=0:handle_sigfpe=0:detect_leaks=1:abort_on_error=0 \
           UBSAN_OPTIONS=print_stacktrace=1

test: $(REL_TESTS) $(BUILD)/ktune $(BUILD)/ktune-worker
	@set -e; for t in $(REL_TESTS); do $(TEST_ENV) KT_BUILD=$(BUILD)/rel \
	  KTUNE_WORKER=$(BUILD)/ktune-worker $$t; done

test-asan: $(ASAN_TESTS) $(BUILD)/asan/ktune $(BUILD)/asan/ktune-worker
	@set -e; for t in $(ASAN_TESTS); do $(TEST_ENV) KT_BUILD=$(BUILD)/asan \
	  KTUNE_WORKER=$(BUILD)/asan/ktune-worker $$t; done

test-cli: $(BUILD)/ktune $(BUILD)/ktune-worker $(BUILD)/asan/ktune $(BUILD)/asan/ktune-worker
	@set -e; for t in tests/cli/*.sh; do echo "== $$t"; \
	  KTUNE=$(BUILD)/ktune $(TEST_ENV) sh $$t; done
	@set -e; echo "== tests/cli/errors.sh under sanitizers"; \
	  KTUNE=$(BUILD)/asan/ktune $(TEST_ENV) sh tests/cli/errors.sh

check: deps
	@$(MAKE) --no-print-directory test test-asan test-cli $(BUILD)/gemm-kernel.stamp
	@$(MAKE) --no-print-directory fuzz-run FUZZ_TIME=5
	@echo "check: all tests passed"

demo: deps
	@$(MAKE) --no-print-directory all
	$(BUILD)/ktune tune kernels/gemm/gemm-c.json --problem M=1024,N=1024,K=1024 \
	  --strategy random --budget 40 --db ktune.db

bench: deps $(BUILD)/rel/libktune.a
	@$(MAKE) --no-print-directory -f bench/bench.mk

# A relocatable folder for the GPU machine (Ubuntu, no package manager):
# the binary finds the libraries that machine lacks (json-c, libsvm,
# XGBoost and its libdmlc) in lib/ beside it, through an $$ORIGIN rpath; an
# old-style RPATH (--disable-new-dtags), because a RUNPATH would not be
# searched for libxgboost's own dependency on libdmlc.
BUNDLE_LIBS = libjson-c.so.5 libsvm.so.3 libxgboost.so.0 libdmlc.so.0
BUNDLE_LDFLAGS = -Wl,--disable-new-dtags,-rpath,'$$ORIGIN/lib'
bundle: $(CLI_SRC:%.c=$(BUILD)/rel/%.o) $(BUILD)/rel/src/worker/main.o $(BUILD)/rel/libktune.a
	@mkdir -p $(BUILD)/bundle/lib
	$(CC) $(REL_FLAGS) $(BUNDLE_LDFLAGS) -o $(BUILD)/bundle/ktune \
	  $(CLI_SRC:%.c=$(BUILD)/rel/%.o) $(BUILD)/rel/libktune.a $(LIBS)
	$(CC) $(REL_FLAGS) $(BUNDLE_LDFLAGS) -o $(BUILD)/bundle/ktune-worker \
	  $(BUILD)/rel/src/worker/main.o $(BUILD)/rel/libktune.a $(LIBS)
	@for l in $(BUNDLE_LIBS); do \
	  cp -L "$$(ldconfig -p | awk -v l=$$l '$$1 == l { print $$NF; exit }')" $(BUILD)/bundle/lib/; done
	@echo "bundle: $(BUILD)/bundle (ktune, ktune-worker + lib/)"

# Fuzzing: each fuzz/fuzz_NAME.c is a libFuzzer harness, built with clang
# against the library compiled for fuzzing (coverage, ASan, UBSan) in
# $(BUILD)/fuzz/, and run for FUZZ_TIME seconds from its seeds in
# fuzz/corpus/NAME/ plus what earlier runs found ($(BUILD)/fuzz/corpus/NAME);
# FUZZ_ARGS adds libFuzzer options (e.g. -runs=10000000).  Each run has a
# TMPDIR of its own, removed afterwards; a crash's input is kept as
# $(BUILD)/fuzz/artifacts/NAME-crash-*, its log as $(BUILD)/fuzz/NAME.log.
.PHONY: fuzz fuzz-run
FUZZ_CC    ?= clang
FUZZ_TIME  ?= 60
FUZZ_ARGS  ?=
FUZZ_CFLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
              -fno-sanitize-recover=undefined
FUZZ_SRC   = $(wildcard fuzz/fuzz_*.c)
FUZZ_BIN   = $(FUZZ_SRC:fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_OBJ   = $(LIB_SRC:%.c=$(BUILD)/fuzz/%.o)

$(BUILD)/fuzz/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CFLAGS_COMMON) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(BUILD)/fuzz/libktune.a: $(FUZZ_OBJ)
	ar rcs $@ $^

$(BUILD)/fuzz/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz.h $(BUILD)/fuzz/libktune.a $(HEADERS)
	$(FUZZ_CC) $(CFLAGS_COMMON) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< \
	  $(BUILD)/fuzz/libktune.a $(LIBS)

fuzz: deps
	@$(MAKE) --no-print-directory fuzz-run

fuzz-run: $(FUZZ_BIN)
	@set -e; mkdir -p $(BUILD)/fuzz/artifacts; for b in $(FUZZ_BIN); do \
	  n=$${b##*/fuzz_}; mkdir -p $(BUILD)/fuzz/corpus/$$n; \
	  seeds=; [ -d fuzz/corpus/$$n ] && seeds=fuzz/corpus/$$n; \
	  tmp=$$(mktemp -d "$${TMPDIR:-/tmp}/ktune-fuzz-run.XXXXXX"); rc=0; \
	  TMPDIR=$$tmp $$b -max_total_time=$(FUZZ_TIME) -timeout=20 -rss_limit_mb=4096 \
	    -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/artifacts/$$n- $(FUZZ_ARGS) \
	    $(BUILD)/fuzz/corpus/$$n $$seeds </dev/null >$(BUILD)/fuzz/$$n.log 2>&1 || rc=$$?; \
	  rm -rf "$$tmp"; \
	  runs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $(BUILD)/fuzz/$$n.log); \
	  rate=$$(sed -n 's/^stat::average_exec_per_sec: *//p' $(BUILD)/fuzz/$$n.log); \
	  if [ $$rc -ne 0 ]; then tail -n 40 $(BUILD)/fuzz/$$n.log; \
	    echo "fuzz $$n: FAILED (log $(BUILD)/fuzz/$$n.log)"; exit 1; fi; \
	  echo "fuzz $$n: $$runs inputs, $$rate/s, no crash"; done

clean:
	rm -rf $(BUILD)
