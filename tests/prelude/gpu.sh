#!/usr/bin/env bash
# Checks the preludes of the GPU-like backends, src/backends/cuda_prelude.cuh
# (CUDA and HIP) and src/backends/opencl_prelude.cl (OpenCL C 1.2), which
# the backends paste at the top of the device source they generate. No GPU
# is needed; a kernel runs on the OpenCL CPU device (PoCL).
#  - both: lines under 100 columns; every helper macro undefined at the end
#    (the text, and the macros the preprocessor leaves: HIP, OpenCL);
#  - CUDA, with nvcc (-arch=sm_75 and sm_90, every warning an error) and
#    NVRTC (tests/prelude/gpu/rtc_check.c, the runtime devices' compiler:
#    no host header, no include path): the prelude alone, then pasted before
#    tests/prelude/gpu/device.cu (every name okl.hpp declares, with its
#    result type) and values.cu (a self-checking kernel); NVRTC also builds
#    the parse prelude's own test kernels (tests/prelude/*.cpp, as device
#    code) with the errors of the targets' known differences and no other.
#    host.cu runs values.cu's checks that need no device on the host (the
#    prelude's functions are __host__ __device__); values.cu runs (nvcc
#    -DVALUES_MAIN) where an NVIDIA GPU is present;
#  - HIP, with hipcc (--offload-arch=gfx90a) and hiprtc: the same (HIP's
#    vector types are classes of their own: host.cu checks the prelude's
#    arithmetic on them);
#  - OpenCL, with the OpenCL platform (tests/prelude/gpu/clbuild.c:
#    clBuildProgram with -cl-std=CL1.2 -Werror) and Clang (-x cl
#    -cl-std=CL1.2 -fsyntax-only -Wall -Wextra -Werror), with and without
#    OKLC_PRELUDE_FP64, and with Clang for a device without doubles: the
#    prelude alone, opencl.cl (every name), values.cl, which runs on the
#    device and checks its values; with Clang, OKLC_PRELUDE_HALF (half,
#    cl_khr_fp16), and one clear error for FP64 and HALF on a device
#    without their extension.
# A compiler that is not installed is skipped with a message (exit 0);
# OKLC_REQUIRE_GPU_TOOLS=1 makes a skip a failure. NVCC, HIPCC, CLANG and
# CC name the compilers (default: nvcc or /usr/local/cuda/bin/nvcc, hipcc,
# clang, cc), CUDA_HOME the toolkit of NVRTC (default: nvcc's). TARGETs
# select what to check (default: all three); --timing prints how long each
# compile took.
# Usage: gpu.sh [--timing] [cuda|hip|opencl]...
set -u
timing=0 targets=""
for arg in "$@"; do
  case $arg in
    --timing) timing=1 ;;
    cuda | hip | opencl) targets="$targets $arg" ;;
    *) echo "usage: gpu.sh [--timing] [cuda|hip|opencl]..." >&2; exit 2 ;;
  esac
done
[ -n "$targets" ] || targets=" cuda hip opencl"
want() { case "$targets " in *" $1 "*) return 0 ;; esac; return 1; }
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
cuda_prelude=src/backends/cuda_prelude.cuh
cl_prelude=src/backends/opencl_prelude.cl
dir=tests/prelude/gpu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export POCL_CACHE_DIR="$tmp/pocl" # every build afresh, nothing left in ~/.cache
export TMPDIR="$tmp"               # hipcc leaves empty folders in TMPDIR
failed=0 checked=0 skipped=0
fail() {
  echo "FAIL: $*"
  failed=1
  # nvcc and hipcc run as root with -o /dev/null replace it with a file,
  # which breaks hipcc's link (clang-offload-bundler reads /dev/null).
  [ -c /dev/null ] || echo "  note: /dev/null is not the null device (a compiler run as root" \
    "with -o /dev/null replaced it): rm /dev/null; mknod -m 666 /dev/null c 1 3"
}
skip() {
  echo "SKIP: $*"
  skipped=$((skipped + 1))
  if [ "${OKLC_REQUIRE_GPU_TOOLS:-0}" = 1 ]; then failed=1; fi
}
# run NAME COMMAND...: the command must succeed with no output. Its time
# goes to the --timing table.
run() {
  local name=$1 start end
  shift
  checked=$((checked + 1))
  start=$(date +%s%N)
  if ! "$@" >"$tmp/out" 2>&1 || [ -s "$tmp/out" ]; then
    fail "$name"
    echo "  $*"
    head -n 40 "$tmp/out"
    return 1
  fi
  end=$(date +%s%N)
  printf '%6d ms  %s\n' $(((end - start) / 1000000)) "$name" >>"$tmp/times"
}
# runs NAME COMMAND...: a program that prints what it checked must succeed.
runs() {
  local name=$1
  shift
  checked=$((checked + 1))
  if ! "$@" >"$tmp/out" 2>&1; then
    fail "$name"
    head -n 40 "$tmp/out"
  fi
}
# expect NAME "FILE:LINE..." COMMAND...: the command must fail with errors
# on exactly these lines of tests/prelude files (the targets' known
# differences), or succeed with no output when the list is empty.
expect() {
  local name=$1 want=$2
  shift 2
  if [ -z "$want" ]; then
    run "$name" "$@"
    return
  fi
  checked=$((checked + 1))
  "$@" >"$tmp/out" 2>&1
  # NVRTC writes FILE(LINE): error, Clang FILE:LINE:COLUMN: error.
  sed -nE 's#^tests/prelude/([^:(]*)(\(([0-9]+)\)|:([0-9]+):[0-9]+): error.*#\1:\3\4#p' \
    "$tmp/out" | sort -u | tr '\n' ' ' | sed 's/ $//' >"$tmp/got"
  if [ "$(cat "$tmp/got")" != "$want" ]; then
    fail "$name: errors on [$(cat "$tmp/got")], expected on [$want]"
    grep -E '(error|warning)' "$tmp/out" | head -n 20
  fi
}
# paste_after PRELUDE FILE OUT: the prelude's text, then FILE's, as a backend writes them.
paste_after() {
  { cat "$1"; echo "#line 1 \"$2\""; cat "$2"; } >"$3"
}

# For --timing: a kernel alone, and after each prelude.
echo 'extern "C" __global__ void k(float *a) { a[threadIdx.x] = 1; }' >"$tmp/kernel.cu"
echo '__kernel void k(__global float *a) { a[get_global_id(0)] = 1; }' >"$tmp/kernel.cl"
paste_after "$cuda_prelude" "$tmp/kernel.cu" "$tmp/both.cu"
paste_after "$cl_prelude" "$tmp/kernel.cl" "$tmp/both.cl"
{ echo '#include <hip/hip_runtime.h>'; cat "$tmp/kernel.cu"; } >"$tmp/kernel.hip"
cp "$tmp/both.cu" "$tmp/both.hip"

# ---- Both preludes: line lengths, and the macros they leave.
preludes=()
if want cuda || want hip; then preludes+=("$cuda_prelude"); fi
if want opencl; then preludes+=("$cl_prelude"); fi
for prelude in "${preludes[@]}"; do
  awk 'length > 99 { printf "%s:%d: line longer than 99 columns\n", FILENAME, FNR; bad = 1 }
       END { exit bad }' "$prelude" || fail "long lines in $prelude"
  # Every macro it defines, but its guard and the constants of okl.hpp, is
  # undefined further down.
  sed -nE 's/^[[:space:]]*#[[:space:]]*define[[:space:]]+([A-Za-z_][A-Za-z0-9_]*).*/\1/p' \
    "$prelude" | sort -u |
    grep -v -x -E 'OKLC_[A-Z_]*_(CUH|CL)|M_[0-9A-Z_]+|INFINITY|NAN|(FLT|DBL)_[A-Z]+' |
    grep -v -x -E 'U?INT_M(AX|IN)' >"$tmp/defined"
  sed -nE 's/^[[:space:]]*#[[:space:]]*undef[[:space:]]+([A-Za-z_][A-Za-z0-9_]*).*/\1/p' \
    "$prelude" | sort -u >"$tmp/undefined"
  checked=$((checked + 1))
  left=$(comm -23 "$tmp/defined" "$tmp/undefined" | tr '\n' ' ')
  [ -z "$left" ] || fail "$prelude leaves these macros defined: $left"
done

# ---- CUDA: nvcc and NVRTC (from the toolkit of nvcc, or CUDA_HOME).
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
cc=${CC:-cc}
if command -v "$nvcc" >/dev/null; then
  cuda_home=${CUDA_HOME:-$(cd "$(dirname "$(readlink -f "$(command -v "$nvcc")")")/.." && pwd)}
else
  cuda_home=${CUDA_HOME:-/usr/local/cuda}
fi
if ! want cuda; then
  :
elif ! command -v "$nvcc" >/dev/null; then
  skip "CUDA: nvcc not found (the CUDA toolkit; NVCC=... names it)"
else
  # shellcheck disable=SC2054
  nvflags=(-std=c++17 -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror)
  # Kernels: CUDA 13 deprecates double4, long4 and ulong4 (the runtime
  # should pass this too); <cmath>'s templates for integer arguments
  # (sqrt(2)) are host constexpr functions, which device code calls only
  # with --expt-relaxed-constexpr (NVRTC has the prelude's).
  kflags=(--expt-relaxed-constexpr -D__NV_NO_VECTOR_DEPRECATION_DIAG -I"$dir")
  paste_after "$cuda_prelude" "$dir/device.cu" "$tmp/device.cu"
  paste_after "$cuda_prelude" "$dir/values.cu" "$tmp/values.cu"
  paste_after "$cuda_prelude" "$dir/host.cu" "$tmp/host.cu"
  cp "$cuda_prelude" "$tmp/prelude.cu"
  for arch in sm_75 sm_90; do
    run "nvcc $arch: the prelude alone" "$nvcc" -arch=$arch "${nvflags[@]}" -c "$tmp/prelude.cu" \
      -o "$tmp/prelude.o"
    if [ $timing = 1 ]; then
      for k in kernel both; do
        run "nvcc $arch: $k.cu" "$nvcc" -arch=$arch "${nvflags[@]}" -c "$tmp/$k.cu" -o "$tmp/k.o"
      done
    fi
    run "nvcc $arch: device.cu" "$nvcc" -arch=$arch "${nvflags[@]}" "${kflags[@]}" \
      -c "$tmp/device.cu" -o "$tmp/device.o"
    run "nvcc $arch: values.cu" "$nvcc" -arch=$arch "${nvflags[@]}" "${kflags[@]}" \
      -c "$tmp/values.cu" -o "$tmp/values.o"
  done
  run "nvcc: host.cu" "$nvcc" -arch=sm_75 "${nvflags[@]}" "${kflags[@]}" "$tmp/host.cu" \
    -o "$tmp/host_cuda" && run "nvcc: host.cu runs" "$tmp/host_cuda"
  if run "nvcc: values.cu, the program" "$nvcc" "${nvflags[@]}" "${kflags[@]}" -DVALUES_MAIN \
    -gencode "arch=compute_75,code=[sm_75,compute_75]" -gencode arch=compute_90,code=sm_90 \
    "$tmp/values.cu" -o "$tmp/values_cuda"; then
    if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
      runs "CUDA GPU: values.cu runs" "$tmp/values_cuda"
    else
      echo "note: no NVIDIA GPU: values.cu compiled, not run"
    fi
  fi
fi
if ! want cuda; then
  :
elif ! [ -e "$cuda_home/include/nvrtc.h" ]; then
  skip "NVRTC: $cuda_home/include/nvrtc.h not found (CUDA_HOME=... names the toolkit)"
else
  if ! "$cc" -std=c11 -O2 -DRTC_NVRTC -I"$cuda_home/include" "$dir/rtc_check.c" \
    -o "$tmp/nvrtc_check" -L"$cuda_home/lib64" -lnvrtc -Wl,-rpath,"$cuda_home/lib64" \
    >"$tmp/out" 2>&1; then
    skip "NVRTC: cannot build $dir/rtc_check.c against $cuda_home:"
    head -n 5 "$tmp/out"
  else
    nvrtc=("$tmp/nvrtc_check" -std=c++17)
    for arch in sm_75 sm_90; do
      run "NVRTC $arch: the prelude alone" "${nvrtc[@]}" -arch=$arch "$cuda_prelude"
      if [ $timing = 1 ]; then
        run "NVRTC $arch: kernel.cu" "${nvrtc[@]}" -arch=$arch "$tmp/kernel.cu"
        run "NVRTC $arch: both.cu" "${nvrtc[@]}" -arch=$arch "$cuda_prelude" "$tmp/kernel.cu"
      fi
      run "NVRTC $arch: device.cu" "${nvrtc[@]}" -arch=$arch -D__NV_NO_VECTOR_DEPRECATION_DIAG \
        "$cuda_prelude" "$dir/device.cu"
      run "NVRTC $arch: values.cu" "${nvrtc[@]}" -arch=$arch -D__NV_NO_VECTOR_DEPRECATION_DIAG \
        -I"$dir" "$cuda_prelude" "$dir/values.cu"
    done
    # The parse prelude's test kernels, as device code (-default-device).
    # Known differences: pow(float, int) is a float (math.inc:40); isnan and
    # signbit are int (math.inc:57); float + __half is ambiguous with CUDA's
    # cuda_fp16.h (cuda.cpp:66).
    nvrtc_okl() {
      local name=$1 want=$2
      shift 2
      expect "NVRTC sm_90: tests/prelude/$name.cpp" "$want" "${nvrtc[@]}" -arch=sm_90 \
        -default-device -D__NV_NO_VECTOR_DEPRECATION_DIAG -Itests/prelude "$@" "$cuda_prelude" \
        tests/prelude/cpu/at.hpp "tests/prelude/$name.cpp"
    }
    nvrtc_okl vectors ""
    nvrtc_okl types ""
    nvrtc_okl intrinsics ""
    nvrtc_okl math "math.inc:40 math.inc:57"
    nvrtc_okl cuda "cuda.cpp:66" -DOCCA_USE_CUDA=1 -DOKLC_PRELUDE_HALF -I"$cuda_home/include"
  fi
fi

# ---- HIP: hipcc and hiprtc.
hipcc=${HIPCC:-hipcc}
echo '#pragma clang force_cuda_host_device begin' >"$tmp/device_default.h"
if ! want hip; then
  :
elif ! command -v "$hipcc" >/dev/null; then
  skip "HIP: hipcc not found (scripts/deps.sh installs it; HIPCC=... names it)"
else
  hipflags=(--offload-arch=gfx90a -std=c++17 -Wall -Wextra -Werror)
  # hipcc takes .cu and .cuh arguments for HIP sources: pasted .hip files.
  cp "$cuda_prelude" "$tmp/prelude.hip"
  paste_after "$cuda_prelude" "$dir/device.cu" "$tmp/device.hip"
  paste_after "$cuda_prelude" "$dir/values.cu" "$tmp/values.hip"
  paste_after "$cuda_prelude" "$dir/host.cu" "$tmp/host.hip"
  run "hipcc: the prelude alone" "$hipcc" "${hipflags[@]}" -c "$tmp/prelude.hip" \
    -o "$tmp/prelude.o"
  if [ $timing = 1 ]; then
    for k in kernel both; do
      run "hipcc: $k.hip" "$hipcc" "${hipflags[@]}" -c "$tmp/$k.hip" -o "$tmp/k.o"
    done
  fi
  run "hipcc: device.cu" "$hipcc" "${hipflags[@]}" -c "$tmp/device.hip" -o "$tmp/device.o"
  run "hipcc: values.cu" "$hipcc" "${hipflags[@]}" -I"$dir" -c "$tmp/values.hip" \
    -o "$tmp/values.o"
  run "hipcc: host.cu" "$hipcc" "${hipflags[@]}" -I"$dir" "$tmp/host.hip" -o "$tmp/host_hip" &&
    run "hipcc: host.cu runs" "$tmp/host_hip"
  if run "hipcc: values.cu, the program" "$hipcc" "${hipflags[@]}" -I"$dir" -DVALUES_MAIN \
    "$tmp/values.hip" -o "$tmp/values_hip"; then
    if [ -e /dev/kfd ]; then
      runs "HIP GPU: values.cu runs" "$tmp/values_hip"
    else
      echo "note: no AMD GPU (/dev/kfd): values.cu compiled, not run"
    fi
  fi
  # Its macros: those of <hip/hip_runtime.h>, its guard and the constants.
  echo '#include <hip/hip_runtime.h>' >"$tmp/base.hip"
  for side in --cuda-device-only --cuda-host-only; do
    "$hipcc" --offload-arch=gfx90a -std=c++17 $side -E -dM "$tmp/base.hip" 2>&1 |
      sort >"$tmp/before"
    "$hipcc" --offload-arch=gfx90a -std=c++17 $side -E -dM "$tmp/prelude.hip" 2>&1 |
      sort >"$tmp/after"
    checked=$((checked + 1))
    left=$(comm -13 "$tmp/before" "$tmp/after" | awk '{ sub(/\(.*/, "", $2); print $2 }' |
      grep -v -x -E 'OKLC_CUDA_PRELUDE_CUH|M_[0-9A-Z_]+|INFINITY|NAN|(FLT|DBL)_[A-Z]+' |
      tr '\n' ' ')
    [ -z "$left" ] || fail "hipcc $side: macros left defined by $cuda_prelude: $left"
  done

  if ! "$cc" -std=c11 -O2 -DRTC_HIPRTC -D__HIP_PLATFORM_AMD__ "$dir/rtc_check.c" \
    -o "$tmp/hiprtc_check" -lamdhip64 >"$tmp/out" 2>&1; then
    skip "hiprtc: cannot build $dir/rtc_check.c (libamdhip64-dev):"
    head -n 5 "$tmp/out"
  else
    hiprtc=("$tmp/hiprtc_check" --offload-arch=gfx90a -std=c++17)
    run "hiprtc: the prelude alone" "${hiprtc[@]}" "$cuda_prelude"
    if [ $timing = 1 ]; then
      run "hiprtc: kernel.cu" "${hiprtc[@]}" "$tmp/kernel.cu"
      run "hiprtc: both.cu" "${hiprtc[@]}" "$cuda_prelude" "$tmp/kernel.cu"
    fi
    run "hiprtc: device.cu" "${hiprtc[@]}" "$cuda_prelude" "$dir/device.cu"
    run "hiprtc: values.cu" "${hiprtc[@]}" -I"$dir" "$cuda_prelude" "$dir/values.cu"
    # The parse prelude's test kernels, as __host__ __device__ code. Known
    # differences: 4-vectors of 8-byte scalars are 32-byte aligned
    # (vectors.cpp:92, 93, 95); pow(float, int) is a float (math.inc:40);
    # HIP 5 has no __shfl_*_sync, __ballot_sync (hip.cpp:21, 22).
    hiprtc_okl() {
      local name=$1 want=$2
      shift 2
      expect "hiprtc: tests/prelude/$name.cpp" "$want" "${hiprtc[@]}" -Itests/prelude "$@" \
        "$cuda_prelude" "$tmp/device_default.h" tests/prelude/cpu/at.hpp \
        "tests/prelude/$name.cpp"
    }
    hiprtc_okl vectors "vectors.cpp:92 vectors.cpp:93 vectors.cpp:95"
    hiprtc_okl types ""
    hiprtc_okl intrinsics ""
    hiprtc_okl math "math.inc:40"
    hiprtc_okl hip "hip.cpp:21 hip.cpp:22" -DOCCA_USE_HIP=1
  fi
fi

# ---- OpenCL: the platform's compiler (PoCL) and Clang.
if ! want opencl; then
  :
elif ! "$cc" -std=c11 -O2 "$dir/clbuild.c" -o "$tmp/clbuild" -l:libOpenCL.so.1 >"$tmp/out" 2>&1; then
  skip "OpenCL: cannot build $dir/clbuild.c (opencl-c-headers, ocl-icd-libopencl1):"
  head -n 5 "$tmp/out"
elif ! echo '__kernel void k(void) {}' >"$tmp/empty.cl" ||
     ! "$tmp/clbuild" "$tmp/empty.cl" >"$tmp/out" 2>&1; then
  skip "OpenCL: no OpenCL platform (scripts/deps.sh installs PoCL):"
  head -n 5 "$tmp/out"
else
  for fp64 in "" -DOKLC_PRELUDE_FP64; do
    options="-cl-std=CL1.2 -Werror -I $dir $fp64"
    run "OpenCL [$fp64]: the prelude alone" "$tmp/clbuild" -o "$options" "$cl_prelude"
    if [ $timing = 1 ]; then
      run "OpenCL [$fp64]: kernel.cl" "$tmp/clbuild" -o "$options" "$tmp/kernel.cl"
      run "OpenCL [$fp64]: both.cl" "$tmp/clbuild" -o "$options" "$cl_prelude" "$tmp/kernel.cl"
    fi
    run "OpenCL [$fp64]: opencl.cl" "$tmp/clbuild" -o "$options" "$cl_prelude" "$dir/opencl.cl"
    run "OpenCL [$fp64]: values.cl runs" "$tmp/clbuild" -o "$options" -r values \
      -l "$dir/values.inc" "$cl_prelude" "$dir/values.cl"
  done
fi
clang=${CLANG:-clang}
if ! want opencl; then
  :
elif ! command -v "$clang" >/dev/null; then
  skip "OpenCL: $clang not found"
else
  cl=("$clang" -x cl -cl-std=CL1.2 -Xclang -finclude-default-header -fsyntax-only -Wall -Wextra
      -Werror -I"$dir")
  # A device without doubles: the prelude names none unless the kernel does.
  nofp64=(-Xclang -cl-ext=-cl_khr_fp64)
  for fp64 in "" -DOKLC_PRELUDE_FP64 nofp64; do
    flags=$fp64
    [ "$fp64" = nofp64 ] && flags="${nofp64[*]}"
    # shellcheck disable=SC2086
    run "clang -x cl [$fp64]: the prelude alone" "${cl[@]}" $flags "$cl_prelude"
    if [ $timing = 1 ]; then
      # shellcheck disable=SC2086
      run "clang -x cl [$fp64]: kernel.cl" "${cl[@]}" $flags "$tmp/kernel.cl"
      # shellcheck disable=SC2086
      run "clang -x cl [$fp64]: both.cl" "${cl[@]}" $flags "$tmp/both.cl"
    fi
    for test in opencl values; do
      # shellcheck disable=SC2086
      run "clang -x cl [$fp64]: $test.cl" "${cl[@]}" $flags -include "$cl_prelude" \
        "$dir/$test.cl"
    done
  done
  # half: with cl_khr_fp16 (Clang's OpenCL C has it; PoCL here does not)
  run "clang -x cl [-DOKLC_PRELUDE_HALF]: the prelude alone" "${cl[@]}" -DOKLC_PRELUDE_HALF \
    "$cl_prelude"
  # one_error MACRO EXTENSION TYPE: the prelude with MACRO on a device
  # without EXTENSION stops with one error, which says why
  one_error() {
    checked=$((checked + 1))
    if "${cl[@]}" -Xclang -cl-ext=-"$2" -D"$1" "$cl_prelude" >"$tmp/out" 2>&1 ||
       ! grep -q "error: \"the kernel uses $3, which this OpenCL device does not have" \
         "$tmp/out" || [ "$(grep -c 'error:' "$tmp/out")" != 1 ]; then
      fail "clang -x cl: $1 without $2 must stop with one clear error"
      head -n 10 "$tmp/out"
    fi
  }
  one_error OKLC_PRELUDE_FP64 cl_khr_fp64 double
  one_error OKLC_PRELUDE_HALF cl_khr_fp16 half
  # Its macros: OpenCL's, its guard, nothing else.
  : >"$tmp/nothing.cl"
  "$clang" -x cl -cl-std=CL1.2 -Xclang -finclude-default-header -DOKLC_PRELUDE_FP64 -E -dM \
    "$tmp/nothing.cl" 2>&1 | sort >"$tmp/before"
  "$clang" -x cl -cl-std=CL1.2 -Xclang -finclude-default-header -DOKLC_PRELUDE_FP64 -E -dM \
    "$cl_prelude" 2>&1 | sort >"$tmp/after"
  checked=$((checked + 1))
  left=$(comm -13 "$tmp/before" "$tmp/after" | awk '{ sub(/\(.*/, "", $2); print $2 }' |
    grep -v -x OKLC_OPENCL_PRELUDE_CL | tr '\n' ' ')
  [ -z "$left" ] || fail "clang -x cl: macros left defined by $cl_prelude: $left"
fi

if [ $timing = 1 ] && [ -s "$tmp/times" ]; then
  echo "Compile times (each includes the compiler's start):"
  cat "$tmp/times"
fi
echo "$checked GPU prelude checks run (${targets# }), $skipped skipped"
exit $failed
