#!/usr/bin/env bash
# gpu-lent.sh - the checks a lent GPU machine runs, in one call of the device
# tool, from what scripts/gpu-pack.sh packed into .gpu/ (the GPU machine has
# CUDA, NVIDIA's OpenCL and cuda-gdb, and no libclang). Run from the
# repository's root there:
#   bash scripts/gpu-lent.sh $OUT [PARTS]
# PARTS (default 123456), in this order:
#   1  runtime_together (serial, OpenMP, OpenCL, cuda, NVIDIA's OpenCL, hip
#      in one process) 20 times under cuda-gdb in batch mode, first thing on
#      the fresh machine: runs 1-10 each with a new kernel cache, 11-20 with
#      one; a backtrace wherever one dies (together.log);
#   2  test_runtime_gpu whole (runtime_gpu.log);
#   3  test_run on cuda and on NVIDIA's OpenCL, the barrier race tests
#      repeated (OKLC_TEST_REPEAT, default 300), and the race tests of the
#      test_run built before a fix (.gpu/before, if packed) (run.log);
#   4  the plugin test and the examples on cuda (misc.log);
#   5  OCCA with CUDA and oklc as its transpiler (.gpu/occa*.tar.xz, if
#      packed): its examples in CUDA mode, with OCCA's parser and with
#      transpiler-version 3 (occa.log);
#   6  bench/gpu.sh on cuda and NVIDIA's OpenCL, bench/gpu-launch.sh on cuda,
#      alone on the machine, last (bench.log).
# 2-5 run side by side (the machine has 16 cores); a summary goes to stdout.
# DEADLINE (seconds, default 540): no part and no together run starts after
# it, so the call ends inside the device tool's limit. BENCHES: which of
# part 6's runs, ';' between them ("gpu.sh build cuda -x 3;...", '@' for a
# blank inside the device spec). NEED_NVIDIA_OPENCL=1: stop unless NVIDIA's
# OpenCL platform opens.
set -u
deadline=${DEADLINE:-540}
out=${1:?usage: gpu-lent.sh OUTDIR [PARTS]}
parts=${2:-123456}
root=$PWD g=/tmp/oklc-gpu
mkdir -p "$g/lib" "$out"
export PATH=$PATH:/usr/local/cuda/bin
tar xJf .gpu/libs.tar.xz -C "$g/lib" && tar xJf .gpu/build.tar.xz || exit 1
export LD_LIBRARY_PATH=$g/lib:$root/build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# Clang's headers: Debian's libclang looks for them in /usr/include/clang/V
# when none are where it expects them beside itself.
for v in "$g"/lib/clang/*; do
  [ -e "/usr/include/clang/${v##*/}" ] || { mkdir -p /usr/include/clang && ln -s "$v" /usr/include/clang/; }
done
# The OpenCL platforms (PoCL where there is one, then NVIDIA's), by full
# path: NVIDIA's may be outside the loader's paths.
find_lib() {
  ldconfig -p | awk -v n="$1" '$1 == n {print $NF; exit}' | grep . ||
    find /usr/local/nvidia /usr/lib /usr/lib64 /usr/local -name "$1" 2>/dev/null | head -1
}
# The machine's own ICD loader where it has one (the carried Debian one
# listed PoCL alone on an H200 machine, NVIDIA's platform missing).
[ -n "$(find_lib libOpenCL.so.1)" ] && rm -f "$g/lib/libOpenCL.so.1"
nv_cl=$(find_lib libnvidia-opencl.so.1) pocl=$(find_lib libpocl.so.2)
export OCL_ICD_FILENAMES=${pocl:+$pocl:}${nv_cl:-libnvidia-opencl.so.1}
# NVIDIA's OpenCL loads libraries of the driver beside it
[ -n "$nv_cl" ] && export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:${nv_cl%/*}
has() { case $parts in *$1*) return 0 ;; esac; return 1; }
say() { echo "== $*"; }

say "$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader)"
say "nvcc: $(command -v nvcc) $(nvcc --version | tail -1); g++: $(g++ --version | head -1)"
say "OpenCL: $(find_lib libOpenCL.so.1); $OCL_ICD_FILENAMES; /etc/OpenCL/vendors: $(ls /etc/OpenCL/vendors 2>/dev/null | tr '\n' ' ')"
say "NVRTC: $(find_lib libnvrtc.so.13) $(find /usr /opt -name "libnvrtc.so*" 2>/dev/null | head -3 | tr '\n' ' ')"
say "cuda_fp16.h: $(find /usr /opt -name cuda_fp16.h 2>/dev/null | head -4 | tr '\n' ' ')"
# NVIDIA's platform opens, or the ICD loader says why (OCL_ICD_DEBUG, where
# the loader was built to read it)
if ! OKLC_CACHE_DIR=$g/probe build/tests/runtime_together "opencl platform=nvidia" >"$g/p.log" 2>&1 ||
   grep -q '^(' "$g/p.log"; then
  OCL_ICD_DEBUG=7 OKLC_CACHE_DIR=$g/probe build/tests/runtime_together "opencl platform=nvidia" 2>&1 |
    tail -12 | sed 's/^/   /'
fi
say "NVIDIA's OpenCL: $(cat "$g/p.log")"
if grep -q '^(' "$g/p.log" && OKLC_DLMOPEN=0 OKLC_CACHE_DIR=$g/probe \
     build/tests/runtime_together "opencl platform=nvidia" 2>&1 | grep -q ': right'; then
  export OKLC_DLMOPEN=0
  say "NVIDIA's OpenCL opens with OKLC_DLMOPEN=0 (the loader in the process's namespace): set"
fi
[ -n "${NEED_NVIDIA_OPENCL:-}" ] && ! OKLC_CACHE_DIR=$g/probe build/tests/runtime_together \
  "opencl platform=nvidia" 2>&1 | grep -q ': right' && { say "no NVIDIA OpenCL: stop"; exit 1; }

together() {
  local devs=(serial "mode=openmp threads=2" opencl cuda "opencl platform=nvidia" hip)
  local i died=0 ok=0 gdb=(cuda-gdb -q -batch -ex 'set pagination off' -ex 'set confirm off'
                          -ex run -ex 'bt 40' -ex 'info sharedlibrary' --args)
  command -v cuda-gdb >/dev/null || gdb=()
  for i in $(seq 20); do
    [ $SECONDS -lt $((deadline / 3)) ] || { echo "---- stopped at the deadline" >>"$out/together.log"; break; }
    local cache=$g/together-warm t0=$SECONDS
    [ "$i" -le 10 ] && cache=$g/together-$i
    echo "---- run $i (cache $cache)" >>"$out/together.log"
    OKLC_CACHE_DIR=$cache timeout 120 "${gdb[@]}" build/tests/runtime_together "${devs[@]}" \
      >"$g/t.log" 2>&1
    local rc=$?
    if grep -q 'exited normally' "$g/t.log" || { [ ${#gdb[@]} -eq 0 ] && [ $rc -eq 0 ]; }; then
      ok=$((ok + 1)); grep -E '^[a-z].*: (right|wrong)|^\(' "$g/t.log" >>"$out/together.log"
    else
      died=$((died + 1)); cat "$g/t.log" >>"$out/together.log"
    fi
    echo "---- run $i: rc $rc, $((SECONDS - t0)) s" >>"$out/together.log"
  done
  say "1 together: $ok exited normally, $died did not${gdb:+ (under cuda-gdb)}, in $SECONDS s"
}

runtime_gpu() {
  OKLC_TEST_DATA=$root/tests/runtime OKLC_TEST_GPU_MOCK=$root/build/tests/libgpu_mock.so \
    OKLC_TEST_TSD_PROBE=$root/build/tests/libtsd_probe.so timeout 300 \
    build/tests/test_runtime_gpu >"$out/runtime_gpu.log" 2>&1
  say "2 test_runtime_gpu: rc $? ($(grep -E 'PASSED|FAILED' "$out/runtime_gpu.log" | tr '\n' ' '))"
}

one_run() {      # one_run LABEL BINARY DEVICE [FILTER]: test_run, its summary
  local log=$g/run.$1.log
  OKLC_TEST_RUN_DIR=$root/tests/run OKLC_TEST_DEVICE=$3 OKLC_TEST_FILTER=${4:-*} \
    OKLC_TEST_REPEAT=${OKLC_TEST_REPEAT:-300} OKLC_TEST_GPU=1 timeout 400 "$2" >"$log" 2>&1
  local rc=$?
  { echo "---- $1: rc $rc"; cat "$log"; } >>"$out/run.log"
  say "3 $1: rc $rc ($(grep -E '^\[  (PASSED|FAILED)' "$log" | tr '\n' ' '))"
  grep -E 'runs wrong' "$log" | sed "s/^/   $1: /"
}

runs() {
  one_run cuda build/tests/test_run cuda &
  one_run nvidia-opencl build/tests/test_run "opencl platform=nvidia" &
  wait
  if [ -x .gpu/before/test_run ]; then
    one_run before-cuda .gpu/before/test_run cuda 'test_barrier*'
    one_run before-nvidia-opencl .gpu/before/test_run "opencl platform=nvidia" 'test_barrier*'
  fi
}

misc() {
  {
    OKLC_CACHE_DIR=$g/misc timeout 120 build/tests/runtime_plugin tests/plugins/prefetch.okl \
      build/examples/plugins/libokl_prefetch.so cuda
    echo "plugin on cuda: rc $?"
    for e in add_vectors reduction stencil templated; do
      OKLC_CACHE_DIR=$g/misc timeout 120 build/examples/$e cuda
      echo "example $e on cuda: rc $?"
    done
  } >"$out/misc.log" 2>&1
  say "4 $(grep -E 'rc [0-9]+$' "$out/misc.log" | tr '\n' ';')"
}

occa() {
  [ -f .gpu/occa.tar.xz ] || { say "5 OCCA: not packed"; return; }
  mkdir -p "$g/occa" && tar xJf .gpu/occa.tar.xz -C "$g/occa" &&
    tar xJf .gpu/occa-examples.tar.xz -C "$g/occa" || return
  local prefix
  prefix=$(ls -d "$g"/occa/*/lib/.. | head -1)
  echo '{"kernel": {"transpiler-version": 3}}' >"$g/v3.json"
  local e v line
  for e in $(cd "$g/occa" && find examples -type f -perm -u+x -name 'examples_*' | sort); do
    line="   $e:"
    for v in 2 3; do
      local cfg=() dir
      dir=$(dirname "$g/occa/$e")
      [ "$v" = 3 ] && cfg=(OCCA_CONFIG="$g/v3.json")
      echo "---- $e, transpiler-version $v" >>"$out/occa.log"
      (cd "$dir" && env OCCA_DIR="$prefix" OCCA_INSTALL_DIR="$prefix" OCCA_CACHE_DIR="$g/occa-cache-$v" \
        LD_LIBRARY_PATH="$prefix/lib:$LD_LIBRARY_PATH" "${cfg[@]}" timeout 120 \
        "./$(basename "$e")" --device "{mode: 'CUDA', device_id: 0}" --verbose) >"$g/o.log" 2>&1
      local rc=$?
      grep -q 'defaulting to \[Serial\]' "$g/o.log" && rc="$rc (Serial!)"
      tail -40 "$g/o.log" >>"$out/occa.log"
      echo "---- rc $rc" >>"$out/occa.log"
      line="$line v$v rc $rc"
    done
    echo "$line"
  done
  say "5 OCCA examples on CUDA done (OCCA's parser: v2; oklc: v3)"
}

bench() {
  local b all=("gpu.sh build cuda -x 3" "gpu-launch.sh build cuda"
               "gpu.sh build opencl@platform=nvidia -x 3" "gpu-launch.sh build cuda")
  [ -n "${BENCHES:-}" ] && IFS=';' read -r -a all <<<"$BENCHES"
  for b in "${all[@]}"; do
    [ $SECONDS -lt $((deadline - 60)) ] || { echo "(deadline: $b not run)"; continue; }
    set -- $b
    echo "---- $b ($SECONDS s)"
    bash "bench/$1" "$2" "${3//@/ }" "${@:4}"
  done >"$out/bench.log" 2>&1
  say "6 benches: $(grep -c . "$out/bench.log") lines"
}

has 1 && together
pids=()
has 2 && { runtime_gpu & pids+=($!); }
has 3 && { runs & pids+=($!); }
has 4 && { misc & pids+=($!); }
has 5 && { occa & pids+=($!); }
[ ${#pids[@]} -gt 0 ] && wait "${pids[@]}"
has 6 && bench
say "done"
