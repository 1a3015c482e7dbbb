#!/usr/bin/env bash
# Plugins (docs/plugins.md): the example plugins run a kernel through the
# command, and g++ compiles and runs the result (examples/plugins); then
# plugins that cannot load, each a message and exit status 1, never a
# crash. Usage: plugins.sh OKLC PLUGIN_DIR CC CXX INCLUDE_DIR
set -u
oklc=$1 dir=$2 cc=$3 cxx=$4 inc=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# expect STATUS CMD...: runs CMD, output in $tmp/out and $tmp/err
expect() {
  local want=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  [ "$got" = "$want" ] || fail "exit $got, not $want: $* ($(head -3 "$tmp/err"))"
  if grep -q -e Sanitizer -e 'Segmentation' "$tmp/err"; then fail "crash: $*"; fi
}
has() { grep -qF -- "$2" "$tmp/$1" || fail "$1 lacks '$2': $(head -5 "$tmp/$1")"; }
lacks() { ! grep -qF -- "$2" "$tmp/$1" || fail "$1 has '$2'"; }

cat >"$tmp/k.okl" <<'OKL'
@kernel void addVectors(const int entries, const float *a, const float *b, float *ab) {
  for (int i = 0; i < entries; ++i; @tile(16, @outer, @inner)) {
    @prefetch(a + i + 16)
    ab[i] = a[i] + b[i];
    @prefetch(b + i) for (int j = 0; j < 2; ++j) {
      ab[i] += 1;
    }
  }
}
OKL
sed 's/@prefetch([^)]*) *//' "$tmp/k.okl" >"$tmp/plain.okl"
# The host: the generated file included, its kernel called, the result checked.
cat >"$tmp/main.cpp" <<'CPP'
#include KERNEL
int main() {
  const int n = 1000;
  static float a[n], b[n], ab[n];
  for (int i = 0; i < n; i++) a[i] = i, b[i] = 2 * i;
  for (int rep = 0; rep < 3; rep++) addVectors(n, a, b, ab);
  for (int i = 0; i < n; i++)
    if (ab[i] != 3 * i + 2) { printf("wrong at %d: %g\n", i, ab[i]); return 1; }
  printf("ok\n");
  return 0;
}
CPP
# run NAME: compiles $tmp/NAME.cpp with the host and runs it
run() {
  "$cxx" -std=c++17 -O1 -DKERNEL="\"$tmp/$1.cpp\"" "$tmp/main.cpp" -o "$tmp/$1" 2>"$tmp/cxx.err" ||
    { fail "$1: g++: $(head -5 "$tmp/cxx.err")"; return; }
  "$tmp/$1" >"$tmp/out" 2>"$tmp/err" || fail "$1: run: $(cat "$tmp/out" "$tmp/err")"
  has out ok
}

# (1) an attribute: @prefetch
expect 0 "$oklc" transpile --plugin "$dir/libokl_prefetch.so" -b serial "$tmp/k.okl" -o "$tmp/prefetch.cpp"
grep -qF '__builtin_prefetch(a + i + 16);' "$tmp/prefetch.cpp" || fail "no prefetch in serial output"
grep -qF '__builtin_prefetch(b + i);' "$tmp/prefetch.cpp" || fail "no prefetch before the loop"
run prefetch
expect 0 "$oklc" transpile --plugin "$dir/libokl_prefetch.so" -b openmp "$tmp/k.okl"
has out '__builtin_prefetch(a + i + 16);'
expect 0 "$oklc" transpile --plugin "$dir/libokl_prefetch.so" -b cuda "$tmp/k.okl"
lacks out prefetch
expect 1 "$oklc" transpile -b serial "$tmp/k.okl"
has err "k.okl:3:5: error: unknown attribute '@prefetch'"
printf '@kernel void k(int n, float *a) {\n  @prefetch(a) for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) {\n    @prefetch(0) a[i] = 0;\n  }\n}\n@prefetch(a) int x;\n' >"$tmp/bad.okl"
expect 1 "$oklc" check --plugin "$dir/libokl_prefetch.so" "$tmp/bad.okl"
has err "bad.okl:3:5: error: '@prefetch' needs a pointer, not a number"
has err "bad.okl:6:1: error: '@prefetch' cannot be applied here; it applies to for loops and statements in a kernel only"
printf '@kernel void k(int n, float *a) {\n  for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) {\n    @prefetch a[i] = 0;\n  }\n}\n' >"$tmp/args.okl"
expect 1 "$oklc" check --plugin "$dir/libokl_prefetch.so" "$tmp/args.okl"
has err "args.okl:3:5: error: '@prefetch' needs 1 argument"

# (2) a backend: serial-timed, by --plugin and by OKLC_PLUGINS
expect 0 "$oklc" transpile --plugin "$dir/libokl_timed.so" -b serial-timed "$tmp/plain.okl" -o "$tmp/timed.cpp"
has timed.cpp 'backend: serial-timed'
run timed
has err "oklc-timing: addVectors "
[ "$(grep -c '^oklc-timing: addVectors [0-9.]* ms$' "$tmp/err")" = 3 ] || fail "not 3 timings: $(cat "$tmp/err")"
expect 0 env OKLC_PLUGINS="$dir/libokl_prefetch.so::$dir/libokl_timed.so" "$oklc" transpile -b SERIAL-TIMED "$tmp/k.okl"
has out '_okl_timer _okl_timer_of_kernel("addVectors");'
has out '__builtin_prefetch(a + i + 16);'
expect 2 "$oklc" transpile -b serial-timed "$tmp/plain.okl"
has err "unknown backend 'serial-timed'"
# the same plugin twice is loaded once
expect 0 "$oklc" transpile --plugin "$dir/libokl_timed.so" --plugin "$dir/libokl_timed.so" -b serial-timed "$tmp/plain.okl"

# (3) stages: a warning per kernel, a comment on the output
expect 0 "$oklc" transpile --plugin "$dir/libokl_loopstats.so" -b serial "$tmp/plain.okl" -o "$tmp/stats.cpp"
has err "plain.okl:1:14: warning: kernel 'addVectors': 2 loop levels (1 @outer, 1 @inner)"
[ "$(head -1 "$tmp/stats.cpp")" = "/* loopstats: addVectors=2 */" ] || fail "loopstats: $(head -1 "$tmp/stats.cpp")"
run stats
expect 1 "$oklc" check -Werror --plugin "$dir/libokl_loopstats.so" "$tmp/plain.okl"
has err "error: kernel 'addVectors'"
# the hash in the metadata covers the plugins
"$oklc" transpile -b serial "$tmp/plain.okl" --metadata "$tmp/m1.json" -o /dev/null
"$oklc" transpile -b serial --plugin "$dir/libokl_loopstats.so" "$tmp/plain.okl" --metadata "$tmp/m2.json" -o /dev/null 2>/dev/null
h1=$(grep -o '"input_hash"[^,]*' "$tmp/m1.json") h2=$(grep -o '"input_hash"[^,]*' "$tmp/m2.json")
[ -n "$h1" ] && [ "$h1" != "$h2" ] || fail "the input hash ignores plugins: $h1 / $h2"

# (4) plugins that cannot load
build() {   # build NAME C-SOURCE
  printf '%s\n' "$2" >"$tmp/$1.c"
  "$cc" -shared -fPIC -I"$inc" "$tmp/$1.c" -o "$tmp/$1.so" || fail "cannot build $1"
}
build abi 'const unsigned oklc_plugin_abi = 99;
int oklc_plugin_init(void *h, void *c) { (void)h; (void)c; return 0; }'
build noentry '#include "oklc/plugin.h"
OKLC_PLUGIN_ABI;'
build initfail '#include "oklc/plugin.h"
OKLC_PLUGIN_ABI;
int oklc_plugin_init(const oklc_plugin_host *h, oklc_plugin_call *c) { (void)h; (void)c; return 3; }'
build initreport '#include "oklc/plugin.h"
OKLC_PLUGIN_ABI;
int oklc_plugin_init(const oklc_plugin_host *h, oklc_plugin_call *c) {
  oklc_plugin_backend b = {"cuda", "serial", 0, 0, 0, 0, 0};
  return h->add_backend(c, &b);
}'
build notplugin 'int answer(void) { return 42; }'
for cmd in preprocess normalize check transpile; do
  expect 1 "$oklc" $cmd -b serial --plugin "$tmp/missing.so" "$tmp/plain.okl"
  has err "oklc: error: cannot load plugin '$tmp/missing.so': "
done
expect 1 "$oklc" transpile -b serial --plugin "$tmp/abi.so" "$tmp/plain.okl"
has err "plugin '$tmp/abi.so' is built for plugin ABI version 99, but oklc"
has err "has plugin ABI version 1"
expect 1 "$oklc" transpile -b serial --plugin "$tmp/noentry.so" "$tmp/plain.okl"
has err "plugin '$tmp/noentry.so' has no entry point 'oklc_plugin_init'"
expect 1 "$oklc" transpile -b serial --plugin "$tmp/initfail.so" "$tmp/plain.okl"
has err "plugin '$tmp/initfail.so': its initialization failed (oklc_plugin_init returned 3)"
expect 1 "$oklc" transpile -b serial --plugin "$tmp/initreport.so" "$tmp/plain.okl"
has err "plugin '$tmp/initreport.so': the backend 'cuda' exists already"
expect 1 "$oklc" transpile -b serial --plugin "$tmp/notplugin.so" "$tmp/plain.okl"
has err "'$tmp/notplugin.so' is not an oklc plugin"
expect 1 env OKLC_PLUGINS="$tmp/abi.so" "$oklc" check "$tmp/plain.okl"
has err "ABI version 99"
expect 1 "$oklc" check --plugin "$tmp/plain.okl" "$tmp/plain.okl"
has err "'$tmp/plain.okl' is not an oklc plugin: not a shared object (ELF)"

# (5) an intrinsic, through oklc_add_intrinsic
build intrinsic '#include "oklc/plugin.h"
OKLC_PLUGIN_ABI;
int oklc_plugin_init(const oklc_plugin_host *h, oklc_plugin_call *c) {
  oklc_intrinsic in = {.name = "okl_twice", .declaration = "float okl_twice(float x)",
                       .body = "{ return 2 * x; }"};
  in.spelling[OKLC_BACKEND_CUDA] = "(2 * ($1))";
  return h->add_intrinsic(c, &in);
}'
printf '@kernel void k(int n, float *a) {\n  for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) {\n    a[i] = okl_twice(a[i]);\n  }\n}\n' >"$tmp/twice.okl"
expect 0 "$oklc" transpile -b serial --plugin "$tmp/intrinsic.so" "$tmp/twice.okl"
has out 'float okl_twice(float x)'
expect 0 "$oklc" transpile -b cuda --plugin "$tmp/intrinsic.so" "$tmp/twice.okl"
has out 'a[i] = (2 * (a[i]));'

# (6) what is refused before any code of the file runs: a plugin others
# can write, or in a folder others can write (not sticky); a library that
# is no plugin (its constructor never runs); a backend name that would
# break out of the output's first comment
build ctor '#include <stdio.h>
__attribute__((constructor)) static void ran(void) { FILE *f = fopen(getenv("MARK"), "w"); if (f) fclose(f); }
int answer(void) { return 42; }'
rm -f "$tmp/ran"
expect 1 env MARK="$tmp/ran" "$oklc" check --plugin "$tmp/ctor.so" "$tmp/plain.okl"
has err "'$tmp/ctor.so' is not an oklc plugin"
[ ! -e "$tmp/ran" ] || fail "a library that is no plugin ran its constructor"
cp "$tmp/intrinsic.so" "$tmp/open.so" && chmod 666 "$tmp/open.so"
expect 1 "$oklc" check --plugin "$tmp/open.so" "$tmp/twice.okl"
has err "cannot load plugin '$tmp/open.so': others can write '$tmp/open.so' (mode 666)"
mkdir -p "$tmp/shared" && cp "$tmp/intrinsic.so" "$tmp/shared/p.so" && chmod 777 "$tmp/shared"
expect 1 "$oklc" check --plugin "$tmp/shared/p.so" "$tmp/twice.okl"
has err "others can write '$tmp/shared' (mode 777)"
ln -s "$tmp/shared/p.so" "$tmp/link.so"
expect 1 "$oklc" check --plugin "$tmp/link.so" "$tmp/twice.okl"
has err "others can write '$tmp/shared' (mode 777)"
chmod 1777 "$tmp/shared"                 # sticky, as /tmp: others cannot swap the file
expect 0 "$oklc" check --plugin "$tmp/shared/p.so" "$tmp/twice.okl"
chmod 755 "$tmp/shared"
expect 1 env -C "$tmp" "$oklc" check --plugin intrinsic.so "$tmp/twice.okl"
has err "cannot load plugin 'intrinsic.so': give its path ('./intrinsic.so')"
build badname '#include "oklc/plugin.h"
OKLC_PLUGIN_ABI;
int oklc_plugin_init(const oklc_plugin_host *h, oklc_plugin_call *c) {
  oklc_plugin_backend b = {"x*/int/**/evil;/*", "serial", 0, 0, 0, 0, 0};
  return h->add_backend(c, &b);
}'
expect 1 "$oklc" transpile -b serial --plugin "$tmp/badname.so" "$tmp/plain.okl"
has err "a backend needs a name: a letter, then letters, digits"

# (7) an emit callback that reports an error: exit 1, no output file
build emiterror '#include "oklc/plugin.h"
OKLC_PLUGIN_ABI;
static const oklc_plugin_host *host;
static const char *emit(void *u, oklc_plugin_call *c, const oklc_attr_view *a) {
  (void)u;
  host->report(c, OKLC_ERROR, a->pos.offset, "cannot write @mark here");
  return "/* mark */";
}
int oklc_plugin_init(const oklc_plugin_host *h, oklc_plugin_call *c) {
  host = h;
  oklc_plugin_attr at = {.name = "mark", .max_args = 0, .on = OKLC_ON_STMT, .emit = emit};
  return h->add_attribute(c, &at);
}'
printf '@kernel void k(int n, float *a) {\n  for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) {\n    @mark a[i] = 0;\n  }\n}\n' >"$tmp/mark.okl"
rm -f "$tmp/mark.cpp"
expect 1 "$oklc" transpile -b serial --plugin "$tmp/emiterror.so" "$tmp/mark.okl" -o "$tmp/mark.cpp"
has err "mark.okl:3:5: error: cannot write @mark here"
[ ! -e "$tmp/mark.cpp" ] || fail "an output file after the plugin's error"

[ "$failures" = 0 ] && echo "plugins: all passed"
exit $((failures > 0))
