#!/usr/bin/env bash
# Golden test: runs one oklc stage on one input and compares with the
# expected file. Usage: golden.sh OKLC MODE INPUT
#   MODE normalize|preprocess|keep-macros: INPUT.okl -> INPUT.out (stdout, exit 0)
#   MODE stats:    oklc stats: INPUT.okl -> INPUT.out (each kernel's counts, exit 0)
#   MODE model:    oklc check --dump-model: INPUT.okl -> INPUT.out (stdout, exit 0,
#                                          no diagnostic)
#   MODE error:    oklc normalize          INPUT.okl -> INPUT.err (stderr, exit 1,
#                                          and no output file left behind)
#   MODE check-error: the same with oklc check
#   MODE check-warn: oklc check INPUT.okl -> INPUT.err (its warnings and
#                  notes, exit 0): what the analysis (src/analysis/) says
#   MODE valid:    oklc check must succeed with no diagnostic at all
#   MODE serial|openmp: oklc transpile -b MODE --metadata: INPUT.okl ->
#                  INPUT.out (the kernels after the prelude, then the
#                  metadata), and the whole output must compile ($CXX, g++ by
#                  default: -std=c++17 -Wall -Werror -fsyntax-only)
#   MODE cuda|opencl|dpcpp|metal: oklc transpile -b MODE --launcher: INPUT.okl ->
#                  INPUT.out (the device code after the prelude, then the
#                  launchers); compiled by tests/backends/compile.sh
#   MODE transpile-error: oklc transpile -b serial (or the -b of the
#                  input's oklc-args): INPUT.okl -> INPUT.err
#   MODE legacy:   a legacy spelling: oklc check INPUT.okl -> INPUT.err (the
#                  warnings, exit 0); with -Werror they are errors (exit 1;
#                  the stage that reports the first one is the last to run);
#                  oklc normalize --keep-macros -> INPUT.out, which oklc
#                  check accepts without any diagnostic (unless the input
#                  says "// oklc-legacy: not rewritten", and why)
# Extra options come from a line "// oklc-args: ..." in the input.
# OKLC_UPDATE_GOLDEN=1 rewrites the expected file instead of comparing.
set -u
oklc=$1 mode=$2 input=$3
dir=$(dirname "$input") base=$(basename "$input" .okl)
cd "$dir" || exit 1
# shell words, so quoted arguments work: -D 'F(a,b)=a+b'
eval "args=($(sed -n 's|^// oklc-args: ||p' "$base.okl" | head -n 1))"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

case $mode in
  normalize|preprocess)
    cmd=$mode; expected=$base.out ;;
  keep-macros)
    cmd="normalize --keep-macros"; expected=$base.out ;;
  model)
    cmd="check --dump-model"; expected=$base.out ;;
  stats)
    cmd=stats; expected=$base.out ;;
  valid)
    cmd=check; expected= ;;
  error)
    cmd=normalize; expected=$base.err ;;
  check-error|check-warn)
    cmd=check; expected=$base.err ;;
  serial|openmp)
    cmd="transpile -b $mode --metadata $tmp/meta.json"; expected=$base.out ;;
  cuda|opencl|dpcpp|metal)
    cmd="transpile -b $mode --launcher $tmp/launcher.cpp"; expected=$base.out ;;
  legacy)
    cmd=check; expected=$base.err ;;
  transpile-error)
    cmd="transpile"; expected=$base.err
    case " ${args[*]} " in *" -b "*) ;; *) cmd="transpile -b serial" ;; esac ;;
  *) echo "golden.sh: unknown mode $mode"; exit 2 ;;
esac

# shellcheck disable=SC2086  # cmd is words by design
"$oklc" $cmd "${args[@]}" --color=never "$base.okl" -o "$tmp/out" 2>"$tmp/err"
status=$?

if [ "$mode" = valid ] || [ "$mode" = model ]; then
  if [ $status -ne 0 ] || [ -s "$tmp/err" ]; then
    echo "FAIL: expected success with no diagnostic (exit $status)"; cat "$tmp/err"; exit 1
  fi
  [ "$mode" = valid ] && exit 0
fi


if [ "$mode" = legacy ]; then
  if [ $status -ne 0 ] || ! grep -q ': warning: ' "$tmp/err"; then
    echo "FAIL: expected warnings and exit 0 (exit $status)"; cat "$tmp/err"; exit 1
  fi
  "$oklc" check -Werror "${args[@]}" --color=never "$base.okl" 2>"$tmp/werror"
  status=$?
  sed 's/: warning: /: error: /' "$tmp/err" | head -c "$(wc -c <"$tmp/werror")" >"$tmp/want-werror"
  if [ $status -ne 1 ] || [ ! -s "$tmp/werror" ] || ! diff -u "$tmp/want-werror" "$tmp/werror"; then
    echo "FAIL: -Werror must make each warning an error (exit $status)"; exit 1
  fi
  if ! "$oklc" normalize --keep-macros "${args[@]}" "$base.okl" -o "$tmp/modern.okl" 2>/dev/null ||
     { ! grep -q '^// oklc-legacy: not rewritten' "$base.okl" &&
       { ! "$oklc" check -I . "${args[@]}" --color=never "$tmp/modern.okl" 2>"$tmp/modern.err" ||
         [ -s "$tmp/modern.err" ]; }; }; then
    echo "FAIL: the --keep-macros output is not modern OKL accepted without a diagnostic"
    cat "$tmp/modern.err"; exit 1
  fi
  if [ "${OKLC_UPDATE_GOLDEN:-}" = 1 ]; then
    cp "$tmp/modern.okl" "$base.out"
  elif ! diff -u "$base.out" "$tmp/modern.okl"; then
    echo "FAIL: --keep-macros output differs from $dir/$base.out"; exit 1
  fi
  actual=$tmp/err
elif [ "$mode" = check-warn ]; then
  actual=$tmp/err
  if [ $status -ne 0 ] || [ ! -s "$tmp/err" ]; then
    echo "FAIL: expected diagnostics and exit 0 (exit $status)"; cat "$tmp/err"; exit 1
  fi
elif [ "$mode" = error ] || [ "$mode" = check-error ] || [ "$mode" = transpile-error ]; then
  actual=$tmp/err
  if [ $status -ne 1 ]; then
    echo "FAIL: expected exit status 1, got $status"; cat "$tmp/err"; exit 1
  fi
  if [ -e "$tmp/out" ] || ls "$tmp" | grep -q tmp; then
    echo "FAIL: an output file was left behind after an error"; exit 1
  fi
else
  actual=$tmp/out
  if [ $status -ne 0 ]; then
    echo "FAIL: exit status $status"; cat "$tmp/err"; exit 1
  fi
fi

if [ "$mode" = serial ] || [ "$mode" = openmp ]; then
  [ "$mode" = openmp ] && omp=-fopenmp || omp=
  # shellcheck disable=SC2086
  if ! ${CXX:-g++} -std=c++17 -Wall -Werror -fsyntax-only $omp -x c++ "$tmp/out" 2>"$tmp/cxx"; then
    echo "FAIL: the $mode output does not compile"; cat "$tmp/cxx"; exit 1
  fi
  { sed -n '/^\/\* ---- the kernels ---- \*\/$/,$p' "$tmp/out"
    echo "/* ---- metadata ---- */"; cat "$tmp/meta.json"; } >"$tmp/golden"
  mv "$tmp/golden" "$tmp/out"
fi

if [ "$mode" = cuda ] || [ "$mode" = opencl ] || [ "$mode" = dpcpp ] || [ "$mode" = metal ]; then
  { sed -n '/^\/\* ---- the kernels ---- \*\/$/,$p' "$tmp/out"
    sed -n '/^\/\* ---- the launchers ---- \*\/$/,$p' "$tmp/launcher.cpp"; } >"$tmp/golden"
  mv "$tmp/golden" "$tmp/out"
fi

if [ "${OKLC_UPDATE_GOLDEN:-}" = 1 ]; then
  cp "$actual" "$expected"; echo "updated $dir/$expected"; exit 0
fi
if [ ! -f "$expected" ]; then
  echo "FAIL: $dir/$expected is missing (OKLC_UPDATE_GOLDEN=1 creates it)"; exit 1
fi
if ! diff -u "$expected" "$actual"; then
  echo "FAIL: output differs from $dir/$expected"; exit 1
fi
