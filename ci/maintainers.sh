#!/bin/bash
# scripts/get_maintainer.pl --nogit names a maintainer or reviewer for
# every patch, and every file a patch adds is covered by a MAINTAINERS entry
# (as patched by the series): what checkpatch's FILE_PATH_CHANGES warning
# asks, made exact.
#   ci/maintainers.sh PATCH...   (default: every patch in series)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

if [ $# -gt 0 ]; then files=(); for a in "$@"; do [ -f "$a" ] || die "no such patch: $a"; files+=("$(realpath "$a")"); done
else mapfile -t files < <(series_files); fi
bad=0
for p in "${files[@]}"; do
	out=$(cd "$KTREE" && ./scripts/get_maintainer.pl --nogit --nogit-fallback --norolestats \
		--no-rolestats --m --r --nol --nos "$p" 2>&1)
	missing=()
	for f in $(awk '/^diff --git / { f = $4; sub("^b/", "", f) } /^new file mode/ { print f }' "$p"); do
		m=$(cd "$KTREE" && ./scripts/get_maintainer.pl --nogit --nogit-fallback --no-rolestats \
			--m --r --nol --nos -f "$f" 2>/dev/null | grep -c @)
		[ "$m" -gt 0 ] || missing+=("$f")
	done
	if [ ${#missing[@]} = 0 ] && grep -q '@' <<<"$out"; then
		echo "ok     $(basename "$p"): $(echo "$out" | tr '\n' ',' | sed 's/,$//; s/,/, /g')"
	else
		echo "FAIL   $(basename "$p"): no maintainer for ${missing[*]:-any file of the patch}"
		bad=$((bad + 1))
	fi
done
echo "maintainers: $((${#files[@]} - bad)) of ${#files[@]} patches have maintainers, new files covered"
[ $bad = 0 ]
