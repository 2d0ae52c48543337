#!/bin/bash
# The mail series per target tree, from the file 'trees' (see its header).
#
#   ci/trees.sh            check: every patch of series is in exactly one
#                          tree, in series order, and each tree applies to
#                          the base after the trees it needs (git apply
#                          into a scratch index, as git am would)
#   ci/trees.sh names      the trees, in file order
#   ci/trees.sh target T   the tree T's target (e.g. tip/irq/core)
#   ci/trees.sh needs T    the trees T needs, in file order
#   ci/trees.sh files T    the patch files of T (paths), in series order
#   ci/trees.sh build [T...]  each tree (default: all) builds on the base
#                          after the trees it needs: the objects of the .c
#                          files its patches change, in a worktree
#                          ($BUILD/trees-wt, output $BUILD/obj-trees) with
#                          the series' configuration ($KOUT/.config, from
#                          make kernel); applying alone cannot tell that a
#                          tree uses what another tree adds
set -uo pipefail
. "$(dirname "$0")/lib.sh"

TREES=${TREES_FILE:-$TOP/trees}
[ -f "$TREES" ] || die "no $TREES"
# tree_field T FIELD: one of target, needs, files
tree_field() {
	awk -v t="$1" -v f="$2" '
		/^#/ || NF == 0 { next }
		$1 == "tree" { cur = $2
			if (cur == t && f == "target") print $3
			if (cur == t && f == "needs") for (i = 5; i <= NF; i++) print $i
			next }
		cur == t && f == "files" { print $1 }' "$TREES"
}
names() { awk '$1 == "tree" { print $2 }' "$TREES"; }
mode=${1:-check}
case $mode in
names) names; exit 0 ;;
target | needs) tree_field "$2" "$1"; exit 0 ;;
files) tree_field "$2" files | sed "s|^|$TOP/patches/|"; exit 0 ;;
check | build) ;;
*) die "usage: ci/trees.sh [names|target T|needs T|files T|build [T...]]" ;;
esac

BASE_REF=refs/irq-series/base
if [ "$mode" = build ]; then
	shift
	[ -f "$KOUT/.config" ] || die "no $KOUT/.config: run 'make kernel'"
	wt=$BUILD/trees-wt obj=$BUILD/obj-trees
	git -C "$KTREE" worktree prune
	[ -d "$wt" ] || git -C "$KTREE" worktree add -q --detach "$wt" "$BASE_REF"
	mkdir -p "$obj"
	CCACHE=$(command -v ccache || true)
	export CCACHE_DIR=${CCACHE_DIR:-$BUILD/ccache} CCACHE_BASEDIR=$wt CCACHE_NOHASHDIR=1
	kmake=(make -C "$wt" O="$obj" -j"$JOBS" ${CCACHE:+CC="ccache gcc"} KBUILD_BUILD_TIMESTAMP=@0)
	bad=0
	for t in ${*:-$(names)}; do
		git -C "$wt" checkout -q -f --detach "$BASE_REF" && git -C "$wt" clean -qfdx || die "cannot reset $wt"
		for u in $(tree_field "$t" needs) "$t"; do
			for f in $(tree_field "$u" files); do
				git -C "$wt" apply --index "$TOP/patches/$f" || die "tree $t: $f (tree $u) does not apply"
			done
		done
		# the objects of the .c files the tree's patches change
		objs=()
		for f in $(tree_field "$t" files); do
			for c in $(sed -n 's|^+++ b/\(.*\.c\)$|\1|p' "$TOP/patches/$f"); do
				case $c in tools/* | Documentation/* | samples/*) continue ;; esac
				d=${c%/*} b=${c##*/}
				[ -e "$wt/$d/Makefile" ] && grep -qw "${b%.c}.o" "$wt/$d/Makefile" && objs+=("${c%.c}.o")
			done
		done
		mapfile -t objs < <(printf '%s\n' "${objs[@]}" | sort -u)
		cp "$KOUT/.config" "$obj/.config"
		"${kmake[@]}" -s olddefconfig >"$obj/$t.log" 2>&1
		needs=$(tree_field "$t" needs | paste -sd' ')
		if "${kmake[@]}" "${objs[@]}" >>"$obj/$t.log" 2>&1; then
			echo "ok     tree $t builds on the base${needs:+ after $needs}: ${objs[*]}"
		else
			echo "FAIL   tree $t does not build on the base${needs:+ after $needs} (${objs[*]}; $obj/$t.log):"
			grep -E 'error' "$obj/$t.log" | head -5 | sed 's/^/    /'
			bad=1
		fi
	done
	git -C "$wt" checkout -q -f --detach "$BASE_REF"
	exit $bad
fi

bad=0
mapfile -t series < <(series_files | xargs -n1 basename)
# every patch in exactly one tree, each tree in series order
declare -A where
for t in $(names); do
	prev=-1
	for f in $(tree_field "$t" files); do
		[ -n "${where[$f]:-}" ] && { echo "FAIL: $f is in trees ${where[$f]} and $t"; bad=1; }
		where[$f]=$t
		pos=-1
		for i in "${!series[@]}"; do [ "${series[$i]}" = "$f" ] && pos=$i && break; done
		if [ $pos = -1 ]; then echo "FAIL: tree $t lists $f, which series does not"; bad=1
		elif [ $pos -lt $prev ]; then echo "FAIL: tree $t lists $f out of series order"; bad=1; fi
		prev=$pos
	done
	for n in $(tree_field "$t" needs); do
		names | grep -qxF "$n" || { echo "FAIL: tree $t needs $n, which is not a tree"; bad=1; }
	done
done
for f in "${series[@]}"; do
	[ -n "${where[$f]:-}" ] || { echo "FAIL: $f (series) is in no tree"; bad=1; }
done
[ $bad = 0 ] || exit 1
# each tree on the base after the trees it needs (listed before it)
idx=$(mktemp); trap 'rm -f "$idx"' EXIT
for t in $(names); do
	GIT_INDEX_FILE=$idx git -C "$KTREE" read-tree "$BASE_REF" || die "no $BASE_REF in $KTREE"
	for u in $(tree_field "$t" needs) "$t"; do
		for f in $(tree_field "$u" files); do
			if ! GIT_INDEX_FILE=$idx git -C "$KTREE" apply --cached "$TOP/patches/$f" 2>"$idx.err"; then
				echo "FAIL: tree $t: $f (tree $u) does not apply: $(head -1 "$idx.err")"
				bad=1
				continue 3
			fi
		done
	done
	needs=$(tree_field "$t" needs | paste -sd' ')
	echo "ok     tree $t ($(tree_field "$t" target)): $(tree_field "$t" files | wc -l) patches apply to the base${needs:+ after $needs}"
done
rm -f "$idx.err"
[ $bad = 0 ]
