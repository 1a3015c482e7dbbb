#!/usr/bin/env bash
# Every kernel oklc accepts must become code the backend's compiler
# accepts: transpiles each kernel of the given folders for serial and
# OpenMP and compiles the result (-std=c++17 -fsyntax-only, -fopenmp for
# OpenMP; the standard --clang-arg=-std=... names, if any). A kernel whose backend rejects it on purpose says so in a line
# "// cpu: unsupported" (and must then fail with a diagnostic, never crash).
# Usage: compile.sh OKLC CXX FOLDER...
set -u
oklc=$1 cxx=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 checked=0
for folder in "$@"; do
  for input in "$folder"/*.okl; do
    eval "args=($(sed -n 's|^// oklc-args: ||p' "$input" | head -n 1))"
    for backend in serial openmp; do
      checked=$((checked + 1))
      (cd "$(dirname "$input")" &&
       "$oklc" transpile "${args[@]}" -b $backend "$(basename "$input")" -o "$tmp/out.cpp") \
        2>"$tmp/err"
      status=$?
      if grep -q '^// cpu: unsupported' "$input"; then
        if [ $status -ne 1 ] || ! grep -q ': error: ' "$tmp/err"; then
          echo "FAIL: $input ($backend): expected a diagnostic (exit $status)"; failed=1
        fi
        continue
      fi
      if [ $status -ne 0 ]; then
        echo "FAIL: $input ($backend): oklc transpile failed"; cat "$tmp/err"; failed=1
        continue
      fi
      [ $backend = openmp ] && omp=-fopenmp || omp=
      # the C++ standard Clang was told to parse with, if not C++17
      std=$(printf '%s\n' "${args[@]}" | sed -n 's|^--clang-arg=\(-std=.*\)|\1|p' | tail -n 1)
      # shellcheck disable=SC2086
      if ! "$cxx" ${std:--std=c++17} -fsyntax-only $omp -x c++ "$tmp/out.cpp" 2>"$tmp/cxx"; then
        echo "FAIL: $input ($backend): the output does not compile"
        head -n 20 "$tmp/cxx"; failed=1
      fi
    done
  done
done
echo "$checked transpilations compiled with $cxx"
exit $failed
