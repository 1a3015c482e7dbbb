#!/usr/bin/env bash
# The CPU rewrites against the plain translation (issue 33): each kernel
# built twice on the serial and the OpenMP device, with the transpiler's
# rewrites on and off (oklc_props_cpu_rewrites; `oklc transpile
# --cpu-rewrites=off`), and timed in the same run:
#  - every kernel of bench/compare and of bench/kernels (bench_compare -P:
#    medians of 15 alternating samples);
#  - 216 random kernels of tests/diff (9 files of 12 descriptions, each in
#    two styles; diff_kernels -T: medians of 7 alternating samples, a kernel
#    that seems slower timed once more), whose two translations must also
#    leave the same output, bit for bit.
# Fails when a kernel runs slower rewritten by more than 5% (its median and
# its fastest samples both).
# Usage: bench/rewrites.sh [BUILD_DIR] [FILES]   (default: build, 9)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
files=${2:-9}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OKLC_CACHE_DIR="$tmp/cache"

echo "== the CPU rewrites against the plain translation ($(nproc) cores; load average:" \
  "$(cut -d' ' -f1-3 /proc/loadavg))"
status=0
"$build/bench_compare" -d bench/compare -D serial -D openmp -P || status=1
echo
"$build/tests/diff_kernels" -T -s 1 -n "$files" -k 12 || status=1
exit $status
