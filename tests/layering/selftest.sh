#!/usr/bin/env bash
# selftest.sh CC - layering.sh fails on two files that call each other, and
# passes the same pair when it is src/parse/'s visitor and a visit helper.
set -u
cc=$1 here=$(cd "$(dirname "$0")" && pwd) w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
obj() {    # obj PATH CODE: an object named as CMake names them
  mkdir -p "$w/x.dir/$(dirname "$1")"
  printf '%s\n' "$2" >"$w/src.c"
  "$cc" -c -o "$w/x.dir/$1.o" "$w/src.c" || exit 2
}
obj src/a/one.c 'void two(void); void one(void) { two(); }'
obj src/a/two.c 'void one(void); void two(void) { one(); }'
obj src/a/three.c 'void one(void); void three(void) { one(); }'
out=$(bash "$here/layering.sh" "$w"/x.dir/src/a/*.o 2>&1) && { echo "FAIL: passed a cycle: $out"; exit 1; }
grep -q "src/a/one.c and src/a/two.c call each other" <<<"$out" || { echo "FAIL: $out"; exit 1; }
grep -q three <<<"$out" && { echo "FAIL: named a one-way arrow: $out"; exit 1; }
rm -rf "$w/x.dir"
obj src/parse/model.c 'void walk_loop(void); void walk(void) { walk_loop(); }'
obj src/parse/loops.c 'void walk(void); void walk_loop(void) { walk(); }'
bash "$here/layering.sh" "$w"/x.dir/src/parse/*.o || { echo "FAIL: the visitor's pair"; exit 1; }
echo ok
