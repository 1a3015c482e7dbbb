#!/usr/bin/env bash
# Every kernel oklc accepts must become code the backend's compiler
# accepts: transpiles each kernel of the given folders for one backend and
# compiles the result with the given command (for GPU-like backends, the
# host launcher too, with the C++ compiler CXX, default g++). The standard a
# `--clang-arg=-std=...` names replaces -std=c++17 in the command.
# A kernel that the backend rejects on purpose says so in a line
# "// BACKEND: unsupported" (cpu: serial and openmp; gpu: cuda, hip and
# opencl), and must then fail with a diagnostic, never crash.
# A kernel that one compiler cannot take, for a reason outside oklc, says so
# in a line "// compile-skip: WORD (why)": commands with that word (or a
# program of that name: clang++ for /usr/bin/clang++) skip it; WORD,WORD
# needs both, a backend or its family being words too (cpu,clang++).
# The kernels are checked JOBS at a time (default: the number of CPUs).
# Usage: compile.sh OKLC BACKEND 'COMPILE COMMAND' FOLDER|FILE...
#   e.g. compile.sh build/oklc cuda 'nvcc -std=c++17 -arch=sm_90 -c -x cu -o kernel.o' tests/valid
# The command runs in a folder of its own (nvcc and hipcc, run as root, replace
# an output /dev/null with a file).
set -u
oklc=$1 backend=$2 compile=$3
shift 3
case $backend in
  serial|openmp) family=cpu ;;
  *) family=gpu ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR="$tmp"    # the compilers' temporary files: hipcc leaves empty folders

# skips WORD: every comma-separated part of it is a word of this run
skips() {
  local part
  for part in ${1//,/ }; do
    case " $family $backend $compile " in *" $part "* | *"/$part "*) ;; *) return 1 ;; esac
  done
}

# check N INPUT: its report goes to $tmp/N.log, a failure leaves $tmp/N.fail
check() {
  local n=$1 input=$2 dir="$tmp/$1" args launcher=() status std cmd
  mkdir "$dir"
  exec >"$tmp/$n.log" 2>&1
  for word in $(sed -n 's|^// compile-skip: \([^ ]*\).*|\1|p' "$input"); do
    if skips "$word"; then echo "skipped: $input ($word)"; return; fi
  done
  eval "args=($(sed -n 's|^// oklc-args: ||p' "$input" | head -n 1))"
  [ $family = gpu ] && launcher=(--launcher "$dir/launcher.cpp")
  (cd "$(dirname "$input")" &&
   "$oklc" transpile "${args[@]}" -b "$backend" "$(basename "$input")" -o "$dir/out.cpp" \
     "${launcher[@]}") 2>"$dir/err"
  status=$?
  if grep -qE "^// ($family|$backend): unsupported" "$input"; then
    if [ $status -ne 1 ] || ! grep -q ': error: ' "$dir/err"; then
      echo "FAIL: $input ($backend): expected a diagnostic (exit $status)"; touch "$tmp/$n.fail"
    fi
    return
  fi
  if [ $status -ne 0 ]; then
    echo "FAIL: $input ($backend): oklc transpile failed"; cat "$dir/err"
    touch "$tmp/$n.fail"; return
  fi
  # the sanitizers' run (make test-asan) checks oklc; the compilers' verdict
  # on the same output is the release run's (make test)
  [ -n "${OKLC_TRANSPILE_ONLY:-}" ] && return
  # the C++ standard Clang was told to parse with, if not C++17
  std=$(printf '%s\n' "${args[@]}" | sed -n 's|^--clang-arg=\(-std=.*\)|\1|p' | tail -n 1)
  cmd=${compile//-std=c++17/${std:--std=c++17}}
  # shellcheck disable=SC2086
  # (out.cpp: AdaptiveCpp's acpp compiles SYCL only from a file named so,
  # whatever -x says; the others go by -x)
  if ! (cd "$dir" && $cmd "$dir/out.cpp") >"$dir/cc" 2>&1; then
    echo "FAIL: $input ($backend): the output does not compile"
    grep -m 20 -E 'error|Error' "$dir/cc"; touch "$tmp/$n.fail"; return
  fi
  if [ $family = gpu ] &&
     ! "${CXX:-g++}" ${std:--std=c++17} -fsyntax-only -x c++ "$dir/launcher.cpp" 2>"$dir/cc"; then
    echo "FAIL: $input ($backend): the launcher does not compile"
    head -n 20 "$dir/cc"; touch "$tmp/$n.fail"
  fi
}

jobs=${JOBS:-$(nproc)}
n=0
for folder in "$@"; do
  inputs=("$folder"/*.okl)
  [ -f "$folder" ] && inputs=("$folder")
  for input in "${inputs[@]}"; do
    n=$((n + 1))
    check $n "$input" &
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  done
done
wait
failed=0
for i in $(seq 1 $n); do
  cat "$tmp/$i.log"
  [ -e "$tmp/$i.fail" ] && failed=1
done
if [ -n "${OKLC_TRANSPILE_ONLY:-}" ]; then
  echo "$n kernels transpiled for $backend (OKLC_TRANSPILE_ONLY: not compiled)"
else
  echo "$n kernels transpiled for $backend and compiled with: $compile"
fi
exit $failed
