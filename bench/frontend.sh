#!/usr/bin/env bash
# Front-half throughput: lex + preprocess + normalize, in source lines per
# second, over the example and benchmark kernels and the seed examples.
#
#  1. in process (bench_frontend): what the runtime pays when it builds a
#     kernel; the goal is at least 200,000 lines/s on the whole set;
#  2. as a command, one process per file, next to GCC's preprocessor alone
#     (`cpp -P`) on the same files in the same run, as a baseline.
# Usage: bench/frontend.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
goal=200000
files=(bench/kernels/*.okl examples/kernels/*.okl tests/golden/normalize/seed*.okl)
lines=$(cat "${files[@]}" | wc -l)

echo "== in process: $build/bench_frontend over ${#files[@]} files, $lines lines"
out=$("$build/bench_frontend" -t 4 "${files[@]}")
echo "$out"
rate=$(echo "$out" | awk '/^all files/ {print $NF}')

# One process per file, 20 rounds: oklc normalize versus cpp -P.
rounds=20
run_all() {
  local start end
  start=$(date +%s.%N)
  for ((r = 0; r < rounds; r++)); do
    for f in "${files[@]}"; do "$@" "$f" >/dev/null 2>&1 || true; done
  done
  end=$(date +%s.%N)
  echo "$start $end" | awk -v n=$((lines * rounds)) '{printf "%.0f", n / ($2 - $1)}'
}
oklc_rate=$(run_all "$build/oklc" normalize)
cpp_rate=$(run_all cpp -P)
echo
echo "== one process per file ($rounds rounds)"
printf '%-36s %12s lines/s\n' "oklc normalize" "$oklc_rate" "cpp -P (GCC, baseline)" "$cpp_rate"
echo "$oklc_rate $cpp_rate" | awk '{printf "ratio oklc / cpp: %.2f\n", $1 / $2}'

echo
if [ "${rate%.*}" -ge "$goal" ]; then
  echo "goal (in process >= $goal lines/s): met ($rate)"
else
  echo "goal (in process >= $goal lines/s): NOT met ($rate)"
  exit 1
fi
