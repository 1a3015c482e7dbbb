#!/usr/bin/env bash
# Installs the Debian packages oklc needs to build and test (see README,
# "Dependencies"); `deps.sh build` only those building and installing the
# library and the command need. As root it installs what is missing; as
# another user it prints the exact apt-get line and stops. `deps.sh occa` adds what
# bench/occa.sh needs beyond that (benchParanumal's MPI and BLAS); `deps.sh
# sycl` what bench/sycl.sh needs to build AdaptiveCpp (LLVM 14, Boost).
set -euo pipefail

# What building and installing the library and the command needs
# (`deps.sh build`; cmake -DBUILD_TESTING=OFF):
build=(
  build-essential   # gcc, g++, make: the compiler of oklc itself
  cmake             # the build
  pkg-config        # finds the libraries below
  libcjson-dev      # JSON: --diagnostics=json, kernel metadata
  libclang-dev      # Clang's C API: parses the normalized C++ of a kernel (loaded when
                    #   a kernel is transpiled: a program of ahead-of-time kernels runs without it)
  libxxhash-dev     # XXH3-128: the keys of the runtime's kernel cache
  libisl-dev        # isl: integer sets, the race and barrier analysis (src/analysis/)
  libexpected-dev   # tl::expected: the oklt interface OCCA calls (include/oklt/)
  opencl-c-headers  # CL/cl.h: the OpenCL device's types (the loader is dlopen'ed, never linked)
)
# What `make test` adds (the default: `deps.sh`, `deps.sh test`):
tests=(
  libcmocka-dev     # unit tests
  clang             # tests: normalized kernels must pass clang++ -fsyntax-only
  clangd-14         # tests: compile-commands entries must give clangd no errors
  groff-base        # tests: the man page (docs/oklc.1) renders without warnings
  ocl-icd-libopencl1  # libOpenCL.so.1, the OpenCL ICD loader the runtime dlopens
  pocl-opencl-icd   # PoCL: OpenCL on the CPU, the device the OpenCL tests run on
  hipcc             # tests: HIP output must compile for an AMD GPU (gfx90a)
  libamdhip64-dev   # hip_runtime.h and hiprtc: the HIP prelude's tests
  rocm-device-libs  # the AMD GPU device libraries hipcc links against
  openmpi-bin       # tests: examples/mpi_jacobi runs with mpirun -np 4
  libopenmpi-dev    #   and is built with MPI's C library
)
packages=("${build[@]}")
[ "${1:-}" = build ] || packages+=("${tests[@]}")
if [ "${1:-}" = sycl ]; then
  packages+=(
    llvm-14-dev libclang-14-dev clang-14  # AdaptiveCpp's compiler plugin and its clang
    libomp-14-dev                         #   the omp target: SYCL kernels as OpenMP on the CPU
    libboost-context-dev libboost-fiber-dev  #   its CPU runtime's fibers
  )
fi
if [ "${1:-}" = occa ]; then
  packages+=(
    openmpi-bin       # bench/occa.sh: benchParanumal runs with mpirun
    libopenmpi-dev    #   and is built with mpic++
    libopenblas-dev   #   and links OpenBLAS
  )
fi
names=()
for p in "${packages[@]}"; do
  case "$p" in \#*) continue ;; esac
  names+=("$p")
done

missing=()
for p in "${names[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  echo "deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "oklc needs these Debian packages: ${missing[*]}" >&2
  echo "Install them with:" >&2
  echo "  sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
