#!/bin/bash
# Prepare the series for mailing: format-patch with a cover letter (from
# cover-letter.txt, with the latest bench table) and base information, To/Cc
# from get_maintainer.pl, and a 'git send-email --dry-run'.  Nothing is
# sent unless SEND=1 is given explicitly; then git send-email asks again.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

BASE_REF=refs/irq-series/base
out=${MAIL_DIR:-$BUILD/mail}
rm -rf "$out"; mkdir -p "$out"
base=$(git -C "$KTREE" rev-parse "$BASE_REF")
kgit format-patch -q --cover-letter --thread --base="$base" \
	--subject-prefix="${SUBJECT_PREFIX:-PATCH}" -o "$out" "$BASE_REF..HEAD"

# Fill the cover letter: subject line, body, the bench table if one exists.
cover=$(ls "$out"/0000-cover-letter.patch)
bench="(run 'make bench' for the tables)"
if [ -s "$BUILD/bench/nvme.csv" ] || [ -s "$BUILD/bench/irq-round-trip.csv" ]; then
	bench=
	[ -s "$BUILD/bench/nvme.csv" ] && bench+="NVMe fio 4k randread, 4 vCPUs, per-vCPU queues (percpu) and one
shared queue (swamp); victim = busy loop on the interrupt's CPU:
$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ printf "  %-7s %-18s IOPS %6d (%.2fx hard)  victim %5.1f%%\n", $1, $2, $c["iops"],
		$c["iops_ratio_to_hard"], $c["victim_pct"] }' "$BUILD/bench/nvme.csv")
"
	[ -s "$BUILD/bench/irq-round-trip.csv" ] && bench+="Interrupt round trip on a fake chip:
$(awk -F, '{ printf "  %-10s %-11s %-11s %s\n", $1, $2, $3, $4 }' "$BUILD/bench/irq-round-trip.csv")"
fi
python3 - "$cover" "$TOP/cover-letter.txt" "$bench" <<'PY'
import sys
cover, tmpl, bench = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(cover).read()
subject, _, body = open(tmpl).read().partition("\n\n")
body = body.replace("@BENCH@", bench)
text = text.replace("*** SUBJECT HERE ***", subject.strip())
text = text.replace("*** BLURB HERE ***", body.rstrip())
open(cover, "w").write(text)
PY

# Recipients: maintainers and reviewers To, lists Cc, for the whole series.
gm=(./scripts/get_maintainer.pl --nogit --nogit-fallback --no-rolestats --norolestats)
mapfile -t pf < <(ls "$out"/[0-9]*.patch | grep -v '/0000-cover-letter.patch$')
to=$(cd "$KTREE" && "${gm[@]}" --m --r --nol "${pf[@]}" | grep @ | sort -u | paste -sd, -)
cc=$(cd "$KTREE" && "${gm[@]}" --nom --nor --l "${pf[@]}" | grep @ | sort -u | paste -sd, -)
echo "To: $to" >"$out/recipients.txt"
echo "Cc: $cc" >>"$out/recipients.txt"

args=(--no-signed-off-by-cc --suppress-cc=self --to="$to" --cc="$cc"
	--from="$PROJECT_NAME <$PROJECT_EMAIL>" --confirm=always)
if [ "${SEND:-0}" = 1 ]; then
	note "SEND=1: git send-email will now send $(ls "$out"/*.patch | wc -l) mails"
	git send-email "${args[@]}" "$out"/*.patch
else
	git send-email --dry-run "${args[@]}" --smtp-server=/bin/false "$out"/*.patch \
		>"$out/dry-run.txt" 2>&1 || { cat "$out/dry-run.txt"; die "git send-email --dry-run failed"; }
	echo "Mails in $out ($(ls "$out"/*.patch | wc -l) files), recipients in $out/recipients.txt,"
	echo "dry run in $out/dry-run.txt. Nothing was sent: 'make send SEND=1' sends."
fi
