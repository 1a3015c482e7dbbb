#!/usr/bin/env bash
# realcodes.sh - how much of real OCCA users' code oklc handles.
#
# Takes checkouts of real codes (nekRS, libparanumal, benchparanumal,
# streamparanumal, occa) and, for every .okl file under each (recursively)
# and every backend asked for, transpiles it with the code's own defines
# (bench/realcodes/NAME.defs) and compiles the output with the backend's real
# compiler: g++ -fsyntax-only (serial; openmp adds -fopenmp), nvcc (cuda),
# hipcc (hip), PoCL's clBuildProgram through build/tests/clbuild (opencl);
# a SYCL compiler (dpcpp: $SYCL_CXX, e.g. AdaptiveCpp's acpp, see
# bench/sycl.sh); clang++ -fsyntax-only against the checking headers of
# tests/backends/check/ (metal always: no Metal compiler runs on Linux; dpcpp
# when no SYCL compiler is given); for the GPU-like
# backends the host launcher with g++ -fsyntax-only as well.
# Gives a table per code and backend (files, transpiled, compiled, share) with
# a total per backend and the time each backend took, and in REPORTDIR:
#   failures.txt  per failing file and backend a line "CODE BACKEND STAGE PATH"
#                 (tab-separated; STAGE: transpile, compile or launcher) and
#                 its first error lines indented below it;
#   causes.txt    the failures grouped by first error message (quoted names
#                 replaced by 'X'), most frequent first, with example files;
#                 -c prints it too;
#   kept/         with -k: per failing file and backend, the oklc command
#                 (CODE/PATH.BACKEND.cmd) and what it wrote (.out, .launcher).
# With -s SAVEDIR every output oklc wrote is kept as SAVEDIR/CODE/PATH.BACKEND
# (.out, .launcher, and .log: its messages), so that two builds of oklc can be
# compared with diff -r; -t stops after the transpilation (no compilers).
#
# Usage: realcodes.sh [-b BACKENDS] [-j JOBS] [-o REPORTDIR] [-c] [-k]
#                     [-s SAVEDIR] [-t] [--code NAME] DIR...
#   -b  comma-separated backends (default serial,openmp,opencl, plus cuda and
#       hip where nvcc and hipcc exist); -j  parallel jobs (default: CPUs);
#   -o  report folder (default: a new folder under $TMPDIR or /tmp, printed);
#   --code NAME  which code the following DIRs are (default: recognised).
# Environment: OKLC (default build/oklc), CLBUILD (default build/tests/clbuild),
# NVCC, HIPCC, CXX (default g++), CLANGXX (default clang++), SYCL_CXX (the SYCL
# compiler command, words allowed; default $OKLC_SYCL_CXX, else acpp on PATH,
# else none: the checking header).
#
# NAME.defs: one rule a line, '#' starts a comment line:
#   [BACKEND,...:]GLOB  ARG...
# A file gets the ARGs of every rule whose GLOB (a bash extglob pattern, '*'
# matches '/' too) matches its path relative to DIR, in file order, for the
# backends named (all if none). ARGs are split like shell words (quotes
# allowed): -DNAME[=VALUE], -UNAME, -IPATH, --include=PATH (PATH relative to
# DIR, or with %/ to the .defs file's folder), any other oklc option, or
# "skip" (leaves the file out). A later -D or -U of a NAME replaces an earlier
# one where it stands (before the --include files that use it).
set -u
shopt -s extglob
export LC_ALL=C     # plain quotes in the compilers' messages
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OKLC=${OKLC:-$root/build/oklc} CLBUILD=${CLBUILD:-$root/build/tests/clbuild}
CXX=${CXX:-g++} CLANGXX=${CLANGXX:-clang++}
NVCC=${NVCC:-$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; })}
HIPCC=${HIPCC:-$(command -v hipcc)}
SYCL_CXX=${SYCL_CXX:-${OKLC_SYCL_CXX:-$(command -v acpp)}}
read -ra sycl_cxx <<<"$SYCL_CXX"
backends=serial,openmp,opencl
[ -n "$NVCC" ] && backends+=,cuda
[ -n "$HIPCC" ] && backends+=,hip
jobs=$(nproc) report="" causes=0 keep=0 save="" only_transpile=0 force="" dirs=() codes=()
usage() { sed -n 's/^# \?//; /^Usage/,/^Environment/p' "$0" | head -n -1 >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    -b) backends=$2; shift ;;
    -j) jobs=$2; shift ;;
    -o) report=$2; shift ;;
    -c) causes=1 ;;
    -k) keep=1 ;;
    -s) save=$2; shift ;;
    -t) only_transpile=1 ;;
    --code) force=$2; shift ;;
    -h|--help) usage ;;
    -*) echo "realcodes.sh: unknown option $1" >&2; usage ;;
    *) dirs+=("${1%/}"); codes+=("$force") ;;
  esac
  shift
done
[ ${#dirs[@]} -gt 0 ] || usage
IFS=, read -ra backends <<<"$backends"
for b in "${backends[@]}"; do
  case $b in serial|openmp|cuda|hip|opencl|dpcpp|metal) ;;
    *) echo "unknown backend $b" >&2; exit 2 ;; esac
done
need() { [ -n "$2" ] && [ -x "$2" ] || { echo "realcodes.sh: no $1 (${2:-not found})" >&2; exit 2; }; }
need oklc "$OKLC"
for b in "${backends[@]}"; do
  case $b in
    serial|openmp) need "$CXX" "$(command -v "$CXX")" ;;
    dpcpp) if [ ${#sycl_cxx[@]} -gt 0 ]; then need "${sycl_cxx[0]}" "$(command -v "${sycl_cxx[0]}")"
           else need clang++ "$(command -v "$CLANGXX")"; fi ;;
    metal) need clang++ "$(command -v "$CLANGXX")" ;;
    cuda) need nvcc "$NVCC" ;;
    hip) need hipcc "$HIPCC" ;;
    opencl) need clbuild "$CLBUILD" ;;
  esac
done
tmp=$(mktemp -d -t realcodes-tmp.XXXXXX)
# each job runs in a process group of its own (set -m): cleanup ends it whole
cleanup() { local p; exec 2>/dev/null; for p in $(jobs -p); do kill -- -"$p" 2>/dev/null; done; wait; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# recognise DIR by files characteristic of each code
recognise() {
  local d=$1
  if [ -d "$d/kernels/nrs" ]; then echo nekRS
  elif [ -d "$d/BP" ] && [ -d "$d/BK" ]; then echo benchparanumal
  elif [ -d "$d/BS" ]; then echo streamparanumal
  elif [ -d "$d/solvers" ] && [ -d "$d/libs" ]; then echo libparanumal
  elif [ -f "$d/include/occa.hpp" ]; then echo occa
  fi
}

# args_for DEFS DIR REL BACKEND: sets the array args to the file's oklc
# options (empty and returns 1 when a rule says skip)
args_for() {
  local defs=$1 dir=$2 rel=$3 b=$4 glob rest a name raw=() i
  args=()
  while read -r glob rest; do
    [[ -z $glob || $glob == \#* ]] && continue
    if [[ $glob =~ ^([a-z,]+):(.*)$ ]]; then     # BACKEND,...:GLOB
      [[ ,${BASH_REMATCH[1]}, == *,$b,* ]] || continue
      glob=${BASH_REMATCH[2]}
    fi
    # shellcheck disable=SC2053
    [[ $rel == $glob ]] || continue
    eval "raw+=($rest)"
  done <"$defs"
  for a in "${raw[@]}"; do
    case $a in
      skip) args=(); return 1 ;;
      -D*|-U*) name=${a:2}; name=${name%%=*}; name=${name%%(*} kept=0
               for i in "${!args[@]}"; do     # a later -D/-U NAME replaces earlier, in place
                 case ${args[i]} in -[DU]"$name"|-[DU]"$name"[=\(]*)
                   if [ $kept = 0 ]; then args[i]=$a kept=1; else unset 'args[i]'; fi ;;
                 esac
               done
               [ $kept = 1 ] || args+=("$a") ;;
      -I/*|--include=/*) args+=("$a") ;;
      -I%/*) args+=("-I${defs%/*}/${a:4}") ;;
      --include=%/*) args+=("--include=${defs%/*}/${a#--include=%/}") ;;
      -I*) args+=("-I$dir/${a:2}") ;;
      --include=*) args+=("--include=$dir/${a#--include=}") ;;
      *) args+=("$a") ;;
    esac
  done
  args=("${args[@]}")
}

# check ID CODE BACKEND DIR REL ARGS...: writes $tmp/ID.res
# "CODE<TAB>BACKEND<TAB>STAGE<TAB>REL" (STAGE ok, transpile, compile or
# launcher) and, on failure, its first error lines to $tmp/ID.err
check() {
  local id=$1 code=$2 b=$3 d=$4 rel=$5 w="$tmp/w$1" stage=ok rc launcher=() cmd
  shift 5
  mkdir -p "$w"
  [[ $b == @(cuda|hip|opencl|dpcpp|metal) ]] && launcher=(--launcher "$w/launcher.cpp")
  (cd "$(dirname "$d/$rel")" &&
   "$OKLC" transpile -b "$b" "$(basename "$rel")" -o "$w/out.cpp" "${launcher[@]}" "$@") \
    >"$w/log" 2>&1 </dev/null
  rc=$?
  if [ $rc -ne 0 ]; then
    stage=transpile
    grep -q ': error: ' "$w/log" || echo "$(basename "$rel"): error: oklc exited with status $rc: $(tail -n 1 "$w/log")" >>"$w/log"
  fi
  if [ -n "$save" ]; then
    local s="$save/$code/$rel.$b"
    mkdir -p "$(dirname "$s")"
    sed "s|$w/||g" "$w/log" >"$s.log"
    [ -f "$w/out.cpp" ] && cp "$w/out.cpp" "$s.out"
    [ -f "$w/launcher.cpp" ] && cp "$w/launcher.cpp" "$s.launcher"
  fi
  if [ $rc -eq 0 ] && [ $only_transpile = 0 ]; then
    case $b in
      serial) cmd=("$CXX" -std=c++17 -fsyntax-only -x c++) ;;
      openmp) cmd=("$CXX" -std=c++17 -fsyntax-only -fopenmp -x c++) ;;
      cuda) cmd=("$NVCC" -std=c++17 -arch=sm_90 -rdc=true -c -x cu -o k.o) ;;
      hip) cmd=("$HIPCC" -std=c++17 --offload-arch=gfx90a -fgpu-rdc -c -x hip -o k.o) ;;
      opencl) cmd=("$CLBUILD" -o -cl-std=CL1.2) ;;    # as the others: warnings allowed
      # without a SYCL compiler, and for Metal: the checking headers (docs/backends.md)
      dpcpp) if [ ${#sycl_cxx[@]} -gt 0 ]; then cmd=("${sycl_cxx[@]}" -std=c++17 -c -x c++ -o k.o)
             else cmd=("$CLANGXX" -std=c++17 -fsyntax-only -I"$root/tests/backends/check/sycl" -x c++); fi ;;
      metal) cmd=("$CLANGXX" -x clcpp -cl-std=clc++2021 -cl-no-stdinc -fsyntax-only -Xclang
                  "-cl-ext=-__opencl_c_generic_address_space,-__opencl_c_program_scope_global_variables,-__opencl_c_pipes,-__opencl_c_device_enqueue,-__opencl_c_fp64,-cl_khr_fp64"
                  -I"$root/tests/backends/check/metal") ;;
    esac
    # the compilers' temporary files (hipcc leaves folders) go to $w; out.cpp:
    # AdaptiveCpp's acpp compiles SYCL only from a file named so, whatever -x says
    if ! (cd "$w" && TMPDIR="$w" "${cmd[@]}" "$w/out.cpp") >"$w/log" 2>&1 </dev/null; then
      stage=compile
    elif [ ${#launcher[@]} -gt 0 ] &&
         ! "$CXX" -std=c++17 -fsyntax-only -x c++ "$w/launcher.cpp" >"$w/log" 2>&1 </dev/null; then
      stage=launcher
    fi
  fi
  if [ $stage != ok ] && [ $keep = 1 ]; then
    local k="$report/kept/$code/$rel.$b"
    mkdir -p "$(dirname "$k")"
    printf '(cd %q && %q transpile -b %q %q%s)\n' "$(dirname "$d/$rel")" "$OKLC" "$b" \
      "$(basename "$rel")" "$(printf ' %q' "$@")" >"$k.cmd"
    [ -f "$w/out.cpp" ] && cp "$w/out.cpp" "$k.out"
    [ -f "$w/launcher.cpp" ] && cp "$w/launcher.cpp" "$k.launcher"
  fi
  if [ $stage != ok ]; then
    # the first error lines, with the work folder's path taken out
    { grep -m 3 -E '[Ee]rror[^:]*: ' "$w/log" || tail -n 3 "$w/log"; } |
      sed "s|$w/||g" >"$tmp/$id.err"
  fi
  printf '%s\t%s\t%s\t%s\n' "$code" "$b" "$stage" "$rel" >"$tmp/$id.res"
  rm -rf "$w"
}

# the files of every DIR
n=0
for i in "${!dirs[@]}"; do
  d=${dirs[i]} code=${codes[i]:-$(recognise "${dirs[i]}")}
  [ -n "$code" ] || { echo "realcodes.sh: which code is $d? (use --code NAME)" >&2; exit 2; }
  [ -f "$root/bench/realcodes/$code.defs" ] || { echo "realcodes.sh: no bench/realcodes/$code.defs" >&2; exit 2; }
  d=$(cd "$d" && pwd)
  while IFS= read -r -d '' f; do
    n=$((n + 1))
    printf '%s\0%s\0%s\0' "$code" "$d" "${f#"$d"/}" >"$tmp/f$n"
  done < <(find "$d" -name '*.okl' -type f -print0 | sort -z)
done

[ -n "$report" ] || report=$(mktemp -d -t realcodes-report.XXXXXX)
mkdir -p "$report" || exit 2
echo "$n files; backends ${backends[*]}; $jobs jobs; report in $report" >&2
[[ " ${backends[*]} " == *" dpcpp "* ]] &&
  echo "dpcpp compiled with ${SYCL_CXX:-clang++ against the checking header}" >&2

# every backend in turn (timed), its files JOBS at a time
declare -A secs
id=0
set -m
for b in "${backends[@]}"; do
  start=$SECONDS
  for i in $(seq 1 $n); do
    mapfile -d '' -t fi <"$tmp/f$i"
    args_for "$root/bench/realcodes/${fi[0]}.defs" "${fi[1]}" "${fi[2]}" "$b" || continue
    id=$((id + 1))
    check $id "${fi[0]}" "$b" "${fi[1]}" "${fi[2]}" "${args[@]}" &
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  done
  wait
  secs[$b]=$((SECONDS - start))
done

# the table, failures.txt and causes.txt
: >"$report/failures.txt"
for i in $(seq 1 $id); do
  cat "$tmp/$i.res" >>"$tmp/all"
  if [ -f "$tmp/$i.err" ]; then
    cat "$tmp/$i.res" >>"$report/failures.txt"
    sed 's/^/    /' "$tmp/$i.err" >>"$report/failures.txt"
  fi
done
awk -F'\t' -v order="${backends[*]}" -v times="$(for b in "${backends[@]}"; do printf '%s ' "${secs[$b]}"; done)" '
  { k = $1 SUBSEP $2; if (!(k in files)) keys[++nk] = k; files[k]++; tf[$2]++
    if ($3 != "transpile") { tr[k]++; ttr[$2]++ }
    if ($3 == "ok") { ok[k]++; tok[$2]++ } }
  function row(a, b, f, t, c, s) {
    printf "%-16s %-7s %6d %11d %9d %6.1f%%%s\n", a, b, f, t, c, f ? 100 * c / f : 0, s }
  END {
    printf "%-16s %-7s %6s %11s %9s %7s\n", "code", "backend", "files", "transpiled", "compiled", "share"
    nb = split(order, bs, " "); split(times, ts, " ")
    for (j = 1; j <= nb; j++) {
      for (i = 1; i <= nk; i++) { split(keys[i], p, SUBSEP)
        if (p[2] == bs[j]) row(p[1], p[2], files[keys[i]], tr[keys[i]], ok[keys[i]], "") }
      row("total", bs[j], tf[bs[j]], ttr[bs[j]], tok[bs[j]], sprintf("  %ds", ts[j]))
    } }' "$tmp/all" | tee "$report/table.txt"
# causes: the first error line without its position, quoted names as 'X'
awk -F'\t' '
  function names(m,   out, in_) {     # a quoted name becomes X, a quoted sign stays
    out = ""
    while (match(m, /\047[^\047]*\047|"[^"]*"/)) {
      in_ = substr(m, RSTART + 1, RLENGTH - 2)
      out = out substr(m, 1, RSTART - 1) (in_ ~ /[A-Za-z0-9_]/ ? "\047X\047" : substr(m, RSTART, RLENGTH))
      m = substr(m, RSTART + RLENGTH)
    }
    return out m }
  /^[^ ]/ { head = $2 " " $3; file = $1 ": " $4; want = 1; next }
  want { want = 0; m = $0; sub(/^ +/, "", m)
    if (match(m, /(fatal )?[eE]rror[^:]*: /)) m = substr(m, RSTART)
    sub(/: [^ :]+:[0-9]+:([0-9]+)?( <[^>]*>)?:? /, ": ", m)   # clbuild: "error: FILE:L:C: ..."
    k = head "  " names(m); if (!(k in c)) ex[k] = file; else if (c[k] < 3) ex[k] = ex[k] ", " file; c[k]++ }
  END { for (k in c) printf "%d\t%s\t%s\n", c[k], k, ex[k] }' "$report/failures.txt" |
  sort -t$'\t' -k1,1nr -k2 | awk -F'\t' '{ printf "%5d  %s\n       e.g. %s\n", $1, $2, $3 }' >"$report/causes.txt"
[ $causes = 1 ] && { echo; echo "failure causes (backend stage  first error):"; cat "$report/causes.txt"; }
echo "report: $report" >&2
