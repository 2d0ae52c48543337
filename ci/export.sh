#!/bin/bash
# Regenerate patches/*.patch and series from the kernel tree's commits on top
# of the base.  Patches are edited as commits in the tree (rebase, amend,
# fixup); this script is the only writer of patches/ and series.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

BASE_REF=refs/irq-series/base
git -C "$KTREE" rev-parse -q --verify "$BASE_REF" >/dev/null || die "$KTREE has no $BASE_REF: run 'make tree' first"
git -C "$KTREE" diff --quiet HEAD -- || die "$KTREE has uncommitted changes: commit them first"
n=$(git -C "$KTREE" rev-list --count "$BASE_REF..HEAD")
[ "$n" -gt 0 ] || die "no commits on top of the base in $KTREE"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# --zero-commit and --no-signature keep the files stable across rebases and
# git versions, so a regenerated series only differs where a patch did.
git -C "$KTREE" format-patch -q --zero-commit --no-signature -N -o "$tmp" "$BASE_REF..HEAD"
find "$TOP/patches" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' -delete
cp "$tmp"/*.patch "$TOP/patches/"
{
	echo "# Apply in this order: git am, quilt and git quiltimport read this file."
	(cd "$tmp" && ls ./*.patch | sed 's|^\./||')
} >"$TOP/series"

# Record what the tree now holds, so that 'make tree' knows it is in sync.
if [ -z "${KERNEL_SRC:-}" ]; then APPLIED=$BUILD/applied.ids
else APPLIED=$(cd "$KTREE" && realpath "$(git rev-parse --git-dir)")/irq-series.applied; fi
BASE_TAG=$BASE_REF tree_ids >"$APPLIED"
note "exported $n patches to patches/ and series"
git -C "$TOP" status --short -- patches series
