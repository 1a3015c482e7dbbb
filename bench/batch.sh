#!/usr/bin/env bash
# Transpiling many files: a process each (what oklc_add_kernels does by
# default) against one process for all (oklc transpile --out-dir, its
# BATCH option), with the time of each and the start-up a file saves.
# Usage: bench/batch.sh BUILD [BACKEND [FILE...]]   (default: tests/valid's
# kernels, serial; files with their own defines: give them after -D ... in
# OKLC_BATCH_FLAGS)
set -u
build=$1 backend=${2:-serial}
shift $(( $# > 1 ? 2 : 1 ))
root=$(cd "$(dirname "$0")/.." && pwd)
files=("$@")
[ ${#files[@]} -gt 0 ] || files=("$root"/tests/valid/*.okl)
read -r -a flags <<<"${OKLC_BATCH_FLAGS:-}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/each"
ms() { date +%s%N; }
t0=$(ms)
for f in "${files[@]}"; do
  n=$(basename "$f" .okl)
  "$build/oklc" transpile -b "$backend" "${flags[@]}" "$f" -o "$tmp/each/$n.out" 2>/dev/null
done
t1=$(ms)
"$build/oklc" transpile -b "$backend" "${flags[@]}" --out-dir "$tmp/batch" "${files[@]}" 2>/dev/null
t2=$(ms)
each=$(( (t1 - t0) / 1000000 )) batch=$(( (t2 - t1) / 1000000 ))
n=${#files[@]}
printf '%d files (%s): a process each %d ms, one process %d ms: %d ms less a file (%.1fx)\n' \
  "$n" "$backend" "$each" "$batch" $(( (each - batch) / n )) "$(echo "$each / ($batch + 0.001)" | bc -l)"
