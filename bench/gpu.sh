#!/usr/bin/env bash
# Generated GPU code versus hand-written OpenCL C / CUDA of the same kernels
# (bench/compare/kernels.okl; native.cl, native.cu), in one run: both built
# by the runtime on the same device with the same compiler and options,
# checked against each other, timed (median of several samples).
# Goals: hand-written ms / generated ms >= 0.97 for every kernel, and the
# memory-bound kernels at >= 90% of the copy bandwidth the hand-written
# copy kernel measures.
# Usage: bench/gpu.sh [BUILD_DIR] [DEVICE] [bench_compare options]
#   DEVICE: opencl (default; PoCL on this machine), cuda, hip, or a spec
#   such as "mode=cuda device=1".
# A fresh, temporary kernel cache: every kernel is compiled in this run.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
device=${2:-opencl}
shift 2 || shift $#

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OKLC_CACHE_DIR="$tmp/cache"
export POCL_CACHE_DIR="$tmp/pocl"

echo "== generated GPU code vs hand-written on $device ($(nproc) cores; load average:" \
  "$(cut -d' ' -f1-3 /proc/loadavg))"
"$build/bench_compare" -d bench/compare -D "$device" "$@"
