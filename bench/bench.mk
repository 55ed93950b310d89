# bench.mk - build and run the benchmarks (from the top-level `make bench`).
BUILD ?= build
include libs.mk
WERROR ?= 0
# As the Makefile: -Werror only with WERROR=1, the user's flags last.
CFLAGS_B = -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) \
           -Iinclude -Isrc $(shell pkg-config --cflags json-c) $(CPPFLAGS) $(CFLAGS) -MMD -MP

.PHONY: all
all: $(BUILD)/bench/bench_space $(BUILD)/bench/bench_expr $(BUILD)/bench/bench_select
	$(BUILD)/bench/bench_expr
	$(BUILD)/bench/bench_space
	$(BUILD)/bench/bench_select

$(BUILD)/bench/%: bench/%.c $(BUILD)/rel/libktune.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_B) $(LDFLAGS) -o $@ $< $(BUILD)/rel/libktune.a $(LIBS)

-include $(wildcard $(BUILD)/bench/*.d)
