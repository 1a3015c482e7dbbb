#!/usr/bin/env bash
# oklc compile-commands (docs/editors.md) on a folder of kernels: the OKL 2.0
# form (oklc normalize) of examples/kernels and tests/run, one OKL 1.0 file,
# a hidden folder. Checks:
#  - the entries: one per .okl file, sorted, hidden folders skipped, each
#    "arguments" starting clang++ -x c++ -std=c++17 -include okl.hpp and
#    ending with the file; one note naming the OKL 1.0 file;
#  - each OKL 2.0 entry, run as written with -fsyntax-only added, gives no
#    diagnostic from clang++ and no error from clangd --check (clangd-14,
#    required: scripts/deps.sh installs it), and `oklc check` accepts the
#    file too; the OKL 1.0 entry fails;
#  - with -b cuda, -D, -U, -I, --include: the macros the entries define are
#    those oklc's preprocessor predefines (oklc preprocess of a probe);
#  - the prelude: installed next to the executable, else the copy compiled
#    into oklc written to DIR/.oklc/okl.hpp, identical to include/oklc/okl.hpp;
#  - errors: a missing folder, a file, a folder without kernels, usage.
# Usage: editor.sh OKLC CCARGS CLANGXX ROOT
set -u
oklc=$(realpath "$1") ccargs=$(realpath "$2") clangxx=$3 root=$(realpath "$4")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tmp=$(cd "$tmp" && pwd -P)
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect STATUS CMD... : runs CMD, checks its exit status, keeps its output
expect() {
  local want=$1; shift
  "$@" >"$tmp/stdout" 2>"$tmp/stderr"
  local got=$?
  [ "$got" -eq "$want" ] || fail "exit $got (want $want): $* -- $(head -c 300 "$tmp/stderr")"
}
stderr_has() { grep -qF -- "$1" "$tmp/stderr" || fail "stderr lacks '$1': $(head -c 300 "$tmp/stderr")"; }

# args JSON N: the arguments of entry N into the array "args"
args() { mapfile -d '' -t args < <("$ccargs" "$1" "$2" arguments); }

clangd=
for c in clangd-14 clangd; do
  command -v "$c" >/dev/null && { clangd=$c; break; }
done
[ -n "$clangd" ] || fail "clangd not found (scripts/deps.sh installs clangd-14)"

# ---- a folder of kernels ----------------------------------------------------------------
# Each kernel as `oklc normalize --keep-macros` writes it (what a user
# converting to OKL 2.0 gets), and, where different, with its macros
# expanded. Not intrinsics.okl: its functions come from --intrinsics JSON,
# which clangd cannot know. Not legacy.okl with its macros kept: its legacy
# `#if OCCA_USE_CUDA=1` becomes `==` (docs/okl.md), so off CUDA it uses a
# macro left undefined, and `oklc check` rejects it as clangd does. Not
# inline.okl with its macros kept: its loop headers are inside #define (as
# OCCA's defines give them to its inline kernels), where they stay OKL 1.0.
k=$tmp/kernels
mkdir -p "$k/keep" "$k/expanded" "$k/legacy" "$k/.hidden" "$k/empty"
for input in "$root"/examples/kernels/*.okl "$root"/tests/run/*.okl; do
  name=$(basename "$input" .okl)
  [ "$name" = intrinsics ] && continue
  (cd "$(dirname "$input")" && "$oklc" normalize --keep-macros "$name.okl") \
    >"$k/keep/$name.okl" 2>"$tmp/err" || fail "oklc normalize --keep-macros $input: $(cat "$tmp/err")"
  (cd "$(dirname "$input")" && "$oklc" normalize "$name.okl") \
    >"$k/expanded/$name.okl" 2>"$tmp/err" || fail "oklc normalize $input: $(cat "$tmp/err")"
  cmp -s "$k/keep/$name.okl" "$k/expanded/$name.okl" && rm "$k/expanded/$name.okl"
done
rm "$k/keep/legacy.okl" "$k/keep/inline.okl"
# OKL 2.0 with an '@' only where C++ allows one
cat >"$k/keep/at_in_text.okl" <<'EOF'
// mail bugs to someone@example.com; /* @outer */ in a line comment
/* @kernel in a block comment */
[[okl::kernel]] void mention(int *out) {
  [[okl::outer]] for (int b = 0; b < 1'000; ++b) {   // 1'000: a digit separator
    [[okl::inner]] for (int t = 0; t < 4; ++t) {
      const char *s = "user@host", c = '@';
      const char *r = R"x(a "quote" @inner )" x)x";
      out[b * 4 + t] = s[0] + c + r[0];
    }
  }
}
EOF
cp "$root/examples/kernels/addVectors.okl" "$k/legacy/addVectors.okl"     # OKL 1.0: @kernel
cp "$k/legacy/addVectors.okl" "$k/.hidden/skipped.okl"
echo "not a kernel" >"$k/keep/notes.txt"

# the .okl files compile-commands must list, in its order (strcmp's)
find "$k" -name '*.okl' -not -path '*/.*' | LC_ALL=C sort >"$tmp/want-files"
want_count=$(wc -l <"$tmp/want-files")

# the prelude the entries must name: installed next to oklc, else the copy
installed=$(cd "$(dirname "$oklc")/.." && pwd -P)/include/oklc/okl.hpp
if [ -f "$installed" ]; then prelude=$(realpath "$installed"); else prelude=$k/.oklc/okl.hpp; fi

# ---- the entries ------------------------------------------------------------------------
expect 0 "$oklc" compile-commands "$k"
json=$k/compile_commands.json
stderr_has "oklc: note: 1 of the $want_count files uses OKL 1.0 '@' attributes"
stderr_has "(the first: $k/legacy/addVectors.okl)"
stderr_has "oklc normalize --keep-macros FILE"
[ "$(wc -l <"$tmp/stderr")" -eq 1 ] || fail "more than the note on stderr: $(cat "$tmp/stderr")"
ls "$k" | grep -q tmp && fail "a temporary file left in $k"
count=$("$ccargs" "$json" count) || fail "compile_commands.json is not a list of entries"
[ "${count:-0}" -eq "$want_count" ] || fail "$count entries, want $want_count"
for ((i = 0; i < ${count:-0}; i++)); do
  "$ccargs" "$json" "$i" file
done >"$tmp/got-files"
cmp -s "$tmp/want-files" "$tmp/got-files" ||
  fail "entries' files: $(diff "$tmp/want-files" "$tmp/got-files" | head -n 10)"

checked=0
for ((i = 0; i < ${count:-0}; i++)); do
  file=$("$ccargs" "$json" "$i" file)
  dir=$("$ccargs" "$json" "$i" directory)
  [ "$dir" = "$k" ] || fail "entry $i: directory '$dir', want '$k'"
  args "$json" "$i"
  head="${args[*]:0:6}"
  [ "$head" = "clang++ -x c++ -std=c++17 -include $prelude" ] || fail "entry $i starts '$head'"
  [ "${args[-1]}" = "$file" ] || fail "entry $i ends '${args[-1]}', not its file"
  # a kernel including <cmath>: the prelude's math comes from it, as in oklc
  math=no
  [[ " ${args[*]} " == *" -DOKLC_PRELUDE_SYSTEM_MATH "* ]] && math=yes
  want=no
  grep -q '^#include <cmath>' "$file" && want=yes
  [ $math = $want ] || fail "entry $i: -DOKLC_PRELUDE_SYSTEM_MATH $math, want $want"
  case $file in
    */legacy/*)    # OKL 1.0: the reason for the note
      (cd "$dir" && "$clangxx" -fsyntax-only "${args[@]:1}") >/dev/null 2>&1 &&
        fail "clang++ accepted the OKL 1.0 file $file"
      continue ;;
  esac
  "$oklc" check "$file" >/dev/null 2>"$tmp/err" || fail "oklc check $file: $(head -n 5 "$tmp/err")"
  # the exact arguments, with -fsyntax-only: not a single diagnostic
  (cd "$dir" && "$clangxx" -fsyntax-only "${args[@]:1}") >"$tmp/out" 2>&1
  status=$?
  if [ $status -ne 0 ] || [ -s "$tmp/out" ]; then
    fail "clang++ on $file (exit $status):"; head -n 20 "$tmp/out"
  fi
  if [ -n "$clangd" ]; then
    "$clangd" --check="$file" --compile-commands-dir="$k" >"$tmp/out" 2>&1
    if grep -q '^E\[' "$tmp/out" || ! grep -q 'All checks completed, 0 errors' "$tmp/out"; then
      fail "clangd on $file:"; grep -E '^E\[|All checks' "$tmp/out" | head -n 20
    fi
    grep -q "Compile command from CDB is: .* -include $prelude" "$tmp/out" ||
      fail "clangd did not use the entry of $file"
  fi
  checked=$((checked + 1))
done
[ "$checked" -ge 15 ] || fail "only $checked OKL 2.0 kernels checked"

# ---- -b and the options: the macros oklc predefines ------------------------------------
mkdir -p "$tmp/inc"
echo '#define FROM_INCLUDE 5' >"$tmp/inc/extra.h"
echo '#define FROM_I 9' >"$tmp/inc/quoted.h"
cat >"$tmp/probe.okl" <<'EOF'
#include "quoted.h"
probe: __OKL__ __OCCA__ OKL_VERSION OKL_MAJOR_VERSION OKL_MINOR_VERSION OKL_PATCH_VERSION
probe: OKLC_VERSION OCCA_USE_SERIAL OCCA_USE_OPENMP OCCA_USE_CUDA OCCA_USE_HIP
probe: OCCA_USE_OPENCL OCCA_USE_DPCPP OCCA_USE_METAL OKLC_BACKEND_CUDA OKLC_BACKEND_SERIAL
probe: FOO BAR FROM_INCLUDE FROM_I
EOF
opts=(-b CUDA -D FOO=7 -DBAR -U OKL_PATCH_VERSION -I inc --include inc/extra.h)
expect 0 bash -c 'cd "$1" && shift && exec "$@"' - "$tmp" "$oklc" compile-commands "${opts[@]}" "$k"
(cd "$tmp" && "$oklc" preprocess "${opts[@]}" probe.okl) | grep '^probe:' | tr -s ' ' >"$tmp/oklc.pp"
args "$json" 0
unset 'args[-1]'
(cd "$tmp" && "$clangxx" "${args[@]:1}" -E -P probe.okl) | grep '^probe:' | tr -s ' ' >"$tmp/clang.pp"
[ -s "$tmp/oklc.pp" ] && cmp -s "$tmp/oklc.pp" "$tmp/clang.pp" ||
  fail "macros: oklc preprocess gives [$(cat "$tmp/oklc.pp")], the entry [$(cat "$tmp/clang.pp")]"
grep -qx 'probe: 7 1 5 9' "$tmp/clang.pp" ||
  fail "-D, -I, --include not applied: $(cat "$tmp/clang.pp")"
# ... and the kernels still check, with okl.hpp's CUDA section
for ((i = 0; i < ${count:-0}; i++)); do
  file=$("$ccargs" "$json" "$i" file)
  case $file in */legacy/*) continue ;; esac
  args "$json" "$i"
  (cd "$k" && "$clangxx" -fsyntax-only "${args[@]:1}") >"$tmp/out" 2>&1
  [ $? -eq 0 ] && [ ! -s "$tmp/out" ] || { fail "clang++ -b cuda on $file:"; head -n 20 "$tmp/out"; }
done

# ---- the prelude: installed, or the copy compiled into oklc ----------------------------
# oklc alone in a folder: no header next to it, so DIR/.oklc/okl.hpp
mkdir -p "$tmp/alone/bin" "$tmp/alone/k"
cp "$oklc" "$tmp/alone/bin/oklc"
cp "$k/keep/addVectors.okl" "$tmp/alone/k/"
expect 0 "$tmp/alone/bin/oklc" compile-commands "$tmp/alone/k"
copy=$tmp/alone/k/.oklc/okl.hpp
cmp -s "$copy" "$root/include/oklc/okl.hpp" || fail "$copy differs from include/oklc/okl.hpp"
args "$tmp/alone/k/compile_commands.json" 0
[ "${args[5]}" = "$copy" ] || fail "the entry names '${args[5]}', not $copy"
(cd "$tmp/alone/k" && "$clangxx" -fsyntax-only "${args[@]:1}") 2>&1 | grep . &&
  fail "clang++ with the written copy"
inode=$(stat -c %i "$copy")
expect 0 "$tmp/alone/bin/oklc" compile-commands "$tmp/alone/k"
[ "$(stat -c %i "$copy")" = "$inode" ] || fail "an unchanged $copy was written again"
# installed: <prefix>/bin/oklc and <prefix>/include/oklc/okl.hpp
mkdir -p "$tmp/prefix/bin" "$tmp/prefix/include/oklc" "$tmp/prefix/k"
cp "$oklc" "$tmp/prefix/bin/oklc"
cp "$root/include/oklc/okl.hpp" "$tmp/prefix/include/oklc/okl.hpp"
cp "$k/keep/addVectors.okl" "$tmp/prefix/k/"
expect 0 "$tmp/prefix/bin/oklc" compile-commands "$tmp/prefix/k"
args "$tmp/prefix/k/compile_commands.json" 0
[ "${args[5]}" = "$tmp/prefix/include/oklc/okl.hpp" ] ||
  fail "the entry names '${args[5]}', not the installed header"
[ -e "$tmp/prefix/k/.oklc" ] && fail "a copy written though the header is installed"

# ---- errors -----------------------------------------------------------------------------
expect 1 "$oklc" compile-commands "$tmp/missing"
stderr_has "oklc: error: cannot open folder '$tmp/missing': No such file or directory"
expect 1 "$oklc" compile-commands "$k/keep/notes.txt"
stderr_has "oklc: error: '$k/keep/notes.txt' is not a folder"
cp "$k/legacy/addVectors.okl" "$k/empty/.hidden.okl"
expect 1 "$oklc" compile-commands "$k/empty"
stderr_has "oklc: error: no .okl files under '$k/empty'"
[ -e "$k/empty/compile_commands.json" ] && fail "compile_commands.json written without kernels"
if [ "$(id -u)" -ne 0 ]; then     # root writes anywhere
  mkdir "$tmp/ro" && cp "$k/keep/addVectors.okl" "$tmp/ro/" && chmod 555 "$tmp/ro"
  expect 1 "$oklc" compile-commands "$tmp/ro"
  stderr_has "oklc: error: cannot write in folder '$tmp/ro'"
  chmod 755 "$tmp/ro"
fi
expect 2 "$oklc" compile-commands;                 stderr_has "no folder given"
expect 2 "$oklc" compile-commands "$k" "$k/keep";  stderr_has "more than one folder"
expect 2 "$oklc" compile-commands -o x "$k";       stderr_has "option '-o' does not apply"
expect 2 "$oklc" compile-commands -b vulkan "$k";  stderr_has "unknown backend 'vulkan'"
expect 2 "$oklc" compile-commands "$k" -D;         stderr_has "option '-D' needs a macro"
expect 2 "$oklc" compile-commands --includes x "$k"; stderr_has "does not apply"
expect 0 "$oklc" compile-commands --help
grep -q "usage: oklc compile-commands" "$tmp/stdout" || fail "--help: $(head -c 200 "$tmp/stdout")"

echo "$checked OKL 2.0 kernels checked by $("$clangxx" --version | head -n 1)${clangd:+ and $clangd}"
[ "$failures" -eq 0 ] && echo "PASS" || echo "$failures failure(s)"
[ "$failures" -eq 0 ]
