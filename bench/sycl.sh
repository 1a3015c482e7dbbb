#!/usr/bin/env bash
# sycl.sh - the DPC++ backend on a real SYCL implementation: AdaptiveCpp
# (SYCL 2020, formerly hipSYCL), built from a snapshot of its repository
# against Debian's LLVM 14 and installed into a cache folder that later
# runs reuse (nothing of it is committed), with its CPU target (`omp`).
# Then, in one run:
#   1  every kernel of tests/run on the dpcpp device against plain C
#      (build/tests/test_run, as run.serial does);
#   2  the examples on dpcpp;
#   3  with CODE_DIRs: the real codes' DPC++ output compiled by acpp
#      (bench/realcodes.sh), next to their CUDA output compiled by nvcc
#      where nvcc exists, file by file; with --peer: the peer transpiler's
#      DPC++ cases (tests/functional/data/transpiler/backends/dpcpp) too;
#   4  bench/compare's kernels on dpcpp (generated against native_sycl.cpp),
#      serial and OpenMP, timed in the same run.
#
# Usage: bench/sycl.sh [-b BUILD_DIR] [--install-only] [--parts 1234]
#                      [--peer DIR] ACPP_SOURCE [CODE_DIR...]
#   ACPP_SOURCE: a checkout of AdaptiveCpp, or a bare clone of it (its HEAD
#   is checked out into the cache). --peer DIR: a checkout of the peer
#   transpiler (occa-transpiler). --parts: which of 1-4 to run (default all).
# Environment: ACPP_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/oklc/adaptivecpp):
#   one install per source commit, <cache>/<commit>/install; REPORT: the
#   folder of part 3's reports (default: a new one under /tmp, printed).
# Prints the acpp command to give the runtime (OKLC_SYCL_CXX). Exit status:
# 0 when every part ran clean, 1 when one failed (each says what).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build install_only="" parts=1234 peer=""
while [ $# -gt 0 ]; do
  case $1 in
    -b) build=$2; shift 2 ;;
    --install-only) install_only=1; shift ;;
    --parts) parts=$2; shift 2 ;;
    --peer) peer=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "sycl.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "usage: bench/sycl.sh [-b BUILD_DIR] [--install-only] [--parts 1234]" \
  "[--peer DIR] ACPP_SOURCE [CODE_DIR...]" >&2; exit 2; }
src=$1
shift
build=$(cd "$build" && pwd)
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

export OKLC_SYCL_CXX=$acpp
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OKLC_CACHE_DIR=$tmp/cache    # every kernel compiled in this run
failed=0
fail() { echo "FAILED: $*"; failed=1; }
part() { [[ $parts == *$1* ]]; }

# ---- 1: tests/run on dpcpp ----------------------------------------------------------
if part 1; then
  echo "== 1: tests/run on the dpcpp device against plain C"
  start=$SECONDS
  OKLC_TEST_DEVICE=dpcpp OKLC_TEST_RUN_DIR="$root/tests/run" "$build/tests/test_run" \
    >"$tmp/run.log" 2>&1 && rc=0 || rc=$?
  grep -E '^\[  (PASSED|FAILED)|^\[  FAILED  \] test_|half:' "$tmp/run.log" || true
  echo "   ($((SECONDS - start)) s)"
  [ $rc -eq 0 ] || { tail -30 "$tmp/run.log"; fail "tests/run on dpcpp (exit $rc)"; }
fi

# ---- 2: the examples ----------------------------------------------------------------
if part 2; then
  echo "== 2: the examples on dpcpp"
  for e in add_vectors reduction stencil templated; do
    if out=$("$build/examples/$e" dpcpp 2>&1); then echo "   $e: $(echo "$out" | tail -1)"
    else echo "$out" | tail -5; fail "example $e on dpcpp"; fi
  done
fi

# ---- 3: real codes and the peer's cases, compiled by acpp -----------------------------
if part 3 && [ $# -gt 0 ]; then
  report=${REPORT:-$(mktemp -d -t sycl-realcodes.XXXXXX)}
  b=dpcpp
  command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] && b=cuda,dpcpp
  echo "== 3: the real codes' DPC++ output compiled by acpp ($b; report in $report)"
  SYCL_CXX=$acpp OKLC="$build/oklc" bash "$root/bench/realcodes.sh" -b "$b" -o "$report" -c "$@" ||
    fail "bench/realcodes.sh"
  if [[ $b == cuda,* ]]; then
    # file by file: what fails on one and not on the other
    awk -F'\t' '/^[^ ]/ { f[$2, $1 "/" $4] = 1; name[$1 "/" $4] = 1 }
      END { for (k in name) {
              if ((("dpcpp", k) in f) && !(("cuda", k) in f)) { nd++; print "   dpcpp only: " k }
              if ((("cuda", k) in f) && !(("dpcpp", k) in f)) { nc++; print "   cuda only:  " k } }
            printf "   files failing on dpcpp only: %d, on cuda only: %d\n", nd, nc }' \
      "$report/failures.txt" | sort
  fi
fi
if part 3 && [ -n "$peer" ]; then
  cases=$peer/tests/functional/data/transpiler/backends/dpcpp
  [ -d "$cases" ] || { echo "sycl.sh: no $cases" >&2; exit 2; }
  echo "== 3: the peer transpiler's DPC++ cases, transpiled by oklc, compiled by acpp"
  read -ra cxx <<<"$acpp"
  n=0 ok=0
  while IFS= read -r -d '' f; do
    n=$((n + 1)) rel=${f#"$cases"/}
    if ! "$build/oklc" transpile -b dpcpp "$f" -o "$tmp/peer.cpp" >"$tmp/peer.log" 2>&1; then
      echo "   $rel: oklc: $(grep -m1 'error' "$tmp/peer.log")"
    elif ! (cd "$tmp" && "${cxx[@]}" -std=c++17 -c -x c++ peer.cpp -o peer.o) >"$tmp/peer.log" 2>&1; then
      echo "   $rel: acpp: $(grep -m1 'error' "$tmp/peer.log")"
    else
      ok=$((ok + 1))
    fi
  done < <(find "$cases" -name '*.cpp' ! -name '*_ref.cpp' -print0 | sort -z)
  echo "   $ok of $n compile"
fi

# ---- 4: bench/compare on dpcpp, serial and OpenMP -------------------------------------
if part 4; then
  echo "== 4: bench/compare's kernels: dpcpp (generated vs native_sycl.cpp), serial, OpenMP"
  "$build/bench_compare" -d "$root/bench/compare" -D dpcpp -D serial -D openmp -n 7 -m 20 ||
    [ $? -eq 1 ] || fail "bench_compare"     # 1: a speed goal missed, reported above
fi
exit $failed
