#!/usr/bin/env bash
# The launcher computes grids in 64 bits: a loop over [-N, N) with N = 1.5e9
# has 3e9 iterations, more than an int holds. Transpiles such kernels for
# the GPU backends, compiles each launcher with a driver whose `run` prints
# the grid, and checks the counts (a count computed in int overflows:
# undefined, in practice a negative count and no launch, status 0).
# Usage: launcher-grid.sh OKLC CXX
set -eu
oklc=$1 cxx=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/k.okl" <<'OKL'
@kernel void span(const int N, float *a) {
  for (int i = -N; i < N; ++i; @outer) {
    for (int t = 0; t < 1; ++t; @inner) { a[0] = i; }
  }
}
@kernel void tiled(const int N, float *a) {
  for (int i = -N; i <= N; i += 2; @tile(4, @outer, @inner)) { a[0] = i; }
}
OKL
cat >"$tmp/driver.cpp" <<'CPP'
#include <cstdio>
struct _occa_launch_api {
  int version;
  void *device;
  int (*run)(void *device, int index, const unsigned long grid[3],
             const unsigned long block[3], void *const *args);
};
extern "C" int _occa_launch_span(const _occa_launch_api *, void *const *);
extern "C" int _occa_launch_tiled(const _occa_launch_api *, void *const *);
static int show(void *, int, const unsigned long g[3], const unsigned long b[3], void *const *) {
  std::printf("%lu %lu %lu / %lu %lu %lu\n", g[0], g[1], g[2], b[0], b[1], b[2]);
  return 0;
}
int main() {
  int n = 1500000000;
  void *mem = nullptr;
  void *args[] = {&n, &mem};
  _occa_launch_api api = {1, nullptr, show};
  return _occa_launch_span(&api, args) | _occa_launch_tiled(&api, args);
}
CPP
for backend in cuda hip opencl; do
  "$oklc" transpile -b "$backend" "$tmp/k.okl" -o "$tmp/k.out" --launcher "$tmp/launcher.cpp"
  "$cxx" -std=c++17 -O2 -o "$tmp/driver" "$tmp/driver.cpp" "$tmp/launcher.cpp"
  got=$("$tmp/driver")
  # span: 3e9 blocks of 1; tiled: (3e9 / 2 + 1) iterations in tiles of 4
  want=$(printf '%s\n' "3000000000 1 1 / 1 1 1" "375000001 1 1 / 4 1 1")
  if [ "$got" != "$want" ]; then
    echo "FAIL ($backend): the launcher's grids are"; echo "$got"; echo "expected"; echo "$want"
    exit 1
  fi
done
echo "launcher grids in 64 bits: ok (cuda, hip, opencl)"
