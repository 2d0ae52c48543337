#!/bin/bash
# Set up the kernel git tree and apply the series with git am.
#
#   ci/tree.sh               the Debian base under $BUILD/linux (unpacked once)
#   KERNEL_SRC=~/linux ci/tree.sh
#                            a new branch $SERIES_BRANCH of the user's tree,
#                            started at KERNEL_BASE (default: HEAD)
#
# The tree is brought to "base + series".  Commits in the tree that are not in
# patches/ (work not yet exported with 'make export') are never thrown away:
# the script stops and says so, unless FORCE=1.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

BASE_REF=refs/irq-series/base
STATE=$(git -C "$KTREE" rev-parse --git-dir 2>/dev/null || true)

unpack_debian_base() {
	[ -f "$BASE_TARBALL" ] || die "$BASE_TARBALL missing: run 'make deps'"
	local ver
	ver=$(cat "$BASE_TARBALL.version")
	note "unpacking $BASE_PKG $ver into $KTREE (about a minute)"
	rm -rf "$KTREE.tmp"
	mkdir -p "$KTREE.tmp"
	tar -xJf "$BASE_TARBALL" -C "$KTREE.tmp" --strip-components=1
	# Debian's tarball ends its .gitignore with a packaging block ("/*",
	# "!/debian/") that hides the whole tree from git.  Drop that block so
	# the tree can be committed and new files show up in 'git status'.
	perl -0pi -e 's/\n+#\n# Debian packaging.*\z/\n/s' "$KTREE.tmp/.gitignore"
	if grep -qx '/\*' "$KTREE.tmp/.gitignore"; then
		die "the Debian packaging block in .gitignore changed shape; look at the end of $KTREE.tmp/.gitignore"
	fi
	git -C "$KTREE.tmp" init -q -b "$SERIES_BRANCH"
	KTREE=$KTREE.tmp kgit add -A
	KTREE=$KTREE.tmp kgit commit -q -m "Debian $BASE_PKG $ver" -m \
"Unpacked from Debian's $BASE_PKG $ver (trixie-backports); the packaging block at the end of the
top-level .gitignore is dropped, nothing else differs."
	git -C "$KTREE.tmp" update-ref "$BASE_REF" HEAD
	mv "$KTREE.tmp" "$KTREE"
}

if [ -z "${KERNEL_SRC:-}" ]; then
	if [ -d "$KTREE/.git" ] && ! kgit log -1 --format=%s "$BASE_REF" 2>/dev/null | grep -qF "Debian $BASE_PKG $BASE_VERSION"; then
		[ "${FORCE:-0}" = 1 ] || [ -z "$(kgit log --oneline "$BASE_REF..HEAD" 2>/dev/null | head -1)" ] ||
			[ "$(BASE_TAG=$BASE_REF tree_ids 2>/dev/null)" = "$(cat "$BUILD/applied.ids" 2>/dev/null)" ] ||
			die "$KTREE is on another base ($(kgit log -1 --format=%s "$BASE_REF")) and has commits not in patches/; FORCE=1 drops it"
		note "$KTREE is on another base ($(kgit log -1 --format=%s "$BASE_REF" 2>/dev/null)): unpacking $BASE_PKG $BASE_VERSION anew"
		rm -rf "$KTREE" "$BUILD/linux-base"
	fi
	[ -d "$KTREE/.git" ] || unpack_debian_base
	APPLIED=$BUILD/applied.ids
else
	[ -n "$STATE" ] || die "KERNEL_SRC=$KERNEL_SRC is not a git tree"
	git -C "$KTREE" diff --quiet HEAD -- || die "$KTREE has uncommitted changes; commit or stash them first"
	if ! git -C "$KTREE" rev-parse -q --verify "refs/heads/$SERIES_BRANCH" >/dev/null; then
		start=${KERNEL_BASE:-HEAD}
		note "creating branch $SERIES_BRANCH at $start in $KTREE"
		git -C "$KTREE" update-ref "$BASE_REF" "$(git -C "$KTREE" rev-parse "$start^{commit}")"
		git -C "$KTREE" checkout -q -b "$SERIES_BRANCH" "$BASE_REF"
		rm -f "$(git -C "$KTREE" rev-parse --git-dir)/irq-series.applied"
	fi
	APPLIED=$(cd "$KTREE" && realpath "$(git rev-parse --git-dir)")/irq-series.applied
fi

git -C "$KTREE" rev-parse -q --verify "$BASE_REF" >/dev/null ||
	die "$KTREE has no $BASE_REF; cannot tell where the series starts"
[ "$(git -C "$KTREE" symbolic-ref --short HEAD 2>/dev/null)" = "$SERIES_BRANCH" ] ||
	git -C "$KTREE" checkout -q "$SERIES_BRANCH"
git -C "$KTREE" diff --quiet HEAD -- || die "$KTREE has uncommitted changes; commit them (then 'make export') or stash them"

BASE_TAG=$BASE_REF
want=$(series_ids)
cur=$(tree_ids)
if [ "$cur" = "$want" ]; then
	note "$KTREE is up to date with series ($(echo "$want" | grep -c . || true) patches)"
	exit 0
fi
if [ -n "$cur" ] && [ "$cur" != "$(cat "$APPLIED" 2>/dev/null)" ] && [ "${FORCE:-0}" != 1 ]; then
	git -C "$KTREE" log --oneline "$BASE_REF..HEAD" >&2
	die "$KTREE has commits that are not in patches/ (above). Run 'make export' to keep them, or FORCE=1 to drop them"
fi

note "applying series onto $(git -C "$KTREE" log -1 --format='%h %s' "$BASE_REF")"
kgit reset -q --hard "$BASE_REF"
: >"$APPLIED"
series_files | while read -r p; do
	if ! kgit am -q --keep-cr "$p"; then
		kgit am --abort || true
		die "git am failed on $(basename "$p"): the series does not apply to this base"
	fi
	echo "  applied $(basename "$p")" >&2
done
tree_ids >"$APPLIED"
note "done: $(git -C "$KTREE" log --oneline "$BASE_REF..HEAD" | wc -l) patches on $SERIES_BRANCH"
