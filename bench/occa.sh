#!/usr/bin/env bash
# occa.sh - OCCA programs on oklc: OCCA's examples and tests run with OCCA's
# own parser (transpiler-version 2, the default) and with oklc
# (transpiler-version 3, through the oklt interface), and compared.
#
# Takes OCCA's source and a build of it that the user made as the README
# says ("Inside OCCA"): OCCA with its Clang-based transpiler hook (OCCA
# pull request 756), configured with OCCA_CLANG_BASED_TRANSPILER=ON,
# OCCA_ENABLE_EXAMPLES=ON and OCCA_ENABLE_TESTS=ON, deps/occa-transpiler
# being oklc's installed share/oklc/occa-transpiler. Nothing of OCCA is
# built here. transpiler-version 3 is set for every kernel through OCCA's
# own configuration file (OCCA_CONFIG: {"kernel": {"transpiler-version": 3}}),
# so no program changes.
#
#   1  every example of OCCA's that uses OKL (C++ and C), on Serial and
#      OpenMP, run in both settings; their printed results compared (lines
#      of timings and of OCCA's own verbose output left out);
#   2  31_oklt_v3_moving_avg (transpiler-version 3 always), on both modes;
#   3  OCCA's test suite (ctest) in both settings: the counts, and each test
#      whose result differs;
#   4  the CUDA, HIP and DPC++ output of the examples' kernels in OCCA's
#      convention (oklc transpile --convention=occa, what the oklt interface
#      writes): device code compiled by nvcc and hipcc where they exist, the
#      DPC++ code against the SYCL checking header
#      (tests/backends/check/sycl), every launcher by g++ -std=c++11 against
#      OCCA's own headers, as OCCA compiles launchers;
#   5  with --bench DIR (a benchParanumal built against that OCCA): its BP
#      solvers on Serial and OpenMP in both settings, iterations and errors
#      compared.
#
# Usage: occa.sh [-o REPORTDIR] [--bench DIR] [--skip-tests] OCCA_SRC OCCA_BUILD
# Environment: OKLC (default build/oklc), NVCC, HIPCC, CLANGXX (default clang++),
# CTEST_JOBS (default: CPUs).
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OKLC=${OKLC:-$root/build/oklc} CLANGXX=${CLANGXX:-clang++}
NVCC=${NVCC:-$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; })}
HIPCC=${HIPCC:-$(command -v hipcc)}
report="" bench="" tests=1
usage() { sed -n 's/^# \?//; /^Usage/,/^Environment/p' "$0" | head -n -1 >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    -o) report=$2; shift ;;
    --bench) bench=$2; shift ;;
    --skip-tests) tests=0 ;;
    -h|--help) usage ;;
    -*) echo "occa.sh: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
  shift
done
[ $# -eq 2 ] || usage
src=$(cd "$1" && pwd) build=$(cd "$2" && pwd)
[ -f "$build/CMakeCache.txt" ] || { echo "occa.sh: $build is not a CMake build of OCCA" >&2; exit 2; }
grep -q '^OCCA_CLANG_BASED_TRANSPILER:BOOL=ON' "$build/CMakeCache.txt" ||
  { echo "occa.sh: $build was not configured with OCCA_CLANG_BASED_TRANSPILER=ON" >&2; exit 2; }
[ -x "$OKLC" ] || { echo "occa.sh: no oklc at $OKLC" >&2; exit 2; }
report=${report:-$(mktemp -d "${TMPDIR:-/tmp}/occa-report.XXXXXX")}
mkdir -p "$report"
echo "report: $report"
printf '{"kernel": {"transpiler-version": 3}}\n' >"$report/v3.json"

# Runs a command in a setting (2 or 3) with a cache of its own; stdout and
# stderr to FILE; its status.
in_setting() {
  local v=$1 out=$2; shift 2
  local cache=$report/cache-v$v
  if [ "$v" = 3 ]; then
    OCCA_CACHE_DIR=$cache OCCA_CONFIG=$report/v3.json "$@" >"$out" 2>&1
  else
    OCCA_CACHE_DIR=$cache OCCA_CONFIG=$report/none.json "$@" >"$out" 2>&1
  fi
}
echo '{}' >"$report/none.json"

# What an example prints, without what differs by nature between two runs.
results() {
  grep -v -i -e 'elapsed' -e 'time' -e 'compiling' -e 'loading cached' -e 'hash' \
           -e 'command' -e '^\s*$' "$1" || true
}

# ---- 1, 2: the examples --------------------------------------------------------------------
examples=()
for d in "$build"/examples/cpp/* "$build"/examples/c/*; do
  for x in "$d"/examples_*; do
    [ -x "$x" ] && [ -f "$x" ] && examples+=("$x")
  done
done
same=0 differ=0 pass2=0 pass3=0 total=0
printf '\n%-44s %-7s %-7s %-7s %s\n' example mode v2 v3 results
for x in "${examples[@]}"; do
  name=$(basename "$x")
  case $name in *native_cuda*|*cuda_interop*|*native_opencl*|*native_dpcpp*) continue ;; esac
  modes=(Serial OpenMP)      # those without --device run on their own device
  "$x" --help 2>&1 | grep -q -- '--device' || modes=(own)
  for mode in "${modes[@]}"; do
    dev=(--device "{\"mode\": \"$mode\"}")
    [ "$mode" = own ] && dev=()
    r=()
    for v in 2 3; do
      (cd "$(dirname "$x")" && in_setting $v "$report/$name.$mode.v$v.out" timeout 600 "$x" "${dev[@]}")
      r+=($?)
    done
    total=$((total + 1))
    [ "${r[0]}" = 0 ] && pass2=$((pass2 + 1))
    [ "${r[1]}" = 0 ] && pass3=$((pass3 + 1))
    if diff <(results "$report/$name.$mode.v2.out") <(results "$report/$name.$mode.v3.out") \
         >"$report/$name.$mode.diff"; then
      verdict=same same=$((same + 1))
    else
      verdict="differ ($report/$name.$mode.diff)" differ=$((differ + 1))
    fi
    printf '%-44s %-7s %-7s %-7s %s\n' "$name" "$mode" \
      "$([ "${r[0]}" = 0 ] && echo ok || echo "rc ${r[0]}")" \
      "$([ "${r[1]}" = 0 ] && echo ok || echo "rc ${r[1]}")" "$verdict"
  done
done
echo "examples: $total runs; exit 0 with v2: $pass2, with v3: $pass3; printed results the same: $same, different: $differ"

# ---- 3: OCCA's tests ------------------------------------------------------------------------
if [ $tests = 1 ]; then
  for v in 2 3; do
    rm -rf "$build/occa"          # the tests' own cache (their OCCA_CACHE_DIR)
    (cd "$build" && in_setting $v "$report/ctest.v$v.log" \
       ctest -j "${CTEST_JOBS:-$(nproc)}" --timeout 900)
    grep -E '^ *[0-9]+/[0-9]+ Test +#' "$report/ctest.v$v.log" |
      sed -E 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) .*(Passed|Failed|Skipped|Timeout|Not Run|Exception).*/\1 \2/' |
      sed -E 's/\*+//' | sort >"$report/ctest.v$v.results"
    echo "ctest v$v: $(grep -E 'tests passed' "$report/ctest.v$v.log")"
  done
  join -a1 -a2 -e none -o 0,1.2,2.2 "$report/ctest.v2.results" "$report/ctest.v3.results" |
    awk '$2 != $3 {print "  " $1 ": v2 " $2 ", v3 " $3}' >"$report/ctest.diff"
  echo "tests whose result differs: $(wc -l <"$report/ctest.diff")"
  cat "$report/ctest.diff"
fi

# ---- 4: GPU backends' output through OCCA's launcher path ---------------------------------------
# The defines the examples' programs pass (their main.cpp).
defines_of() {
  case $1 in
    */06_shared_memory/*|*/04_reduction/*) echo "-Dblock=256" ;;
    */18_nonblocking_streams/*|*/19_stream_tags/*) echo "-Dblock=64 -Dgroup=1" ;;
    *) echo "" ;;
  esac
}
occa_includes=(-I"$src/include" -I"$build/include")
printf '\n%-52s %-6s %-9s %s\n' kernel target device launcher
gpu_ok=0 gpu_total=0
while IFS= read -r okl; do
  case $okl in */16_mandelbulb/*|*/15_finite_difference/*|*/fortran/*) continue ;; esac
  for b in cuda hip dpcpp; do
    out=$report/gpu/$(echo "${okl#$src/}" | tr / _).$b
    mkdir -p "$report/gpu"
    # shellcheck disable=SC2046
    if ! (cd "$(dirname "$okl")" && "$OKLC" transpile -b $b --convention=occa $(defines_of "$okl") \
            -o "$out.dev" --launcher "$out.launcher.cpp" "$okl" 2>"$out.err"); then
      printf '%-52s %-6s %-9s %s\n' "${okl#$src/}" $b "no: $(head -1 "$out.err")" -
      continue
    fi
    case $b in
      cuda) dc=(${NVCC:+"$NVCC" -std=c++17 -c -x cu "$out.dev" -o "$out.o"}) ;;
      hip) dc=(${HIPCC:+"$HIPCC" -std=c++17 --offload-arch=gfx90a -c -x hip "$out.dev" -o "$out.o"}) ;;
      dpcpp) dc=("$CLANGXX" -std=c++17 -fsyntax-only -I"$root/tests/backends/check/sycl" -x c++ "$out.dev") ;;
    esac
    dev=skipped
    if [ ${#dc[@]} -gt 0 ]; then
      "${dc[@]}" >"$out.dev.log" 2>&1 && dev=ok || dev="FAIL ($out.dev.log)"
    fi
    g++ -std=c++11 -fsyntax-only "${occa_includes[@]}" -x c++ "$out.launcher.cpp" \
      >"$out.launcher.log" 2>&1 && launcher=ok || launcher="FAIL ($out.launcher.log)"
    gpu_total=$((gpu_total + 1))
    [ "$launcher" = ok ] && [ "$dev" != "FAIL ($out.dev.log)" ] && gpu_ok=$((gpu_ok + 1))
    printf '%-52s %-6s %-9s %s\n' "${okl#$src/}" $b "$dev" "$launcher"
  done
done < <(find "$src/examples" -name '*.okl' | sort)
echo "GPU outputs: $gpu_ok of $gpu_total compiled (device code where the compiler exists, and launcher)"

# ---- 5: benchParanumal ---------------------------------------------------------------------
if [ -n "$bench" ]; then
  bench=$(cd "$bench" && pwd)
  printf '\n%-6s %-7s %-28s %-28s %s\n' solver mode v2 v3 same
  for bp in 1 2 3 4 5 6; do
    exe=$bench/BP/BP$bp/BP$bp
    [ -x "$exe" ] || continue
    for mode in Serial OpenMP; do
      for v in 2 3; do
        (cd "$(dirname "$exe")" && in_setting $v "$report/BP$bp.$mode.v$v.out" \
           timeout 900 mpirun --allow-run-as-root --oversubscribe -np 1 "$exe" -m "$mode" \
           -e Hex -nx 6 -ny 6 -nz 6 -p 4 -v)
      done
      pick() { grep -i -E 'iter|error|norm' "$1" | grep -v -i -e 'time' -e 'gdof' || true; }
      a=$(pick "$report/BP$bp.$mode.v2.out" | tr -s ' ' | head -3 | tr '\n' ';')
      b=$(pick "$report/BP$bp.$mode.v3.out" | tr -s ' ' | head -3 | tr '\n' ';')
      printf '%-6s %-7s %-28.28s %-28.28s %s\n' "BP$bp" $mode "$a" "$b" \
        "$([ "$a" = "$b" ] && [ -n "$a" ] && echo yes || echo "NO (see $report/BP$bp.$mode.v*.out)")"
    done
  done
fi
