#!/usr/bin/env bash
# The kernel cache under concurrency (MPI ranks starting together): 16
# processes build and run the same kernel at once on a fresh cache; all must
# succeed, leaving exactly one entry and no temporary folder. Then the same
# with leftovers of killed builds in the cache: an old temporary folder
# (swept) and a young one (another build in progress: left alone), both
# with a half-written binary. Then the same with a damaged entry of the
# same key (a truncated kernel.so, garbled metadata, no manifest): each
# process finds it damaged, builds again and swaps its build in; all must
# succeed, leaving one whole entry. Then one process builds only, another
# loads.
# Usage: race.sh RACE-PROGRAM DATA-DIR
set -uo pipefail
race=$1
src=$2/add.cpp
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset OKLC_CXX OKLC_CXXFLAGS
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# 16 processes at once; $compiles: how many ran the compiler.
run16() {
    local pids=() i
    for i in $(seq 16); do
        OKLC_VERBOSE=1 "$race" build "$src" 2>"$work/log.$i" &
        pids+=($!)
    done
    for i in "${!pids[@]}"; do
        wait "${pids[$i]}" || fail "process $((i + 1)) failed: $(cat "$work/log.$((i + 1))")"
    done
    compiles=$(cat "$work"/log.* | grep -c '^oklc: compiling: ')
}

# Exactly one entry, complete, and the temporary folders named in $2...
check_cache() {
    local dir=$1; shift
    local entries entry tmps
    entries=$(find "$dir" -mindepth 1 -maxdepth 1 ! -name '*.tmp.*' | wc -l)
    [ "$entries" -eq 1 ] || fail "$dir holds $entries entries, not 1: $(ls "$dir")"
    tmps=$(cd "$dir" && find . -mindepth 1 -maxdepth 1 -name '*.tmp.*' | sort | tr '\n' ' ')
    [ "$tmps" = "$*" ] || fail "temporary folders in $dir: '$tmps', expected '$*'"
    entry=$(find "$dir" -mindepth 1 -maxdepth 1 ! -name '*.tmp.*' | head -n 1)
    for f in source.cpp kernel.so metadata.json build.log manifest; do
        [ -s "$entry/$f" ] || fail "the entry has no $f"
    done
}

export OKLC_CACHE_DIR=$work/fresh
run16
echo "fresh cache: 16 processes, $compiles ran the compiler"
[ "$compiles" -ge 1 ] || fail "nothing was compiled"
check_cache "$OKLC_CACHE_DIR"
[ "$(stat -c %a "$OKLC_CACHE_DIR")" = 700 ] || fail "the cache folder is not 0700"
key=$(basename "$(find "$OKLC_CACHE_DIR" -mindepth 1 -maxdepth 1)")

# Leftovers of killed builds of the same key.
export OKLC_CACHE_DIR=$work/leftovers
mkdir -m 700 "$OKLC_CACHE_DIR"
for t in old young; do
    mkdir "$OKLC_CACHE_DIR/$key.tmp.99999.$t"
    head -c 100 "$work/fresh/$key/kernel.so" >"$OKLC_CACHE_DIR/$key.tmp.99999.$t/kernel.so"
    cp "$src" "$OKLC_CACHE_DIR/$key.tmp.99999.$t/source.cpp"
done
touch -d '2 hours ago' "$OKLC_CACHE_DIR/$key.tmp.99999.old"
run16
echo "cache with leftovers: 16 processes, $compiles ran the compiler"
check_cache "$OKLC_CACHE_DIR" "./$key.tmp.99999.young "

# A damaged entry that 16 processes find at once. Before entries had a
# manifest, a truncated kernel.so killed each of them with SIGBUS inside
# dlopen, and garbled metadata failed every build until removed by hand.
good=$work/fresh/$key
for damage in truncated garbled no-manifest; do
    export OKLC_CACHE_DIR=$work/$damage
    mkdir -m 700 "$OKLC_CACHE_DIR"
    cp -a "$good" "$OKLC_CACHE_DIR/$key"
    case $damage in
    truncated) truncate -s $(($(stat -c %s "$good/kernel.so") / 2)) "$OKLC_CACHE_DIR/$key/kernel.so" ;;
    garbled) printf 'X' | dd of="$OKLC_CACHE_DIR/$key/metadata.json" conv=notrunc 2>/dev/null ;;
    no-manifest) rm "$OKLC_CACHE_DIR/$key/manifest" ;;
    esac
    run16
    echo "$damage entry: 16 processes, $compiles ran the compiler"
    [ "$compiles" -ge 1 ] || fail "$damage: the entry was not built again"
    check_cache "$OKLC_CACHE_DIR"
    # whole again: loading checks every file against the manifest
    OKLC_CXX=/nonexistent "$race" load "$OKLC_CACHE_DIR/$key" || fail "$damage: load failed"
done

# One process builds, another loads (without a compiler, to be sure).
export OKLC_CACHE_DIR=$work/split
dir=$("$race" build-only "$src") || fail "build-only failed"
case "$dir" in "$work/split/"*) ;; *) fail "build-only gave '$dir'" ;; esac
OKLC_CXX=/nonexistent "$race" load "$dir" || fail "load from $dir failed"

[ "$fails" -eq 0 ] && echo "race: all passed"
exit $((fails > 0))
