#!/usr/bin/env bash
# A checking header must reject what the real compiler rejects: each case
# (a .cpp file with a line "// expect: REGEX") must fail to compile with a
# message matching REGEX. Usage: must-fail.sh 'COMPILE COMMAND' CASE...
#   e.g. must-fail.sh 'clang++ -std=c++17 -fsyntax-only -I check/sycl' check/sycl-wrong/*.cpp
set -u
compile=$1
shift
failed=0
for case in "$@"; do
  want=$(sed -n 's|^// expect: ||p' "$case" | head -n 1)
  # shellcheck disable=SC2086
  if out=$($compile "$case" 2>&1); then
    echo "FAIL: $case compiles; the checking header should reject it ($want)"; failed=1
  elif ! grep -qE -- "$want" <<<"$out"; then
    echo "FAIL: $case fails, but not with: $want"; echo "$out" | head -n 10; failed=1
  else
    echo "ok: $case"
  fi
done
exit $failed
