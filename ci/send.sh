#!/bin/bash
# Prepare version $SERIES_VERSION of the series for mailing, two ways:
#
#   b4          a b4 prep branch (b4/irq-series, in the worktree $BUILD/b4)
#               with the cover letter from cover-letter.txt, To/Cc from
#               get_maintainer.pl (b4 prep --auto-to-cc), and
#               'b4 send -o $BUILD/mail/b4' (writes the mails, sends
#               nothing).  Sending for real: cd $BUILD/b4 && b4 send.
#   send-email  git format-patch with a cover letter and the same
#               recipients in $BUILD/mail, and 'git send-email --dry-run'.
#               SEND=1 really sends (git send-email asks again).
#
# Both say what the series is based on: Debian's linux-source-7.3 is
# mainline 7.3.4 with Debian's patches; a KERNEL_SRC tree gives its own
# base commit (base-commit: for the bots).  Nothing is mailed by a test.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_deps send || exit 1

BASE_REF=refs/irq-series/base
SERIES_VERSION=${SERIES_VERSION:-2}
PREFIX="PATCH${SERIES_VERSION:+ v$SERIES_VERSION}"
[ "$SERIES_VERSION" != 1 ] || PREFIX=PATCH
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

if [ -z "${KERNEL_SRC:-}" ]; then
	based_on="Based on Linux 7.3.4 as Debian packages it ($BASE_PKG
$(cat "$BASE_TARBALL.version" 2>/dev/null || echo "$BASE_VERSION"): mainline 7.3.4 plus Debian's patches)."
	base_opt=()
else
	based_on="Based on $(git -C "$KTREE" describe --tags --always "$BASE_REF" 2>/dev/null || git -C "$KTREE" rev-parse --short "$BASE_REF")."
	base_opt=(--base="$(git -C "$KTREE" rev-parse "$BASE_REF")")
fi

# The cover letter: subject, body with the bench tables and the base.
bench="(run 'make bench' for the tables)"
if [ -s "$BUILD/bench/nvme.csv" ] || [ -s "$BUILD/bench/irq-round-trip.csv" ] || [ -s "$BUILD/bench/swamp.csv" ]; then
	bench=
	[ -s "$BUILD/bench/swamp.csv" ] && bench+="Swamp model (bench patches, not in this series): a device with a latency
behind a masking MSI-X-like chip, nvme-pci's primary handler (budget 64)
and a thread that drains, on 2 vCPUs; C/E is the cost of a completion
over that of an interrupt entry. L1: submitters on the interrupt's CPU,
the other idle; L2: submitters on both; L3: queue depth 1. The masked
hybrid with placement (patch 24, hyb-move) against hard irq and against
the same hybrid with the thread pinned (hyb-pin): geometric mean of the
per-round ratio over 10 shuffled rounds, paired bootstrap 95% interval;
the share of the thread's completions on the interrupt's CPU, and the
longest hard irq run of hyb-move:
$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$3 == "hyb-move" && $1 != "L1hog" { printf "  %-3s C/E %-4s %5.2fx hard (%4.2f-%4.2f)  %5.2fx hyb-pin (%4.2f-%4.2f)  on the irq CPU %5.1f%%  hard irq <= %5.1f ms\n",
		$1, $2, $c["to_hard"], $c["to_hard_lo"], $c["to_hard_hi"], $c["to_hyb_pin"], $c["to_hyb_pin_lo"], $c["to_hyb_pin_hi"],
		$c["thread_on_irqcpu_pct"], $c["max_hard_ms"] }' "$BUILD/bench/swamp.csv")
"
	[ -s "$BUILD/bench/nvme.csv" ] && bench+="NVMe fio 4k randread, 4 vCPUs, per-vCPU queues (percpu) and one
shared queue (swamp); victim = busy loop on the interrupt's CPU:
$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ printf "  %-7s %-18s IOPS %6d (%.2fx hard)  victim %5.1f%%\n", $1, $2, $c["iops"],
		$c["iops_ratio_to_hard"], $c["victim_pct"] }' "$BUILD/bench/nvme.csv")
"
	[ -s "$BUILD/bench/irq-round-trip.csv" ] && bench+="Interrupt round trip on a fake chip:
$(awk -F, '{ printf "  %-10s %-11s %-11s %s\n", $1, $2, $3, $4 }' "$BUILD/bench/irq-round-trip.csv")"
fi
python3 - "$TOP/cover-letter.txt" "$bench" "$based_on" >"$out/cover.txt" <<'PY'
import sys
tmpl, bench, based_on = sys.argv[1:4]
text = open(tmpl).read().replace("@BENCH@", bench).replace("@BASE@", based_on)
sys.stdout.write(text.rstrip() + "\n")
PY
subject=$(head -1 "$out/cover.txt")
body=$(tail -n +3 "$out/cover.txt")

# The mails: the series re-authored and signed off by the sender in
# ci/mails.sh's worktree, with format-patch's cover letter and threading.
"$TOP/ci/mails.sh" "$out/.mails" "$SENDER_NAME" "$SENDER_EMAIL" >/dev/null
head=$(git -C "$KTREE" rev-parse mails/irq-series)
rm -rf "$out/.mails"
git -C "$BUILD/mails-wt" format-patch -q --cover-letter --thread "${base_opt[@]}" \
	--subject-prefix="$PREFIX" -o "$out" "$BASE_REF..$head"
# Recipients: maintainers and reviewers To, lists Cc, for the whole series.
# (its git lookups of Fixes: commits fail on a tarball base: stderr to a log)
gm=(./scripts/get_maintainer.pl --nogit --nogit-fallback --no-rolestats --norolestats)
mapfile -t pf < <(ls "$out"/[0-9]*.patch | grep -v '/0000-cover-letter.patch$')
to=$(cd "$KTREE" && "${gm[@]}" --m --r --nol "${pf[@]}" 2>>"$out/get_maintainer.log" | grep @ | sort -u | paste -sd, -)
cc=$(cd "$KTREE" && "${gm[@]}" --nom --nor --l "${pf[@]}" 2>>"$out/get_maintainer.log" | grep @ | sort -u | paste -sd, -)
echo "To: $to" >"$out/recipients.txt"
echo "Cc: $cc" >>"$out/recipients.txt"

# 1. git send-email: fill format-patch's cover letter.
cover=$out/0000-cover-letter.patch
python3 - "$cover" "$subject" "$body" <<'PY'
import sys
cover, subject, body = sys.argv[1:4]
text = open(cover).read()
text = text.replace("*** SUBJECT HERE ***", subject).replace("*** BLURB HERE ***", body)
open(cover, "w").write(text)
PY
grep -q "^Subject: \[$PREFIX 00/" "$cover" || die "cover letter subject is not [$PREFIX 00/..]"
args=(--no-signed-off-by-cc --suppress-cc=self --to="$to" --cc="$cc"
	--from="$SENDER_NAME <$SENDER_EMAIL>" --confirm=always)
if [ "${SEND:-0}" = 1 ]; then
	note "SEND=1: git send-email will now send $(ls "$out"/*.patch | wc -l) mails"
	git send-email "${args[@]}" "$out"/*.patch
	exit 0
fi
git send-email --dry-run "${args[@]}" --smtp-server=/bin/false "$out"/*.patch \
	>"$out/dry-run.txt" 2>&1 || { cat "$out/dry-run.txt"; die "git send-email --dry-run failed"; }

# 2. b4: a prep branch in its own worktree, the cover letter in the
# branch description, the mails written out by 'b4 send -o'.
wt=$BUILD/b4
git -C "$KTREE" worktree prune
[ -d "$wt" ] || git -C "$KTREE" worktree add -q --detach "$wt" HEAD
(
	# b4 0.12 picks its web endpoint unless an SMTP server is configured:
	# a server that cannot send, for 'b4 send -o'.
	export GIT_CONFIG_COUNT=3 GIT_CONFIG_KEY_2=sendemail.smtpserver GIT_CONFIG_VALUE_2=/bin/false
	cd "$wt"
	git checkout -q -B b4/irq-series "$head"
	git branch -f b4/base "$BASE_REF"
	git config b4.prep-cover-strategy branch-description
	# Enrolling again starts the series anew: the revision is forced below.
	git config --remove-section "branch.b4/irq-series" 2>/dev/null || true
	b4 prep -e b4/base >"$out/b4-prep.log" 2>&1
	git config "branch.b4/irq-series.description" "$(cat "$out/cover.txt")"
	b4 prep --force-revision "$SERIES_VERSION" >>"$out/b4-prep.log" 2>&1
	b4 prep --auto-to-cc >>"$out/b4-prep.log" 2>&1
	b4 send -o "$out/b4" --no-sign >>"$out/b4-send.log" 2>&1
) || { cat "$out"/b4-*.log >&2; die "b4 prep/send -o failed (logs in $out)"; }
# b4 0.12 writes base-commit as the fork point's parent, which the Debian
# base (a root commit) does not have: say the base in words instead.
sed -i '/^base-commit: /d' "$out"/b4/*.eml
n=$(ls "$out"/b4/*.eml | wc -l)
want=$((${#pf[@]} + 1))
[ "$n" = "$want" ] || die "b4 wrote $n mails, want $want"
grep -q "^Subject: \[$PREFIX 00/${#pf[@]}\]" "$out"/b4/0000-*.eml ||
	die "b4's cover letter subject is not [$PREFIX 00/${#pf[@]}]"

# Every mail is from the sender, whose Signed-off-by is its only one.
"$TOP/ci/series-format.py" --mail "${pf[@]}" >"$out/format.txt" 2>&1 ||
	{ cat "$out/format.txt"; die "the mails in $out are not from and signed off by the sender only"; }
for m in "$out"/b4/0[0-9][0-9][1-9]-*.eml; do
	[ "$(grep -c '^Signed-off-by: ' "$m")" = 1 ] && grep -qxF "Signed-off-by: $SENDER_NAME <$SENDER_EMAIL>" "$m" ||
		die "$m: the sender's Signed-off-by is not its only one"
done
# The mails apply with git am to the base and give the series' tree.
(
	cd "$wt"
	git checkout -q --detach b4/base
	git am -q "${pf[@]}" >"$out/git-am.log" 2>&1 || { git am --abort; exit 1; }
	rc=0
	[ "$(git rev-parse 'HEAD^{tree}')" = "$(git -C "$KTREE" rev-parse 'HEAD^{tree}')" ] || rc=1
	git checkout -q b4/irq-series
	exit $rc
) || die "git am of the mails in $out onto the base failed or gave another tree ($out/git-am.log)"

echo "Series v$SERIES_VERSION, ${#pf[@]} patches + cover letter; $based_on" | head -1
echo "sender:     $SENDER_NAME <$SENDER_EMAIL> (From: and the only Signed-off-by of every mail; git am onto the base gives the series' tree)"
echo "b4:         $n mails in $out/b4 (b4 send -o: nothing sent); to send: cd $wt && b4 send"
echo "send-email: $(ls "$out"/*.patch | wc -l) files in $out, dry run in $out/dry-run.txt;"
echo "            recipients in $out/recipients.txt. Nothing was sent: 'make send SEND=1' sends."
[ "$placeholder" = 0 ] || echo "NOTE:       'make send SEND=1' would refuse: $refusal"
