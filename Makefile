# ktune - build, test, install and demo.
#
#   make deps     install the Debian packages ktune needs that are missing
#   make demo     build, tune the CPU SGEMM        (README: make deps demo)
#   make check    build, run every test (also under AddressSanitizer and
#                 UndefinedBehaviorSanitizer)    (README: make deps check)
#   make          build/ktune, build/ktune-worker, libktune.{a,so}, ktune.1
#   make install  into $(DESTDIR)$(PREFIX) (PREFIX=/usr/local); make uninstall
#   make bench    the benchmarks under bench/
#
# CPPFLAGS, CFLAGS and LDFLAGS from the command line or the environment come
# after the project's own flags, so they win.  WERROR=1 (what CI sets) turns
# warnings into errors; a user's build with a newer compiler only warns.

CC      ?= cc
BUILD   ?= build
WERROR  ?= 0
JSON_CFLAGS := $(shell pkg-config --cflags json-c 2>/dev/null)
include libs.mk
KT_WARN     = -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror)
# The library's own headers (-Isrc); the command-line front end is compiled
# without them, so that it can use the public API (include/ktune.h) alone.
SRC_INC     = -Isrc
KT_CPPFLAGS = -D_GNU_SOURCE -Iinclude $(SRC_INC) $(JSON_CFLAGS) $(HDF5_CFLAGS) $(MPI_CFLAGS)
KT_CFLAGS   = -std=c11 $(KT_WARN)
# Each object and test program writes its header dependencies to a .d file
# beside it (-MP: a deleted header is no error).
DEPFLAGS    = -MMD -MP

# Two flavours of the same sources: release, and sanitised for the tests.
REL_FLAGS  = -O2 -g
ASAN_FLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
             -fno-sanitize-recover=undefined
# The release objects of the library go into both libktune.a and
# libktune.so: position-independent, and hidden unless include/ktune.h marks
# a declaration KTUNE_API, so the shared library exports the contract alone
# (tests/pkg/exports.sh checks it).
LIB_PIC    = -fPIC -fvisibility=hidden
CC_REL     = $(CC) $(KT_CPPFLAGS) $(KT_CFLAGS) $(REL_FLAGS) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS)
CC_ASAN    = $(CC) $(KT_CPPFLAGS) $(KT_CFLAGS) $(ASAN_FLAGS) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS)
LD_REL     = $(CC) $(REL_FLAGS) $(CFLAGS) $(LDFLAGS)
LD_ASAN    = $(CC) $(ASAN_FLAGS) $(CFLAGS) $(LDFLAGS)

LIB_SRC  = $(wildcard src/core/*.c src/store/*.c src/backend/*.c src/ml/*.c src/api/*.c \
                      src/measure/*.c src/search/*.c src/tune/*.c)
CLI_SRC  = $(wildcard src/cli/*.c)
TEST_SRC = $(filter-out tests/test_gemm_kernel.c,$(wildcard tests/test_*.c))

REL_OBJ  = $(LIB_SRC:%.c=$(BUILD)/rel/%.o)
ASAN_OBJ = $(LIB_SRC:%.c=$(BUILD)/asan/%.o)
CLI_OBJ  = $(CLI_SRC:%.c=$(BUILD)/rel/%.o)
REL_TESTS  = $(TEST_SRC:tests/%.c=$(BUILD)/rel/tests/%)
ASAN_TESTS = $(TEST_SRC:tests/%.c=$(BUILD)/asan/tests/%)

# The version comes from include/ktune.h; the shared library's soname
# carries its major part (a new major: an incompatible ABI).
VERSION := $(shell sed -n 's/^[#]define KTUNE_VERSION "\(.*\)"/\1/p' include/ktune.h)
MAJOR   := $(firstword $(subst ., ,$(VERSION)))
SONAME   = libktune.so.$(MAJOR)
SHLIB    = $(BUILD)/rel/libktune.so.$(VERSION)

.PHONY: all deps demo check test test-asan test-cli test-pkg bench bundle clean \
        install uninstall

all: $(BUILD)/ktune $(BUILD)/ktune-worker $(BUILD)/rel/libktune.a $(SHLIB) $(BUILD)/ktune.1

# The manual page, from the program's own --help texts (scripts/gen-man.sh).
$(BUILD)/ktune.1: $(BUILD)/ktune scripts/gen-man.sh src/cli/main.c
	sh scripts/gen-man.sh $(BUILD)/ktune src/cli/main.c >$@.tmp && mv $@.tmp $@

deps:
	@./scripts/install-deps.sh

$(REL_OBJ): LIB_FLAGS = $(LIB_PIC)
$(CLI_OBJ) $(CLI_SRC:%.c=$(BUILD)/asan/%.o): SRC_INC =
$(BUILD)/rel/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC_REL) $(LIB_FLAGS) -c $< -o $@

$(BUILD)/asan/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC_ASAN) -c $< -o $@

$(BUILD)/rel/libktune.a: $(REL_OBJ)
	ar rcs $@ $^

$(BUILD)/asan/libktune.a: $(ASAN_OBJ)
	ar rcs $@ $^

# libktune.so.MAJOR.MINOR.PATCH, with the links libktune.so.MAJOR (the
# soname, what programs load) and libktune.so (what -lktune finds).
# -z defs: a library missing from LIBS is a link error here, not in the
# program of whoever links it.
$(SHLIB): $(REL_OBJ)
	$(LD_REL) -shared -Wl,-soname,$(SONAME) -Wl,-z,defs -o $@ $^ $(LIBS)
	ln -sf $(notdir $@) $(BUILD)/rel/$(SONAME)
	ln -sf $(SONAME) $(BUILD)/rel/libktune.so

# The command-line program and the worker link the archive: they run from
# the build folder and the GPU bundle without a library path, and the
# worker starts faster without relocating a shared library per start.
$(BUILD)/ktune: $(CLI_OBJ) $(BUILD)/rel/libktune.a
	$(LD_REL) -o $@ $^ $(LIBS)

$(BUILD)/asan/ktune: $(CLI_SRC:%.c=$(BUILD)/asan/%.o) $(BUILD)/asan/libktune.a
	$(LD_ASAN) -o $@ $^ $(LIBS)

# The measurement worker program, started by the tuner beside it.
$(BUILD)/ktune-worker: $(BUILD)/rel/src/worker/main.o $(BUILD)/rel/libktune.a
	$(LD_REL) -o $@ $^ $(LIBS)

$(BUILD)/asan/ktune-worker: $(BUILD)/asan/src/worker/main.o $(BUILD)/asan/libktune.a
	$(LD_ASAN) -o $@ $^ $(LIBS)

$(BUILD)/rel/tests/%: tests/%.c $(BUILD)/rel/libktune.a
	@mkdir -p $(dir $@)
	$(CC_REL) $(LDFLAGS) -o $@ $< $(BUILD)/rel/libktune.a $(LIBS)

$(BUILD)/asan/tests/%: tests/%.c $(BUILD)/asan/libktune.a
	@mkdir -p $(dir $@)
	$(CC_ASAN) $(LDFLAGS) -o $@ $< $(BUILD)/asan/libktune.a $(LIBS)

# The SGEMM kernel is checked against its reference once per configuration
# listed in the test's "// CONFIG:" lines.
$(BUILD)/gemm-kernel.stamp: tests/test_gemm_kernel.c kernels/gemm/gemm.c kernels/gemm/gemm_ref.c tests/test.h
	@mkdir -p $(BUILD)/gemm-kernel
	@set -e; n=0; grep '^// CONFIG:' tests/test_gemm_kernel.c | sed 's|^// CONFIG:||' | \
	while read -r defs; do n=$$((n+1)); \
	  echo "gemm kernel with $$defs"; \
	  $(CC) -std=gnu11 -D_GNU_SOURCE -O2 -march=native -fopenmp $(KT_WARN) -Iinclude \
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

# The packaging: what the shared library exports, `make install` into a
# temporary DESTDIR and a program built against it through pkg-config.
test-pkg: all
	@set -e; for t in tests/pkg/*.sh; do echo "== $$t"; \
	  KTUNE=$(BUILD)/ktune BUILD=$(BUILD) MAKE="$(MAKE)" sh $$t; done

# Installs no package: the README's `make deps check` does (`make deps`).
check:
	@$(MAKE) --no-print-directory test test-asan test-cli test-pkg $(BUILD)/gemm-kernel.stamp
	@$(MAKE) --no-print-directory fuzz-run FUZZ_TIME=5
	@echo "check: all tests passed"

demo:
	@$(MAKE) --no-print-directory all
	$(BUILD)/ktune tune kernels/gemm/gemm-c.json --problem M=1024,N=1024,K=1024 \
	  --strategy random --budget 40 --db ktune.db

bench: $(BUILD)/rel/libktune.a
	@$(MAKE) --no-print-directory -f bench/bench.mk

# Installation under $(DESTDIR)$(PREFIX): the worker goes to libexec/ktune/,
# where src/measure/worker.c finds it from bin/ (the ktune program) and lib/
# (a program linked with libktune.so); the specs and kernels the README's
# examples name go to share/ktune/kernels/, where ktune_data_path finds them
# the same way (import miopen, evaluate and predict use kernels/miopen).  ktune.pc is written here, so it
# names the PREFIX of the installation, not that of the build.
PREFIX     ?= /usr/local
bindir      = $(PREFIX)/bin
libdir      = $(PREFIX)/lib
libexecdir  = $(PREFIX)/libexec/ktune
includedir  = $(PREFIX)/include
datadir     = $(PREFIX)/share/ktune
mandir      = $(PREFIX)/share/man/man1
INSTALL    ?= install

install: all
	$(INSTALL) -d $(DESTDIR)$(bindir) $(DESTDIR)$(libdir)/pkgconfig $(DESTDIR)$(libexecdir) \
	  $(DESTDIR)$(includedir) $(DESTDIR)$(datadir) $(DESTDIR)$(mandir)
	$(INSTALL) -m 755 $(BUILD)/ktune $(DESTDIR)$(bindir)/ktune
	$(INSTALL) -m 755 $(BUILD)/ktune-worker $(DESTDIR)$(libexecdir)/ktune-worker
	$(INSTALL) -m 644 $(SHLIB) $(DESTDIR)$(libdir)/
	ln -sf $(notdir $(SHLIB)) $(DESTDIR)$(libdir)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(libdir)/libktune.so
	$(INSTALL) -m 644 $(BUILD)/rel/libktune.a $(DESTDIR)$(libdir)/libktune.a
	$(INSTALL) -m 644 include/ktune.h $(DESTDIR)$(includedir)/ktune.h
	$(INSTALL) -m 644 $(BUILD)/ktune.1 $(DESTDIR)$(mandir)/ktune.1
	sed -e '/^#/d' -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' \
	  -e 's|@REQUIRES@|$(PC_REQUIRES)|' -e 's|@LIBS@|$(PC_LIBS)|' ktune.pc.in \
	  >$(DESTDIR)$(libdir)/pkgconfig/ktune.pc
	cp -R kernels $(DESTDIR)$(datadir)/
	@echo "install: done; after installing to a system folder run ldconfig as root"

uninstall:
	rm -f $(DESTDIR)$(bindir)/ktune $(DESTDIR)$(libexecdir)/ktune-worker \
	  $(DESTDIR)$(libdir)/libktune.so $(DESTDIR)$(libdir)/$(SONAME) \
	  $(DESTDIR)$(libdir)/$(notdir $(SHLIB)) $(DESTDIR)$(libdir)/libktune.a \
	  $(DESTDIR)$(includedir)/ktune.h $(DESTDIR)$(libdir)/pkgconfig/ktune.pc \
	  $(DESTDIR)$(mandir)/ktune.1
	rm -rf $(DESTDIR)$(datadir)
	-rmdir $(DESTDIR)$(libexecdir) 2>/dev/null

# A relocatable folder for the GPU machine (Ubuntu, no package manager):
# the binary finds the libraries that machine lacks (json-c, libsvm,
# XGBoost and its libdmlc) in lib/ beside it, through an $$ORIGIN rpath; an
# old-style RPATH (--disable-new-dtags), because a RUNPATH would not be
# searched for libxgboost's own dependency on libdmlc.
BUNDLE_LIBS = libjson-c.so.5 libsvm.so.3 libxgboost.so.0 libdmlc.so.0
BUNDLE_LDFLAGS = -Wl,--disable-new-dtags,-rpath,'$$ORIGIN/lib'
bundle: $(CLI_OBJ) $(BUILD)/rel/src/worker/main.o $(BUILD)/rel/libktune.a
	@mkdir -p $(BUILD)/bundle/lib
	$(LD_REL) $(BUNDLE_LDFLAGS) -o $(BUILD)/bundle/ktune \
	  $(CLI_OBJ) $(BUILD)/rel/libktune.a $(LIBS)
	$(LD_REL) $(BUNDLE_LDFLAGS) -o $(BUILD)/bundle/ktune-worker \
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

$(BUILD)/fuzz/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(KT_CPPFLAGS) $(KT_CFLAGS) $(FUZZ_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) \
	  -fsanitize=fuzzer-no-link -c $< -o $@

$(BUILD)/fuzz/libktune.a: $(FUZZ_OBJ)
	ar rcs $@ $^

$(BUILD)/fuzz/fuzz_%: fuzz/fuzz_%.c $(BUILD)/fuzz/libktune.a
	$(FUZZ_CC) $(KT_CPPFLAGS) $(KT_CFLAGS) $(FUZZ_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) \
	  $(LDFLAGS) -fsanitize=fuzzer -o $@ $< $(BUILD)/fuzz/libktune.a $(LIBS)

fuzz:
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

# What each object and program was built from (the -MMD files).
DEP_OBJ  = $(REL_OBJ) $(ASAN_OBJ) $(FUZZ_OBJ) $(CLI_OBJ) $(CLI_SRC:%.c=$(BUILD)/asan/%.o) \
           $(BUILD)/rel/src/worker/main.o $(BUILD)/asan/src/worker/main.o
DEP_PROG = $(REL_TESTS) $(ASAN_TESTS) $(FUZZ_BIN)
-include $(wildcard $(DEP_OBJ:.o=.d) $(DEP_PROG:=.d))
# One that exists without its .d file (built before -MMD, or the .d lost)
# would never see its headers change: it is rebuilt, which writes the .d.
NODEP = $(foreach f,$(DEP_OBJ),$(if $(wildcard $(f:.o=.d)),,$(wildcard $f))) \
        $(foreach f,$(DEP_PROG),$(if $(wildcard $f.d),,$(wildcard $f)))
.PHONY: FORCE
$(NODEP): FORCE
