#!/usr/bin/env bash
# Runs a command with TMPDIR a folder of its own, removed after: hipcc
# leaves an empty folder in TMPDIR at every compile.
# Usage: in-tmpdir.sh COMMAND [ARG...]
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
TMPDIR=$tmp "$@"
