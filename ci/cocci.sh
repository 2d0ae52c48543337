#!/bin/bash
# Coccinelle: 'make coccicheck MODE=report' on the directories the series
# touches, at the base and at the top of the series.  A report that is new
# at the top fails the patches that touch its file.  (Per patch and per file
# would be exact, but costs a minute per file here: spatch starts once per
# semantic patch.)
#   ci/cocci.sh      results in $BUILD/check/cocci.result (patch number, ok|FAIL)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

BASE_REF=refs/irq-series/base
wt=$BUILD/linux-check
obj=$BUILD/obj-check
logdir=$BUILD/check/cocci
mkdir -p "$logdir"
command -v spatch >/dev/null || die "spatch missing: run 'make deps' (coccinelle)"
[ -f "$KOUT/.config" ] || die "no $KOUT/.config: run 'make config' first"
mapfile -t commits < <(git -C "$KTREE" rev-list --reverse "$BASE_REF..HEAD")

dirs=${COCCI_DIRS:-$(for c in "${commits[@]}"; do
	git -C "$KTREE" show --format= --name-only "$c"
done | grep -E '\.c$' | grep -vE '^(tools|Documentation)/' | xargs -r -n1 dirname | sort -u)}

# Files the series touches: only reports in them count.
touched=$(for c in "${commits[@]}"; do git -C "$KTREE" show --format= --name-only "$c"; done | sort -u)

# report TREE OBJ LOG: normalised report lines (paths relative to the tree,
# no line/column numbers) in the files the series touches.  M= takes the
# absolute source directory: with O= a relative one would be looked up in
# the object tree, where there are no sources, and report nothing.
report() {
	local tree=$1 o=$2 log=$3 d
	: >"$log.full"
	make -s -C "$tree" O="$o" olddefconfig >/dev/null 2>&1
	make -s -C "$tree" O="$o" prepare >/dev/null 2>&1
	for d in $dirs; do
		make -s -C "$tree" O="$o" coccicheck MODE=report M="$tree/$d" J="$JOBS" >>"$log.full" 2>&1
	done
	grep -E '^[^ ]+\.[ch]:[0-9]+' "$log.full" | sed -e "s|^$tree/||" |
		sed -E 's/:[0-9]+(:[0-9]+(-[0-9]+)?)?:/:/' | sort -u |
		while IFS= read -r l; do
			printf '%s\n' "$touched" | grep -qxF "${l%%:*}" && printf '%s\n' "$l"
		done >"$log"
}

if [ ! -d "$wt" ]; then
	git -C "$KTREE" worktree prune
	git -C "$KTREE" worktree add -q --detach "$wt" "$BASE_REF"
fi
git -C "$wt" checkout -q --detach "$BASE_REF"
mkdir -p "$obj"; cp "$KOUT/.config" "$obj/.config"
git -C "$wt" checkout -q --detach "$(git -C "$KTREE" rev-parse HEAD)"
report "$wt" "$obj" "$logdir/head"
# The base only matters when the top has reports in touched files.
if [ -s "$logdir/head" ]; then
	git -C "$wt" checkout -q --detach "$BASE_REF"
	report "$wt" "$obj" "$logdir/base"
else
	: >"$logdir/base"
fi
new=$(comm -13 "$logdir/base" "$logdir/head")

: >"$BUILD/check/cocci.result"
bad=0 n=0
for c in "${commits[@]}"; do
	n=$((n + 1))
	mine=$(for f in $(git -C "$KTREE" show --format= --name-only "$c"); do
		printf '%s\n' "$new" | grep -F "$f:" ; done | sort -u)
	if [ -n "$mine" ]; then
		echo "FAIL   $n $(git -C "$KTREE" log -1 --format=%s "$c")"; printf '%s\n' "$mine" | sed 's/^/    /'
		echo "$n FAIL" >>"$BUILD/check/cocci.result"; bad=$((bad + 1))
	else
		echo "ok     $n $(git -C "$KTREE" log -1 --format=%s "$c")"
		echo "$n ok" >>"$BUILD/check/cocci.result"
	fi
done
echo "coccicheck (${dirs//$'\n'/ }): $(wc -l <"$logdir/head") reports in touched files at the top, $(printf '%s' "$new" | grep -c .) new"
[ $bad = 0 ]
