# nnscope - one non-recursive Makefile.
#   make          build build/nnscope and the analyzer library
#   make test     unit + golden + e2e tests, the ASan/UBSan build, a short fuzz run
#   make bench    benchmarks (print tables)
#   make lint     clang-format --dry-run and cppcheck
# Sources are found by wildcard: add a .c file to a src/ directory and it is built.

CC      ?= cc
SHARED  ?= $(abspath ../shared)
BUILD   ?= build
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
CPPFLAGS := -Iinclude -Isrc -D_GNU_SOURCE -MMD -MP
ALL_CFLAGS := -std=c11 $(WARN) $(CFLAGS) -pthread
LDLIBS  := -lz -lm -pthread

LIB_DIRS := src/common src/model src/importers src/analysis src/output
LIB_SRC  := $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c))
CLI_SRC  := $(wildcard src/cli/*.c)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
LIB_A    := $(BUILD)/libnnscope_analyzer.a
NNSCOPE  := $(BUILD)/nnscope

UNIT_SRC   := $(wildcard tests/unit/test_*.c)
GOLDEN_SRC := $(wildcard tests/golden/test_*.c)
TEST_COMMON_SRC := $(wildcard tests/common/*.c)
TEST_COMMON_OBJ := $(TEST_COMMON_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN   := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
GOLDEN_BIN := $(GOLDEN_SRC:tests/golden/%.c=$(BUILD)/tests/%)
TEST_LIBS  := -lcmocka -ljansson

.PHONY: all test unit golden e2e asan fuzz bench lint clean deps demo
all: $(NNSCOPE)

# Installs what is missing, builds, analyses the sample traces and prints the report.
demo:
	@bash scripts/install-deps.sh
	@$(MAKE) --no-print-directory all
	@if [ -d "$(SHARED)/data/kineto" ]; then \
		$(NNSCOPE) analyse $(SHARED)/data/kineto --out build/demo && \
		$(NNSCOPE) report $(SHARED)/data/kineto/resnet50_num_workers_0 --view all; \
	else echo "demo: $(SHARED)/data/kineto not found; run: $(NNSCOPE) report <trace or run dir>"; fi

deps:
	@bash scripts/install-deps.sh

V ?= 0
Q := $(if $(filter 1,$(V)),,@)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

$(LIB_A): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(NNSCOPE): $(CLI_OBJ) $(LIB_A)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $(CLI_OBJ) $(LIB_A) $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(LIB_A) $(TEST_COMMON_OBJ)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) $(CPPFLAGS) -Itests/common $(ALL_CFLAGS) -o $@ $< $(TEST_COMMON_OBJ) $(LIB_A) $(TEST_LIBS) $(LDLIBS)

$(BUILD)/tests/%: tests/golden/%.c $(LIB_A) $(TEST_COMMON_OBJ)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) $(CPPFLAGS) -Itests/common $(ALL_CFLAGS) -o $@ $< $(TEST_COMMON_OBJ) $(LIB_A) $(TEST_LIBS) $(LDLIBS)

# ---- tests -------------------------------------------------------------
export NNS_SHARED := $(SHARED)

unit: $(UNIT_BIN)
	@set -e; for t in $(UNIT_BIN); do echo "== $$t"; $$t; done

golden: $(GOLDEN_BIN) $(NNSCOPE)
	@set -e; for t in $(GOLDEN_BIN); do echo "== $$t"; $$t; done

e2e: $(NNSCOPE)
	@set -e; for t in tests/e2e/*.sh; do echo "== $$t"; NNSCOPE=$(abspath $(NNSCOPE)) bash $$t; done

# The same unit and golden tests under AddressSanitizer + UBSan.
asan:
	$(MAKE) BUILD=build-asan OPT=-O1 CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
		LDLIBS="-lz -lm -pthread -fsanitize=address,undefined" unit golden

# libFuzzer on every importer; a short run in `make test`.
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=build-fuzz/%)
FUZZ_SECONDS ?= 20
build-fuzz/%: tests/fuzz/%.c $(LIB_SRC)
	@mkdir -p build-fuzz
	clang $(CPPFLAGS) -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -pthread -o $@ $< $(LIB_SRC) -lz -lm
fuzz: $(FUZZ_BIN)
	@set -e; for f in $(FUZZ_BIN); do echo "== $$f ($(FUZZ_SECONDS)s)"; \
		mkdir -p build-fuzz/corpus-$$(basename $$f); \
		$$f -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
		    build-fuzz/corpus-$$(basename $$f) tests/fuzz/seeds 2>&1 | tail -3; done

test: all unit golden e2e asan fuzz
	@echo "all tests passed"

bench: $(NNSCOPE)
	@bash bench/ingest

lint:
	clang-format --dry-run --Werror $(LIB_SRC) $(CLI_SRC) $(wildcard src/*/*.h)
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance -Iinclude -Isrc $(LIB_DIRS) src/cli

clean:
	rm -rf build build-asan build-fuzz

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
