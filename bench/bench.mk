# bench.mk - build and run the benchmarks (from the top-level `make bench`).
BUILD ?= build
include libs.mk
CFLAGS_B = -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Iinclude -Isrc \
           $(shell pkg-config --cflags json-c)

.PHONY: all
all: $(BUILD)/bench/bench_space $(BUILD)/bench/bench_expr
	$(BUILD)/bench/bench_expr
	$(BUILD)/bench/bench_space

$(BUILD)/bench/%: bench/%.c $(BUILD)/rel/libktune.a $(wildcard include/*.h src/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_B) -o $@ $< $(BUILD)/rel/libktune.a $(LIBS)
