#!/usr/bin/env bash
# gpu-pack.sh - packs what a lent GPU machine needs to run scripts/gpu-lent.sh
# into .gpu/ (ignored by git; the device tool carries it: carry [".gpu"]).
# That machine (Ubuntu, CUDA, no libclang, no network) gets this machine's
# build: the shared libraries oklc needs that it may lack (libclang and
# LLVM with their own needs, cJSON, cmocka, the OpenCL ICD loader) with
# Clang's resource headers beside libclang, where it looks for them; the
# programs the checks run (build.tar.xz, unpacked into build/ there);
# optionally a test_run built from an older commit (--before BUILD: the
# race tests before a fix) and an install of OCCA built with CUDA and oklc
# as its transpiler (--occa PREFIX, with its examples: --occa-build DIR).
# Everything travels compressed: the tool carries 64 MiB at most.
# Usage: scripts/gpu-pack.sh [--before BUILD] [--occa PREFIX --occa-build DIR] [BUILD]
set -euo pipefail
cd "$(dirname "$0")/.."
before="" occa="" occa_build=""
while [ $# -gt 0 ]; do
  case $1 in
    --before) before=$2; shift 2 ;;
    --occa) occa=$2; shift 2 ;;
    --occa-build) occa_build=$2; shift 2 ;;
    *) break ;;
  esac
done
build=${1:-build}
mkdir -p .gpu

# The libraries (kept: packing LLVM takes minutes).
if [ ! -f .gpu/libs.tar.xz ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  # libclang, which oklc loads when it first transpiles (not linked): the
  # file the build names, under its soname, and what it needs
  clang=$(readlink -f "$(sed -n 's/^LIBCLANG_LIBRARY:FILEPATH=//p' "$build/CMakeCache.txt")")
  cp -L "$clang" "$tmp/$(objdump -p "$clang" | awk '/SONAME/ {print $2}')"
  for l in $(ldd "$build/tests/test_run" "$build/oklc" "$clang" | awk '/=>/ {print $3}' | sort -u); do
    case $(basename "$l") in
      libc.so*|libm.so*|libstdc++*|libgcc_s*|libz.so*|liblzma*|libpthread*|libdl*) ;;
      *) cp -L "$l" "$tmp/" ;;
    esac
  done
  cp -L "$(ldconfig -p | awk '/libOpenCL.so.1 / {print $NF; exit}')" "$tmp/"
  # ICU's data (30 MB) as an empty stand-in: only libxml2 needs ICU, and
  # LLVM calls libxml2 for Windows manifests alone, never here.
  if [ -f "$tmp"/libicudata.so.* ]; then
    icu=$(basename "$tmp"/libicudata.so.*) sym=$(nm -D "$tmp/$icu" | awk '/ R icudt/ {print $3}')
    echo "const char $sym[64] __attribute__((aligned(16)));" >"$tmp/icu.c"
    cc -shared -fPIC -Wl,-soname,"$icu" -o "$tmp/$icu" "$tmp/icu.c"
    rm "$tmp/icu.c"
  fi
  # libclang looks for its headers in clang/VERSION beside itself
  llvm=$(ls "$tmp" | sed -n 's/^libclang-\([0-9]*\)\..*/\1/p')
  res=$(ls -d /usr/lib/llvm-"$llvm"/lib/clang/*/ | head -1)
  mkdir -p "$tmp/clang/$(basename "$res")"
  cp -r "$res/include" "$tmp/clang/$(basename "$res")/"
  tar cf - -C "$tmp" . | xz -T0 -6 > .gpu/libs.tar.xz.tmp
  mv .gpu/libs.tar.xz.tmp .gpu/libs.tar.xz
fi

# The programs, under build/ as here.
progs=(oklc liboklc.so liboklc.so.0 liboklc.so.0.1.0 liboklc-oklt.so liboklc-oklt.so.0
       liboklc-oklt.so.0.1.0 bench_compare bench_launch
       tests/test_run tests/test_runtime_gpu tests/test_runtime tests/runtime_together
       tests/runtime_race tests/runtime_plugin tests/libgpu_mock.so tests/libtsd_probe.so
       examples/add_vectors examples/reduction examples/stencil examples/templated
       examples/plugins/libokl_prefetch.so)
tar cf - -C "$(dirname "$build")" "${progs[@]/#/$(basename "$build")/}" | xz -T0 -6 > .gpu/build.tar.xz

if [ -n "$before" ]; then
  mkdir -p .gpu/before
  cp "$before/tests/test_run" .gpu/before/test_run
fi
if [ -n "$occa" ]; then
  tar cf - -C "$(dirname "$occa")" "$(basename "$occa")" | xz -T0 -6 > .gpu/occa.tar.xz
  [ -n "$occa_build" ] &&      # they run from their folders, beside their .okl files
    tar cf - -C "$occa_build" --exclude=CMakeFiles --exclude='*.cmake' --exclude=Makefile examples |
      xz -T0 -6 > .gpu/occa-examples.tar.xz
fi
du -sh .gpu/*
