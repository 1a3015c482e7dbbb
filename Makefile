# The two commands of the README, and a few more. CMake does the work.
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc)

.PHONY: all deps build run test test-asan bench fuzz clean install install-lib

all: build

deps:
	@bash scripts/deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# The main job: build an example kernel from OKL with the runtime (transpiled
# in process, compiled, cached), run it on a CPU device, check the result.
DEVICE ?= serial
run: build
	@echo "== $(BUILD)/examples/add_vectors $(DEVICE)"
	@OKLC_VERBOSE=1 OKLC_CACHE_DIR=$(CURDIR)/$(BUILD)/run-cache $(BUILD)/examples/add_vectors "$(DEVICE)"

# bin/oklc, lib/liboklc.so.0 and liboklc.a, include/oklc, lib/pkgconfig/oklc.pc,
# lib/cmake/oklc (find_package(oklc)), share/doc/oklc under PREFIX.
PREFIX ?= /usr/local
install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

# The same without the tests and their tools (scripts/deps.sh build):
# what a machine that only builds and installs oklc needs.
LIB_BUILD ?= build-lib
install-lib:
	@bash scripts/deps.sh build
	@cmake -S . -B $(LIB_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF >/dev/null
	@cmake --build $(LIB_BUILD) -j $(JOBS)
	@cmake --install $(LIB_BUILD) --prefix $(PREFIX)

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan: deps
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DOKLC_SANITIZE=ON >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	@cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		OKLC_TRANSPILE_ONLY=1 ctest --output-on-failure -j $(JOBS)

bench: build
	@bash bench/frontend.sh $(BUILD)
	@echo
	@bash bench/check.sh $(BUILD)
	@echo
	@bash bench/cpu.sh $(BUILD)
	@echo
	@bash bench/rewrites.sh $(BUILD)
	@echo
	@bash bench/gpu.sh $(BUILD) opencl
	@echo
	@echo "Streams: copies in one stream while a kernel runs in another"
	@for d in serial openmp opencl; do $(BUILD)/bench_streams $$d; done
	@echo
	@echo "Transpiling many files: a process each against one (--out-dir)"
	@bash bench/batch.sh $(BUILD) serial

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(LIB_BUILD)

# Fuzz the front half with libFuzzer (needs clang); not part of `make test`.
fuzz:
	@bash tests/fuzz/run.sh $(or $(SECONDS),120)
