#!/bin/bash
# The series as it is mailed: the patches of patches/, in series order,
# with the sender as their author (From:) and the sender's Signed-off-by
# as their only one and last tag.  git makes them: git am onto the base in
# a worktree ($BUILD/mails-wt, branch mails/irq-series), each commit's
# author reset to the sender and signed off by them, git format-patch.
# make send mails exactly these; make check runs checkpatch and the
# format check on them.
#
#   ci/mails.sh OUTDIR [NAME EMAIL]
#
# NAME and EMAIL default to the sender make send would use
# (sender_identity in ci/lib.sh); without one, checks use a stand-in.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=${1:?usage: ci/mails.sh OUTDIR [NAME EMAIL]}
if [ $# -ge 3 ]; then
	name=$2 email=$3
else
	sender_identity
	name=$SENDER_NAME email=$SENDER_EMAIL
	[ "$SENDER_PLACEHOLDER" = 0 ] || name="A. Sender" email=a.sender@example.com
fi
BASE_REF=refs/irq-series/base
wt=$BUILD/mails-wt
git -C "$KTREE" worktree prune
[ -d "$wt" ] || git -C "$KTREE" worktree add -q --detach "$wt" "$BASE_REF"
mapfile -t files < <(series_files)
rm -rf "$out"; mkdir -p "$out"
(
	export GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0="$name" \
		GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1="$email"
	cd "$wt"
	git am --abort >/dev/null 2>&1 || true
	git checkout -q -B mails/irq-series "$BASE_REF"
	git am -q "${files[@]}" >"$out/git-am.log" 2>&1 || { git am --abort; exit 1; }
	git rebase -q --exec 'git commit -q --amend --no-edit --reset-author --signoff' "$BASE_REF" \
		>"$out/rebase.log" 2>&1
	git format-patch -q -o "$out" "$BASE_REF..HEAD"
) || die "ci/mails.sh: the series does not apply to the base, or re-signing it failed ($out)"
n=$(ls "$out"/[0-9]*.patch | wc -l)
[ "$n" = "${#files[@]}" ] || die "ci/mails.sh: $n mails for ${#files[@]} patches"
note "mails: $n in $out, from and signed off by $name <$email>"
