#!/bin/bash
# Build the benchmark kernel: the series plus bench-patches/*.patch (knobs
# that only 'make bench' needs and that are not for upstream), in a git
# worktree at $BUILD/benchk/linux, output in $BUILD/benchk/obj.  A bench
# patch that does not apply fails loudly.  The layout mirrors $BUILD/linux
# and $BUILD/obj, so that with CCACHE_BASEDIR (ci/kernel.sh) the compiler
# sees the same relative paths and ccache can reuse the main build's
# objects for every file the bench patches do not change.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

wt=$BUILD/benchk/linux
mkdir -p "$BUILD/benchk"
head=$(git -C "$KTREE" rev-parse HEAD)
if [ ! -d "$wt/.git" ] && [ ! -f "$wt/.git" ]; then
	rm -rf "$wt"
	git -C "$KTREE" worktree prune
	git -C "$KTREE" worktree add -q --detach "$wt" "$head"
fi
git -C "$wt" am --abort >/dev/null 2>&1 || true
git -C "$wt" checkout -q --detach "$head"
for p in "$TOP"/bench-patches/*.patch; do
	[ -f "$p" ] || continue
	GIT_COMMITTER_NAME=$PROJECT_NAME GIT_COMMITTER_EMAIL=$PROJECT_EMAIL \
		git -C "$wt" am -q --keep-cr "$p" || die "bench patch $(basename "$p") does not apply on the series"
done
KTREE=$wt KOUT=$BUILD/benchk/obj exec "$(dirname "$0")/kernel.sh"
