#!/usr/bin/env bash
# Builds the libFuzzer target with ASan and UBSan and runs it over the
# golden kernels as seed corpus. Usage: tests/fuzz/run.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-120}
out=build-fuzz
mkdir -p "$out/corpus"
cp tests/golden/*/*.okl bench/kernels/*.okl "$out/corpus/" 2>/dev/null || true
clang -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -Isrc \
  tests/fuzz/fuzz_frontend.c src/oklc.c src/base/*.c src/lex/*.c src/pp/*.c \
  src/normalize/*.c -lcjson -o "$out/fuzz_frontend"
"$out/fuzz_frontend" -max_total_time="$secs" -max_len=4096 -timeout=10 \
  -rss_limit_mb=4096 "$out/corpus"
