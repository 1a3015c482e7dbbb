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
expect 0 "$oklc" --version;  stdout_has "oklc 0."; stdout_has "libclang: "
stdout_has "backends: serial openmp cuda hip opencl dpcpp metal"
stdout_has "C++ compiler: "; stdout_has "NVRTC: "; stdout_has "hiprtc: "; stdout_has "SYCL compiler: "
OKLC_CXX=no-such-cxx expect 0 "$oklc" --version
stdout_has "C++ compiler: 'no-such-cxx' (OKLC_CXX) not found"
OCCA_CXX=no-such-occa-cxx expect 0 "$oklc" --version
stdout_has "C++ compiler: 'no-such-occa-cxx' (OCCA_CXX) not found"
# a command's own help: its usage and only the options that apply to it
expect 0 "$oklc" help transpile;  stdout_has "usage: oklc transpile -b BACKEND"
stdout_has "--launcher FILE"; stdout_has "--cpu-rewrites"
grep -qF -- "--param" "$tmp/stdout" && fail "transpile's help lists stats' --param"
cp "$tmp/stdout" "$tmp/help-transpile"
expect 0 "$oklc" transpile --help
cmp -s "$tmp/stdout" "$tmp/help-transpile" || fail "transpile --help differs from help transpile"
expect 0 "$oklc" stats -h;        stdout_has "usage: oklc stats"; stdout_has "--machine"
grep -qF -- "--launcher" "$tmp/stdout" && fail "stats' help lists --launcher"
expect 0 "$oklc" help normalize;  stdout_has "--keep-macros"
expect 0 "$oklc" help info;       stdout_has "usage: oklc info"
expect 0 "$oklc" help compile-commands;  stdout_has "usage: oklc compile-commands"
expect 0 "$oklc" help;            stdout_has "Commands:"; stdout_has "oklc help COMMAND"
expect 2 "$oklc" help frobnicate; stderr_has "unknown command 'frobnicate'"
expect 2 "$oklc" help check stats; stderr_has "help takes one command"
expect 2 "$oklc" frobnicate --help; stderr_has "unknown command 'frobnicate'"
# info: every device found, what it says of itself; JSON too
expect 0 "$oklc" info;  stdout_has "serial: "; stdout_has "openmp: "; stdout_has "compute units"
stdout_has "cuda: "; stdout_has "metal: not available: "
expect 0 "$oklc" info --format=json;  stdout_has '"devices":'; stdout_has '"memory_total":'
stdout_has '"unavailable":'
grep -m1 '"mode":' "$tmp/stdout" | grep -q '"serial"' || fail "oklc info's first device is not serial"
expect 2 "$oklc" info --format=xml;  stderr_has "--format needs text or json"
# transpile --out-dir: several files in one process, each one's outputs beside it
mkdir -p "$tmp/many"
printf '@kernel void t(float *a) {\n  for (int i = 0; i < 8; ++i; @outer) {\n    for (int j = 0; j < 1; ++j; @inner) { a[i] = 2 * a[i]; }\n  }\n}\n' >"$tmp/many/one.okl"
cp "$tmp/many/one.okl" "$tmp/many/two.okl"
printf '@kernel void k() { int x = @outer 1; }\n' >"$tmp/many/bad.okl"
expect 0 "$oklc" transpile -b opencl --out-dir "$tmp/many/out" \
  --depfile "$tmp/many/all.d" "$tmp/many/one.okl" "$tmp/many/two.okl"
for f in one.opencl.cl one.opencl.json one.opencl.launcher.cpp one.opencl.cl.d two.opencl.cl; do
  [ -s "$tmp/many/out/$f" ] || fail "--out-dir did not write $f"
done
grep -q "one.opencl.cl:" "$tmp/many/all.d" && grep -q "two.okl" "$tmp/many/all.d" ||
  fail "--out-dir's --depfile is not one rule for all inputs"
expect 1 "$oklc" transpile -b serial --out-dir "$tmp/many/out2" "$tmp/many/one.okl" \
  "$tmp/many/bad.okl" "$tmp/many/two.okl"
stderr_has "bad.okl:1:"
[ -s "$tmp/many/out2/one.serial.cpp" ] && [ -s "$tmp/many/out2/two.serial.cpp" ] ||
  fail "a failing input kept the others from being written"
[ -e "$tmp/many/out2/bad.serial.cpp" ] && fail "a failing input left an output"
[ -e "$tmp/many/out2/one.serial.launcher.cpp" ] && fail "a launcher for serial"
expect 2 "$oklc" transpile -b serial "$tmp/many/one.okl" "$tmp/many/two.okl"
stderr_has "several need --out-dir DIR"
expect 2 "$oklc" transpile -b serial --out-dir "$tmp/x" -o "$tmp/x.cpp" "$tmp/many/one.okl"
stderr_has "--out-dir names each input's outputs itself"
expect 2 "$oklc" check --out-dir "$tmp/x" "$tmp/many/one.okl";  stderr_has "--out-dir only applies to transpile"
expect 2 "$oklc" transpile -b serial --out-dir "$tmp/x" -;  stderr_has "not standard input"
mkdir -p "$tmp/many/sub" && cp "$tmp/many/one.okl" "$tmp/many/sub/one.okl"
expect 2 "$oklc" transpile -b serial --out-dir "$tmp/x" "$tmp/many/one.okl" "$tmp/many/sub/one.okl"
stderr_has "two inputs named"
# cache: list, show, prune, clear on a cache of two made-up entries
c=$tmp/cache k1=0123456789abcdef0123456789abcdef k2=fedcba9876543210fedcba9876543210
mkdir -m 700 "$c" && mkdir -p "$c/$k1" "$c/failed/$k2" "$c/pch" "$c/not-ours"
printf '{"kernel": "addVectors", "mode": "serial", "source": "/src/add.okl", "command": "c++ -O3"}' \
  >"$c/$k1/entry.json"
echo 'int kernel_text;' >"$c/$k1/source.cpp"
printf '{"kernel": "broken", "mode": "openmp", "source": "/src/b.okl"}' >"$c/failed/$k2/entry.json"
echo 'error: no such thing' >"$c/failed/$k2/build.log"
touch -d '3 days ago' "$c/$k1"
export OKLC_CACHE_DIR=$c
expect 0 "$oklc" cache list;   stdout_has "2 entries"; stdout_has "addVectors"; stdout_has "/src/add.okl"
stdout_has "broken (failed)"
expect 0 "$oklc" cache list --format=json;  stdout_has '"kernel":	"addVectors"'; stdout_has '"failed":	true'
expect 0 "$oklc" cache show 0123;  stdout_has "command    c++ -O3"; stdout_has "int kernel_text;"
expect 0 "$oklc" cache show fedcba;  stdout_has "(a failed build)"; stdout_has "error: no such thing"
expect 2 "$oklc" cache show 01;    stderr_has "'01' is no entry ID"
expect 1 "$oklc" cache show 9999;  stderr_has "no entry of the cache has an ID that starts with '9999'"
expect 2 "$oklc" cache show;       stderr_has "show needs an entry ID"
expect 2 "$oklc" cache prune;      stderr_has "prune needs --older-than"
expect 2 "$oklc" cache prune --older-than 2x;  stderr_has "--older-than needs an age"
expect 2 "$oklc" cache list --older-than 1d;   stderr_has "--older-than only applies to prune"
expect 2 "$oklc" cache clear --format=json;    stderr_has "--format only applies to list"
expect 2 "$oklc" cache;            stderr_has "no subcommand (list, show, clear, prune)"
expect 2 "$oklc" cache frob;       stderr_has "unknown subcommand 'frob'"
expect 0 "$oklc" cache --help;     stdout_has "usage: oklc cache list"
expect 0 "$oklc" cache prune --older-than 2d;  stdout_has "removed 1 entry"
[ -d "$c/$k1" ] && fail "prune kept an entry unused for 3 days"
[ -d "$c/failed/$k2" ] || fail "prune removed a fresh failed build"
expect 0 "$oklc" cache clear;      stdout_has "removed 2 entries"
[ -e "$c/failed" ] || [ -e "$c/pch" ] && fail "clear left failed/ or pch/"
[ -d "$c/not-ours" ] || fail "clear removed a folder the cache did not make"
expect 0 "$oklc" cache list;       stdout_has "0 entries"
unset OKLC_CACHE_DIR
expect 2 "$oklc" info extra;         stderr_has "unknown argument 'extra'"

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
expect 2 "$oklc" normalize --intrinsics x.json "$tmp/k.okl"; stderr_has "--intrinsics only applies"
expect 2 "$oklc" check "$tmp/k.okl" --intrinsics;   stderr_has "needs a file name"
expect 0 "$oklc" --help;     stdout_has "--intrinsics FILE"
# --intrinsics: calls become the spelling of the backend (docs/intrinsics.md)
printf '{"intrinsics": [{"name": "okl_tw", "declaration": "float okl_tw(float x)",
  "body": "{ return 2 * x; }", "cuda": "__fmul_rn(2.0f, $1)"}]}\n' >"$tmp/tw.json"
printf '@kernel void t(float *a) {\n  for (int i = 0; i < 8; ++i; @outer) {\n    for (int j = 0; j < 1; ++j; @inner) { a[i] = okl_tw(a[i]); }\n  }\n}\n' >"$tmp/tw.okl"
expect 0 "$oklc" transpile -b cuda --intrinsics "$tmp/tw.json" "$tmp/tw.okl"
stdout_has "a[i] = __fmul_rn(2.0f, a[i]);"
expect 0 "$oklc" transpile -b serial --intrinsics="$tmp/tw.json" "$tmp/tw.okl"
stdout_has "{ return 2 * x; }"
expect 1 "$oklc" check --intrinsics "$tmp/missing.json" "$tmp/tw.okl"
stderr_has "cannot open intrinsics file"
# an intrinsic spelled on the backend named like a function of the file:
# its calls would call the function; an error at the intrinsic, a note at it
printf 'float okl_tw(float x) { return x; }\n' >"$tmp/tw2.okl"
cat "$tmp/tw.okl" >>"$tmp/tw2.okl"
expect 1 "$oklc" transpile -b cuda --intrinsics "$tmp/tw.json" "$tmp/tw2.okl"
stderr_has "tw.json:1:26: error: intrinsic 'okl_tw' has the name of a function the kernel's file defines"
stderr_has "tw2.okl:1:7: note: the function is here"
# 40,000 intrinsics, each a function (docs/intrinsics.md has the times)
{ printf '{"intrinsics": ['
  for i in $(seq 1 40000); do
    [ "$i" -gt 1 ] && printf ','
    printf '{"name": "okl_f%d", "declaration": "float okl_f%d(float x)", "body": "{ return x; }"}' "$i" "$i"
  done
  printf ']}\n'; } >"$tmp/many.json"
expect 0 "$oklc" check --intrinsics "$tmp/many.json" "$tmp/tw.okl"
# files Clang is told to read (--clang-arg) are bounded as oklc's own reads
expect 1 "$oklc" check --clang-arg=-include --clang-arg=/dev/zero "$tmp/tw.okl"
stderr_has "--clang-arg -include: '/dev/zero' is not a regular file"
expect 1 "$oklc" check --clang-arg=-include/dev/zero "$tmp/tw.okl"
stderr_has "'/dev/zero' is not a regular file"
expect 1 "$oklc" check "--clang-arg=@$tmp/absent.rsp" "$tmp/tw.okl"
stderr_has "is not there"

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
stdout_has "_occa_entry_k(void *const *_occa_args, char *_occa_message"
grep -q "pragma omp" "$tmp/stdout" && fail "serial output has OpenMP pragmas"
expect 0 "$oklc" transpile -b metal -DN=4 "$tmp/k.okl";  stdout_has "kernel void _occa_k_0("
expect 0 "$oklc" transpile -b dpcpp -DN=4 "$tmp/k.okl";  stdout_has "_occa_k_0_run(void *_occa_queue"
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

# --depfile: a Make rule for the output naming the kernel, its "..."
# includes and the --include / --intrinsics files, absolute, escaped for Make
mkdir -p "$tmp/dep/inc dir"
printf '#define N 4\n' >"$tmp/dep/inc dir/size\$1#.h"
printf '#define OP fmaxf\n' >"$tmp/dep/op.h"
printf '#include "size$1#.h"\n#include <math.h>\n' >"$tmp/dep/k.okl"
cat "$tmp/k.okl" >>"$tmp/dep/k.okl"
expect 0 "$oklc" transpile -b cuda -I "$tmp/dep/inc dir" --include "$tmp/dep/op.h" \
  --intrinsics "$tests/run/intrinsics.json" -o "$tmp/dep/k.cu" --depfile "$tmp/dep/k.d" "$tmp/dep/k.okl"
printf '%s: \\\n  %s \\\n  %s \\\n  %s \\\n  %s\n' "$tmp/dep/k.cu" \
  "$(realpath "$tests/run/intrinsics.json")" "$tmp/dep/k.okl" "$tmp/dep/op.h" \
  "$(echo "$tmp/dep/inc dir/size\$\$1\\#.h" | sed 's/ /\\ /g')" >"$tmp/dep/want.d"
cmp -s "$tmp/dep/k.d" "$tmp/dep/want.d" ||
  fail "--depfile: $(diff "$tmp/dep/want.d" "$tmp/dep/k.d")"
make -s -C "$tmp/dep" -f - <<<"include k.d" 2>"$tmp/dep/make.err" ||
  fail "make cannot read the depfile: $(cat "$tmp/dep/make.err")"
cp "$tmp/dep/k.okl" "$tmp/dep/same.okl"
expect 2 "$oklc" normalize --keep-macros "$tmp/dep/same.okl" -o "$tmp/dep/same.okl"
stderr_has "is the input file"
cmp -s "$tmp/dep/k.okl" "$tmp/dep/same.okl" || fail "-o the input changed the input"
# no output replaces a file the run reads (the kernel, an included header,
# --include, --intrinsics), or another output, by identity: a link to the
# input is the input; each refused with exit 2, every file as it was
cp "$tmp/dep/k.okl" "$tmp/dep/keep.okl"
cp "$tests/run/intrinsics.json" "$tmp/dep/intr.json"
ln -sf "$tmp/dep/k.okl" "$tmp/dep/link.cpp"
for clash in "--metadata $tmp/dep/k.okl" "--launcher $tmp/dep/inc dir/size\$1#.h" \
             "--depfile $tmp/dep/op.h" "-o $tmp/dep/intr.json" "--metadata $tmp/dep/link.cpp"; do
  opt=${clash%% *} file=${clash#* }
  out=(-o "$tmp/dep/k3.cu")
  [ "$opt" = -o ] && out=()
  sums=$(cat "$tmp/dep/k.okl" "$tmp/dep/inc dir/size\$1#.h" "$tmp/dep/op.h" "$tmp/dep/intr.json" | md5sum)
  expect 2 "$oklc" transpile -b cuda -I "$tmp/dep/inc dir" --include "$tmp/dep/op.h" \
    --intrinsics "$tmp/dep/intr.json" "${out[@]}" "$opt" "$file" "$tmp/dep/k.okl"
  stderr_has "a file this run reads"
  [ "$sums" = "$(cat "$tmp/dep/k.okl" "$tmp/dep/inc dir/size\$1#.h" "$tmp/dep/op.h" "$tmp/dep/intr.json" | md5sum)" ] ||
    fail "$opt $file changed an input"
done
cmp -s "$tmp/dep/k.okl" "$tmp/dep/keep.okl" || fail "the kernel changed"
rm -f "$tmp/dep/k4.cu"
expect 2 "$oklc" transpile -b cuda -I "$tmp/dep/inc dir" --include "$tmp/dep/op.h" \
  -o "$tmp/dep/k4.cu" --launcher "$tmp/dep/../dep/k4.cu" "$tmp/dep/k.okl"
stderr_has "both write"
[ -e "$tmp/dep/k4.cu" ] && fail "two outputs in one file: a file was written"
expect 2 "$oklc" transpile -b serial --depfile "$tmp/dep/x.d" "$tmp/dep/k.okl"
stderr_has "--depfile needs -o FILE"
rm -f "$tmp/dep/k2.cpp" "$tmp/dep/k2.d"
expect 1 "$oklc" transpile -b serial -o "$tmp/dep/k2.cpp" --depfile "$tmp/dep/k2.d" "$tmp/bad.okl"
[ -e "$tmp/dep/k2.cpp" ] || [ -e "$tmp/dep/k2.d" ] && fail "--depfile: a file left after an error"

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

# OCCA's convention: the launcher's own metadata, and its usage errors
expect 0 "$oklc" transpile -b cuda --convention=occa "$tmp/g.okl" -o "$tmp/g.cu" \
  --launcher "$tmp/g.cpp" --launcher-metadata "$tmp/gl.json" --metadata "$tmp/g.json"
grep -q 'extern "C" void g(occa::modeKernel_t \*\*_occa_kernels' "$tmp/g.cpp" ||
  fail "--convention=occa: no OCCA entry in the launcher"
grep -q '"name":.*"_occa_g_0"' "$tmp/g.json" || fail "--convention=occa: no device kernel metadata"
grep -q '"deviceKernels"' "$tmp/gl.json" || fail "--launcher-metadata: no deviceKernels"
expect 2 "$oklc" transpile -b cuda --convention=ocaa "$tmp/g.okl"
stderr_has "unknown convention 'ocaa' (oklc, occa)"
expect 2 "$oklc" transpile -b cuda "$tmp/g.okl" --launcher-metadata "$tmp/gl2.json"
stderr_has "--launcher-metadata needs --convention=occa"
expect 2 "$oklc" check --convention=occa "$tmp/g.okl"
stderr_has "--convention only applies to transpile"
expect 2 "$oklc" transpile -b serial --convention=occa "$tmp/g.okl" --launcher-metadata "$tmp/gl3.json"
stderr_has "--launcher applies to the GPU backends"
[ -e "$tmp/gl2.json" ] || [ -e "$tmp/gl3.json" ] && fail "a usage error wrote metadata"

# the CPU rewrites off: the plain translation (each thread's strided loop
# as written), and the option's usage errors
cat >"$tmp/strided.okl" <<'EOF'
@kernel void sums(const int n, const float *x, float *s) {
  for (int b = 0; b < 4; ++b; @outer) {
    for (int t = 0; t < 64; ++t; @inner) {
      float acc = 0;
      const int end = b * 1024 + 1024 < n ? b * 1024 + 1024 : n;
      for (int i = b * 1024 + t; i < end; i += 64)
        acc += x[i];
      s[b * 64 + t] = acc;
    }
  }
}
EOF
expect 0 "$oklc" transpile -b serial "$tmp/strided.okl"
stdout_has "each thread's loop interchanged with the threads"
expect 0 "$oklc" transpile -b openmp --cpu-rewrites=off "$tmp/strided.okl"
grep -q "interchanged" "$tmp/stdout" && fail "--cpu-rewrites=off: the loop was interchanged"
stdout_has "for (int i = b * 1024 + t; i < end; i += 64)"
expect 0 "$oklc" transpile -b serial --cpu-rewrites on "$tmp/strided.okl"
stdout_has "each thread's loop interchanged with the threads"
expect 2 "$oklc" transpile -b serial --cpu-rewrites=maybe "$tmp/strided.okl"
stderr_has "unknown value 'maybe' for --cpu-rewrites (on, off)"
expect 2 "$oklc" check --cpu-rewrites=off "$tmp/strided.okl"
stderr_has "--cpu-rewrites only applies to transpile"

# stats: its options, their errors, text and JSON
expect 0 "$oklc" stats "$tmp/strided.okl";   stdout_has "kernel "
expect 0 "$oklc" stats --format=json "$tmp/strided.okl";  stdout_has '"kernels":'
expect 2 "$oklc" stats --format=xml "$tmp/strided.okl";   stderr_has "--format needs text or json"
expect 2 "$oklc" stats --param N "$tmp/strided.okl";      stderr_has "option '--param' needs NAME=VALUE"
expect 2 "$oklc" stats --param N=x "$tmp/strided.okl"
stderr_has "--param N=x: the value is not an integer"
expect 2 "$oklc" stats --machine bw=1e12 "$tmp/strided.okl"
stderr_has "--machine needs bw=BYTES_PER_S,flops=FLOP_PER_S (bw=1e12)"
expect 2 "$oklc" check --param N=4 "$tmp/strided.okl"
stderr_has "--param, --format and --machine only apply to stats"
expect 2 "$oklc" transpile -b openmp --count-ops "$tmp/strided.okl"
stderr_has "--count-ops applies to transpile -b serial"
expect 0 "$oklc" transpile -b serial --count-ops "$tmp/strided.okl"; stdout_has "_occa_counts[1] += 1"

# a file name is no code: one with "*/" (under a folder "k*") or with line
# breaks could end the comment that names the input, and what follows
# would be compiled; every backend's output (and launcher) must compile and
# differ from a plain name's only in that comment; compiled, the one that
# would define a function holds no symbol of it
printf '@kernel void p(const int n, float *a) {\n  for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) { a[i] += 1; }\n}\n' \
  >"$tmp/p.okl"
evil=$'\nextern "C" int oklc_injected_by_path(void) { return 1; }\n'
mkdir -p "$tmp/k*" "$tmp/x*/$evil"
cp "$tmp/p.okl" "$tmp/k*/p.okl"
cp "$tmp/p.okl" "$tmp/x*/$evil/p.okl"
clang_cl=(clang -x cl -cl-std=CL1.2 -Xclang -finclude-default-header -fsyntax-only -Werror)
for b in serial openmp cuda hip opencl; do
  launcher=()
  case $b in serial|openmp) ;; *) launcher=(--launcher "$tmp/plain.cpp") ;; esac
  expect 0 "$oklc" transpile -b $b "$tmp/p.okl" -o "$tmp/plain.out" "${launcher[@]}"
  for f in "$tmp/k*/p.okl" "$tmp/x*/$evil//p.okl"; do
    [ ${#launcher[@]} -gt 0 ] && launcher=(--launcher "$tmp/named.cpp")
    expect 0 "$oklc" transpile -b $b "$f" -o "$tmp/named.out" "${launcher[@]}"
    for o in out cpp; do
      [ $o = cpp ] && [ ${#launcher[@]} -eq 0 ] && continue
      [ "$(head -n 1 "$tmp/named.$o" | grep -o '\*/' | wc -l)" = 1 ] &&
        cmp -s <(tail -n +2 "$tmp/plain.$o") <(tail -n +2 "$tmp/named.$o") ||
        fail "$b: the file name $(printf %q "$f") is not confined to the comment of the .$o"
    done
    [ "$f" = "$tmp/k*/p.okl" ] && continue    # compiled: the name that defines a function
    case $b in
      serial|openmp)
        if g++ -std=c++17 -fopenmp -c -x c++ "$tmp/named.out" -o "$tmp/named.o" 2>"$tmp/cc"; then
          nm "$tmp/named.o" | grep -q oklc_injected && fail "$b: the file name became a symbol"
        else
          fail "$b: the output for $(printf %q "$f") does not compile: $(head -c 300 "$tmp/cc")"
        fi ;;
      opencl)
        if command -v clang >/dev/null; then
          "${clang_cl[@]}" "$tmp/named.out" 2>"$tmp/cc" ||
            fail "opencl: the output for $(printf %q "$f") does not compile: $(head -c 300 "$tmp/cc")"
        fi ;;
    esac
    if [ $b = cuda ]; then     # one launcher: launcher.c writes each the same way
      if g++ -std=c++17 -c -x c++ "$tmp/named.cpp" -o "$tmp/named.o" 2>"$tmp/cc"; then
        nm "$tmp/named.o" | grep -q oklc_injected && fail "$b: the file name became a launcher symbol"
      else
        fail "$b: the launcher for $(printf %q "$f") does not compile: $(head -c 300 "$tmp/cc")"
      fi
    fi
  done
done

# line ends: a bare CR ends a line (as in Clang), CRLF too; positions, the
# source line of a diagnostic, and the code all follow; the output compiles
printf '%s\n' '// CR line ends' '@kernel void c(const int n, float *a) {' '  // a comment' \
  '  for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) {' '    a[i] = undeclared;' \
  '  }' '}' >"$tmp/lf.okl"
tr '\n' '\r' <"$tmp/lf.okl" >"$tmp/cr.okl"
sed 's/$/\r/' "$tmp/lf.okl" >"$tmp/crlf.okl"
sed 's/undeclared/2.0f/' "$tmp/lf.okl" >"$tmp/lf2.okl"
for f in cr crlf; do
  expect 1 "$oklc" check "$tmp/$f.okl"
  stderr_has "$f.okl:5:12: error: use of undeclared identifier 'undeclared'"
  grep -q $'\r' "$tmp/stderr" && fail "$f: a CR in the diagnostic"
  sed 's/undeclared/2.0f/' "$tmp/$f.okl" >"$tmp/${f}2.okl"
  for b in serial opencl; do
    expect 0 "$oklc" transpile -b $b "$tmp/${f}2.okl" -o "$tmp/$f.out"
    "$oklc" transpile -b $b "$tmp/lf2.okl" -o "$tmp/lf.out"
    cmp -s <(tail -n +2 "$tmp/lf.out") <(tail -n +2 "$tmp/$f.out" | tr -d '\r') ||
      fail "$f ($b): not the output of the same kernel with LF line ends"
    [ $b = serial ] && ! g++ -std=c++17 -Wall -Werror -fsyntax-only -x c++ "$tmp/$f.out" 2>"$tmp/cc" &&
      fail "$f: the output does not compile: $(head -c 300 "$tmp/cc")"
  done
done

# special files: a device never ends, and is read up to the size limit of a
# source file (256 MiB), then refused, as the input or an included file
expect 1 "$oklc" normalize /dev/zero;  stderr_has "cannot open '/dev/zero': File too large"

# emission is linear in the file: 2000 kernels cost about what the front
# end costs (a quadratic edit list took 4 times as long for serial, 15 to
# 25 for the GPU backends, with 4.8 GB), in CPU time, so that a busy machine does
# not matter
cpu() {
  local t
  t=$( { TIMEFORMAT='%3U %3S'; time "$@" >/dev/null 2>&1; } 2>&1 )
  echo "$t" | awk '{print $1 + $2}'
}
awk 'BEGIN { for (i = 0; i < 2000; i++) {
  printf "@kernel void s%d(const int n, const float *a, float *b) {\n", i
  print "  for (int g = 0; g < n; g += 64; @outer) {\n    @shared float s[64];"
  print "    for (int i = g; i < g + 64; ++i; @inner) { s[i - g] = i < n ? a[i] : 0.0f; }"
  print "    for (int i = g; i < g + 64; ++i; @inner) { if (i < n) b[i] = s[i - g]; }\n  }"
  print "  for (int j = 0; j < n; ++j; @tile(16, @outer, @inner)) { b[j] *= 2.0f; }\n}"
} }' >"$tmp/many.okl"
front=$(cpu "$oklc" check "$tmp/many.okl")
for b in serial cuda; do
  t=$(cpu "$oklc" transpile -b $b "$tmp/many.okl" -o "$tmp/many.out")
  awk -v t="$t" -v f="$front" 'BEGIN { exit !(t <= 2 * f + 0.5) }' ||
    fail "transpile -b $b of 2000 kernels: $t s of CPU time, the front end $front s"
done

# the README's examples run as shown
expect 0 "$oklc" normalize "$tests/../examples/kernels/addVectors.okl"
stdout_has "[[okl::kernel]]"

if [ "$failures" -ne 0 ]; then
  echo "$failures CLI check(s) failed"
  exit 1
fi
echo "all CLI checks passed"
