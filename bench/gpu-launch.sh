#!/usr/bin/env bash
# What a user waits for on a GPU-like device (bench/compare/launch.c): the
# first build of a tiny kernel and the cached one, and the cost of a launch,
# for the generated kernel and its hand-written twin through the runtime;
# on cuda, the same kernel launched by hand with the CUDA runtime API
# (bench/compare/launch.cu, built with nvcc) as the yardstick.
# Usage: bench/gpu-launch.sh [BUILD_DIR] [DEVICE] [LAUNCHES]
#   DEVICE: cuda (default), hip, opencl, or a spec such as "mode=cuda device=1".
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
device=${2:-cuda}
launches=${3:-20000}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OKLC_CACHE_DIR="$tmp/cache"
export POCL_CACHE_DIR="$tmp/pocl"

echo "== build and launch costs on $device"
"$build/bench_launch" -D "$device" -n "$launches"
case $device in
  cuda | mode=cuda*)
    nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
    if [ -x "$nvcc" ]; then
      "$nvcc" -O3 -std=c++17 -arch=native -o "$tmp/launch" bench/compare/launch.cu -lcuda
      "$tmp/launch" "$launches"
    else
      echo "(nvcc not found: no hand-written CUDA runtime yardstick)"
    fi
    ;;
esac
