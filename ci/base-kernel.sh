#!/bin/bash
# Build the guest kernel from the unpatched base (a git worktree of the base
# commit in $BUILD/linux-base, output in $BUILD/obj-base), to show that the
# VM tests fail without the series.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

BASE_REF=refs/irq-series/base
wt=$BUILD/linux-base
if [ ! -d "$wt" ]; then
	git -C "$KTREE" worktree prune
	git -C "$KTREE" worktree add -q --detach "$wt" "$BASE_REF"
else
	git -C "$wt" checkout -q --detach "$(git -C "$KTREE" rev-parse "$BASE_REF")"
fi
ALLOW_MISSING_SYMBOLS=1 KTREE=$wt KOUT=$BUILD/obj-base exec "$(dirname "$0")/kernel.sh"
