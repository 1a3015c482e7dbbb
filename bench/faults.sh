#!/usr/bin/env bash
# The cost of the run-time checks of @inner counts under @max_inner_dims
# that only the nest knows (issue 30 item 4; docs/launchers.md, "What the
# device reports"): bench/faults/faults.okl's readCount (checked: a fault
# slot on GPUs, a test in the loop's header on CPUs) against the same work
# with the count an argument (argCount, checked before the launch) and, on
# CPUs, without @max_inner_dims (unbounded, not checked), in one run per
# device: the median microseconds per run of 16,384 blocks of 64 floats.
# Usage: bench/faults.sh [BUILD_DIR] [DEVICE_SPEC...]
#        (default: build; serial, "mode=openmp threads=$(nproc)", opencl)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
[ $# -gt 0 ] || set -- serial "mode=openmp threads=$(nproc)" opencl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OKLC_CACHE_DIR="$tmp/cache"
${CC:-cc} -O2 -std=c11 -Iinclude bench/faults/faults.c -L"$build" -loklc \
  -Wl,-rpath,"$(cd "$build" && pwd)" -o "$tmp/faults"
echo "== @inner counts checked at run time ($(nproc) cores; load average:" \
  "$(cut -d' ' -f1-3 /proc/loadavg))"
for spec in "$@"; do
  "$tmp/faults" "$spec" bench/faults || echo "$spec: not run (see above)"
done
