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
#   5  with --bench DIR (a benchParanumal built against that OCCA, with
#      make OCCA_DIR=...; it pins OCCA 1.6, whose memory copies count bytes,
#      where this OCCA counts elements: its include/memory.hpp needs the
#      '*sizeof(T)' of its copy counts and offsets removed): BP1-BP6 on Serial
#      and OpenMP (Hex, 8^3 elements, degree 5) in both settings, the CG
#      residual of every iteration compared, and the solve's time.
#
# Usage: occa.sh [-o REPORTDIR] [--bench DIR] [--parts 1234] OCCA_SRC OCCA_BUILD
#   --parts: which of the parts above to run (default: all; 2 comes with 1)
# Environment: OKLC (default build/oklc), NVCC, HIPCC, CLANGXX (default clang++),
# CTEST_JOBS (default: CPUs).
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OKLC=${OKLC:-$root/build/oklc} CLANGXX=${CLANGXX:-clang++}
NVCC=${NVCC:-$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; })}
HIPCC=${HIPCC:-$(command -v hipcc)}
report="" bench="" parts=12345
usage() { sed -n 's/^# \?//; /^Usage/,/^Environment/p' "$0" | head -n -1 >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    -o) report=$2; shift ;;
    --bench) bench=$2; shift ;;
    --parts) parts=$2; shift ;;
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

# Runs a command in a setting (2 or 3) with a cache of its own (OCCA's
# kernel hash leaves transpiler-version out: a shared cache would give one
# setting the other's binaries); stdout and stderr to FILE; its status.
in_setting() {
  local v=$1 out=$2; shift 2
  local cache=$report/cache-v$v config=$report/none.json
  [ "$v" = 3 ] && config=$report/v3.json
  OCCA_CACHE_DIR=$cache LIBP_CACHE_DIR=$cache OCCA_CONFIG=$config "$@" >"$out" 2>&1
}
echo '{}' >"$report/none.json"

# What an example prints, without what differs by nature between two runs.
results() {
  grep -v -i -e 'elapsed' -e 'time' -e 'compiling' -e 'loading cached' -e 'hash' \
           -e 'command' -e '^\s*$' "$1" || true
}

part() { [[ $parts == *$1* ]]; }

# ---- 1, 2: the examples --------------------------------------------------------------------
examples=()
part 1 && for d in "$build"/examples/cpp/* "$build"/examples/c/*; do
  for x in "$d"/examples_*; do
    [ -x "$x" ] && [ -f "$x" ] && examples+=("$x")
  done
done
same=0 differ=0 pass2=0 pass3=0 total=0
part 1 && printf '\n%-44s %-7s %-7s %-7s %s\n' example mode v2 v3 results
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
part 1 && echo "examples: $total runs; exit 0 with v2: $pass2, with v3: $pass3; printed results" \
  "the same: $same, different: $differ"

# ---- 3: OCCA's tests ------------------------------------------------------------------------
if part 3; then
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
gpu_ok=0 gpu_total=0
part 4 && printf '\n%-52s %-6s %-9s %s\n' kernel target device launcher
part 4 && while IFS= read -r okl; do
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
part 4 && echo "GPU outputs: $gpu_ok of $gpu_total compiled (device code where the compiler" \
  "exists, and launcher)"

# ---- 5: benchParanumal ---------------------------------------------------------------------
# Each solver once to build its kernels into the setting's cache, then three
# times: the CG residual of every iteration compared, and the best time.
if [ -n "$bench" ] && part 5; then
  bench=$(cd "$bench" && pwd)
  size=(-e Hex -nx 8 -ny 8 -nz 8 -p 5)
  printf '\n%-5s %-7s %-11s %-24s %-9s %-9s %s\n' solver mode iterations "last residual (v2, v3)" \
    "v2 (s)" "v3 (s)" "residuals"
  for bp in 1 2 3 4 5 6; do
    exe=$bench/BP/BP$bp/BP$bp
    [ -x "$exe" ] || continue
    for mode in Serial OpenMP; do
      for v in 2 3; do
        for run in build 1 2 3; do
          (cd "$(dirname "$exe")" && in_setting $v "$report/BP$bp.$mode.v$v.$run.out" \
             timeout 900 mpirun --allow-run-as-root --bind-to none -np 1 "$exe" -m "$mode" \
             "${size[@]}" -v)
        done
        cp "$report/BP$bp.$mode.v$v.1.out" "$report/BP$bp.$mode.v$v.out"
      done
      its() { grep -c 'CG: it' "$1"; }
      last() { grep 'CG: it' "$1" | tail -1 | sed -E 's/.*r norm ([^,]*),.*/\1/'; }
      took() {
        cat "${1%.out}".[123].out | grep -o 'elapsed=[0-9.e+-]*' | cut -d= -f2 | sort -g | head -1
      }
      a=$report/BP$bp.$mode.v2.out b=$report/BP$bp.$mode.v3.out
      if diff <(grep 'CG: it' "$a") <(grep 'CG: it' "$b") >/dev/null && [ "$(its "$a")" != 0 ]; then
        same="identical"
      else
        same="DIFFER ($a, $b)"
      fi
      printf '%-5s %-7s %-11s %-24s %-9s %-9s %s\n' "BP$bp" "$mode" "$(its "$a"), $(its "$b")" \
        "$(last "$a"), $(last "$b")" "$(took "$a")" "$(took "$b")" "$same"
    done
  done
fi

# What each setting's caches hold: transpiler-version 3 went through oklc.
for v in 2 3; do
  n=$(grep -l 'Generated by oklc' "$report"/cache-v$v/cache/*/*.source.cpp 2>/dev/null | wc -l)
  all=$(ls "$report"/cache-v$v/cache/*/*.source.cpp 2>/dev/null | wc -l)
  echo "v$v cache: $n of $all kernel sources written by oklc"
done
