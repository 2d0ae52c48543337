#!/bin/bash
# Build the benchmark kernel: the series plus bench-patches/*.patch (knobs
# that only 'make bench' needs and that are not for upstream), in a git
# worktree at $BUILD/linux-bench, output in $BUILD/obj-bench.  A bench patch
# that does not apply fails loudly.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

wt=$BUILD/linux-bench
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
KTREE=$wt KOUT=$BUILD/obj-bench exec "$(dirname "$0")/kernel.sh"
