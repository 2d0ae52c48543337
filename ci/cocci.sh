#!/bin/bash
# Coccinelle: every semantic patch of scripts/coccinelle in report mode (what
# 'make coccicheck MODE=report' runs, with each script's "Options:" line) on
# the C files the series touches, as they are at the top of the series and
# at the base.  A report that is new at the top fails the first patch after
# which it shows up.  Files are copied out of git into a scratch directory and spatch
# runs with --dir on it: no checkout, no object tree, and only the touched
# files are parsed (coccicheck M=<dir> parses whole directories: ~8 min here
# against ~2 for the files alone).
#
#   ci/cocci.sh                 results in $BUILD/check/cocci.result
#   COCCI_SCRIPTS="free/ifnullfree.cocci"   only these (relative to
#                               scripts/coccinelle; used by test-checks)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

BASE_REF=refs/irq-series/base
command -v spatch >/dev/null || die "spatch missing: run 'make deps' (coccinelle)"
git -C "$KTREE" rev-parse -q --verify "$BASE_REF" >/dev/null || die "no $BASE_REF in $KTREE: run 'make tree'"
mapfile -t commits < <(git -C "$KTREE" rev-list --reverse "$BASE_REF..HEAD")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
logdir=$BUILD/check/cocci
mkdir -p "$logdir"; : >"$logdir/spatch.err"

files=$(for c in "${commits[@]}"; do git -C "$KTREE" show --format= --name-only "$c"; done |
	grep -E '\.c$' | grep -vE '^(tools|Documentation|scripts)/' | sort -u)
if [ -n "${COCCI_SCRIPTS:-}" ]; then
	scripts=$(for s in $COCCI_SCRIPTS; do echo "$KTREE/scripts/coccinelle/$s"; done)
else
	scripts=$(find "$KTREE/scripts/coccinelle" -name '*.cocci' -type f | sort)
fi
for s in $scripts; do [ -f "$s" ] || die "no such semantic patch: $s"; done

# report REV LOG [FILE]: normalised reports "script|file: message" (file
# relative to the tree, no line or column numbers) of all scripts on the
# touched files (or only FILE) as they are at REV.
report() {
	local rev=$1 log=$2 only=${3:-} d s opt f
	d=$(mktemp -d "$tmp/rev.XXXX")
	for f in ${only:-$files}; do
		mkdir -p "$d/$(dirname "$f")"
		git -C "$KTREE" show "$rev:$f" >"$d/$f" 2>/dev/null || rm -f "$d/$f"
	done
	: >"$log"
	for s in ${SCRIPTS_NOW:-$scripts}; do
		opt=$(grep "Options:" "$s" | cut -d: -f2)
		# shellcheck disable=SC2086 # word splitting of the options intended
		spatch -D report --no-show-diff --very-quiet --cocci-file "$s" $opt \
			--dir "$d" -I "$KTREE/include" -I "$KTREE/arch/x86/include" \
			-I "$KTREE/include/uapi" -I "$KTREE/arch/x86/include/uapi" \
			--jobs "$JOBS" --chunksize 1 >"$tmp/out" 2>>"$logdir/spatch.err" ||
			echo "spatch failed" >>"$tmp/out"
		grep -E '^[^ ]+\.[ch]:[0-9]+|^spatch failed' "$tmp/out" | sed -e "s|^$d/||" |
			sed -E 's/:[0-9]+(:[0-9]+(-[0-9]+)?)?:/:/' |
			sed "s|^|${s#"$KTREE/scripts/coccinelle/"}\||" >>"$log"
	done
	sort -u -o "$log" "$log"
}

report "$(git -C "$KTREE" rev-parse HEAD)" "$logdir/head"
# The base only matters for the files with reports at the top.
: >"$logdir/base"
hfiles=$(cut -d'|' -f2 "$logdir/head" | cut -d: -f1 | grep -E '\.c$' | sort -u)
if [ -n "$hfiles" ]; then
	SCRIPTS_NOW=$(cut -d'|' -f1 "$logdir/head" | sort -u | sed "s|^|$KTREE/scripts/coccinelle/|") \
		report "$(git -C "$KTREE" rev-parse "$BASE_REF")" "$logdir/base" "$hfiles"
fi
new=$(comm -13 "$logdir/base" "$logdir/head")

: >"$BUILD/check/cocci.result"
# Blame each new report on the first patch after which it shows up: walk
# the patches touching its file, running only its script on only that file.
declare -A blamed
while IFS= read -r r; do
	[ -n "$r" ] || continue
	s=${r%%|*} rest=${r#*|}; f=${rest%%:*}
	case $rest in "spatch failed"*) continue ;; esac
	n=0
	for c in "${commits[@]}"; do
		n=$((n + 1))
		git -C "$KTREE" show --format= --name-only "$c" | grep -qxF "$f" || continue
		SCRIPTS_NOW="$KTREE/scripts/coccinelle/$s" report "$c" "$tmp/one" "$f"
		if grep -qxF "$r" "$tmp/one"; then blamed[$n]+="$r"$'\n'; break; fi
	done
done <<<"$new"

bad=0 n=0
for c in "${commits[@]}"; do
	n=$((n + 1))
	if [ -n "${blamed[$n]:-}" ]; then
		patch_result "$BUILD/check/cocci.result" $n "$c" FAIL "${blamed[$n]}"; bad=$((bad + 1))
	else
		patch_result "$BUILD/check/cocci.result" $n "$c" ok
	fi
done
if printf '%s\n' "$new" | grep -q '|spatch failed'; then
	echo "spatch failed at the top only (see $logdir/spatch.err):"
	printf '%s\n' "$new" | grep '|spatch failed' | sed 's/^/    /'; bad=$((bad + 1))
fi
echo "coccicheck: $(echo "$scripts" | wc -l) scripts, $(echo "$files" | grep -c .) files," \
	"$(wc -l <"$logdir/head") reports at the top, $(printf '%s' "$new" | grep -c .) new"
[ $bad = 0 ]
