#!/usr/bin/env bash
# ctest example.mpi_jacobi.DEVICE: the solve on 4 ranks (more ranks than
# cores: --oversubscribe) gives the checksums of the solve on 1 rank.
# Usage: mpi_check.sh MPIEXEC PROGRAM DEVICE
set -u
mpiexec=$1 program=$2 device=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
run() { "$mpiexec" --oversubscribe -np "$1" "$program" "$device"; }
one=$(run 1) || { echo "$one"; echo "FAIL: 1 rank"; exit 1; }
four=$(run 4) || { echo "$four"; echo "FAIL: 4 ranks"; exit 1; }
echo "$one"; echo "$four"
a=$(grep '^checksum' <<<"$one") b=$(grep '^checksum' <<<"$four")
[ -n "$a" ] && [ -n "$b" ] || { echo "FAIL: no checksum"; exit 1; }
awk -v a="$a" -v b="$b" 'BEGIN {
  split(a, x, " "); split(b, y, " ");
  for (i = 2; i <= 3; i++) {
    d = x[i] - y[i]; if (d < 0) d = -d;
    m = x[i] < 0 ? -x[i] : x[i];
    if (d > 1e-10 * m) { print "FAIL: checksum " x[i] " (1 rank) and " y[i] " (4 ranks)"; exit 1 }
  }
  print "the same checksums on 1 and 4 ranks" }'
