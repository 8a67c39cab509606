# nnscope - one non-recursive Makefile.
#   make          build build/nnscope, libnnscope.so, the Python package and the C example
#   make test     lint, unit + golden + e2e + browser tests, the ASan/UBSan build, a short fuzz run
#   make bench    benchmarks (print tables)
#   make lint     clang-format --dry-run, cppcheck and the include-direction check over every C file
# Sources are found by wildcard: add a .c file to a src/ directory and it is built.

CC      ?= cc
SHARED  ?= $(abspath ../shared)
BUILD   ?= build
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
CPPFLAGS := -Iinclude -Isrc -D_GNU_SOURCE -MMD -MP
ALL_CFLAGS := -std=c11 $(WARN) $(CFLAGS) -pthread
LDLIBS  := -lsqlite3 -lisal -lz -lm -pthread
# `make` builds everything (the rules above `all:` would otherwise be the default goal)
.DEFAULT_GOAL := all

# ---- layers ---------------------------------------------------------------
# The analyzer's layers, bottom-up (docs/ARCHITECTURE.md). The importers build
# the model (they include model/, the model includes nothing of theirs), so
# model sits under importers. Each src/<layer>/ is one archive,
# $(BUILD)/lib/libnns_<layer>.a, and every program links the archives
# top-down (server first, common last) with no --start-group and no repeats.
# A static archive is scanned once, left to right, so a lower layer cannot
# call a higher one's function that no higher layer has pulled in already;
# to refuse the rest too, each archive is linked once as it is made, whole,
# against only the layers under it (and the system libraries): an upward call
# is then an "undefined reference" naming the lower archive's member.
# A layer without sources has no archive.
# scripts/check-layers.sh holds the include rules that go with this order.
LAYERS := common format model importers analysis output trace server
LAYERS_HERE := $(foreach l,$(LAYERS),$(if $(wildcard src/$(l)/*.c),$(l)))
layer_src = $(wildcard src/$(1)/*.c)
layer_a   = $(BUILD)/lib/libnns_$(1).a
# $(call layers_upto,LIST,L): the layers of LIST from its first up to L.
layers_upto = $(if $(1),$(firstword $(1)) $(if $(filter $(2),$(firstword $(1))),,$(call layers_upto,$(wordlist 2,$(words $(1)),$(1)),$(2))))
reverse = $(if $(1),$(call reverse,$(wordlist 2,$(words $(1)),$(1))) $(firstword $(1)))
# $(call link_from,L): the archives of L and of every layer under it,
# top-down: what a program that calls into L puts on its link line.
link_from = $(foreach l,$(call reverse,$(call layers_upto,$(LAYERS),$(1))),$(if $(filter $(l),$(LAYERS_HERE)),$(call layer_a,$(l))))

# the analyzer (common .. output): what the golden tests and the fuzzers take
LIB_SRC    := $(foreach l,$(call layers_upto,$(LAYERS),output),$(call layer_src,$(l)))
ANALYZER_A := $(call link_from,output)
# every layer (server .. common): the nnscope program, the unit tests, bench/lod
ALL_A      := $(call link_from,server)
TRACE_SRC  := $(call layer_src,trace)
CLI_SRC  := $(wildcard src/cli/*.c)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
NNSCOPE  := $(BUILD)/nnscope

# src/server (HTTP glue, routes, run registry) needs libmicrohttpd; the
# fuzzers, which compile $(LIB_SRC), do not. The UI under web/ (and the chart
# library from npm) is embedded into the server's archive: build/tools/embed
# turns the files into build/gen/assets.c (docs/SERVER.md).
SERVER_LIBS := -lmicrohttpd
ECHARTS    := web/node_modules/echarts/dist/echarts.min.js
ECHARTS_COMMON := web/node_modules/echarts/dist/echarts.common.min.js
WEB_FILES  := $(shell find web -path web/node_modules -prune -o -type f \( -name '*.html' -o -name '*.js' -o -name '*.css' -o -name '*.svg' \) -print 2>/dev/null | LC_ALL=C sort)
EMBED      := $(BUILD)/tools/embed
ASSETS_C   := $(BUILD)/gen/assets.c
ASSETS_OBJ := $(BUILD)/gen/assets.o

# the members of each layer's archive: its objects (and the server's assets)
layer_obj = $(patsubst %.c,$(BUILD)/%.o,$(call layer_src,$(1))) $(if $(filter server,$(1)),$(ASSETS_OBJ))
LAYER_MAIN := $(BUILD)/lib/layer_main.o
$(LAYER_MAIN):
	@mkdir -p $(dir $@)
	$(Q)echo 'int main(void) { return 0; }' | $(CC) $(ALL_CFLAGS) -x c -c -o $@ -

define layer_archive
$(call layer_a,$(1)): $(call layer_obj,$(1)) $(filter-out $(call layer_a,$(1)),$(call link_from,$(1))) $(LAYER_MAIN)
	@mkdir -p $$(dir $$@)
	$$(if $$(Q),@echo "  AR      $$@")
	$$(Q)rm -f $$@ && ar rcs $$@ $(call layer_obj,$(1))
	$$(Q)$$(CC) $$(ALL_CFLAGS) -o /dev/null $(LAYER_MAIN) -Wl,--whole-archive $$@ -Wl,--no-whole-archive \
		$(filter-out $(call layer_a,$(1)),$(call link_from,$(1))) $$(SERVER_LIBS) $$(LDLIBS) || \
		{ rm -f $$@; echo "$$@: src/$(1) calls a function of a layer above it (or one defined nowhere): see the undefined references above; layers, bottom-up: $(LAYERS)" >&2; exit 1; }
endef
$(foreach l,$(LAYERS_HERE),$(eval $(call layer_archive,$(l))))

# libnnscope.so: the collector. It links only src/common and src/format
# (never the analyzer), built position-independent with hidden visibility:
# only NNS_API symbols are exported.
COLLECTOR_SRC := $(wildcard src/collector/*.c) $(wildcard src/format/*.c) $(wildcard src/common/*.c)
COLLECTOR_OBJ := $(COLLECTOR_SRC:%.c=$(BUILD)/pic/%.o)
COLLECTOR_SO  := $(BUILD)/libnnscope.so
COLLECTOR_LIBS := -lz -ldl -lm -pthread

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC(pic) $<")
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -DNNS_BUILDING_LIB -c $< -o $@

$(COLLECTOR_SO): $(COLLECTOR_OBJ)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) -shared -Wl,-soname,libnnscope.so -Wl,-z,defs -o $@ $^ $(COLLECTOR_LIBS)

UNIT_SRC   := $(wildcard tests/unit/test_*.c)
GOLDEN_SRC := $(wildcard tests/golden/test_*.c)
TEST_COMMON_SRC := $(wildcard tests/common/*.c)
TEST_COMMON_OBJ := $(TEST_COMMON_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN   := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
GOLDEN_BIN := $(GOLDEN_SRC:tests/golden/%.c=$(BUILD)/tests/%)
TEST_LIBS  := -lcmocka -ljansson $(SERVER_LIBS)

.PHONY: all test unit golden e2e hostile browser asan fuzz bench bench-serve bench-hostile lint clean deps demo
all: $(NNSCOPE) $(COLLECTOR_SO) python examples

# demo: see the "python and examples" section below.

deps:
	@bash scripts/install-deps.sh

V ?= 0
Q := $(if $(filter 1,$(V)),,@)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

$(NNSCOPE): $(CLI_OBJ) $(ALL_A)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $(CLI_OBJ) $(ALL_A) $(SERVER_LIBS) $(LDLIBS)

# the archives nnscope links, top-down (scripts/gpukit.sh relinks with them)
.PHONY: print-link-archives
print-link-archives:
	@echo $(ALL_A)

$(EMBED): tools/embed.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $< -lz

$(ECHARTS): web/package.json
	@command -v npm >/dev/null || { echo "npm not found (run: make deps)"; exit 1; }
	cd web && npm install --no-audit --no-fund --loglevel=error
	@touch $@

$(ASSETS_C): $(EMBED) $(WEB_FILES) $(ECHARTS)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  EMBED   web/")
	$(Q)$(EMBED) $@ web $(WEB_FILES) vendor/echarts.min.js=$(ECHARTS) \
		vendor/echarts.common.min.js=$(ECHARTS_COMMON)

$(ASSETS_OBJ): $(ASSETS_C)
	$(Q)$(CC) $(CPPFLAGS) -Isrc $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/tests/%: tests/unit/%.c $(ALL_A) $(TEST_COMMON_OBJ)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) $(CPPFLAGS) -Itests/common $(ALL_CFLAGS) -o $@ $< $(TEST_COMMON_OBJ) $(ALL_A) $(TEST_LIBS) $(LDLIBS)

$(BUILD)/tests/%: tests/golden/%.c $(ANALYZER_A) $(TEST_COMMON_OBJ)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) $(CPPFLAGS) -Itests/common $(ALL_CFLAGS) -o $@ $< $(TEST_COMMON_OBJ) $(ANALYZER_A) $(TEST_LIBS) $(LDLIBS)

# ---- python and examples ------------------------------------------------
# The Python package build/python/nnscope/ (the C extension _nnscope*.so
# next to __init__.py and torch.py) for Debian's /usr/bin/python3, the C
# example build/examples/mlp (OpenBLAS), `make demo`, and the overhead
# benchmark of the examples. Both link libnnscope.so by rpath, so they run
# from the build tree without LD_LIBRARY_PATH.
PYTHON    ?= /usr/bin/python3
PY_INC    = $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
PY_EXT    = $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))' 2>/dev/null)
PY_DIR    := $(BUILD)/python/nnscope
PY_SRC    := $(wildcard python/nnscope/*.py)
PY_FILES  := $(PY_SRC:python/nnscope/%=$(PY_DIR)/%)
PY_SO      = $(PY_DIR)/_nnscope$(PY_EXT)
# the site hook `nnscope run` puts on PYTHONPATH (zero-code PyTorch)
PY_SITE   := $(BUILD)/python/nnscope_site/sitecustomize.py
MLP_SRC   := $(wildcard examples/mlp/*.c)
MLP_BIN   := $(BUILD)/examples/mlp

.PHONY: python examples demo bench-examples

python: $(PY_SO) $(PY_FILES) $(PY_SITE) $(PY_DIR)/.torch_shim

$(PY_SITE): python/nnscope_site/sitecustomize.py
	@mkdir -p $(dir $@)
	$(Q)cp $< $@

# nnscope.torch's RecordFunction shim: its source travels with the package
# (built at first use into ~/.cache/nnscope); `make python` prebuilds it for
# the torch of $(PYTHON) when that torch's C++ headers are installed (the
# stamp saves a torch import per make; another torch later finds no
# prebuilt shim of its version and builds its own at first use).
$(PY_DIR)/.torch_shim: $(PY_DIR)/nnscope_rf.cpp python/torch_shim/build.py $(PY_SO) $(PY_FILES)
	@PYTHONPATH=$(BUILD)/python $(PYTHON) python/torch_shim/build.py $(PY_DIR) || \
		echo "torch shim: not prebuilt (nnscope.torch builds it at first use)"
	@touch $@

$(PY_DIR)/nnscope_rf.cpp: python/torch_shim/nnscope_rf.cpp
	@mkdir -p $(dir $@)
	$(Q)cp $< $@

$(PY_DIR)/_nnscope%.so: python/_nnscope.c include/nnscope.h $(COLLECTOR_SO)
	@mkdir -p $(dir $@)
	@test -n "$(PY_INC)" && test -f "$(PY_INC)/Python.h" || \
		{ echo "python3-dev headers not found for $(PYTHON) (run: make deps)"; exit 1; }
	$(if $(Q),@echo "  CC(py)  $<")
	$(Q)$(CC) -std=c11 $(WARN) $(CFLAGS) -D_GNU_SOURCE -fPIC -shared -fvisibility=hidden \
		-Iinclude -I$(PY_INC) -o $@ $< -L$(BUILD) -lnnscope -Wl,-rpath,'$$ORIGIN/../..'

$(PY_DIR)/%.py: python/nnscope/%.py
	@mkdir -p $(dir $@)
	$(Q)cp $< $@

examples: $(MLP_BIN)

$(MLP_BIN): $(MLP_SRC) $(wildcard examples/mlp/*.h) include/nnscope.h $(COLLECTOR_SO)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) -std=c11 $(WARN) $(CFLAGS) -D_GNU_SOURCE -pthread -Iinclude -o $@ $(MLP_SRC) \
		-L$(BUILD) -lnnscope -lopenblas -lm -Wl,-rpath,'$$ORIGIN/..'

# Installs what is missing, builds, profiles the C example (and the PyTorch
# one when torch imports), then analyses and reports each run; the Kineto
# samples and MindInsight fixtures of ../shared (when present) are served too.
DEMO := $(BUILD)/demo
DEMO_PORT ?= 8080
demo:
	@bash scripts/install-deps.sh
	@$(MAKE) --no-print-directory all
	@rm -rf $(DEMO)/mlp $(DEMO)/cnn
	@echo "== profiling the C example (a slow loader on purpose: --stall-ms 20; CPU sampled every 10 ms)"
	bash scripts/demo-profile.sh mlp $(MLP_BIN) $(DEMO)/mlp
	$(NNSCOPE) analyse $(DEMO)/mlp --out $(DEMO)/mlp/analysis
	$(NNSCOPE) report $(DEMO)/mlp --view all
	@if $(PYTHON) -c 'import torch' 2>/dev/null; then \
		echo "== profiling the PyTorch example"; \
		PYTHONPATH=$(BUILD)/python bash scripts/demo-profile.sh cnn $(PYTHON) $(DEMO)/cnn && \
		$(NNSCOPE) analyse $(DEMO)/cnn --out $(DEMO)/cnn/analysis && \
		$(NNSCOPE) report $(DEMO)/cnn --view all; \
	else echo "demo: torch does not import for $(PYTHON); skipping the PyTorch example"; fi
	@echo "== results: $(DEMO)/mlp/analysis$$(test -d $(DEMO)/cnn/analysis && echo " $(DEMO)/cnn/analysis")"
	@if [ -d "$(SHARED)/data/kineto" ]; then rm -rf $(DEMO)/kineto && cp -r "$(SHARED)/data/kineto" $(DEMO)/kineto && chmod -R u+w $(DEMO)/kineto; fi
	@if [ -d "$(SHARED)/data/mindinsight/run_1" ]; then rm -rf $(DEMO)/mindspore && mkdir -p $(DEMO)/mindspore && \
		for r in run_1 run_2; do cp -r "$(SHARED)/data/mindinsight/$$r/normal_run/profiler" $(DEMO)/mindspore/$$r; done && \
		cp -r "$(SHARED)/data/mindinsight/profiler" $(DEMO)/mindspore/profiler && \
		cp -r "$(SHARED)/data/mindinsight/cluster_propose" $(DEMO)/mindspore/cluster_propose && \
		chmod -R u+w $(DEMO)/mindspore; fi
	@echo "== a 4-rank job runs for ~2 min under $(DEMO)/live: open it to watch it live (rank 2 slows down at step 2000; its Cluster view names it, the alert flags it)"
	bash scripts/demo-live.sh $(MLP_BIN) $(DEMO)/live
	@echo "== serving the UI for $(DEMO): open http://127.0.0.1:$(DEMO_PORT)/ (Ctrl-C stops; DEMO_PORT=N picks another port)"
	$(NNSCOPE) serve --logdir $(DEMO) --port $(DEMO_PORT) --alert 'rank_pct > 20'

# Step time of the examples with and without profiling (a table).
bench-examples: python examples
	@PYTHON=$(PYTHON) BUILD=$(BUILD) bash bench/overhead_examples
# ---- end of python and examples ------------------------------------------

# ---- collector tests -----------------------------------------------------
# The collector's unit tests (tests/unit/test_collector*.c,
# test_format_write*.c) link the position-independent objects of
# libnnscope.so ($(COLLECTOR_OBJ)) directly, so they can test internals;
# the e2e helpers (tests/e2e/collector_*.c) link libnnscope.so itself, except
# collector_check, a .nnst checker built from the format reader objects.
# bench/overhead prints the hot-path cost table (part of `make bench`).
COLL_TEST_SRC := $(wildcard tests/unit/test_collector*.c) $(wildcard tests/unit/test_format_write*.c)
COLL_TEST_BIN := $(COLL_TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
COLL_E2E_SRC  := $(filter-out tests/e2e/collector_check.c,$(wildcard tests/e2e/collector_*.c))
COLL_E2E_BIN  := $(COLL_E2E_SRC:tests/e2e/%.c=$(BUILD)/tests/%)
COLL_CHECK    := $(BUILD)/tests/collector_check
BENCH_OVERHEAD := $(BUILD)/bench/overhead

$(COLL_TEST_BIN): $(BUILD)/tests/%: tests/unit/%.c tests/unit/test_collector_util.h $(COLLECTOR_OBJ)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(COLLECTOR_OBJ) -lcmocka $(COLLECTOR_LIBS) $(LDLIBS)

# the fake NVML (tests/e2e/fake_nvml.c) beside the unit test that loads it;
# tests/e2e/nvml_sampler.sh builds its own copy.
FAKE_NVML := $(BUILD)/tests/libfake_nvml.so
$(FAKE_NVML): tests/e2e/fake_nvml.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) -std=c11 $(WARN) -O1 -shared -fPIC -o $@ $<
$(BUILD)/tests/test_collector_nvml: $(FAKE_NVML)

# The CUPTI backend: cupti_layout.c checks the record offsets against the
# CUDA headers when they are here (else it is empty); the unit test builds
# its records with them. fake_cupti (libcupti + libcuda stand-in) and
# cuda_app (a "CUDA program") serve tests/e2e/cupti_inject.sh.
CUDA_INC ?= /usr/local/cuda/include
ifneq ($(wildcard $(CUDA_INC)/cupti_activity.h),)
CUPTI_HDR_FLAGS := -DNNS_HAVE_CUPTI_H -isystem $(CUDA_INC)
$(BUILD)/pic/src/collector/cupti_layout.o: private CPPFLAGS += $(CUPTI_HDR_FLAGS)
$(BUILD)/tests/test_collector_cupti: private CPPFLAGS += $(CUPTI_HDR_FLAGS)
endif
FAKE_CUPTI := $(BUILD)/tests/libfake_cupti.so
CUDA_APP   := $(BUILD)/tests/cuda_app
$(FAKE_CUPTI): tests/e2e/fake_cupti.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O1 -g -shared -fPIC -pthread -o $@ $<
$(CUDA_APP): tests/e2e/cuda_app.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O1 -g -pthread -o $@ $< -ldl
CUPTI_CHECK := $(BUILD)/tests/cupti_check
$(CUPTI_CHECK): tests/e2e/cupti_check.c $(COLLECTOR_OBJ)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(COLLECTOR_OBJ) $(COLLECTOR_LIBS) $(LDLIBS)
$(BUILD)/tests/test_collector_cupti: $(FAKE_CUPTI)

$(COLL_E2E_BIN): $(BUILD)/tests/%: tests/e2e/%.c $(COLLECTOR_SO)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) -Iinclude -D_GNU_SOURCE -std=c11 $(WARN) $(CFLAGS) -pthread -o $@ $< \
		-L$(BUILD) -lnnscope -Wl,-rpath,'$$ORIGIN/..'

$(COLL_CHECK): tests/e2e/collector_check.c tests/unit/test_collector_util.h $(COLLECTOR_OBJ)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) $(CPPFLAGS) -Itests/unit $(ALL_CFLAGS) -o $@ $< $(COLLECTOR_OBJ) $(COLLECTOR_LIBS) $(LDLIBS)

$(BENCH_OVERHEAD): bench/overhead.c $(COLLECTOR_SO)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) -Iinclude -D_GNU_SOURCE -std=c11 $(WARN) -O2 -g -pthread -o $@ $< \
		-L$(BUILD) -lnnscope -Wl,-rpath,'$$ORIGIN/..'

.PHONY: bench-overhead
bench-overhead: $(BENCH_OVERHEAD)
	@BUILD=$(BUILD) bash bench/overhead

# bench/gpu_records: the CUPTI record path's host cost (part of `make bench`).
$(BUILD)/bench/gpu_records: bench/gpu_records.c $(COLLECTOR_OBJ)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -O2 -o $@ $< $(COLLECTOR_OBJ) $(COLLECTOR_LIBS) $(LDLIBS)

.PHONY: bench-gpu-records
bench-gpu-records: $(BUILD)/bench/gpu_records $(NNSCOPE)
	@BUILD=$(BUILD) NNSCOPE=$(NNSCOPE) bash bench/gpu_records
# ---- end of collector tests -----------------------------------------------

# ---- tests -------------------------------------------------------------
export NNS_SHARED := $(SHARED)

unit: $(UNIT_BIN)
	@set -e; for t in $(UNIT_BIN); do echo "== $$t"; $$t; done

golden: $(GOLDEN_BIN) $(NNSCOPE)
	@set -e; for t in $(GOLDEN_BIN); do echo "== $$t"; $$t; done

# the e2e scripts use the Python package, the C example, the CUPTI fakes and
# the collector's helpers besides nnscope
# (e2e-bins builds them without running anything: for running one script)
E2E_BINS := $(NNSCOPE) python examples $(FAKE_CUPTI) $(CUDA_APP) $(CUPTI_CHECK) $(COLLECTOR_SO) $(COLL_E2E_BIN) $(COLL_CHECK)
.PHONY: e2e-bins
e2e-bins: $(E2E_BINS)
e2e: $(E2E_BINS)
	@set -e; for t in tests/e2e/*.sh; do echo "== $$t"; NNSCOPE=$(abspath $(NNSCOPE)) bash $$t; done

# The hostile-input corpus alone (tests/hostile/gen.py, run by the e2e loop
# above too): bad, odd and bomb inputs, each with its exit code and message.
hostile: $(NNSCOPE)
	@NNSCOPE=$(abspath $(NNSCOPE)) bash tests/e2e/hostile_corpus.sh

# The same unit and golden tests under AddressSanitizer + UBSan.
asan:
	$(MAKE) BUILD=build-asan OPT=-O1 CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
		LDLIBS="-lsqlite3 -lisal -lz -lm -pthread -fsanitize=address,undefined" unit golden

# libFuzzer on every importer; a short run in `make test`.
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=build-fuzz/%)
FUZZ_SECONDS ?= 20
# fuzz_trace also takes the trace index (src/trace: no libmicrohttpd in it).
build-fuzz/%: tests/fuzz/%.c $(LIB_SRC) $(TRACE_SRC)
	@mkdir -p build-fuzz
	clang $(CPPFLAGS) -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -pthread -o $@ $< $(LIB_SRC) \
		$(if $(filter build-fuzz/fuzz_trace,$@),$(TRACE_SRC)) -lsqlite3 -lisal -lz -lm
# A finding (crash, sanitizer report, leak, timeout) fails the run; the
# input that triggered it is left in build-fuzz/ (crash-*, leak-*, ...).
fuzz: $(FUZZ_BIN)
	@set -e; for f in $(FUZZ_BIN); do n=$$(basename $$f); echo "== $$f ($(FUZZ_SECONDS)s)"; \
		mkdir -p build-fuzz/corpus-$$n; \
		if ! $$f -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
		    -artifact_prefix=build-fuzz/ build-fuzz/corpus-$$n tests/fuzz/seeds >build-fuzz/$$n.log 2>&1; then \
			tail -40 build-fuzz/$$n.log; echo "FAIL $$n: see build-fuzz/$$n.log"; exit 1; fi; \
		tail -1 build-fuzz/$$n.log; done

# Browser tests of the UI: playwright-core (web/node_modules) driving
# Debian's chromium headless against a real `nnscope serve`; screenshots
# go to $(BUILD)/screenshots/.
browser: $(NNSCOPE)
	@NNSCOPE=$(abspath $(NNSCOPE)) NNS_SHARED=$(SHARED) BUILD=$(abspath $(BUILD)) bash tests/browser/run.sh

test: lint all unit golden e2e browser asan fuzz
	@echo "all tests passed"

bench: $(NNSCOPE) bench-serve bench-overhead bench-gpu-records bench-hostile bench-bombs
	@bash bench/ingest

# bench/hostile_rss: time and peak RSS of analyse on the hostile corpus, the
# bombs at full size; fails when a bomb's peak RSS reaches its JSON size.
bench-hostile: $(NNSCOPE)
	@NNSCOPE=$(abspath $(NNSCOPE)) bash bench/hostile_rss

# bench/serve: LOD latency on >= 10M events, page load -> first timeline,
# warm-cache Overview, and wrk against the API (a table).
bench-serve: $(NNSCOPE) $(BUILD)/bench/lod $(BUILD)/bench/live_refresh
	@NNSCOPE=$(abspath $(NNSCOPE)) BUILD=$(abspath $(BUILD)) bash bench/serve

# bench/lod: level-of-detail query latency on a synthetic >= 10M-event trace.
$(BUILD)/bench/lod: bench/lod.c $(call link_from,trace)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(call link_from,trace) $(LDLIBS)

# bench/live_refresh: the cost of a live refresh of 1 MB on growing runs
# (docs/LIVE.md); bench/serve prints its table, `make bench-live` only it.
.PHONY: bench-live
bench-live: $(NNSCOPE) $(BUILD)/bench/live_refresh
	@$(BUILD)/bench/live_refresh
	@NNSCOPE=$(abspath $(NNSCOPE)) BUILD=$(abspath $(BUILD)) bash bench/live_http
$(BUILD)/bench/live_refresh: bench/live_refresh.c $(call link_from,server)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(call link_from,server) $(LDLIBS) $(SERVER_LIBS)

# bench/model_bytes: the model's and the process's bytes per event of a
# trace (bench/ingest prints them; the importer's memory budget uses them).
$(BUILD)/bench/model_bytes: bench/model_bytes.c $(call link_from,analysis)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(call link_from,analysis) $(LDLIBS)

# bench/hostile: the hostile-input bombs (bench/gen_bombs.c) against the
# importer's limits, each limit option too: exit code, message, peak RSS and
# time (a table). bench-hostile runs the whole corpus of tests/hostile.
.PHONY: bench-bombs
bench-bombs: $(NNSCOPE)
	@NNSCOPE=$(abspath $(NNSCOPE)) bash bench/hostile

# lint: every C and C++ file of the tree (src with the collector, include,
# tests, bench, python, tools, examples) against .clang-format and through
# cppcheck, then the include direction of src/ (scripts/check-layers.sh
# against $(LAYERS)). cppcheck knows Python's macros (--library=python) and
# jansson's (scripts/cppcheck-jansson.cfg); a finding it gets wrong is
# silenced where it stands, with the reason, by a cppcheck-suppress comment.
LINT_DIRS := src include tests bench python tools examples
LINT_SRC   = $(shell find $(LINT_DIRS) -type f \( -name '*.c' -o -name '*.h' -o -name '*.cpp' \) 2>/dev/null | LC_ALL=C sort)
LINT_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
lint:
	@command -v clang-format >/dev/null && command -v cppcheck >/dev/null || \
		{ echo "lint: clang-format and cppcheck are needed (run: make deps)"; exit 1; }
	@echo "  clang-format and cppcheck: $(words $(LINT_SRC)) files under $(LINT_DIRS)"
	@clang-format --dry-run --Werror $(LINT_SRC)
	@cppcheck --quiet -j $(LINT_JOBS) --error-exitcode=1 --enable=warning,performance --inline-suppr \
		--library=python --library=scripts/cppcheck-jansson.cfg \
		-Iinclude -Isrc -Itests/common -Itests/unit $(LINT_DIRS)
	@echo "  include direction: scripts/check-layers.sh"
	@bash scripts/check-layers.sh "$(LAYERS)"

clean:
	rm -rf build build-asan build-fuzz

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# The GPU check's kit: the nnscope program with its libraries, for a bare GPU
# machine (docs/GPU.md; tests/gpu/device_check.sh builds the rest there).
.PHONY: gpu-kit
gpu-kit: $(NNSCOPE) $(COLLECTOR_SO)
	@BUILD=$(BUILD) bash scripts/gpukit.sh
