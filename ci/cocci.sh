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
#
# spatch 1.1 cannot parse the kernel's scoped guards and silently skips the
# functions that use them (70% of 7.3's kernel/irq/manage.c parsed).
# ci/cocci/macros.h tells it what they are, and the parse rate of every
# touched file is printed, at the base and at the top.  A file fails the
# column when spatch parses less than COCCI_MIN_PARSE percent of it
# (default 90) or more than one point less than at the base: a check that
# cannot read the code would pass whatever the code says.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
need_deps check || exit 1

BASE_REF=refs/irq-series/base
MACROS=${COCCI_MACROS:-$TOP/ci/cocci/macros.h}
COCCI_MIN_PARSE=${COCCI_MIN_PARSE:-90}
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
	local k=0 all
	all=$(echo ${SCRIPTS_NOW:-$scripts} | wc -w)
	for s in ${SCRIPTS_NOW:-$scripts}; do
		k=$((k + 1))
		[ "$all" -lt 10 ] || [ $((k % 10)) != 1 ] || progress "cocci: $rev_name script $k/$all"
		opt=$(grep "Options:" "$s" | cut -d: -f2)
		# shellcheck disable=SC2086 # word splitting of the options intended
		spatch -D report --no-show-diff --very-quiet --cocci-file "$s" $opt \
			--macro-file "$MACROS" \
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

# How much of each touched file spatch can parse, at the top.
parse_bad=0 parse_files=
pdir=$(mktemp -d "$tmp/parse.XXXX")
# parse_rate REV FILE: percent of FILE at REV that spatch parses (empty:
# not there)
parse_rate() {
	local d
	d=$(mktemp -d "$pdir/r.XXXX")
	mkdir -p "$d/$(dirname "$2")"
	git -C "$KTREE" show "$1:$2" >"$d/$2" 2>/dev/null || return 0
	spatch --parse-c "$d/$2" --macro-file "$MACROS" -I "$KTREE/include" \
		-I "$KTREE/arch/x86/include" 2>&1 | sed -n 's/.*=> \([0-9.]*\)% good or passed.*/\1/p' | tail -1
}
for f in $files; do
	rate=$(parse_rate HEAD "$f")
	brate=$(parse_rate "$BASE_REF" "$f")
	if [ -z "$rate" ] || awk -v r="$rate" -v b="${brate:-0}" -v m="$COCCI_MIN_PARSE" \
		'BEGIN { exit !(r < m || r < b - 1) }'; then
		echo "cocci: spatch parses ${rate:-no}% of $f (base ${brate:-new file}; minimum $COCCI_MIN_PARSE%): the check cannot see the code"
		parse_bad=$((parse_bad + 1)) parse_files+="$f:${rate:-0} "
	else
		echo "cocci: spatch parses $rate% of $f (base ${brate:-new file})"
	fi
done

rev_name=top
report "$(git -C "$KTREE" rev-parse HEAD)" "$logdir/head"
rev_name=base
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

# A file spatch cannot read fails the last patch that touches it.
for fr in $parse_files; do
	f=${fr%:*} n=0 last=
	for c in "${commits[@]}"; do
		n=$((n + 1))
		git -C "$KTREE" show --format= --name-only "$c" | grep -qxF "$f" && last=$n
	done
	[ -z "$last" ] || blamed[$last]+="spatch parses only ${fr##*:}% of $f (see the parse rates above)"$'\n'
done

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
[ $parse_bad = 0 ] || echo "cocci: $parse_bad file(s) below the parse rate"
echo "coccicheck: $(echo "$scripts" | wc -l) scripts, $(echo "$files" | grep -c .) files," \
	"$(wc -l <"$logdir/head") reports at the top, $(printf '%s' "$new" | grep -c .) new"
[ $bad = 0 ]
