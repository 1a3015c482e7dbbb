#!/usr/bin/env bash
# sycl.sh - the DPC++ backend on a real SYCL implementation: AdaptiveCpp
# (SYCL 2020, formerly hipSYCL), built from a snapshot of its repository
# against Debian's LLVM 14 and installed into a cache folder that later
# runs reuse (nothing of it is committed), with its CPU target (`omp`).
#
# Usage: bench/sycl.sh [-b BUILD_DIR] [--install-only] ACPP_SOURCE
#   ACPP_SOURCE: a checkout of AdaptiveCpp, or a bare clone of it (its HEAD
#   is checked out into the cache).
# Environment: ACPP_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/oklc/adaptivecpp):
#   one install per source commit, <cache>/<commit>/install.
# Prints the acpp command to give the runtime (OKLC_SYCL_CXX).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build install_only=""
while [ $# -gt 0 ]; do
  case $1 in
    -b) build=$2; shift 2 ;;
    --install-only) install_only=1; shift ;;
    -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "sycl.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] || { echo "usage: bench/sycl.sh [-b BUILD_DIR] [--install-only] ACPP_SOURCE" >&2; exit 2; }
src=$1
commit=$(git -C "$src" rev-parse HEAD) || { echo "sycl.sh: $src is not a git repository" >&2; exit 2; }
cache=${ACPP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/oklc/adaptivecpp}/${commit:0:12}
prefix=$cache/install

# ---- AdaptiveCpp, built once per commit -------------------------------------------
if [ ! -x "$prefix/bin/acpp" ]; then
  bash "$root/scripts/deps.sh" sycl
  rm -rf "$cache/src" "$cache/build"
  mkdir -p "$cache"
  git -C "$src" archive --prefix=src/ "$commit" | tar -x -C "$cache"
  echo "== building AdaptiveCpp ${commit:0:12} into $prefix"
  cmake -S "$cache/src" -B "$cache/build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DLLVM_DIR=/usr/lib/llvm-14/cmake \
    -DCLANG_EXECUTABLE_PATH=/usr/bin/clang++-14 -DWITH_CUDA_BACKEND=OFF \
    -DWITH_ROCM_BACKEND=OFF -DWITH_OPENCL_BACKEND=OFF -DWITH_LEVEL_ZERO_BACKEND=OFF \
    >"$cache/configure.log" 2>&1 || { tail -30 "$cache/configure.log"; exit 1; }
  cmake --build "$cache/build" -j "$(nproc)" >"$cache/build.log" 2>&1 ||
    { tail -30 "$cache/build.log"; exit 1; }
  cmake --install "$cache/build" >"$cache/install.log" 2>&1 || { tail -30 "$cache/install.log"; exit 1; }
  rm -rf "$cache/src" "$cache/build"
fi
acpp="$prefix/bin/acpp --acpp-targets=omp"
echo "== AdaptiveCpp ${commit:0:12}: OKLC_SYCL_CXX=\"$acpp\""
[ -n "$install_only" ] && exit 0
