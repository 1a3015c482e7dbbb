#!/usr/bin/env bash
# An intrinsics file with a mistake: `oklc check --intrinsics FILE.json`
# must fail (exit 1) with the messages of FILE.err, at the file's lines.
# Usage: errors.sh OKLC FILE.json
set -u
oklc=$1 json=$2
cd "$(dirname "$json")" || exit 1
name=$(basename "$json" .json)
"$oklc" check --color=never --intrinsics "$name.json" ../kernel.okl 2>"/tmp/oklc-intr-$$.err"
status=$?
trap 'rm -f "/tmp/oklc-intr-$$.err"' EXIT
if [ $status -ne 1 ]; then
  echo "FAIL: $name: exit status $status, expected 1"; cat "/tmp/oklc-intr-$$.err"; exit 1
fi
if ! diff -u "$name.err" "/tmp/oklc-intr-$$.err"; then
  echo "FAIL: $name: the messages differ"; exit 1
fi
