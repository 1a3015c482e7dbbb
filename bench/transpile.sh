#!/usr/bin/env bash
# Where `oklc transpile` spends its time, one process per kernel file as a
# build system runs it: the median milliseconds per file of each stage
# added in turn (process start, preprocess, + normalize, + Clang's parse and
# the OKL rules, + a backend's code and writing it), and CPU time per file.
# Each run's files come from FOLDER... (their .okl files, recursively;
# default: the benchmark and example kernels). A file that a stage rejects
# (missing defines: real codes need theirs) counts up to where it stops.
# The precompiled prelude lives in a cache folder of the run's own.
# Usage: bench/transpile.sh [-b BACKEND] [-n RUNS] [BUILD_DIR [FOLDER...]]
set -euo pipefail
cd "$(dirname "$0")/.."
backend=cuda runs=5
while getopts b:n: o; do
  case $o in
    b) backend=$OPTARG ;;
    n) runs=$OPTARG ;;
    *) echo "usage: bench/transpile.sh [-b BACKEND] [-n RUNS] [BUILD_DIR [FOLDER...]]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
build=${1:-build}
shift || true
folders=("$@")
[ ${#folders[@]} -gt 0 ] || folders=(bench/kernels examples/kernels)
oklc=$(cd "$build" && pwd)/oklc
mapfile -d '' files < <(find "${folders[@]}" -name '*.okl' -type f -print0 | sort -z)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OKLC_CACHE_DIR=$tmp/cache

# stage NAME ARGS...: the median wall time in ms of one file's run, over
# the files, each run RUNS times (its fastest run: the least disturbed);
# PCH=0 in the environment: without the precompiled prelude
stage() {
  local name=$1 f i s e best
  shift
  for f in "${files[@]}"; do
    best=
    for ((i = 0; i < runs; i++)); do
      s=$(date +%s%N)
      if [ "$1" = --version ]; then
        "$oklc" --version >/dev/null
      else
        (cd "$(dirname "$f")" && OKLC_PCH=${PCH:-1} "$oklc" "$@" "$(basename "$f")" \
           -o "$tmp/out" >/dev/null 2>&1) || true
      fi
      e=$(date +%s%N)
      (( ${best:-999999999999} > e - s )) && best=$((e - s))
    done
    echo "$best"
  done | sort -n | awk -v name="$name" '{ t[NR] = $1 }
    END { printf "%-34s %8.1f ms\n", name, t[int((NR + 1) / 2)] / 1e6 }'
}

# the CPU time (user + system) of transpiling every file once, per file
cpu_per_file() {
  local f t
  t=$( { TIMEFORMAT='%3U %3S'; time {
         for f in "${files[@]}"; do
           (cd "$(dirname "$f")" && "$oklc" transpile -b "$backend" "$(basename "$f")" \
              -o "$tmp/out" >/dev/null 2>&1) || true
         done; }; } 2>&1 )
  echo "$t" | awk -v n=${#files[@]} '{ printf "%-34s %8.1f ms\n", "CPU time of a transpile, per file", 1000 * ($1 + $2) / n }'
}

echo "${#files[@]} files, one process each, the median over them of the fastest of $runs runs"
"$oklc" --version >/dev/null
stage "process start (oklc --version)" --version
stage "oklc preprocess" preprocess
stage "oklc normalize" normalize
stage "oklc check (+ Clang, model, rules)" check
PCH=0 stage "oklc transpile, no precompiled prelude" transpile -b "$backend"
stage "oklc transpile -b $backend" transpile -b "$backend"
cpu_per_file
