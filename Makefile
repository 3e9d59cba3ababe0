# benchgen - build, test and report.
#
#   make            build ./benchgen
#   make test       install what is missing, build, run every test (CI calls this)
#   make check      the layering check and every unit test: offline (the cached base environment), under a minute
#   make layers     check that includes point down the layer chain, with no cycle
#   make asan       the same tests against an AddressSanitizer + UBSan build
#   make fuzz       every libFuzzer target in tests/fuzz/ for FUZZ_SECONDS each (clang, ASan+UBSan)
#   make fuzz-ci    the same, short: each target replays its committed corpus, then fuzzes FUZZ_CI_SECONDS
#   make report     install, build environments, run data/matrix/cpu-tiny.yaml, render the report
#   make kit        the offline kit for an air-gapped GPU node: build/benchgen-kit-VERSION.tar.gz
#   make kit-bullseye  the same, built in a Debian bullseye root (glibc 2.31; needs root):
#                   build/bullseye/benchgen-kit-VERSION.tar.gz, for nodes older than this machine
#
# Knobs: PYTHON=python3 (the interpreter that creates the default venvs and
# whose headers build the worker module), USE_CUDA=auto|yes|no, V=1 (show
# commands), BUILD=build.

PYTHON   ?= python3
USE_CUDA ?= auto
BUILD    ?= build
PKG_CONFIG ?= pkg-config
SPEC     ?= data/matrix/cpu-tiny.yaml

Q := @
ifdef V
Q :=
endif

# ---- Python: only headers, for the worker module -------------------------
# benchgen itself links no libpython. `_benchgen`, the module a cell's
# interpreter imports, is built against CPython's stable ABI (3.9 and later)
# with the headers of whatever python3 is here, so one .abi3.so loads into
# every environment's interpreter. PY_EXE (resolved once: pyenv shims hide
# the real executable) is also the default interpreter for lock-file venvs.
PY_EXE    := $(shell $(PYTHON) -c 'import sys; print(sys.executable)' 2>/dev/null)
PY_INC    := $(shell $(PY_EXE) -c 'import sysconfig; print(sysconfig.get_path("include"))' 2>/dev/null)
ifeq ($(PY_EXE),)
  $(error $(PYTHON) not found: set PYTHON=/path/to/python3)
endif
ifeq ($(wildcard $(PY_INC)/Python.h),)
  PY_INC := $(patsubst -I%,%,$(firstword $(shell python3-config --includes 2>/dev/null)))
endif
EXT_DIR := $(BUILD)/python
EXT     := $(EXT_DIR)/_benchgen.abi3.so
EXT_SRC := $(sort $(wildcard runners/ext/*.c)) runners/channel_write.c runners/digest.c runners/synth.c \
           runners/ablate.c gen/base/error.c
EXT_HDR := $(wildcard runners/ext/*.h) runners/channel.h runners/digest.h runners/synth.h runners/ablate.h \
           gen/base/error.h

# ---- libraries through pkg-config ----------------------------------------
PKGS := sqlite3 yaml-0.1 jansson libcrypto
PKGS_REPORT := cairo cairo-pdf cairo-svg cairo-png pangocairo xlsxwriter libarchive zlib
ALL_PKGS := $(PKGS) $(PKGS_REPORT)
MISSING := $(strip $(foreach p,$(ALL_PKGS),$(if $(shell $(PKG_CONFIG) --exists $(p) && echo y),,$(p))))

# ---- CUDA runtime: static when the toolkit is there ----------------------
NVCC      ?= $(shell command -v nvcc 2>/dev/null)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
HAVE_CUDA := 0
ifneq ($(USE_CUDA),no)
  ifneq ($(wildcard $(CUDA_HOME)/include/cuda_runtime_api.h),)
    ifneq ($(wildcard $(CUDA_HOME)/lib64/libcudart_static.a),)
      HAVE_CUDA := 1
    endif
  endif
endif
ifeq ($(USE_CUDA)$(HAVE_CUDA),yes0)
  $(error USE_CUDA=yes but no CUDA toolkit with libcudart_static.a was found (set CUDA_HOME))
endif
ifeq ($(HAVE_CUDA),1)
  CUDA_CFLAGS := -isystem $(CUDA_HOME)/include
  CUDA_LIBS   := -L$(CUDA_HOME)/lib64 -lcudart_static -lpthread -lrt
endif

GIT_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
GIT_DIRTY  := $(shell test -n "$$(git status --porcelain --untracked-files=no 2>/dev/null)" && echo 1 || echo 0)
VERSION    := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

CSTD  := -std=c11
WARN  := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-unused-parameter
CFLAGS ?= -O2 -g
SAN_FLAGS ?=
ALL_CFLAGS = $(CSTD) $(WARN) $(CFLAGS) $(SAN_FLAGS) -D_GNU_SOURCE \
  -DHAVE_CUDA=$(HAVE_CUDA) -DBENCHGEN_VERSION='"$(VERSION)"' \
  -DBENCHGEN_GIT_COMMIT='"$(GIT_COMMIT)"' -DBENCHGEN_GIT_DIRTY=$(GIT_DIRTY) \
  -DBENCHGEN_SOURCE_DIR='"$(CURDIR)"' -DBENCHGEN_PYTHON='"$(PY_EXE)"' \
  -DBENCHGEN_EXT_SUBDIR='"$(EXT_DIR)"' -Igen -I. $(CUDA_CFLAGS) \
  $(shell $(PKG_CONFIG) --cflags $(ALL_PKGS) 2>/dev/null) -MMD -MP
LDLIBS = $(SAN_FLAGS) \
  $(shell $(PKG_CONFIG) --libs $(ALL_PKGS) 2>/dev/null) $(CUDA_LIBS) -ldl -lm -lpthread -lutil

SRC      := $(sort $(wildcard gen/*/*.c runners/*.c charts/*.c))
# The module is built without sanitizers whatever SAN_FLAGS says: it is
# loaded into an interpreter that has no sanitizer runtime.
EXT_CFLAGS = $(CSTD) $(WARN) -O2 -g -fPIC -shared -fvisibility=hidden -D_GNU_SOURCE \
  -DPy_LIMITED_API=0x03090000 -Igen -I. -isystem $(PY_INC)
OBJ      := $(SRC:%.c=$(BUILD)/%.o)
MAIN_OBJ := $(BUILD)/gen/cli/main.o
LIB_OBJ  := $(filter-out $(MAIN_OBJ),$(OBJ))
TEST_SRC := $(sort $(wildcard tests/unit/test_*.c))
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all check-deps deps test check layers unit-bins asan report kit kit-bullseye clean fuzz fuzz-ci fuzz-bins
all: check-deps benchgen

check-deps:
ifneq ($(MISSING),)
	$(error missing pkg-config modules: $(MISSING). Run `make deps` (Debian: installs the -dev packages))
endif
	@echo "[config] python $(PY_EXE) (headers $(PY_INC) for the abi3 worker module; no libpython linked)"
	@echo "[config] CUDA runtime: $(if $(filter 1,$(HAVE_CUDA)),static from $(CUDA_HOME),not linked (USE_CUDA=$(USE_CUDA)))"

# Debian packages (and nothing else) this project builds and tests with.
deps:
	$(Q)scripts/install-deps.sh

ifeq ($(BUILD),build)
benchgen: $(OBJ) | $(EXT)
	@printf '  LINK %s\n' $@
	$(Q)$(CC) -o $@ $(OBJ) $(LDLIBS)
else
benchgen: $(BUILD)/benchgen
endif

$(BUILD)/benchgen: $(OBJ) | $(EXT)
	@printf '  LINK %s\n' $@
	$(Q)$(CC) -o $@ $(OBJ) $(LDLIBS)

$(EXT): $(EXT_SRC) $(EXT_HDR)
	@mkdir -p $(dir $@)
	@printf '  EXT  %s\n' $@
	$(Q)$(CC) $(EXT_CFLAGS) -o $@ $(EXT_SRC) -lm

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@printf '  CC   %s\n' $<
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@printf '  TEST %s\n' $@
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_OBJ) $(LDLIBS) $(shell $(PKG_CONFIG) --cflags --libs cmocka)

-include $(OBJ:.o=.d) $(TEST_BIN:=.d)

# ---- tests ---------------------------------------------------------------
# `make test` is what CI runs: it installs missing Debian packages, builds
# (benchgen, the unit tests, the fuzz targets with clang), creates the small
# test environment, then runs the unit tests, the short fuzz step and the
# integration suites and prints one "N passed, N failed" line. The build uses every core.
test:
	$(Q)scripts/check-layers.py
	$(Q)scripts/install-deps.sh
	$(Q)scripts/install-report-deps.sh
	$(Q)$(MAKE) --no-print-directory -j$$(nproc 2>/dev/null || echo 2) all unit-bins
	$(Q)$(MAKE) --no-print-directory -j$$(nproc 2>/dev/null || echo 2) fuzz-bins
	$(Q)FUZZ_PREFIX=build/fuzz/fuzz/fuzz FUZZ_CI_SECONDS=$(FUZZ_CI_SECONDS) tests/run.sh $(BUILD)

unit-bins: $(TEST_BIN) | $(EXT)

# Includes point down the layer chain, no cycle (docs/ARCHITECTURE.md).
layers:
	$(Q)scripts/check-layers.py

# Offline: no package installs, no environments, no network (`unshare -n make check`).
check:
	$(Q)scripts/check-layers.py
	$(Q)$(MAKE) --no-print-directory -j$$(nproc 2>/dev/null || echo 2) all unit-bins
	$(Q)tests/run.sh $(BUILD) --unit

# handle_segv=0: a workload that segfaults must die of SIGSEGV, as it would
# without ASan, so the fault test still sees a `crash`.
asan:
	$(Q)scripts/install-deps.sh
	$(Q)scripts/install-report-deps.sh
	$(Q)$(MAKE) --no-print-directory BUILD=build/asan CFLAGS='-O1 -g -fno-omit-frame-pointer' \
	  SAN_FLAGS='-fsanitize=address,undefined -fno-sanitize-recover=undefined' build/asan/benchgen unit-bins
	$(Q)ASAN_OPTIONS=handle_segv=0:detect_leaks=1 LSAN_OPTIONS=print_suppressions=0 UBSAN_OPTIONS=print_stacktrace=1 \
	  BENCHGEN_BIN=build/asan/benchgen tests/run.sh build/asan

# ---- fuzzing (tests/fuzz/README.md) ---------------------------------------
# The library objects built by clang with -fsanitize=fuzzer-no-link,address,
# undefined in build/fuzz, one libFuzzer binary per tests/fuzz/fuzz_*.c.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 180
FUZZ_CI_SECONDS ?= 4
FUZZ_SAN := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)

fuzz-bins:
	$(Q)$(MAKE) --no-print-directory BUILD=build/fuzz CC=$(FUZZ_CC) CFLAGS='-O1 -g -fno-omit-frame-pointer -Wno-missing-field-initializers' \
	  SAN_FLAGS='$(FUZZ_SAN)' fuzz-targets

fuzz-targets: $(FUZZ_BIN)

-include $(FUZZ_BIN:=.d)

$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz_common.h $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@printf '  FUZZ %s\n' $@
	$(Q)$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $< $(LIB_OBJ) $(LDLIBS)

fuzz: fuzz-bins
	$(Q)FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh build/fuzz/fuzz/fuzz $(FUZZ_TARGETS)

fuzz-ci: fuzz-bins
	$(Q)FUZZ_SECONDS=$(FUZZ_CI_SECONDS) FUZZ_CI=1 tests/fuzz/run.sh build/fuzz/fuzz/fuzz $(FUZZ_TARGETS)

report:
	$(Q)scripts/install-deps.sh
	$(Q)$(MAKE) --no-print-directory all
	$(Q)scripts/make-report.sh $(SPEC)

# ---- the offline kit (docs/GPU.md, "The offline kit") ----------------------
# The same objects, linked to run from the unpacked kit: RPATH $ORIGIN/lib
# (DT_RPATH, so the bundled libraries' own dependencies are found there too),
# libarchive and nettle static (only the tar and gzip code is pulled in, so
# neither libxml2 nor ICU's 30 MB of data is needed), sections nobody calls
# dropped. KIT_PYTHONS: the CPython versions whose version-specific wheels go in.
KIT         ?= $(BUILD)/benchgen-kit-$(VERSION).tar.gz
KIT_PYTHONS ?= 3.12
KIT_PKGS    := $(filter-out libarchive,$(ALL_PKGS))
KIT_LDLIBS   = -Wl,--gc-sections -Wl,--disable-new-dtags -Wl,-rpath,'$$ORIGIN/lib' \
  $(shell $(PKG_CONFIG) --libs $(KIT_PKGS) 2>/dev/null) -Wl,-Bstatic -larchive -lnettle -Wl,-Bdynamic \
  -Wl,--as-needed -llzma -lbz2 -lz $(CUDA_LIBS) -ldl -lm -lpthread -lutil

$(BUILD)/kit/benchgen: $(OBJ)
	@mkdir -p $(dir $@)
	@printf '  LINK %s\n' $@
	$(Q)$(CC) -o $@ $(OBJ) $(KIT_LDLIBS)

kit: check-deps $(BUILD)/kit/benchgen $(EXT)
	$(Q)KIT_PYTHONS='$(KIT_PYTHONS)' KIT_EXT_SUBDIR='$(EXT_DIR)' PYTHON='$(PY_EXE)' scripts/kit-build.sh $(BUILD)/kit/benchgen $(EXT) $(KIT)

# The kit built in a Debian bullseye root made with debootstrap (glibc 2.31;
# the kit then needs 2.29): scripts/kit-build-root.sh, docs/GPU.md "glibc".
kit-bullseye:
	$(Q)KIT_PYTHONS='$(KIT_PYTHONS)' scripts/kit-build-root.sh build/bullseye/benchgen-kit-$(VERSION).tar.gz

clean:
	rm -rf build benchgen
