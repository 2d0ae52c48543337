#!/bin/bash
# Build after every patch what the patch touches, with W=1 and sparse (C=1),
# and fail a patch that adds a warning compared with the patch before it.
#
#   ci/patch-build.sh            every patch of the series
#   ci/patch-build.sh N...       only patches number N (1-based)
#
# Works in a scratch worktree ($BUILD/linux-check) and output directory
# ($BUILD/obj-check, configured like $KOUT), so the main tree and its build
# are left alone.  What a patch "touches": the directories of the .c files it
# changes, plus kernel/irq/ when it changes include/linux/interrupt.h,
# drivers/pci/ for include/linux/pci.h and net/core/ for netdevice.h (the
# headers' own users, within reason; the full build at the top of the
# series covers the rest).  Results: one line per patch and
# $BUILD/check/patch-build.result (patch file, ok|FAIL).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

BASE_REF=refs/irq-series/base
wt=$BUILD/linux-check
obj=$BUILD/obj-check
logdir=$BUILD/check/patch-build
mkdir -p "$logdir"
[ -f "$KOUT/.config" ] || die "no $KOUT/.config: run 'make kernel' first"
mapfile -t commits < <(git -C "$KTREE" rev-list --reverse "$BASE_REF..HEAD")
[ ${#commits[@]} -gt 0 ] || die "no patches on top of the base in $KTREE"

if [ ! -d "$wt" ]; then
	git -C "$KTREE" worktree prune
	git -C "$KTREE" worktree add -q --detach "$wt" "$BASE_REF"
fi
mkdir -p "$obj"
cp "$KOUT/.config" "$obj/.config"
export CCACHE_DIR=${CCACHE_DIR:-$BUILD/ccache}
export CCACHE_BASEDIR=$wt CCACHE_NOHASHDIR=1
KMAKE=(make -C "$wt" O="$obj" -j"$JOBS" CC="ccache gcc" KBUILD_BUILD_TIMESTAMP=@0 CHECK="$SPARSE")
# C=1 with a sparse that scripts/checker-valid.sh refuses prints one line
# and checks nothing: refuse to go on blind.
"$SPARSE" --version >/dev/null 2>&1 || die "no sparse at $SPARSE: run 'make deps'"
sh "$KTREE/scripts/checker-valid.sh" "$SPARSE" 2>/dev/null | grep -qx 1 ||
	die "$KTREE/scripts/checker-valid.sh refuses $SPARSE ($("$SPARSE" --version)): C=1 would check nothing"

# dirs_of COMMIT: the build targets for what COMMIT touches.
dirs_of() {
	git -C "$KTREE" show --format= --name-only "$1" | while read -r f; do
		case "$f" in
		tools/* | Documentation/*) ;;
		*.c) [ -e "$KTREE/$(dirname "$f")/Makefile" ] && echo "$(dirname "$f")/" ;;
		include/linux/interrupt.h | include/linux/irq*.h) echo kernel/irq/ ;;
		include/linux/pci.h) echo drivers/pci/ ;;
		include/linux/netdevice.h) echo net/core/ ;;
		esac
	done | sort -u
}

# build_at COMMIT TARGETS... LOG: warnings (file:line: warning/sparse lines)
# of a clean rebuild of TARGETS at COMMIT, normalised, into LOG.
build_at() {
	local c=$1 log=${*: -1} t
	local targets=("${@:2:$#-2}")
	git -C "$wt" checkout -q --detach "$c"
	"${KMAKE[@]}" -s olddefconfig >/dev/null 2>&1
	"${KMAKE[@]}" -s prepare >/dev/null 2>&1 || return 1
	for t in "${targets[@]}"; do
		# Force the objects of the target to rebuild so every warning shows.
		find "$obj/$t" -maxdepth 1 -name '*.o' -delete 2>/dev/null
	done
	"${KMAKE[@]}" W=1 C=1 "${targets[@]}" >"$log.full" 2>&1
	local rc=$?
	# sparse must have looked at the files it rebuilt
	if grep -q 'sparse is not available\|not up to date' "$log.full" ||
	   { grep -q '^  CC ' "$log.full" && ! grep -q '^  CHECK ' "$log.full"; }; then
		echo "sparse did not run (see $log.full)" >"$log"
		return 1
	fi
	grep -E '(warning|error):' "$log.full" | sed -E 's/:[0-9]+:[0-9]+:/:/; s/:[0-9]+:/:/' | sort -u >"$log"
	return $rc
}

want=("$@")
: >"$BUILD/check/patch-build.result"
bad=0
for i in "${!commits[@]}"; do
	n=$((i + 1))
	[ ${#want[@]} = 0 ] || [[ " ${want[*]} " == *" $n "* ]] || continue
	c=${commits[$i]}
	subj=$(git -C "$KTREE" log -1 --format=%s "$c")
	mapfile -t targets < <(dirs_of "$c")
	progress "patch-build: patch $n/${#commits[@]} ${targets[*]:-(no C code)}"
	if [ ${#targets[@]} = 0 ]; then
		echo "ok     $n $subj (no C code touched)"
		echo "$n ok" >>"$BUILD/check/patch-build.result"
		continue
	fi
	prev=$c^
	if ! build_at "$prev" "${targets[@]}" "$logdir/$n.before"; then
		echo "FAIL   $n $subj: the tree before it does not build (${targets[*]})"
		echo "$n FAIL" >>"$BUILD/check/patch-build.result"; bad=$((bad + 1)); continue
	fi
	if ! build_at "$c" "${targets[@]}" "$logdir/$n.after"; then
		echo "FAIL   $n $subj: does not build (${targets[*]}), see $logdir/$n.after.full"
		grep -E 'error' "$logdir/$n.after.full" | head -5 | sed 's/^/    /'
		echo "$n FAIL" >>"$BUILD/check/patch-build.result"; bad=$((bad + 1)); continue
	fi
	new=$(comm -13 "$logdir/$n.before" "$logdir/$n.after")
	if [ -n "$new" ]; then
		echo "FAIL   $n $subj: new warnings with W=1 C=1 (${targets[*]}):"
		echo "$new" | sed 's/^/    /'
		echo "$n FAIL" >>"$BUILD/check/patch-build.result"; bad=$((bad + 1))
	else
		echo "ok     $n $subj (${targets[*]}; $(wc -l <"$logdir/$n.after") warnings before and after)"
		echo "$n ok" >>"$BUILD/check/patch-build.result"
	fi
done
echo "patch-build: $(grep -c ' ok$' "$BUILD/check/patch-build.result") ok, $bad failed"
[ $bad = 0 ]
