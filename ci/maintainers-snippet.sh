#!/bin/bash
# MAINTAINERS.snippet is the entry the series relies on, in canonical form:
#   - field order as scripts/parse-maintainers.pl --order writes it (M R L
#     S W Q B C P T F X N K; F: patterns sorted);
#   - identical to the entry in MAINTAINERS at the top of the series (so the
#     snippet and the patch that extends the entry cannot drift apart);
#   - every F: pattern matches a file in the tree at the top of the series;
#   - scripts/get_maintainer.pl --nogit names the snippet's M: people for
#     every file the series adds under the entry's F: patterns.
#   ci/maintainers-snippet.sh [SNIPPET]     (default: MAINTAINERS.snippet)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

snip=${1:-$TOP/MAINTAINERS.snippet}
[ -f "$snip" ] || die "no $snip"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad=0
fail() { echo "FAIL   $*"; bad=$((bad + 1)); }

title=$(head -n1 "$snip")
(echo; cat "$snip") >"$tmp/in"
(cd "$tmp" && perl "$KTREE/scripts/parse-maintainers.pl" --input=in --output=out --order) >"$tmp/pm.log" 2>&1
if diff -u "$tmp/in" "$tmp/out" >"$tmp/diff"; then echo "ok     canonical field order (parse-maintainers.pl --order)"
else fail "not in canonical order; parse-maintainers.pl --order wants:"; sed 's/^/    /' "$tmp/diff"; fi

git -C "$KTREE" show HEAD:MAINTAINERS | awk -v t="$title" '$0 == t { on = 1 } on && /^$/ { exit } on' >"$tmp/entry"
if [ ! -s "$tmp/entry" ]; then fail "no entry '$title' in MAINTAINERS at the top of the series"
elif diff -u "$tmp/entry" "$snip" >"$tmp/diff"; then echo "ok     identical to '$title' in MAINTAINERS at the top of the series"
else fail "differs from MAINTAINERS at the top of the series:"; sed 's/^/    /' "$tmp/diff"; fi

git -C "$KTREE" ls-files >"$tmp/files"
nomatch=0
for pat in $(sed -n 's/^F:\t//p' "$snip"); do
	case $pat in */) m=$(grep -c "^$pat" "$tmp/files") ;; *) m=$(grep -cxF "$pat" "$tmp/files") ;; esac
	[ "$m" -gt 0 ] || { fail "F: $pat matches no file"; nomatch=1; }
done
[ $nomatch = 1 ] || echo "ok     every F: pattern matches a file"

mapfile -t people < <(sed -n 's/^M:\t//p' "$snip")
added=$(git -C "$KTREE" diff --name-only --diff-filter=A refs/irq-series/base HEAD)
for f in $added; do
	covered=
	for pat in $(sed -n 's/^F:\t//p' "$snip"); do [[ $f == "$pat"* ]] && covered=1; done
	[ -n "$covered" ] || continue
	out=$(cd "$KTREE" && ./scripts/get_maintainer.pl --nogit --nogit-fallback --no-rolestats -f "$f" 2>&1)
	for p in "${people[@]}"; do
		grep -qF "$p" <<<"$out" || fail "get_maintainer.pl -f $f does not name $p"
	done
done
echo "MAINTAINERS.snippet: $bad problems"
[ $bad = 0 ]
