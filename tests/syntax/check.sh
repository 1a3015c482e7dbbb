#!/usr/bin/env bash
# The normalized form of every kernel in a golden folder must be C++ that
# Clang accepts: clang++ -std=c++17 -fsyntax-only, every warning an error
# except unknown attributes (Clang does not know okl::). prelude.hpp
# declares the helper functions the seed examples call without declaring;
# include/ holds a stub of the seed's <okl_intrinsic.h>.
# A kernel that is not meant to be valid C++ says "// syntax: skip".
set -u
oklc=$1 clangxx=$2 folder=$3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 checked=0
for input in "$folder"/*.okl; do
  grep -q '^// syntax: skip' "$input" && continue
  eval "args=($(sed -n 's|^// oklc-args: ||p' "$input" | head -n 1))"
  if ! (cd "$(dirname "$input")" && "$oklc" normalize "${args[@]}" "$(basename "$input")") \
       >"$tmp/k.cpp" 2>"$tmp/err"; then
    echo "FAIL (normalize): $input"; cat "$tmp/err"; failed=1; continue
  fi
  # as oklc's own parse does: with the system's math header, the prelude
  # uses it rather than declaring the math functions itself
  math=()
  grep -qE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<(cmath|math\.h|cstdlib|stdlib\.h)>' \
    "$tmp/k.cpp" &&
    math=(-DOKLC_PRELUDE_SYSTEM_MATH)
  if ! "$clangxx" -std=c++17 -fsyntax-only -Werror -Wno-unknown-attributes "${math[@]}" \
       -I "$here/include" -include "$here/../../include/oklc/okl.hpp" -include "$here/prelude.hpp" \
       -x c++ "$tmp/k.cpp" 2>"$tmp/err"; then
    echo "FAIL (clang++): $input"; cat "$tmp/err"; failed=1
  fi
  checked=$((checked + 1))
done
echo "$checked normalized kernels accepted by $("$clangxx" --version | head -n 1)"
[ "$checked" -gt 0 ] || { echo "FAIL: no kernel checked"; exit 1; }
exit $failed
