#!/usr/bin/env bash
# How `oklc transpile` scales with the size of its input: it must stay
# linear (n log n at most) in the number of kernels and of lines. Two
# families of generated files, each size twice the one before:
#
#  kernels: 250, 500, 1000, 2000, 4000 kernels of 14 lines (3,500 to
#           56,000 lines): @shared memory between two @inner loops (a
#           barrier), a ?: guard, a @tile loop, all of which every backend
#           rewrites;
#  lines:   12.5k, 25k, 50k lines as 50 kernels whose @inner loops hold
#           long runs of statements (much text, few constructs).
#
# For each file: `oklc check` (the front end alone: the baseline that
# emission must stay close to) and `oklc transpile -b` each backend, the
# wall and CPU time and the peak RSS (getrusage of the child, through GNU
# time), and beside them the ratio to the size before: about 2.0 per
# doubling is linear, 4.0 quadratic. CPU time, not wall time, makes the
# ratios: on a shared machine the wall time also measures the others.
# Usage: bench/scaling-emit.sh [-b "serial openmp opencl cuda"] [-k "250 ... 4000"]
#                              [-l "12500 25000 50000"] [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
backends="serial openmp opencl cuda" kernels="250 500 1000 2000 4000" lines="12500 25000 50000"
while getopts b:k:l: o; do
  case $o in
    b) backends=$OPTARG ;;
    k) kernels=$OPTARG ;;
    l) lines=$OPTARG ;;
    *) echo "usage: bench/scaling-emit.sh [-b BACKENDS] [-k COUNTS] [-l LINES] [BUILD_DIR]" >&2
       exit 2 ;;
  esac
done
shift $((OPTIND - 1))
build=${1:-build}
oklc=$(cd "$build" && pwd)/oklc
[ -x /usr/bin/time ] || { echo "bench/scaling-emit.sh: needs GNU time (apt-get install time)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OKLC_CACHE_DIR=$tmp/cache

# kernel I: 14 lines
kernel() {
  cat <<EOF
@kernel void k$1(const int n, const float *a, float *b) {
  for (int g = 0; g < n; g += 64; @outer) {
    @shared float s[64];
    for (int i = g; i < g + 64; ++i; @inner) {
      s[i - g] = i < n ? a[i] : 0.0f;
    }
    for (int i = g; i < g + 64; ++i; @inner) {
      if (i < n) b[i] = s[i - g] + s[(i - g + 1) % 64];
    }
  }
  for (int j = 0; j < n; ++j; @tile(16, @outer, @inner)) {
    b[j] *= 2.0f;
  }
}
EOF
}

# A file of N kernels.
gen_kernels() {
  local i
  for ((i = 0; i < $1; i++)); do kernel "$i"; done
}

# A file of about L lines: 50 kernels, each an inner loop of L/50 - 8 statements.
gen_lines() {
  local per=$(($1 / 50 - 8)) i
  for ((i = 0; i < 50; i++)); do
    echo "@kernel void k$i(const int n, const float *a, float *b) {"
    echo "  for (int g = 0; g < n; g += 64; @outer) {"
    echo "    for (int i = g; i < g + 64; ++i; @inner) {"
    echo "      float x = a[i];"
    awk -v n="$per" 'BEGIN { for (j = 0; j < n; j++) printf "      x = x * 0.5f + a[(i + %d) %% n];\n", j }'
    echo "      b[i] = x;"
    echo "    }"
    echo "  }"
    echo "}"
  done
}

# measure FILE ARGS...: "wall_s cpu_s maxrss_kb" of one run (a failure is
# reported on stderr)
measure() {
  local f=$1
  shift
  if ! /usr/bin/time -f '%e %U %S %M' -o "$tmp/t" "$oklc" "$@" "$f" -o "$tmp/out" \
       >/dev/null 2>"$tmp/err"; then
    echo "FAIL: oklc $* $f: $(head -n 3 "$tmp/err")" >&2
  fi
  tail -n 1 "$tmp/t" | awk '{print $1, $2 + $3, $4}'
}

# table FAMILY SIZES...: a line per size and command, with ratios to the size before
table() {
  local family=$1 n f cmd
  shift
  [ $# -gt 0 ] || return 0
  printf '\n== %s\n%-6s %-6s %-9s %7s %7s %6s %8s %6s\n' "$family" size lines command wall_s \
    cpu_s ratio peak_MB ratio
  for n in "$@"; do
    f=$tmp/$family-$n.okl
    if [ "$family" = kernels ]; then gen_kernels "$n" >"$f"; else gen_lines "$n" >"$f"; fi
    for cmd in check $backends; do
      if [ "$cmd" = check ]; then set -- check; else set -- transpile -b "$cmd"; fi
      echo "$n $(wc -l <"$f") $cmd $(measure "$f" "$@")"
    done
  done | awk '{
      key = $3; t = $5; m = $6 / 1024
      rt = (key in pt && pt[key] > 0) ? sprintf("%.2f", t / pt[key]) : "-"
      rm = (key in pm && pm[key] > 0) ? sprintf("%.2f", m / pm[key]) : "-"
      printf "%-6s %-6s %-9s %7.2f %7.2f %6s %8.1f %6s\n", $1, $2, key, $4, t, rt, m, rm
      fflush()
      pt[key] = t; pm[key] = m
    }'
}

echo "oklc: $oklc ($("$oklc" --version | head -n 1))"
echo "wall and CPU (user + system) seconds, peak RSS; ratio: CPU time and peak RSS to the size"
echo "before (2.00 = linear; the front end's fixed cost makes small sizes lower)"
read -ra ks <<<"$kernels" || true
read -ra ls <<<"$lines" || true
table kernels "${ks[@]}"
table lines "${ls[@]}"
