#!/bin/bash
# Prepare the series for mailing: one mail series per target tree (the
# file 'trees': genirq to tip, nvme, net, net-next, iwl-next), each in
# $BUILD/mail/TREE/ with its own cover letter (cover-letters/TREE.txt),
# To/Cc from get_maintainer.pl for its patches, and what it is based on,
# two ways:
#
#   b4          a b4 prep branch b4/TREE (in the worktree $BUILD/b4),
#               enrolled on the base with the trees it needs applied, the
#               cover letter in the branch description, b4 prep
#               --auto-to-cc, and 'b4 send -o $BUILD/mail/TREE/b4' (writes
#               the mails, sends nothing).  To send: cd $BUILD/b4 &&
#               git checkout b4/TREE && b4 send.
#   send-email  git format-patch with the cover letter in
#               $BUILD/mail/TREE, 'git send-email --dry-run'.  SEND=1
#               really sends every tree's set (git send-email asks for
#               each mail); SEND_TREES="net" sends only those trees.
#
# The mails are the patches as ci/mails.sh makes them: the sender is the
# author of every mail and its only Signed-off-by.  genirq and nvme are
# version $SERIES_VERSION ([PATCH v5 n/m]); sched is a first posting
# ([PATCH 0/1]); net, net-next and iwl-next are first postings with
# netdev's tree tags ([PATCH net n/m]).  Each
# says what it is based on: Debian's linux-source-7.3 is mainline 7.3.4
# with Debian's patches; a KERNEL_SRC tree gives its base commit
# (base-commit:, and prerequisite-patch-id: for the trees it needs).
# Nothing is mailed by a test.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_deps send || exit 1

BASE_REF=refs/irq-series/base
SERIES_VERSION=${SERIES_VERSION:-5}
out=${MAIL_DIR:-$BUILD/mail}
rm -rf "$out"; mkdir -p "$out"
# The sender: the person who mails the series (sender_identity, ci/lib.sh)
# is the author of record of every mail and its only Signed-off-by
# (ci/mails.sh); the patches carry the Assisted-by tag of
# Documentation/process/coding-assistants.rst and no sign-off of their
# own.  See docs/mailing.md for what the sender certifies.
sender_identity
placeholder=$SENDER_PLACEHOLDER
refusal="the sender is the placeholder '$PLACEHOLDER_NAME <$PLACEHOLDER_EMAIL>', which no maintainer applies a patch from: set your own with 'git config --global user.name \"Your Name\"' and 'git config --global user.email you@example.com', or make send PROJECT_NAME=\"Your Name\" PROJECT_EMAIL=you@example.com"
if [ "$placeholder" = 1 ] && [ "${SEND:-0}" = 1 ]; then
	die "refusing to send: $refusal"
fi
# The sender's identity for every git (and b4) command below, without
# touching the config of a user's tree.
export GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0="$SENDER_NAME" \
	GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1="$SENDER_EMAIL"

"$TOP/ci/trees.sh" >"$out/trees.log" 2>&1 || { cat "$out/trees.log"; die "the trees do not apply as 'trees' says"; }
if [ -z "${KERNEL_SRC:-}" ]; then
	based_on="Based on Linux 7.3.4 as Debian packages it ($BASE_PKG
$(cat "$BASE_TARBALL.version" 2>/dev/null || echo "$BASE_VERSION"): mainline 7.3.4 plus Debian's patches)"
	base_opt=()
else
	based_on="Based on $(git -C "$KTREE" describe --tags --always "$BASE_REF" 2>/dev/null || git -C "$KTREE" rev-parse --short "$BASE_REF")"
	base_opt=(--base="$(git -C "$KTREE" rev-parse "$BASE_REF")")
fi

# The series re-authored and signed off by the sender (branch
# mails/irq-series in ci/mails.sh's worktree), and each patch's commit.
"$TOP/ci/mails.sh" "$out/.mails" "$SENDER_NAME" "$SENDER_EMAIL" >/dev/null
rm -rf "$out/.mails"
wt=$BUILD/mails-wt
mapfile -t names < <(series_files | xargs -n1 basename)
mapfile -t commits < <(git -C "$wt" rev-list --reverse "$BASE_REF..mails/irq-series")
[ ${#names[@]} = ${#commits[@]} ] || die "mails/irq-series has ${#commits[@]} commits for ${#names[@]} patches"
declare -A commit_of
for i in "${!names[@]}"; do commit_of[${names[$i]}]=${commits[$i]}; done

# (get_maintainer's git lookups of Fixes: commits fail on a tarball base:
# its stderr goes to a log)
gm=(./scripts/get_maintainer.pl --nogit --nogit-fallback --no-rolestats --norolestats)
b4wt=$BUILD/b4
git -C "$KTREE" worktree prune
[ -d "$b4wt" ] || git -C "$KTREE" worktree add -q --detach "$b4wt" "$BASE_REF"
summary=()
for t in $("$TOP/ci/trees.sh" names); do
	d=$out/$t
	mkdir -p "$d"
	mapfile -t needs < <("$TOP/ci/trees.sh" needs "$t")
	mapfile -t mine < <("$TOP/ci/trees.sh" files "$t" | xargs -n1 basename)
	case $t in
	net | net-next | iwl-next) prefix="PATCH $t" ;;
	sched) prefix="PATCH" ;;
	*) prefix="PATCH v$SERIES_VERSION" ;;
	esac
	# The tree's branch: the base, the trees it needs, then its patches
	(
		cd "$wt"
		git checkout -q --detach "$BASE_REF" || exit 1
		for u in "${needs[@]}"; do
			for f in $("$TOP/ci/trees.sh" files "$u" | xargs -n1 basename); do
				git cherry-pick "${commit_of[$f]}" >/dev/null || exit 1
			done
		done
		git tag -f "mails/$t-fork" >/dev/null
		for f in "${mine[@]}"; do git cherry-pick "${commit_of[$f]}" >/dev/null || exit 1; done
		git branch -f "mails/$t" HEAD
	) || die "tree $t: the patches do not cherry-pick onto the base and ${needs[*]:-nothing}"
	fork=$(git -C "$wt" rev-parse "mails/$t-fork")
	head=$(git -C "$wt" rev-parse "mails/$t")

	# Its cover letter: at most about 150 lines, what it is based on
	cl=$TOP/cover-letters/$t.txt
	[ -f "$cl" ] || die "no cover letter $cl"
	[ "$(wc -l <"$cl")" -le 150 ] || die "$cl has $(wc -l <"$cl") lines (at most 150)"
	base_text="$based_on"
	[ ${#needs[@]} = 0 ] || base_text+=", with the series of $(printf '%s, ' "${needs[@]}" | sed 's/, $//') applied first (see the merge plan)"
	python3 - "$cl" "$base_text." "${PROJECT_URL:-}" >"$d/cover.txt" <<'PY'
import sys
tmpl, based_on, url = sys.argv[1:4]
text = open(tmpl).read().replace("@BASE@", based_on)
text = text.replace("@PROJECT@\n", "The project (tests, VM scenarios, tables): %s\n" % url if url else "")
sys.stdout.write(text.rstrip() + "\n")
PY
	subject=$(head -1 "$d/cover.txt")
	body=$(tail -n +3 "$d/cover.txt")

	git -C "$wt" format-patch -q --cover-letter --thread "${base_opt[@]}" \
		--subject-prefix="$prefix" -o "$d" "$fork..$head"
	mapfile -t pf < <(ls "$d"/[0-9]*.patch | grep -v '/0000-cover-letter.patch$')
	[ ${#pf[@]} = ${#mine[@]} ] || die "tree $t: ${#pf[@]} mails for ${#mine[@]} patches"
	python3 - "$d/0000-cover-letter.patch" "$subject" "$body" <<'PY'
import sys
cover, subject, body = sys.argv[1:4]
text = open(cover).read()
text = text.replace("*** SUBJECT HERE ***", subject).replace("*** BLURB HERE ***", body)
open(cover, "w").write(text)
PY
	grep -q "^Subject: \[$prefix 0*0/${#pf[@]}\]" "$d/0000-cover-letter.patch" ||
		die "tree $t: the cover letter's subject is not [$prefix 0/${#pf[@]}]"
	to=$(cd "$KTREE" && "${gm[@]}" --m --r --nol "${pf[@]}" 2>>"$d/get_maintainer.log" | grep @ | sort -u | paste -sd, -)
	cc=$(cd "$KTREE" && "${gm[@]}" --nom --nor --l "${pf[@]}" 2>>"$d/get_maintainer.log" | grep @ | sort -u | paste -sd, -)
	printf 'To: %s\nCc: %s\n' "$to" "$cc" >"$d/recipients.txt"

	# Every mail is from the sender, whose Signed-off-by is its only one;
	# git am of the mails onto the base and the trees it needs gives the
	# tree's branch.
	"$TOP/ci/series-format.py" --mail "${pf[@]}" >"$d/format.txt" 2>&1 ||
		{ cat "$d/format.txt"; die "tree $t: the mails are not from and signed off by the sender only"; }
	(
		cd "$wt"
		git checkout -q --detach "$fork"
		git am -q "${pf[@]}" >"$d/git-am.log" 2>&1 || { git am --abort; exit 1; }
		[ "$(git rev-parse 'HEAD^{tree}')" = "$(git rev-parse "$head^{tree}")" ]
	) || die "tree $t: git am of its mails onto the base and ${needs[*]:-nothing} failed or gave another tree ($d/git-am.log)"

	args=(--no-signed-off-by-cc --suppress-cc=self --to="$to" --cc="$cc"
		--from="$SENDER_NAME <$SENDER_EMAIL>" --confirm=always)
	if [ "${SEND:-0}" = 1 ]; then
		if [ -z "${SEND_TREES:-}" ] || [[ " $SEND_TREES " == *" $t "* ]]; then
			note "SEND=1: git send-email will now send the $((${#pf[@]} + 1)) mails of tree $t"
			git send-email "${args[@]}" "$d"/*.patch
		fi
		continue
	fi
	git send-email --dry-run "${args[@]}" --smtp-server=/bin/false "$d"/*.patch \
		>"$d/dry-run.txt" 2>&1 || { cat "$d/dry-run.txt"; die "tree $t: git send-email --dry-run failed"; }

	# b4: a prep branch enrolled on the fork point, the mails written out
	(
		# b4 0.12 picks its web endpoint unless an SMTP server is
		# configured: a server that cannot send, for 'b4 send -o'.
		export GIT_CONFIG_COUNT=3 GIT_CONFIG_KEY_2=sendemail.smtpserver GIT_CONFIG_VALUE_2=/bin/false
		cd "$b4wt"
		git checkout -q -B "b4/$t" "$head"
		git config b4.prep-cover-strategy branch-description
		# Enrolling again starts the series anew.
		git config --remove-section "branch.b4/$t" 2>/dev/null || true
		# b4 wants a branch name for a fork point that other branches hold
		git branch -f "b4/$t-base" "$fork"
		b4 prep -e "b4/$t-base" >"$d/b4-prep.log" 2>&1
		git config "branch.b4/$t.description" "$(cat "$d/cover.txt")"
		case $t in
		net | net-next | iwl-next)
			b4 prep --set-prefixes "$t" >>"$d/b4-prep.log" 2>&1 ;;
		sched) ;;
		*) b4 prep --force-revision "$SERIES_VERSION" >>"$d/b4-prep.log" 2>&1 ;;
		esac
		b4 prep --auto-to-cc >>"$d/b4-prep.log" 2>&1
		b4 send -o "$d/b4" --no-sign >>"$d/b4-send.log" 2>&1
	) || { cat "$d"/b4-*.log >&2; die "tree $t: b4 prep/send -o failed (logs in $d)"; }
	# b4 0.12 writes base-commit as the fork point's parent, which the
	# Debian base (a root commit) does not have: the cover letter says the
	# base in words.
	sed -i '/^base-commit: /d' "$d"/b4/*.eml
	grep -q "^Subject: \[$prefix 0*0/${#pf[@]}\]" "$d"/b4/0000-*.eml ||
		die "tree $t: b4's cover letter subject is not [$prefix 0/${#pf[@]}]"
	n=$(ls "$d"/b4/*.eml | wc -l)
	[ "$n" = $((${#pf[@]} + 1)) ] || die "tree $t: b4 wrote $n mails, want $((${#pf[@]} + 1))"
	for m in "$d"/b4/0[0-9][0-9][1-9]-*.eml; do
		[ "$(grep -c '^Signed-off-by: ' "$m")" = 1 ] && grep -qxF "Signed-off-by: $SENDER_NAME <$SENDER_EMAIL>" "$m" ||
			die "$m: the sender's Signed-off-by is not its only one"
	done
	summary+=("$(printf '%-9s %-18s [%s] %2d patches + cover (%d lines)%s' "$t" "$("$TOP/ci/trees.sh" target "$t")" \
		"$prefix" ${#pf[@]} "$(wc -l <"$cl")" "${needs[*]:+, after ${needs[*]}}")")
done
git -C "$wt" checkout -q --detach "$BASE_REF"

[ "${SEND:-0}" = 1 ] && exit 0
echo "Mail series per tree in $out/TREE ($based_on):"
printf '  %s\n' "${summary[@]}"
echo "sender:     $SENDER_NAME <$SENDER_EMAIL> (From: and the only Signed-off-by of every mail; git am of each"
echo "            set onto the base and the trees it needs gives its branch)"
echo "b4:         $out/TREE/b4 (b4 send -o: nothing sent); to send: cd $b4wt && git checkout b4/TREE && b4 send"
echo "send-email: $out/TREE/*.patch, dry runs in $out/TREE/dry-run.txt, recipients in $out/TREE/recipients.txt."
echo "            Nothing was sent: 'make send SEND=1' sends every set, SEND_TREES=\"net\" only those."
[ "$placeholder" = 0 ] || echo "NOTE:       'make send SEND=1' would refuse: $refusal"
