#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/fuzz_*.c: the front half, and the
# whole pipeline through every backend) with ASan and UBSan, and runs each
# for SECONDS over a corpus seeded with the repository's kernels, the
# targets side by side (one core each). A crash, a sanitizer report, a hang
# (over 10 s), 4 GB of memory or a lie the target checks is kept in
# build-fuzz/found-TARGET/ and the run goes on; any makes the exit status 1.
# The last line of each log (build-fuzz/TARGET.log) gives the runs, the
# coverage (cov: edges of oklc's code), the features (ft) and the
# findings (oom/timeout/crash).
# Usage: tests/fuzz/run.sh [SECONDS] [TARGET...]   (default 120; frontend pipeline)
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-120}
shift || true
targets=${*:-frontend pipeline}
out=build-fuzz
command -v clang >/dev/null || { echo "fuzz: clang is needed (scripts/deps.sh)" >&2; exit 2; }
cmake -S . -B "$out" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DOKLC_FUZZ=ON >/dev/null
for t in $targets; do
  cmake --build "$out" -j "$(nproc)" --target "fuzz_$t" >/dev/null
done
pids=()
for t in $targets; do
  mkdir -p "$out/corpus-$t" "$out/found-$t"
  for f in tests/valid/*.okl tests/run/*.okl tests/golden/*/*.okl bench/kernels/*.okl \
           bench/compare/*.okl examples/kernels/*.okl tests/legacy/*.okl; do
    cp -n "$f" "$out/corpus-$t/$(echo "$f" | tr / _)"
  done
  # -fork=1 with -ignore_*: a finding is kept and the run goes on
  (cd "$out" && exec "./fuzz_$t" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
     -max_total_time="$secs" -max_len=8192 -timeout=10 -rss_limit_mb=4096 \
     -artifact_prefix="found-$t/" "corpus-$t" >"$t.log" 2>&1) &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || true; done
status=0
for t in $targets; do
  found=$(find "$out/found-$t" -type f | wc -l)
  echo "== fuzz_$t: $(grep -E '^#[0-9]+: cov' "$out/$t.log" | tail -n 1)"
  echo "   findings (crash, timeout, out of memory) in $out/found-$t: $found"
  [ "$found" -eq 0 ] || status=1
done
exit $status
