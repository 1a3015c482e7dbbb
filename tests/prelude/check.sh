#!/usr/bin/env bash
# Checks the OKL prelude include/oklc/okl.hpp with Clang and GCC:
#  - the header alone, in each mode, with -Wall -Wextra -Werror; lines under
#    100 columns; none of its helper macros (OKLC_*) left defined;
#  - every tests/prelude/*.cpp kernel compiles with the prelude force-included
#    (-fsyntax-only -Wall -Wextra -Werror, plus the "// flags: ..." of its
#    first line, relative to the repository root);
#  - every *.fail.cpp kernel is rejected, with an error on each line marked
#    "// ERROR" and on no other line of it (GCC also prints "error:" lines in
#    the prelude when it explains a rejected template candidate).
# Usage: check.sh [CLANGXX [GXX]]   (default: clang++ g++)
set -u
clangxx=${1:-clang++} gxx=${2:-g++}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
header=include/oklc/okl.hpp
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 checked=0
fail() { echo "FAIL: $*"; failed=1; }

awk 'length > 99 { printf "%s:%d: line longer than 99 columns\n", FILENAME, FNR; bad = 1 }
     END { exit bad }' "$header" || fail "long lines in $header"

for cxx in "$clangxx" "$gxx"; do
  command -v "$cxx" >/dev/null || { fail "compiler '$cxx' not found"; continue; }
  base=("$cxx" -std=c++17 -fsyntax-only -Wall -Wextra -Werror)
  for mode in "" "-DOKLC_PRELUDE_SYSTEM_MATH" "-DOKLC_BACKEND_CUDA" "-DOKLC_BACKEND_HIP" \
              "-DOKLC_BACKEND_CUDA -DOKLC_PRELUDE_SYSTEM_MATH"; do
    # shellcheck disable=SC2086
    if ! "${base[@]}" $mode -x c++ "$header" >"$tmp/out" 2>&1 || [ -s "$tmp/out" ]; then
      fail "$cxx: $header [$mode]"; cat "$tmp/out"
    fi
    # shellcheck disable=SC2086
    "$cxx" -std=c++17 -E -dM $mode -x c++ "$header" 2>/dev/null |
      awk '$2 ~ /^OKLC_/ && $2 != "OKLC_OKL_HPP" && $2 !~ /^OKLC_(BACKEND|PRELUDE)_/ {
             print "macro left defined: " $2; bad = 1 } END { exit bad }' ||
      fail "$cxx: helper macros left defined [$mode]"
    checked=$((checked + 1))
  done
  for test in tests/prelude/*.cpp; do
    read -r -a flags <<<"$(sed -n '1s|^// flags:||p' "$test")"
    "${base[@]}" -include "$header" "${flags[@]}" "$test" >"$tmp/out" 2>&1
    status=$?
    checked=$((checked + 1))
    case $test in
      *.fail.cpp)
        if [ $status -eq 0 ]; then fail "$cxx: $test compiled"; continue; fi
        grep -n '// ERROR' "$test" | cut -d: -f1 | sort -u >"$tmp/want"
        grep -E "^$test:[0-9]+:[0-9]+: (fatal )?error:" "$tmp/out" | cut -d: -f2 |
          sort -u >"$tmp/got"
        if ! [ -s "$tmp/want" ] || ! cmp -s "$tmp/want" "$tmp/got"; then
          fail "$cxx: $test: errors on lines [$(tr '\n' ' ' <"$tmp/got")]," \
               "expected on [$(tr '\n' ' ' <"$tmp/want")]"
          grep -E '(error|warning):' "$tmp/out" | head -n 20
        fi ;;
      *)
        if [ $status -ne 0 ] || [ -s "$tmp/out" ]; then
          fail "$cxx: $test"; cat "$tmp/out"
        fi ;;
    esac
  done
done
echo "$checked prelude checks run ($clangxx, $gxx)"
exit $failed
