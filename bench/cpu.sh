#!/usr/bin/env bash
# Generated serial and OpenMP code versus hand-written C++ of the same
# kernels (bench/compare/kernels.okl, bench/compare/native.cpp), in one run:
# both built by the runtime on the same device with the same compiler and
# flags, checked against each other, timed (median of several samples).
# Goal: hand-written ms / generated ms >= 0.97 for every kernel.
# Usage: bench/cpu.sh [BUILD_DIR] [bench_compare options]   (default: build)
# A fresh, temporary kernel cache: every kernel is compiled in this run.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OKLC_CACHE_DIR="$tmp/cache"

echo "== generated CPU code vs hand-written ($(nproc) cores; load average:" \
  "$(cut -d' ' -f1-3 /proc/loadavg))"
"$build/bench_compare" -d bench/compare -D serial -D openmp "$@"
