#!/usr/bin/env bash
# The man page docs/oklc.1 (ctest man):
#   - groff renders it without a single warning (-ww);
#   - the rendered page starts with its NAME line, and its version is the
#     command's (major.minor);
#   - every command and every option that "oklc --help" prints is an item
#     of its COMMANDS or OPTIONS section, and every item there is in
#     --help: both lists are read from the help text, so a command or an
#     option added to usage_text (tools/oklc.c) without the page fails here;
#   - every other -x / --long option named anywhere in --help appears
#     somewhere in the page.
# Usage: man.sh OKLC PAGE
set -u
export LC_ALL=C
oklc=$1
page=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

command -v groff >/dev/null ||
  { echo "FAIL: groff is not installed (Debian: groff-base; scripts/deps.sh)"; exit 1; }
[ -r "$page" ] || { echo "FAIL: cannot read $page"; exit 1; }

# (a) no warnings, of any kind
if ! groff -man -Tutf8 -ww -z "$page" 2>"$tmp/warnings" || [ -s "$tmp/warnings" ]; then
  fail "groff -man -ww warns about $page:"
  cat "$tmp/warnings"
fi

# The page as text: plain ASCII (\- is '-'), no bold or underline, and lines
# long enough that no paragraph is broken (nor a word hyphenated).
groff -man -Tascii -P-c -P-b -P-o -P-u -rLL=2000n "$page" >"$tmp/page.txt" 2>/dev/null
# section SECTION: the rendered text of that section
section() { awk -v s="$1" '/^[A-Z]/ { in_s = ($0 == s); next } in_s' "$tmp/page.txt"; }

# (c) the NAME line, as man(1) and whatis(1) show it
section NAME | grep -qE '^ +oklc - [a-z]' || fail "no NAME line 'oklc - ...' in the rendered page"

# The .TH footer's version: "oklc X.Y" of "oklc X.Y.Z" (oklc --version).
version=$("$oklc" --version) || fail "oklc --version"
th=$(sed -n 's/^\.TH OKLC 1 [^ ]* "\([^"]*\)".*/\1/p' "$page")
case "$version" in
  "$th" | "$th".*) ;;
  *) fail ".TH says '$th', oklc --version '$version': update the page" ;;
esac

# (b) what --help prints
"$oklc" --help >"$tmp/help" || fail "oklc --help exited with $?"
# the block after a heading line ("Commands:", "Options:"), to the blank line
block() { awk -v h="$1" '$0 == h { on = 1; next } /^$/ { on = 0 } on' "$tmp/help"; }
# option names (-x, --long) in text, each after a blank, a quote, '(' or ','
options_in() { grep -oE -- '(^|[[:space:]"(,])--?[A-Za-z][A-Za-z0-9-]*' | sed 's/^[^-]*//'; }

# commands: the first word of the "Commands:" block's items
block "Commands:" | sed -n 's/^  \([a-z][a-z-]*\).*/\1/p' | sort -u >"$tmp/help.commands"
# options: those of the "Options:" block's items, left of the description
# column (two blanks): "-b, --backend NAME" gives -b and --backend
block "Options:" | grep -E '^  -' | sed -E 's/^  //; s/  .*//' | options_in |
  sort -u >"$tmp/help.options"
# every option named anywhere in the help text ("(-o, needed)", "cc -E")
options_in <"$tmp/help" | sort -u >"$tmp/help.mentioned"

# A help text whose layout this script no longer reads must not pass.
if ! { [ "$(wc -l <"$tmp/help.commands")" -ge 5 ] && grep -qx transpile "$tmp/help.commands"; }
then
  echo "FAIL: read only these commands from oklc --help:" \
       "$(tr '\n' ' ' <"$tmp/help.commands")(this script reads its layout)"
  exit 1
fi
if ! { [ "$(wc -l <"$tmp/help.options")" -ge 20 ] && grep -qx -- --help "$tmp/help.options"; }
then
  echo "FAIL: read only these options from oklc --help:" \
       "$(tr '\n' ' ' <"$tmp/help.options")(this script reads its layout)"
  exit 1
fi

# The page's items: the line after each .TP of a section, escapes undone.
tags() {
  awk -v s="$1" '/^\.SH/ { in_s = ($0 == ".SH " s); next }
                 in_s && tp { print; tp = 0; next }
                 in_s && /^\.TP/ { tp = 1 }' "$page" |
    sed -e 's/\\-/-/g' -e 's/\\f[A-Z]//g' -e 's/\\(aq/'"'"'/g'
}
tags COMMANDS | awk '{ print $2 }' | sort -u >"$tmp/page.commands"
tags OPTIONS | options_in | sort -u >"$tmp/page.options"

# Each line of sorted file $1 missing from $2: a failure, MESSAGE ($3) with
# %s standing for the line.
missing_from() {
  comm -23 "$1" "$2" | while read -r x; do
    echo "FAIL: ${3//%s/$x}"
  done | tee -a "$tmp/missing"
}
missing_from "$tmp/help.commands" "$tmp/page.commands" \
  "command '%s' of oklc --help is not an item of COMMANDS in $page"
missing_from "$tmp/page.commands" "$tmp/help.commands" \
  "COMMANDS describes '%s', which oklc --help does not print"
missing_from "$tmp/help.options" "$tmp/page.options" \
  "option '%s' of oklc --help is not an item of OPTIONS in $page"
missing_from "$tmp/page.options" "$tmp/help.options" \
  "OPTIONS describes '%s', which oklc --help does not print"
[ -s "$tmp/missing" ] && failures=$((failures + $(wc -l <"$tmp/missing")))

# Each command is in the rendered SYNOPSIS; each option of the help text,
# wherever it stands there, is somewhere in the rendered page.
while read -r c; do
  section SYNOPSIS | grep -qE "(^|[[:space:]])$c([[:space:]]|$)" ||
    fail "command '$c' is not in the rendered SYNOPSIS"
done <"$tmp/help.commands"
while read -r o; do
  grep -qE -- "(^|[^A-Za-z0-9-])$o([^A-Za-z0-9-]|$)" "$tmp/page.txt" ||
    fail "'$o' (in oklc --help) is nowhere in the rendered page"
done <"$tmp/help.mentioned"

if [ "$failures" -ne 0 ]; then
  echo "$failures man page check(s) failed"
  exit 1
fi
echo "man page: no warnings; $(wc -l <"$tmp/help.commands") commands and" \
     "$(wc -l <"$tmp/help.options") options of oklc --help all described"
