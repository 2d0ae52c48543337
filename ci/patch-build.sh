#!/bin/bash
# Build after every patch what the patch touches, and fail a patch that adds
# a warning compared with the patch before it:
#   x86_64   W=1 and sparse (C=1), in the configuration of $KOUT;
#   arm64    W=1, cross-built (aarch64-linux-gnu-gcc), the guest fragments
#            with kconfig-fragments/arch/arm64.config;
#   powerpc  W=1, cross-built (powerpc64-linux-gnu-gcc), 64-bit Book3E: an
#            architecture with forced threading and no HARDIRQS_SW_RESEND.
#
#   ci/patch-build.sh            every patch of the series
#   ci/patch-build.sh N...       only patches number N (1-based)
#   CROSS_ARCHES="arm64 powerpc" the cross columns (default both; empty:
#                                none, and check.sh counts them skipped)
#
# Works in a scratch worktree ($BUILD/linux-check) and output directories
# ($BUILD/obj-check, $BUILD/obj-check-<arch>), so the main tree and its
# build are left alone.  What a patch "touches", for x86_64: the
# directories of the .c files it changes, plus kernel/irq/ when it changes
# include/linux/interrupt.h, drivers/pci/ for include/linux/pci.h and
# net/core/ for netdevice.h (the headers' own users, within reason; the
# full build at the top of the series covers the rest).  For the cross
# columns, to keep make check within its time, only the code that depends
# on the architecture: kernel/irq/ for genirq's files and headers, and the
# objects of the .c files it changes under kernel/ and arch/; a patch with
# none of these is a skip there.  A tree whose warnings were already collected for
# the same targets (the patch before's "after", or a patch that changed
# only tools/ or Documentation/) is not built again.
# Results: one line per patch and column, and $BUILD/check/patch-build.result
# and $BUILD/check/cross-<arch>.result ("N ok|FAIL|skip", read by ci/check.sh).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
need_deps check || exit 1

BASE_REF=refs/irq-series/base
wt=$BUILD/linux-check
logdir=$BUILD/check/patch-build
mkdir -p "$logdir/cache"
[ -f "$KOUT/.config" ] || die "no $KOUT/.config: run 'make kernel' first"
mapfile -t commits < <(git -C "$KTREE" rev-list --reverse "$BASE_REF..HEAD")
[ ${#commits[@]} -gt 0 ] || die "no patches on top of the base in $KTREE"
read -r -a cross <<<"${CROSS_ARCHES-arm64 powerpc}"
profiles=(x86_64 "${cross[@]}")

if [ ! -d "$wt" ]; then
	git -C "$KTREE" worktree prune
	git -C "$KTREE" worktree add -q --detach "$wt" "$BASE_REF"
fi
export CCACHE_DIR=${CCACHE_DIR:-$BUILD/ccache}
export CCACHE_BASEDIR=$wt CCACHE_NOHASHDIR=1
# C=1 with a sparse that scripts/checker-valid.sh refuses prints one line
# and checks nothing: refuse to go on blind.
"$SPARSE" --version >/dev/null 2>&1 || die "no sparse at $SPARSE: run 'ci/deps.sh check'"
sh "$KTREE/scripts/checker-valid.sh" "$SPARSE" 2>/dev/null | grep -qx 1 ||
	die "$KTREE/scripts/checker-valid.sh refuses $SPARSE ($("$SPARSE" --version)): C=1 would check nothing"

checked_out=
checkout() {
	[ "$checked_out" = "$1" ] && return 0
	git -C "$wt" checkout -q --detach "$1" && checked_out=$1
}

# Per profile: the make command line (KMAKE_<profile>) and output directory.
declare -A objdir
for p in "${profiles[@]}"; do
	if [ "$p" = x86_64 ]; then
		obj=$BUILD/obj-check
		mkdir -p "$obj"
		cp "$KOUT/.config" "$obj/.config.top"
		KMAKE_x86_64=(make -C "$wt" O="$obj" -j"$JOBS" CC="ccache gcc" KBUILD_BUILD_TIMESTAMP=@0 CHECK="$SPARSE")
	else
		obj=$BUILD/obj-check-$p
		# The configuration at the top of the series (it has the series'
		# symbols), made again when a fragment changed.
		if [ ! -f "$obj/.config.top" ] ||
		   [ -n "$(find "$TOP/kconfig-fragments" -maxdepth 2 -name '*.config' -newer "$obj/.config.top")" ] ||
		   [ -n "$(find "$TOP/selftests" -maxdepth 2 -name config -newer "$obj/.config.top")" ]; then
			progress "patch-build: $p configuration"
			KARCH=$p KOUT=$obj CONFIG_ONLY=1 "$TOP/ci/kernel.sh" >"$logdir/config-$p.log" 2>&1 ||
				{ cat "$logdir/config-$p.log"; die "no $p configuration (see above)"; }
			cp "$obj/.config" "$obj/.config.top"
		fi
		( KARCH=$p; karch_env
		  printf '%q ' make -C "$wt" O="$obj" -j"$JOBS" "${KARCH_MAKE[@]}" CC="ccache ${CROSS_COMPILE}gcc" \
			KBUILD_BUILD_TIMESTAMP=@0 >"$logdir/kmake-$p" ) || exit 1
		eval "KMAKE_$p=($(cat "$logdir/kmake-$p"))"
	fi
	objdir[$p]=$obj
done

# dirs_of COMMIT: the x86_64 build targets for what COMMIT touches.
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

# unit_of FILE.c: the object that compiles FILE.c (the build_*.c unit that
# #includes it, as kernel/sched/ does), or nothing.
unit_of() {
	local d=${1%/*} b=${1##*/} u
	[ -e "$KTREE/$d/Makefile" ] || return 0
	if grep -qw "${b%.c}.o" "$KTREE/$d/Makefile"; then echo "$d/${b%.c}.o"; return 0; fi
	u=$(grep -l "^#include \"$b\"" "$KTREE/$d"/*.c 2>/dev/null | head -1)
	[ -z "$u" ] || { u=${u##*/}; echo "$d/${u%.c}.o"; }
}

# objs_of COMMIT: the cross build targets, for the code that depends on
# the architecture: kernel/irq/ for genirq's files and headers, and the
# object of each other .c file it changes under kernel/ or arch/ (the
# build_*.c unit that #includes it, as kernel/sched/ does).  Driver and
# networking code builds the same on every 64-bit architecture: the
# x86_64 column (with sparse) builds it, the cross columns skip it.
objs_of() {
	git -C "$KTREE" show --format= --name-only "$1" | while read -r f; do
		local d=${f%/*} b=${f##*/}
		case "$f" in
		tools/* | Documentation/*) ;;
		kernel/irq/*.c | include/linux/interrupt.h | include/linux/irq*.h) echo kernel/irq/ ;;
		kernel/*.c | arch/*.c)
			[ -e "$KTREE/$d/Makefile" ] || continue
			u=$(unit_of "$f"); echo "${u:-$d/}" ;;
		esac
	done | sort -u
}

# tree_key COMMIT: the tree without tools/ and Documentation/ (a patch that
# changes only those builds what the patch before it built).
tree_key() {
	git -C "$KTREE" ls-tree "$1" | grep -vP '\t(tools|Documentation)$' | git hash-object --stdin
}


declare -A cfg_at
# build_at PROFILE COMMIT LOG TARGETS...: warnings (file:line: warning/sparse
# lines) of a clean rebuild of TARGETS at COMMIT, normalised, into LOG;
# taken from the cache when the same tree was built for the same targets.
build_at() {
	local p=$1 c=$2 log=$3 t rc
	shift 3
	local targets=("$@") obj=${objdir[$p]} want=()
	local key
	key=$p-$(tree_key "$c")-$({ printf '%s\n' "${targets[@]}"; cat "$obj/.config.top"; } | md5sum | cut -c1-12)
	if [ -f "$logdir/cache/$key" ]; then
		cp "$logdir/cache/$key" "$log"
		# with what that build compiled, for the check that every .c
		# file the patch changes was compiled
		{ echo "(cached: the same tree was built before for ${targets[*]})"
		  cat "$logdir/cache/$key.cc" 2>/dev/null; } >"$log.full"
		return 0
	fi
	checkout "$c" || return 1
	local -n kmake=KMAKE_$p
	# The configuration of the top of the series each time: olddefconfig
	# at a commit without a symbol drops it, and the commit that adds the
	# symbol (and its code) would then build without it.
	# Done on a copy, and .config replaced only when the result differs:
	# a new .config makes the prepare stage and every object rebuild.
	# Only when a Kconfig file changed since the last time.
	if [ -z "${cfg_at[$p]:-}" ] || ! git -C "$KTREE" diff --quiet "${cfg_at[$p]}" "$c" -- '*Kconfig*'; then
		cp "$obj/.config.top" "$obj/.config.try"
		KCONFIG_CONFIG=.config.try "${kmake[@]}" -s olddefconfig >/dev/null 2>&1
		cmp -s "$obj/.config.try" "$obj/.config" || cp "$obj/.config.try" "$obj/.config"
		cfg_at[$p]=$c
	fi
	for t in "${targets[@]}"; do
		case $t in
		*.o)	# an object whose source the tree does not have yet
			[ -e "$wt/${t%.o}.c" ] || continue
			rm -f "$obj/$t" ;;
		*)	# Force the objects of the target to rebuild so every warning shows.
			find "$obj/$t" -maxdepth 1 -name '*.o' -delete 2>/dev/null ;;
		esac
		want+=("$t")
	done
	[ ${#want[@]} -gt 0 ] || { : >"$log"; echo "(nothing to build)" >"$log.full"; return 0; }
	if [ "$p" = x86_64 ]; then
		"${kmake[@]}" W=1 C=1 "${want[@]}" >"$log.full" 2>&1
		rc=$?
		# sparse must have looked at the files it rebuilt (the
		# prepare stage that make runs first compiles without it)
		local re
		re=$(printf '%s|' "${want[@]}"); re=${re%|}
		if grep -q 'sparse is not available\|not up to date' "$log.full" ||
		   { grep -qE "^  CC +($re)" "$log.full" && ! grep -q '^  CHECK ' "$log.full"; }; then
			echo "sparse did not run (see $log.full)" >"$log"
			return 1
		fi
	else
		"${kmake[@]}" W=1 "${want[@]}" >"$log.full" 2>&1
		rc=$?
		# the cross compiler must have compiled something
		grep -q '^  CC ' "$log.full" || { echo "nothing compiled (see $log.full)" >"$log"; return 1; }
	fi
	grep -E '(warning|error):' "$log.full" | sed -E 's/:[0-9]+:[0-9]+:/:/; s/:[0-9]+:/:/' | sort -u >"$log"
	[ $rc = 0 ] && cp "$log" "$logdir/cache/$key" && grep '^  CC ' "$log.full" >"$logdir/cache/$key.cc"
	return $rc
}

result_file() { [ "$1" = x86_64 ] && echo "$BUILD/check/patch-build.result" || echo "$BUILD/check/cross-$1.result"; }

want=("$@")
for p in "${profiles[@]}"; do : >"$(result_file "$p")"; done
bad=0
t0=$(date +%s)
declare -A tg broken
for i in "${!commits[@]}"; do
	n=$((i + 1))
	[ ${#want[@]} = 0 ] || [[ " ${want[*]} " == *" $n "* ]] || continue
	c=${commits[$i]}
	subj=$(git -C "$KTREE" log -1 --format=%s "$c")
	for p in "${profiles[@]}"; do
		if [ "$p" = x86_64 ]; then tg[$p]=$(dirs_of "$c" | tr '\n' ' ')
		else tg[$p]=$(objs_of "$c" | tr '\n' ' '); fi
		broken[$p]=
	done
	progress "patch-build: patch $n/${#commits[@]}: ${profiles[*]}: ${tg[x86_64]:-(no C code)}"
	# All columns at the commit before, then all at the commit: two
	# checkouts a patch.
	for p in "${profiles[@]}"; do
		[ -n "${tg[$p]}" ] || continue
		# shellcheck disable=SC2086 # the targets are words
		build_at "$p" "$c^" "$logdir/$n.$p.before" ${tg[$p]} || broken[$p]=before
	done
	for p in "${profiles[@]}"; do
		[ -n "${tg[$p]}" ] && [ -z "${broken[$p]}" ] || continue
		# shellcheck disable=SC2086
		build_at "$p" "$c" "$logdir/$n.$p.after" ${tg[$p]} || broken[$p]=after
	done
	for p in "${profiles[@]}"; do
		res=$(result_file "$p")
		targets=${tg[$p]% }
		l=$logdir/$n.$p
		if [ -z "$targets" ] && [ "$p" != x86_64 ] && [ -n "${tg[x86_64]}" ]; then
			echo "skip   $n [$p] $subj (no genirq, kernel/ or arch/ code: the x86_64 column builds it)"
			echo "$n skip" >>"$res"
			continue
		fi
		if [ -z "$targets" ]; then
			echo "ok     $n [$p] $subj (no C code touched)"
			echo "$n ok" >>"$res"
			continue
		fi
		if [ "${broken[$p]}" = before ]; then
			echo "FAIL   $n [$p] $subj: the tree before it does not build ($targets), see $l.before.full"
			grep -E 'error' "$l.before.full" | head -5 | sed 's/^/    /'
			echo "$n FAIL" >>"$res"; bad=$((bad + 1)); continue
		fi
		if [ "${broken[$p]}" = after ]; then
			echo "FAIL   $n [$p] $subj: does not build ($targets), see $l.after.full"
			grep -E 'error' "$l.after.full" | head -5 | sed 's/^/    /'
			echo "$n FAIL" >>"$res"; bad=$((bad + 1)); continue
		fi
		# Every .c file the patch changes must have been compiled: a
		# file whose config symbol is off would pass unseen.
		# (A cached build brings the CC lines of the build it saved.)
		missed=
		for f in $(git -C "$KTREE" show --format= --name-only --diff-filter=AM "$c" -- '*.c' ':!tools' ':!Documentation'); do
			u=$(unit_of "$f")
			grep -qE "^  CC +${u:-$f}\$" "$l.after.full" || missed+=" $f${u:+ ($u)}"
		done
		if [ -n "$missed" ]; then
			echo "FAIL   $n [$p] $subj: not compiled in this configuration:$missed (see $l.after.full)"
			echo "$n FAIL" >>"$res"; bad=$((bad + 1)); continue
		fi
		new=$(comm -13 "$l.before" "$l.after")
		if [ -n "$new" ]; then
			echo "FAIL   $n [$p] $subj: new warnings with W=1$([ "$p" = x86_64 ] && echo " C=1") ($targets):"
			echo "$new" | sed 's/^/    /'
			echo "$n FAIL" >>"$res"; bad=$((bad + 1))
		else
			echo "ok     $n [$p] $subj ($targets; $(wc -l <"$l.after") warnings before and after)"
			echo "$n ok" >>"$res"
		fi
	done
done
for p in "${profiles[@]}"; do
	echo "patch-build [$p]: $(grep -c ' ok$' "$(result_file "$p")") ok, $(grep -c ' FAIL$' "$(result_file "$p")") failed, $(grep -c ' skip$' "$(result_file "$p")") skipped"
done
echo "patch-build: $(($(date +%s) - t0)) s"
[ $bad = 0 ]
