#!/usr/bin/env bash
# Speed of `oklc check` (preprocess, normalize, Clang parse, model, rules),
# in process, in median milliseconds per file; next to it, in the same run,
# clang++ -fsyntax-only on the same normalized text with the same prelude
# (what Clang alone costs, process start included).
# Goal: about 20 ms or less for the ~500-line sem_ops.okl.
# Usage: bench/check.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
goal_ms=20
files=(bench/kernels/*.okl examples/kernels/*.okl)

echo "== in process: oklc check"
out=$("$build/bench_frontend" -t 6 -m check "${files[@]}")
echo "$out"
big=$(echo "$out" | awk '$1 == "sem_ops.okl" {print $4}')

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/oklc" normalize bench/kernels/sem_ops.okl >"$tmp/k.cpp"
runs=20
for ((i = 0; i < runs; i++)); do
  s=$(date +%s%N)
  clang++ -std=c++17 -fsyntax-only -Wno-unknown-attributes -include include/oklc/okl.hpp \
    -x c++ "$tmp/k.cpp"
  e=$(date +%s%N)
  echo $(((e - s) / 1000))
done | sort -n | awk -v n=$runs 'NR == int(n / 2) + 1 {printf "\nclang++ -fsyntax-only on sem_ops.okl (normalized, with the prelude, one process): median %.2f ms\n", $1 / 1000}'

echo
if awk -v b="$big" -v g="$goal_ms" 'BEGIN {exit !(b <= g)}'; then
  echo "goal (sem_ops.okl, about 500 lines, <= $goal_ms ms): met ($big ms)"
else
  echo "goal (sem_ops.okl, about 500 lines, <= $goal_ms ms): NOT met ($big ms)"
  exit 1
fi
