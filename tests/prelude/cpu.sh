#!/usr/bin/env bash
# Checks the CPU prelude src/backends/cpu_prelude.hpp (the definitions that
# the serial and OpenMP backends paste at the top of their output) with Clang
# and GCC, with and without -fopenmp:
#  - the header alone, -Wall -Wextra -Werror, with no output; lines under 100
#    columns; no macro of its own left defined but its include guard;
#  - the kernels of tests/prelude/*.cpp (written against okl.hpp) with the
#    CPU prelude force-included instead, built the way the runtime builds a
#    kernel (-O3 -fPIC -shared) with -Wall -Wextra -Werror and linked with
#    --no-undefined, so that everything they use is defined; again with
#    -fopenmp; and parsed with tests/prelude/cpu/user_std.hpp (<cmath>,
#    <algorithm>, ..., `using namespace std;`) after the prelude. okl::at,
#    which the backends rewrite, comes from tests/prelude/cpu/at.hpp. Not built:
#    *.fail.cpp (okl.hpp's rejections), and kernels whose "// flags:" select
#    OKLC_BACKEND_CUDA or OKLC_BACKEND_HIP (the CUDA/HIP builtins, which no
#    CPU backend has). A kernel including <okl_intrinsic.h> (the declarations
#    only stub of tests/syntax/include) is compiled but not linked;
#  - half with OKLC_PRELUDE_HALF: _Float16 where the compiler has it, else
#    the prelude's #error;
#  - tests/prelude/cpu/values.cpp, compiled and run: values and types of the
#    prelude's definitions, alone, after the user's <cmath>, <algorithm>, ...
#    and `using namespace std;` (-DUSER_STD), with -fopenmp, and pasted
#    before the code as oklc does rather than force-included.
# Usage: cpu.sh [CLANGXX [GXX]]   (default: clang++ g++)
set -u
clangxx=${1:-clang++} gxx=${2:-g++}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
prelude=src/backends/cpu_prelude.hpp
values=tests/prelude/cpu/values.cpp
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 checked=0
fail() { echo "FAIL: $*"; failed=1; }
# run NAME COMMAND...: runs the command, which must succeed with no output.
run() {
  local name=$1
  shift
  checked=$((checked + 1))
  if ! "$@" >"$tmp/out" 2>&1 || [ -s "$tmp/out" ]; then
    fail "$name"
    echo "  $*"
    head -n 40 "$tmp/out"
    return 1
  fi
}

awk 'length > 99 { printf "%s:%d: line longer than 99 columns\n", FILENAME, FNR; bad = 1 }
     END { exit bad }' "$prelude" || fail "long lines in $prelude"

grep -E '^#include' "$prelude" >"$tmp/includes.hpp"
for cxx in "$clangxx" "$gxx"; do
  command -v "$cxx" >/dev/null || { fail "compiler '$cxx' not found"; continue; }
  warn=(-std=c++17 -Wall -Wextra -Werror)
  for omp in "" -fopenmp; do
    # shellcheck disable=SC2086
    run "$cxx: $prelude alone [$omp]" "$cxx" "${warn[@]}" $omp -fsyntax-only -x c++ "$prelude"
  done

  # _occa_simd, before the loops of a tile of threads (cpu_interchange.c):
  # OpenMP's simd with -fopenmp, or -fopenmp-simd -D_OCCA_SIMD (the runtime's
  # serial builds); nothing otherwise, and no warning in any of the three.
  printf 'void f(float *a) {\n  _occa_simd\n  for (int i = 0; i < 16; ++i) a[i] += 1;\n}\n' \
    >"$tmp/simd.cpp"
  for simd in "" -fopenmp "-fopenmp-simd -D_OCCA_SIMD"; do
    # shellcheck disable=SC2086
    run "$cxx: _occa_simd [$simd]" "$cxx" "${warn[@]}" $simd -fsyntax-only -include "$prelude" \
      "$tmp/simd.cpp"
    # shellcheck disable=SC2086
    pragmas=$("$cxx" -std=c++17 -E $simd -include "$prelude" "$tmp/simd.cpp" | grep -c 'pragma omp simd')
    checked=$((checked + 1))
    [ "$pragmas" = "$([ -n "$simd" ] && echo 1 || echo 0)" ] ||
      fail "$cxx: _occa_simd [$simd] gives $pragmas '#pragma omp simd'"
  done

  # _occa_short_loops, on a kernel with blocks (cpu.c): GCC compiles a
  # block's copy loop as a loop, not a call of memcpy per block (which the
  # same function without it has: the check can fail); other compilers
  # take it without a warning.
  printf '%s\n' 'void BLOCKS f(int n, int m, const float *__restrict__ a, float *__restrict__ b) {' \
    '  for (int k = 0; k < n; ++k)' '    for (int t = 0; t < m; ++t) b[k * 300 + t] = a[k * 300 + t];' \
    '}' >"$tmp/short.cpp"
  run "$cxx: _occa_short_loops" "$cxx" "${warn[@]}" -DBLOCKS=_occa_short_loops -fsyntax-only \
    -include "$prelude" "$tmp/short.cpp"
  if "$cxx" --version | grep -qi 'free software foundation'; then
    for blocks in _occa_short_loops ""; do
      calls=$("$cxx" -std=c++17 -O3 -S -o - -DBLOCKS="$blocks" -include "$prelude" \
        "$tmp/short.cpp" | grep -cE '(call|jmp).*mem(cpy|move)')
      checked=$((checked + 1))
      [ "$calls" = "$([ -n "$blocks" ] && echo 0 || echo 1)" ] ||
        fail "$cxx: BLOCKS='$blocks' gives $calls calls of memcpy"
    done
  fi

  # half (OKLC_PRELUDE_HALF): _Float16 where the compiler has it, else an
  # #error that says so.
  printf '%s\n' 'static_assert(sizeof(half) == 2, "binary16");' \
    'half f(half a, half b) { return a * b + (half)0.5f; }' >"$tmp/half.cpp"
  if "$cxx" -std=c++17 -E -dM -x c++ /dev/null | grep -q __FLT16_MANT_DIG__; then
    run "$cxx: half" "$cxx" "${warn[@]}" -DOKLC_PRELUDE_HALF -fsyntax-only -include "$prelude" \
      "$tmp/half.cpp"
  else
    checked=$((checked + 1))
    "$cxx" -std=c++17 -DOKLC_PRELUDE_HALF -fsyntax-only -include "$prelude" "$tmp/half.cpp" \
      >"$tmp/out" 2>&1
    grep -q 'error: "the kernel uses half: this C++ compiler has no _Float16' "$tmp/out" ||
      { fail "$cxx: half without _Float16 must stop with its #error"; head -n 5 "$tmp/out"; }
  fi

  # Its macros: those of the headers it includes, its guard, _occa_simd,
  # _occa_tile_rows, _occa_rarely, _occa_short_loops, _occa_prefetch and
  # _occa_prefetch_part (which the generated code uses), nothing else.
  "$cxx" -std=c++17 -E -dM -x c++ "$tmp/includes.hpp" 2>&1 | sort >"$tmp/before"
  "$cxx" -std=c++17 -E -dM -x c++ "$prelude" 2>&1 | sort >"$tmp/after"
  comm -13 "$tmp/before" "$tmp/after" | awk '{ sub(/\(.*/, "", $2); print $2 }' |
    grep -v -x -e OKLC_CPU_PRELUDE_HPP -e 'M_[0-9A-Z_]*' -e _occa_simd -e _occa_tile_rows \
      -e _occa_rarely -e _occa_short_loops -e _occa_prefetch -e _occa_prefetch_part \
      >"$tmp/left"
  checked=$((checked + 1))
  if [ -s "$tmp/left" ]; then
    fail "$cxx: macros left defined by $prelude: $(tr '\n' ' ' <"$tmp/left")"
  fi

  for test in tests/prelude/*.cpp; do
    case $test in *.fail.cpp) continue ;; esac
    read -r -a flags <<<"$(sed -n '1s|^// flags:||p' "$test")"
    # CUDA/HIP builtins (threadIdx, atomicAdd, ...): no CPU backend has them.
    case " ${flags[*]} " in *-DOKLC_BACKEND_CUDA* | *-DOKLC_BACKEND_HIP*) continue ;; esac
    if grep -q '<okl_intrinsic.h>' "$test"; then
      out=(-c -o "$tmp/kernel.o")
    else
      # shellcheck disable=SC2054
      out=(-shared -o "$tmp/kernel.so" -Wl,--no-undefined -lm)
    fi
    for omp in "" -fopenmp; do
      # shellcheck disable=SC2086
      run "$cxx: $test [$omp]" "$cxx" "${warn[@]}" -O3 -fPIC $omp -include "$prelude" \
        -include tests/prelude/cpu/at.hpp "${flags[@]}" "$test" "${out[@]}"
    done
    run "$cxx: $test [user_std.hpp]" "$cxx" "${warn[@]}" -fsyntax-only -include "$prelude" \
      -include tests/prelude/cpu/at.hpp -include tests/prelude/cpu/user_std.hpp "${flags[@]}" \
      "$test"
  done

  for variant in "-O0" "-O3 -DUSER_STD" "-O2 -fopenmp" "-O3 -fopenmp -DUSER_STD"; do
    # shellcheck disable=SC2086
    run "$cxx: $values [$variant]" "$cxx" "${warn[@]}" $variant -include "$prelude" "$values" \
      -o "$tmp/values" -lm && run "$cxx: $values [$variant]: run" "$tmp/values"
  done
  # As oklc writes it: the prelude's text, then the code.
  { cat "$prelude"; echo "#line 1 \"$values\""; cat "$values"; } >"$tmp/pasted.cpp"
  run "$cxx: $values pasted after $prelude" "$cxx" "${warn[@]}" -O3 -fPIC "$tmp/pasted.cpp" \
    -o "$tmp/values" -lm && run "$cxx: $values pasted after $prelude: run" "$tmp/values"
done
echo "$checked CPU prelude checks run ($clangxx, $gxx)"
exit $failed
