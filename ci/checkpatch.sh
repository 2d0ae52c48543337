#!/bin/bash
# scripts/checkpatch.pl --strict on every patch of the series (or on the
# patch files given as arguments), with the base tree's checkpatch.
# A patch passes only with 0 errors, 0 warnings, 0 checks.  One type is
# ignored: FILE_PATH_CHANGES ("does MAINTAINERS need updating?") fires for
# every new file, covered or not; ci/maintainers.sh checks instead that
# get_maintainer.pl finds a maintainer for every file a patch touches.
# On a tree made from a release tarball (a base commit without history),
# UNKNOWN_COMMIT_ID is ignored too: a Fixes: tag names an upstream commit
# that such a tree cannot know.  A mainline clone (KERNEL_SRC) checks it.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

# Debian's python3 (with python3-ply and python3-git for spdxcheck.py), not
# a pyenv one.  A helper that dies (a Python traceback) checked nothing:
# that fails the patch, even when checkpatch itself goes on and passes.
export PATH=/usr/bin:$PATH
need_deps check || exit 1
[ -x "$KTREE/scripts/checkpatch.pl" ] || die "no checkpatch.pl in $KTREE: run 'make tree'"
if [ $# -gt 0 ]; then files=(); for a in "$@"; do [ -f "$a" ] || die "no such patch: $a"; files+=("$(realpath "$a")"); done
else mapfile -t files < <(series_files); fi
ignore=FILE_PATH_CHANGES
[ "$(git -C "$KTREE" rev-list --count refs/irq-series/base 2>/dev/null)" = 1 ] && ignore+=,UNKNOWN_COMMIT_ID
bad=0
for p in "${files[@]}"; do
	out=$(cd "$KTREE" && ./scripts/checkpatch.pl --strict --ignore "$ignore" --no-summary --color=never "$p" 2>&1)
	rc=$?
	grep -q '^Traceback (most recent call last)' <<<"$out" && rc=1
	if [ $rc = 0 ]; then
		echo "ok     $(basename "$p")"
	else
		echo "FAIL   $(basename "$p")"; echo "$out" | sed 's/^/    /'
		bad=$((bad + 1))
	fi
done
echo "checkpatch --strict: $((${#files[@]} - bad)) of ${#files[@]} patches clean"
[ $bad = 0 ]
