#!/usr/bin/env bash
# The oklc command: options, exit statuses, output files, standard input.
# Usage: cli.sh OKLC TESTS_DIR
set -u
oklc=$1
tests=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect STATUS CMD... : runs CMD, checks its exit status, keeps its output
expect() {
  local want=$1; shift
  "$@" >"$tmp/stdout" 2>"$tmp/stderr"
  local got=$?
  [ "$got" -eq "$want" ] || fail "exit $got (want $want): $* -- $(head -c 300 "$tmp/stderr")"
}
stdout_has() { grep -qF -- "$1" "$tmp/stdout" || fail "stdout lacks '$1'"; }
stderr_has() { grep -qF -- "$1" "$tmp/stderr" || fail "stderr lacks '$1': $(head -c 300 "$tmp/stderr")"; }

cat >"$tmp/k.okl" <<'EOF'
@kernel void k(const int n, float *a) {
  for (int i = 0; i < n; ++i; @tile(N, @outer, @inner)) {
#if OCCA_USE_OPENMP
    a[i] = OP(a[i], 2);
#endif
  }
}
EOF
printf '@kernel void k() { int x = @outer 1; }\n' >"$tmp/bad.okl"

# help and version
expect 0 "$oklc" --help;     stdout_has "usage: oklc <command>"; stdout_has "--keep-macros"
expect 0 "$oklc" -h;         stdout_has "normalize"
expect 0 "$oklc" --version;  stdout_has "oklc 0."

# usage errors exit 2
expect 2 "$oklc";                                   stderr_has "no command given"
expect 2 "$oklc" frobnicate "$tmp/k.okl";           stderr_has "unknown command 'frobnicate'"
expect 2 "$oklc" normalize;                         stderr_has "no input file"
expect 2 "$oklc" normalize --bogus "$tmp/k.okl";    stderr_has "unknown option '--bogus'"
expect 2 "$oklc" normalize -b vulkan "$tmp/k.okl";  stderr_has "unknown backend 'vulkan'"
expect 2 "$oklc" normalize "$tmp/k.okl" -o;         stderr_has "needs a file name"
expect 2 "$oklc" normalize a.okl b.okl;             stderr_has "more than one input file"
expect 2 "$oklc" normalize --diagnostics=xml "$tmp/k.okl"
expect 2 "$oklc" preprocess --keep-macros "$tmp/k.okl"

# options reach the preprocessor; backend names are case-insensitive
expect 0 "$oklc" normalize -b OpenMP -D N=16 -D 'OP(a,b)=a*b' "$tmp/k.okl"
stdout_has "[[okl::tile(16, okl::outer, okl::inner)]] for"
stdout_has "a[i] = a[i]*2;"
expect 0 "$oklc" normalize --backend=cuda -DN=8 "$tmp/k.okl"
grep -q "a\[i\]" "$tmp/stdout" && fail "OCCA_USE_OPENMP should be 0 for cuda"
expect 0 "$oklc" preprocess -DN=4 -UN "$tmp/k.okl";  stdout_has "@tile(N, @outer, @inner)"

# -o writes the file; an error writes nothing and leaves an old file alone
expect 0 "$oklc" normalize -DN=4 "$tmp/k.okl" -o "$tmp/out.cpp"
grep -q "okl::kernel" "$tmp/out.cpp" || fail "-o did not write the output"
[ -s "$tmp/stdout" ] && fail "-o also wrote to stdout"
expect 1 "$oklc" normalize "$tmp/bad.okl" -o "$tmp/new.cpp"
[ -e "$tmp/new.cpp" ] && fail "an output file was created after an error"
echo keep >"$tmp/old.cpp"
expect 1 "$oklc" normalize "$tmp/bad.okl" -o "$tmp/old.cpp"
[ "$(cat "$tmp/old.cpp")" = keep ] || fail "an existing output file was changed after an error"
ls "$tmp" | grep -q 'tmp' && fail "a temporary file was left behind"
expect 1 "$oklc" normalize "$tmp/k.okl" -o "$tmp/no/such/dir/out.cpp"
stderr_has "cannot write"

# diagnostics: text with caret, JSON, colour only when asked
expect 1 "$oklc" normalize "$tmp/bad.okl"
stderr_has "bad.okl:1:28: error: '@outer' cannot appear inside an expression"
stderr_has "                           ^"
grep -q $'\033' "$tmp/stderr" && fail "colour codes without a terminal"
expect 1 "$oklc" normalize --color=always "$tmp/bad.okl"
grep -q $'\033\\[1;31merror:' "$tmp/stderr" || fail "--color=always gives no colour"
expect 1 "$oklc" normalize --diagnostics=json "$tmp/bad.okl"
stderr_has '"level":	"error"'
stderr_has '"line":	1'
stderr_has '"column":	28'

# input from standard input, files that cannot be read, files that are not text
"$oklc" normalize -DN=2 - <"$tmp/k.okl" >"$tmp/stdout" 2>"$tmp/stderr" || fail "stdin input failed"
stdout_has "[[okl::kernel]]"
expect 1 "$oklc" normalize "$tmp/missing.okl";  stderr_has "cannot open"
expect 1 "$oklc" normalize "$tmp";              stderr_has "Is a directory"
printf 'int x;\0\1\2' >"$tmp/bin.okl"
expect 1 "$oklc" normalize "$tmp/bin.okl";      stderr_has "is not a text file"

# transpile: a backend is needed; metadata next to the output, all or nothing
expect 2 "$oklc" transpile -DN=4 "$tmp/k.okl";         stderr_has "transpile needs a backend"
expect 2 "$oklc" normalize --metadata "$tmp/m.json" "$tmp/k.okl"
stderr_has "--metadata only applies to transpile"
expect 2 "$oklc" transpile -b serial --instance "$tmp/k.okl"
expect 0 "$oklc" transpile -b OpenMP -DN=16 -D 'OP(a,b)=a*b' "$tmp/k.okl" -o "$tmp/k.cpp" \
  --metadata "$tmp/k.json"
grep -q "#pragma omp parallel for" "$tmp/k.cpp" || fail "transpile -b OpenMP: no parallel for"
grep -q '"entry":.*"_occa_entry_k"' "$tmp/k.json" || fail "transpile: no metadata"
[ "$(stat -c %a "$tmp/k.cpp")" = "$(printf '%o' $((0666 & ~$(umask))))" ] ||
  fail "the output file's mode is not 0666 minus the umask"
expect 0 "$oklc" transpile -b serial -DN=16 -DOP=fmaxf "$tmp/k.okl"
stdout_has "_occa_entry_k(void *const *args)"
grep -q "pragma omp" "$tmp/stdout" && fail "serial output has OpenMP pragmas"
expect 1 "$oklc" transpile -b metal -DN=4 "$tmp/k.okl";  stderr_has "the metal backend is not available yet"
expect 1 "$oklc" transpile -b serial --instance 'k<int>' -DN=4 "$tmp/k.okl"
stderr_has "instance 'k<int>': the kernel is not a template"
rm -f "$tmp/k2.cpp" "$tmp/k2.json"
expect 1 "$oklc" transpile -b serial "$tmp/bad.okl" -o "$tmp/k2.cpp" --metadata "$tmp/k2.json"
[ -e "$tmp/k2.cpp" ] || [ -e "$tmp/k2.json" ] && fail "transpile left a file after an error"
# an output that is not a regular file (a pipe, /dev/null) is written into,
# not replaced
mkfifo "$tmp/pipe"
cat "$tmp/pipe" >"$tmp/from-pipe" &
expect 0 "$oklc" transpile -b serial -DN=4 -DOP=fmaxf "$tmp/k.okl" -o "$tmp/pipe"
wait
[ -p "$tmp/pipe" ] || fail "-o PIPE replaced the pipe"
grep -q "_occa_entry_k" "$tmp/from-pipe" || fail "-o PIPE: nothing came through the pipe"
mkdir -p "$tmp/ro"
expect 1 "$oklc" transpile -b serial -DN=4 -DOP=fmaxf "$tmp/k.okl" -o "$tmp/k3.cpp" \
  --metadata "$tmp/ro/missing/k3.json"
stderr_has "cannot write"
[ -e "$tmp/k3.cpp" ] && fail "the output stayed although the metadata could not be written"

# GPU backends: the launcher beside the device code; system includes dropped
# with a note (OpenCL C has none)
printf '#include <math.h>\n@kernel void g(const int n, float *a) {\n  for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) { a[i] = sqrtf(a[i]); }\n}\n' \
  >"$tmp/g.okl"
expect 0 "$oklc" transpile -b opencl "$tmp/g.okl" -o "$tmp/g.cl" --launcher "$tmp/g.cpp"
stderr_has "g.okl:1:1: note: '#include <math.h>' dropped: OpenCL C has no system headers"
grep -q "__kernel" "$tmp/g.cl" || fail "transpile -b opencl: no __kernel"
grep -q '_occa_launch_g' "$tmp/g.cpp" || fail "--launcher: no _occa_launch_g"
expect 2 "$oklc" transpile -b serial "$tmp/g.okl" --launcher "$tmp/g2.cpp"
stderr_has "--launcher applies to the GPU backends"
[ -e "$tmp/g2.cpp" ] && fail "--launcher with a CPU backend wrote a file"
expect 2 "$oklc" transpile "$tmp/g.okl";  stderr_has "transpile needs a backend: -b serial, openmp"

# the README's examples run as shown
expect 0 "$oklc" normalize "$tests/../examples/kernels/addVectors.okl"
stdout_has "[[okl::kernel]]"

if [ "$failures" -ne 0 ]; then
  echo "$failures CLI check(s) failed"
  exit 1
fi
echo "all CLI checks passed"
