#!/usr/bin/env bash
# Deep input: kernels that nest statements and expressions thousands of
# levels deep (each form Clang accepts), checked and transpiled by a
# process whose stack is 512 KB, so a walk that recursed per level would
# crash here. The serial output of the forms g++ compiles in seconds is
# compiled (g++ takes minutes on a 5,000-level ?: chain; clang++ itself
# overflows its stack on 6,000 unary minuses). Past oklc's documented
# bound the answer is an error at the declaration, never a crash.
# Usage: deep.sh OKLC CXX
set -u
oklc=$1
cxx=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# kernel NAME BODY: a one-loop kernel around BODY
kernel() {
  printf '@kernel void k(int N, float *a) {\n  for (int i = 0; i < N; ++i; @tile(16, @outer, @inner)) {\n%s\n  }\n}\n' \
    "$2" >"$tmp/$1.okl"
}
rep() { local s=""; for ((j = 0; j < $2; j++)); do s+=$1; done; printf '%s' "$s"; }

kernel plus "    a[i] = 0$(rep '+1' 4000);"
kernel unary "    a[i] = $(rep '- ' 6000)1;"
kernel assign "    float x;
    $(rep 'x = ' 6000)1;
    a[i] = x;"
kernel comma "    int x = 0;
    x = (x$(rep ', x' 5000));
    a[i] = x;"
kernel cond "    a[i] = $(for ((n = 0; n < 5000; n++)); do printf 'i == %d ? %d : ' $n $n; done)0;"
kernel elseif "    if (i == 0) a[i] = 0;
$(for ((n = 1; n < 3000; n++)); do printf '    else if (i == %d) a[i] = %d;\n' $n $n; done)"
kernel loops "    int s = 0;
    $(for ((n = 0; n < 2000; n++)); do printf 'for (int j%d = 0; j%d < 1; ++j%d) ' $n $n $n; done)s++;
    a[i] = s;"

for name in plus unary assign comma cond elseif loops; do
  for b in serial opencl cuda; do
    (ulimit -s 512; "$oklc" transpile -b "$b" "$tmp/$name.okl" -o "$tmp/$name.$b" \
       >/dev/null 2>"$tmp/err") || fail "$name ($b): exit $? -- $(head -c 300 "$tmp/err")"
  done
  case $name in plus | unary | cond) continue ;; esac
  [ -s "$tmp/$name.serial" ] && "$cxx" -std=c++17 -fsyntax-only \
      -x c++ "$tmp/$name.serial" 2>"$tmp/err" || fail "$name: g++ rejects the serial output -- $(head -c 300 "$tmp/err")"
done

# past the bound: an error at the declaration, exit 1
kernel huge "    a[i] = $(rep '- ' 300000)1;"
(ulimit -s 512; "$oklc" check "$tmp/huge.okl" >/dev/null 2>"$tmp/err")
[ $? -eq 1 ] || fail "huge: want exit 1"
grep -q "huge.okl:1:1: error: this declaration has 30[0-9]* operators and statements that can nest" \
  "$tmp/err" || fail "huge: message -- $(head -c 300 "$tmp/err")"

[ "$failures" -eq 0 ] && echo "deep input: all passed"
exit $((failures > 0))
