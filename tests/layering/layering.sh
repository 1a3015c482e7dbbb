#!/usr/bin/env bash
# layering.sh - which file of src/ calls which, read from the object files'
# symbol tables (nm), and a check that the arrows go one way: it fails when
# two files call each other both ways. The one exception is a recursive
# visitor and its visit helpers inside src/parse/: model.c walks the tree
# and hands each kind of node to decls.c, exprs.c, flow.c, functions.c or
# loops.c, which walk their children through it again.
#
# Usage: layering.sh [-v] OBJECT...
#   OBJECT: object files, named as CMake names them (.../NAME.dir/src/x/y.c.o
#   stands for src/x/y.c); -v also lists each file's callers.
set -euo pipefail
verbose=0
[ "${1:-}" = -v ] && { verbose=1; shift; }
[ $# -gt 0 ] || { echo "usage: layering.sh [-v] OBJECT..." >&2; exit 2; }
command -v nm >/dev/null || { echo "layering.sh: no nm (binutils)" >&2; exit 2; }

# "FILE SYMBOL" lines: what each file defines, and what it uses from elsewhere
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# nm -A: "OBJECT:[VALUE] TYPE SYMBOL"; the object named as CMake names it
name='{o = $1; sub(/:.*/, "", o); sub(/.*\.dir\//, "", o); sub(/\.o$/, "", o)}'
nm -A -g --defined-only "$@" | awk "$name"' NF == 3 {print o, $3}' >"$tmp/defs"
nm -A -u "$@" | awk "$name"' {print o, $NF}' >"$tmp/uses"

# an edge "CALLER CALLEE" per pair of files, then the pairs both ways
awk 'NR == FNR {def[$2] = $1; next}
     ($2 in def) && def[$2] != $1 {print $1, def[$2]}' "$tmp/defs" "$tmp/uses" |
  sort -u >"$tmp/edges"
if [ $verbose = 1 ]; then
  awk '{by[$2] = by[$2] " " $1} END {for (f in by) print f ": called by" by[f]}' \
    "$tmp/edges" | sort
fi
# the pairs both ways: the visitor of src/parse/ and its helpers, and any other
awk '{e[$1 " " $2] = 1}
     END {for (k in e) {split(k, p, " ")
            if (p[1] < p[2] && ((p[2] " " p[1]) in e))
              print (visitor(p[1], p[2]) || visitor(p[2], p[1]) ? "visitor " : "bad ") p[1] " " p[2]}}
     function visitor(a, b) {
       return a == "src/parse/model.c" && b ~ /^src\/parse\/(decls|exprs|flow|functions|loops)\.c$/ }' \
  "$tmp/edges" | sort >"$tmp/both"
awk '$1 == "bad" {print "layering: " $2 " and " $3 " call each other"}' "$tmp/both" >&2
bad=$(grep -c '^bad ' "$tmp/both" || true)
echo "$(wc -l <"$tmp/edges") arrows between $# files; $bad pairs both ways" \
     "(and $(grep -c '^visitor ' "$tmp/both" || true) of parse/model.c, the visitor, with its helpers)"
[ "$bad" = 0 ]
