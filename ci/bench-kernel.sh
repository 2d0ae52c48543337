#!/bin/bash
# Build the benchmark kernel: the series plus bench-patches/*.patch (knobs
# that only 'make bench' needs and that are not for upstream), in a git
# worktree at $BUILD/benchk/linux, output in $BUILD/benchk/obj.  A bench
# patch that does not apply fails loudly.  The layout mirrors $BUILD/linux
# and $BUILD/obj, so that with CCACHE_BASEDIR (ci/kernel.sh) the compiler
# sees the same relative paths and ccache can reuse the main build's
# objects for every file the bench patches do not change.  The bench
# kernel's config adds kconfig-fragments/bench/*.config (the swamp model).
#
#   ci/bench-kernel.sh export   write the worktree's commits above the
#                               series back to bench-patches/ (bench patches
#                               are edited as commits there, like the series)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

wt=$BUILD/benchk/linux
if [ "${1:-}" = export ]; then
	[ -e "$wt/.git" ] || die "no bench worktree at $wt: run 'make bench-kernel' first"
	# A 'git am' that stopped halfway would export only the patches
	# before it, and the others would be deleted from bench-patches/.
	[ ! -d "$(git -C "$wt" rev-parse --path-format=absolute --git-path rebase-apply)" ] &&
		[ ! -d "$(git -C "$wt" rev-parse --path-format=absolute --git-path rebase-merge)" ] ||
		die "a git am or rebase is in progress in $wt: finish or abort it first"
	# The series commit the bench patches were applied on (the series may
	# have been rewritten since).
	head=$(cat "$BUILD/benchk/base" 2>/dev/null) || head=$(git -C "$KTREE" rev-parse HEAD)
	n=$(git -C "$wt" rev-list --count "$head..HEAD")
	[ "$n" -gt 0 ] || die "no commits above the series in $wt"
	tmp=$(mktemp -d)
	git -C "$wt" format-patch -q -N --zero-commit --no-signature -o "$tmp" "$head..HEAD"
	rm -f "$TOP"/bench-patches/*.patch
	mv "$tmp"/*.patch "$TOP/bench-patches/"
	rmdir "$tmp"
	note "bench-patches/: $n patches from $wt"
	exit 0
fi
mkdir -p "$BUILD/benchk"
head=$(git -C "$KTREE" rev-parse HEAD)
if [ ! -d "$wt/.git" ] && [ ! -f "$wt/.git" ]; then
	rm -rf "$wt"
	git -C "$KTREE" worktree prune
	git -C "$KTREE" worktree add -q --detach "$wt" "$head"
fi
git -C "$wt" am --abort >/dev/null 2>&1 || true
git -C "$wt" checkout -q --detach "$head"
echo "$head" >"$BUILD/benchk/base"
for p in "$TOP"/bench-patches/*.patch; do
	[ -f "$p" ] || continue
	GIT_COMMITTER_NAME=$PROJECT_NAME GIT_COMMITTER_EMAIL=$PROJECT_EMAIL \
		git -C "$wt" am -q --keep-cr "$p" || die "bench patch $(basename "$p") does not apply on the series"
done
KTREE=$wt KOUT=$BUILD/benchk/obj EXTRA_FRAGMENTS="${EXTRA_FRAGMENTS:+$EXTRA_FRAGMENTS }$(ls "$TOP"/kconfig-fragments/bench/*.config | tr '\n' ' ')" exec "$(dirname "$0")/kernel.sh"
