#!/usr/bin/env bash
# How `oklc transpile` scales with the size of its input: it must stay
# linear (n log n at most) in the number of kernels and of lines. Families
# of generated files, each size twice the one before:
#
#  kernels: 250, 500, 1000, 2000, 4000 kernels of 14 lines (3,500 to
#           56,000 lines): @shared memory between two @inner loops (a
#           barrier), a ?: guard, a @tile loop, all of which every backend
#           rewrites;
#  lines:   12.5k, 25k, 50k lines as 50 kernels whose @inner loops hold
#           long runs of statements (much text, few constructs);
#
# and shapes that once cost N^2 or N^3 (`oklc check`, or the stage they
# stress):
#
#  terms:   one statement x = a[0] + a[1] + ... of 20k, 40k, 80k terms in
#           an @inner loop (check);
#  macros:  chains of 12.5k, 25k, 50k object-like macros, #define D1 D0 ...
#           used once (preprocess);
#  whiles:  2k, 4k, 8k nested braceless whiles in an @inner loop (check,
#           and clang++ -fsyntax-only on the normalized file: Clang's own
#           parse of them grows as N^2, its look-ups walking every scope);
#  calls:   500, 1000, 2000 kernels, each calling a device function of its
#           own (check, and OpenCL and Metal: their address spaces).
#
# For each file: `oklc check` (the front end alone: the baseline that
# emission must stay close to) and `oklc transpile -b` each backend, the
# wall and CPU time and the peak RSS (getrusage of the child, through GNU
# time), and beside them the ratio to the size before: about 2.0 per
# doubling is linear, 4.0 quadratic. CPU time, not wall time, makes the
# ratios: on a shared machine the wall time also measures the others.
# Usage: bench/scaling-emit.sh [-b "serial openmp opencl cuda"] [-k "250 ... 4000"]
#                              [-l "12500 25000 50000"] [-t TERMS] [-m MACROS]
#                              [-w WHILES] [-c CALLS] [BUILD_DIR]   (default: build;
#                              "" skips a family)
set -euo pipefail
cd "$(dirname "$0")/.."
backends="serial openmp opencl cuda" kernels="250 500 1000 2000 4000" lines="12500 25000 50000"
terms="20000 40000 80000" macros="12500 25000 50000" whiles="2000 4000 8000" calls="500 1000 2000"
while getopts b:k:l:t:m:w:c: o; do
  case $o in
    b) backends=$OPTARG ;;
    k) kernels=$OPTARG ;;
    l) lines=$OPTARG ;;
    t) terms=$OPTARG ;;
    m) macros=$OPTARG ;;
    w) whiles=$OPTARG ;;
    c) calls=$OPTARG ;;
    *) echo "usage: bench/scaling-emit.sh [-b BACKENDS] [-k COUNTS] [-l LINES] [-t TERMS]" \
            "[-m MACROS] [-w WHILES] [-c CALLS] [BUILD_DIR]" >&2
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

# An @inner loop of kernel k around the lines on stdin.
in_inner() {
  echo "@kernel void k$1(const int n, const float *a, float *b) {"
  echo "  for (int g = 0; g < n; g += 64; @outer) {"
  echo "    for (int i = g; i < g + 64; ++i; @inner) {"
  echo "      float x = 0; int c = 0;"
  cat
  echo "      b[i] = x + c;"
  echo "    }"
  echo "  }"
  echo "}"
}

# One statement of N terms.
gen_terms() {
  awk -v n="$1" 'BEGIN { printf "      x = a[0]"; for (j = 1; j < n; j++) printf " + a[%d]", j
                         print ";" }' | in_inner 0
}

# N chained macros, the last used once.
gen_macros() {
  awk -v n="$1" 'BEGIN { print "#define D0 1.0f"; for (j = 1; j <= n; j++) printf "#define D%d D%d\n", j, j - 1 }'
  echo "x = D$1;" | in_inner 0
}

# N nested whiles without braces (Clang allows 256 nested brackets).
gen_whiles() {
  awk -v n="$1" 'BEGIN { for (j = 0; j < n; j++) print "      while (c)"; print "        c++;" }' |
    in_inner 0
}

# N kernels, each calling a device function of its own with a pointer.
gen_calls() {
  local i
  for ((i = 0; i < $1; i++)); do
    echo "float f$i(const float *p, int i) { return p[i] * 2.0f; }"
    echo "if (i < n) x = f$i(a, i);" | in_inner "$i"
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

# measure_clang FILE: the same for clang++ -fsyntax-only on FILE normalized:
# the part of check that is Clang's own parse.
measure_clang() {
  "$oklc" normalize "$1" -o "$tmp/n.cpp" >/dev/null 2>"$tmp/err" ||
    echo "FAIL: oklc normalize $1: $(head -n 3 "$tmp/err")" >&2
  if ! /usr/bin/time -f '%e %U %S %M' -o "$tmp/t" "$clangxx" -fsyntax-only -std=c++17 -w \
       "$tmp/n.cpp" >/dev/null 2>"$tmp/err"; then
    echo "FAIL: $clangxx -fsyntax-only $1: $(head -n 3 "$tmp/err")" >&2
  fi
  tail -n 1 "$tmp/t" | awk '{print $1, $2 + $3, $4}'
}

# table FAMILY COMMANDS SIZES...: a line per size and command (check,
# preprocess or a backend), with ratios to the size before
table() {
  local family=$1 cmds=$2 n f cmd
  shift 2
  [ $# -gt 0 ] || return 0
  printf '\n== %s\n%-6s %-6s %-10s %7s %7s %6s %8s %6s\n' "$family" size lines command wall_s \
    cpu_s ratio peak_MB ratio
  for n in "$@"; do
    f=$tmp/$family-$n.okl
    "gen_$family" "$n" >"$f"
    for cmd in $cmds; do
      case $cmd in
        clang++) echo "$n $(wc -l <"$f") $cmd $(measure_clang "$f")"; continue ;;
        check|preprocess) set -- "$cmd" ;;
        *) set -- transpile -b "$cmd" ;;
      esac
      echo "$n $(wc -l <"$f") $cmd $(measure "$f" "$@")"
    done
  done | awk '{
      key = $3; t = $5; m = $6 / 1024
      rt = (key in pt && pt[key] > 0) ? sprintf("%.2f", t / pt[key]) : "-"
      rm = (key in pm && pm[key] > 0) ? sprintf("%.2f", m / pm[key]) : "-"
      printf "%-6s %-6s %-10s %7.2f %7.2f %6s %8.1f %6s\n", $1, $2, key, $4, t, rt, m, rm
      fflush()
      pt[key] = t; pm[key] = m
    }'
}

echo "oklc: $oklc ($("$oklc" --version | head -n 1))"
echo "wall and CPU (user + system) seconds, peak RSS; ratio: CPU time and peak RSS to the size"
echo "before (2.00 = linear; the front end's fixed cost makes small sizes lower)"
read -ra ks <<<"$kernels" || true
read -ra ls <<<"$lines" || true
read -ra ts <<<"$terms" || true
read -ra ms <<<"$macros" || true
read -ra ws <<<"$whiles" || true
read -ra cs <<<"$calls" || true
table kernels "check $backends" "${ks[@]}"
table lines "check $backends" "${ls[@]}"
table terms check "${ts[@]}"
table macros preprocess "${ms[@]}"
clangxx=$(command -v "${CLANGXX:-clang++}" || true)
table whiles "check${clangxx:+ clang++}" "${ws[@]}"
table calls "check opencl metal" "${cs[@]}"
