#!/bin/bash
# Static gates of the series, per patch, printed as a patch x check table.
#
#   apply        the series applies patch by patch to the pristine base
#                (git apply into a scratch index: what git am does, without
#                a checkout)
#   checkpatch   scripts/checkpatch.pl --strict of the base, nothing ignored,
#                on the patch as make send mails it (ci/mails.sh: the
#                sender's From: and Signed-off-by; a stand-in without one)
#   format       subject, tags and wrapping (ci/series-format.py), of the
#                patch (no sign-off) and of its mail (the sender's only)
#   maintainers  get_maintainer.pl finds maintainers, new files are covered
#   kernel-doc   scripts/kernel-doc -none -Wall adds no warning (ci/kerneldoc.sh)
#   cocci        no new Coccinelle report (scripts/coccinelle, report mode)
#                in the files the patch touches (ci/cocci.sh; NO_COCCI=1
#                leaves it out and says so)
#   hygiene      new kselftests are in Makefile, .gitignore, TARGETS;
#                config sorted, settings present (ci/selftest-hygiene.sh)
#   build        what the patch touches builds with W=1 C=1 (sparse) and
#                has no warning the patch before it did not have
#                (ci/patch-build.sh; needs 'make kernel' for the .config;
#                NO_PATCH_BUILD=1 leaves it out and says so)
#   arm64, powerpc  the same, cross-built with W=1 (no sparse) for arm64
#                and for 64-bit Book3E powerpc, which has forced threading
#                but no HARDIRQS_SW_RESEND, for the patches with genirq,
#                kernel/ or arch/ code (skip for the others) (ci/patch-build.sh;
#                CROSS_ARCHES="arm64" or "" leaves columns out and says so)
# and once for the series:
#   hot path     nothing added to the hard interrupt path: the object code
#                of kernel/irq/handle.o, chip.o and spurious.o is the same
#                at the base and after the series, and struct irqaction
#                keeps the base's member offsets and its cache lines
#                (ci/hotpath.sh, pahole; left out with NO_PATCH_BUILD=1)
#   MAINTAINERS.snippet  canonical, equal to the patched MAINTAINERS entry,
#                get_maintainer.pl agrees (ci/maintainers-snippet.sh)
#   README       README.md's patch table lists the patches of series in
#                order with their subjects, and its first paragraph's
#                "N patches" is the number in series (ci/readme-series.sh)
#   side patches bench-patches/ and stress-inject/ apply on the series
#   net fix      the net fix, netdevsim's napi_keep and their selftest
#                apply to the base alone (they go to net on their own;
#                ci/net-fix-alone.sh)
#   trees        every patch is in one mail series ('trees': genirq, nvme,
#                net, net-next, iwl-next), and each applies to the base
#                after the trees it needs and builds there the objects its
#                patches change (ci/trees.sh, ci/trees.sh build)
#
# Every cell counts as one result in build/results/check.counts.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
# The checkers and the cross compilers of the arm64 and powerpc columns
need_deps check || exit 1

BASE_REF=refs/irq-series/base
git -C "$KTREE" rev-parse -q --verify "$BASE_REF" >/dev/null || die "no $BASE_REF in $KTREE: run 'make tree'"
mapfile -t files < <(series_files)
[ ${#files[@]} -gt 0 ] || die "series is empty"
logdir=$BUILD/check; rm -rf "$logdir"; mkdir -p "$logdir"
declare -A res
# The stages log to $logdir; their progress lines go to the terminal.
exec 3>&2
export PROGRESS_T0=${PROGRESS_T0:-$(date +%s)}
progress "check: ${#files[@]} patches; apply, checkpatch, format, maintainers"
t0=$(date +%s)

idx=$(mktemp); trap 'rm -f "$idx"' EXIT
GIT_INDEX_FILE=$idx git -C "$KTREE" read-tree "$BASE_REF"
broken=
for p in "${files[@]}"; do
	b=$(basename "$p")
	if [ -n "$broken" ]; then res[$b,apply]=skip; continue; fi
	if GIT_INDEX_FILE=$idx git -C "$KTREE" apply --cached "$p" >"$logdir/$b.apply" 2>&1; then
		res[$b,apply]=ok
	else res[$b,apply]=FAIL; broken=1; fi
done
# checkpatch and the format check read what make send mails: the patches
# with the sender's From: and sign-off (ci/mails.sh); the format check
# also reads patches/ (no sign-off there).
mails=$logdir/mails
progress "check: the mails (ci/mails.sh)"
if [ -n "$broken" ] || ! "$TOP/ci/mails.sh" "$mails" >"$logdir/mails.log" 2>&1; then mails=; fi
"$TOP/ci/series-format.py" "${files[@]}" >"$logdir/series.format" 2>&1
[ -z "$mails" ] || "$TOP/ci/series-format.py" --mail "$mails"/[0-9]*.patch >>"$logdir/series.format" 2>&1
k=0
for p in "${files[@]}"; do
	b=$(basename "$p")
	k=$((k + 1))
	progress "check: checkpatch --strict, maintainers: patch $k/${#files[@]}"
	if [ -n "$mails" ] && [ -f "$mails/$b" ]; then
		"$TOP/ci/checkpatch.sh" "$mails/$b" >"$logdir/$b.checkpatch" 2>&1 && res[$b,checkpatch]=ok || res[$b,checkpatch]=FAIL
	else
		echo "no mail of $b (ci/mails.sh failed: $logdir/mails.log)" >"$logdir/$b.checkpatch"
		res[$b,checkpatch]=FAIL
	fi
	"$TOP/ci/maintainers.sh" "$p" >"$logdir/$b.maintainers" 2>&1 && res[$b,maintainers]=ok || res[$b,maintainers]=FAIL
	[ "$(grep -c "^ok     $b\$" "$logdir/series.format")" = 2 ] && res[$b,format]=ok || res[$b,format]=FAIL
done

CROSS_ARCHES=${CROSS_ARCHES-arm64 powerpc}
export CROSS_ARCHES
checks=(apply checkpatch format maintainers kernel-doc cocci hygiene build arm64 powerpc)
# column CHECK RESULTS: the cells of CHECK from a per-patch script's result
# file (lines "N ok|FAIL", N the patch number); a patch missing there fails.
column() {
	local i=0 p r
	for p in "${files[@]}"; do
		i=$((i + 1))
		r=$(awk -v n=$i '$1 == n { print $2 }' "$2" 2>/dev/null)
		res[$(basename "$p"),$1]=${r:-FAIL}
	done
}
stage_time "check.sh: apply, checkpatch, format, maintainers" "$t0"
progress "check: kernel-doc, kselftest hygiene"
t0=$(date +%s)
"$TOP/ci/kerneldoc.sh" >"$logdir/kerneldoc.log" 2>&1
"$TOP/ci/selftest-hygiene.sh" >"$logdir/hygiene.log" 2>&1
column kernel-doc "$BUILD/check/kerneldoc.result"
column hygiene "$BUILD/check/selftest-hygiene.result"
stage_time "check.sh: kernel-doc, kselftest hygiene" "$t0"
if [ "${NO_COCCI:-0}" = 1 ]; then
	note "NO_COCCI=1: Coccinelle left out (counted as skipped)"
	for p in "${files[@]}"; do res[$(basename "$p"),cocci]=skip; done
else
	progress "check: Coccinelle (about 3 min)"
	timed "check.sh: Coccinelle" "$TOP/ci/cocci.sh" >"$logdir/cocci.log" 2>&1
	column cocci "$BUILD/check/cocci.result"
fi
if [ "${NO_PATCH_BUILD:-0}" = 1 ]; then
	note "NO_PATCH_BUILD=1: per-patch builds left out (counted as skipped)"
	for p in "${files[@]}"; do
		for c in build arm64 powerpc; do res[$(basename "$p"),$c]=skip; done
	done
else
	progress "check: build of every patch with W=1 C=1, and W=1 for ${CROSS_ARCHES:-no other architecture}"
	timed "check.sh: per-patch builds (${CROSS_ARCHES:+x86_64 $CROSS_ARCHES})" "$TOP/ci/patch-build.sh" >"$logdir/patch-build.log" 2>&1
	column build "$BUILD/check/patch-build.result"
	for a in arm64 powerpc; do
		if [[ " $CROSS_ARCHES " == *" $a "* ]]; then
			column $a "$BUILD/check/cross-$a.result"
		else
			note "CROSS_ARCHES=\"$CROSS_ARCHES\": the $a column left out (counted as skipped)"
			for p in "${files[@]}"; do res[$(basename "$p"),$a]=skip; done
		fi
	done
	progress "check: hard interrupt path at the base and after the series (object code, struct irqaction)"
	timed "check.sh: hot path" "$TOP/ci/hotpath.sh" >"$logdir/hotpath.log" 2>&1; hotpath_rc=$?
fi
pass=0 fail=0 skip=0
printf '%-48s' patch; printf ' %-11s' "${checks[@]}"; echo
for p in "${files[@]}"; do
	b=$(basename "$p")
	printf '%-48s' "${b:0:48}"
	for c in "${checks[@]}"; do
		r=${res[$b,$c]}
		printf ' %-11s' "$r"
		case $r in ok) pass=$((pass + 1)) ;; skip) skip=$((skip + 1)) ;; *) fail=$((fail + 1)) ;; esac
	done
	echo
done
for p in "${files[@]}"; do
	b=$(basename "$p")
	for c in "${checks[@]}"; do
		[ "${res[$b,$c]}" = FAIL ] || continue
		echo "--- $c: $b"
		case $c in
		apply) cat "$logdir/$b.apply" ;;
		checkpatch) cat "$logdir/$b.checkpatch" ;;
		maintainers) cat "$logdir/$b.maintainers" ;;
		build | arm64 | powerpc)
			# patch-build's lines for this patch and column, or all of it
			a=$c; [ $a = build ] && a=x86_64
			n=$((10#${b%%-*}))
			awk -v h="^FAIL +$n \\[$a\\]" '$0 ~ h { on = 1; print; next } /^[^ ]/ { on = 0 } on' \
				"$logdir/patch-build.log" | grep . || cat "$logdir/patch-build.log" ;;
		kernel-doc) cat "$logdir/kerneldoc.log" ;;
		cocci) cat "$logdir/cocci.log" ;;
		hygiene) cat "$logdir/hygiene.log" ;;
		format) sed -n "/^FAIL   $b/,/^[a-zA-Z]/p" "$logdir/series.format" ;;
		esac
	done
done
if [ "${NO_PATCH_BUILD:-0}" = 1 ]; then
	echo "hot path: skip (NO_PATCH_BUILD=1)"; skip=$((skip + 1))
elif [ "$hotpath_rc" = 0 ]; then
	echo "hot path: ok"; grep -E '^(ok|FAIL) ' "$logdir/hotpath.log" | sed 's/^/    /'
	pass=$((pass + 1))
else
	echo "hot path: FAIL"; cat "$logdir/hotpath.log"; fail=$((fail + 1))
fi
if "$TOP/ci/maintainers-snippet.sh" >"$logdir/maintainers-snippet.log" 2>&1; then
	echo "MAINTAINERS.snippet: ok"; pass=$((pass + 1))
else
	echo "MAINTAINERS.snippet: FAIL"; cat "$logdir/maintainers-snippet.log"; fail=$((fail + 1))
fi
if "$TOP/ci/readme-series.sh" >"$logdir/readme-series.log" 2>&1; then
	echo "README.md's patch table and patch count match series: ok"; pass=$((pass + 1))
else
	echo "README.md's patch table and patch count match series: FAIL"
	sed 's/^/    /' "$logdir/readme-series.log"; fail=$((fail + 1))
fi
# The patches that go on top of the series (make bench, make stress-inject)
# must keep applying to it; nothing else notices before those targets run.
# The bench patches are a stack, applied in order (as ci/bench-kernel.sh
# does); the stress-inject patch goes on the series alone.
cp "$idx" "$idx.bench"
for p in "$TOP"/bench-patches/*.patch "$TOP"/stress-inject/*.patch; do
	[ -f "$p" ] || continue
	side=${p#"$TOP"/}
	if [ -n "$broken" ]; then
		echo "$side: skip (the series does not apply)"; skip=$((skip + 1)); continue
	fi
	case $side in
	bench-patches/*) sidx=$idx.bench; on="the series and the bench patches before it" ;;
	*) cp "$idx" "$idx.side"; sidx=$idx.side; on="the series" ;;
	esac
	if GIT_INDEX_FILE=$sidx git -C "$KTREE" apply --cached "$p" >"$logdir/side.apply" 2>&1; then
		echo "$side applies on $on: ok"; pass=$((pass + 1))
	else
		echo "$side applies on $on: FAIL"; cat "$logdir/side.apply"; fail=$((fail + 1))
	fi
	rm -f "$idx.side"
done
rm -f "$idx.bench"
# The net fix goes to net on its own, with its netdevsim support and its
# selftest: they must apply to the base alone (ci/net-fix-alone.sh).
if "$TOP/ci/net-fix-alone.sh" >"$logdir/net-fix.log" 2>&1; then
	echo "the net fix, netdevsim's napi_keep and their selftest apply alone to the base: ok"; pass=$((pass + 1))
else
	echo "the net fix, netdevsim's napi_keep and their selftest apply alone to the base: FAIL"
	sed 's/^/    /' "$logdir/net-fix.log"; fail=$((fail + 1))
fi
# One mail series per target tree (make send): each applies to the base
# after the trees its merge plan says it needs, and builds there what its
# patches change (ci/trees.sh; the build needs make kernel's .config and
# is left out with NO_PATCH_BUILD=1).
if "$TOP/ci/trees.sh" >"$logdir/trees.log" 2>&1; then
	echo "the mail series per tree ('trees') cover the series and apply as their merge plan says: ok"; pass=$((pass + 1))
	sed 's/^/    /' "$logdir/trees.log"
	if [ "${NO_PATCH_BUILD:-0}" = 1 ] || [ ! -f "$KOUT/.config" ]; then
		echo "the mail series per tree build as their merge plan says: skip (NO_PATCH_BUILD=1 or no $KOUT/.config)"; skip=$((skip + 1))
	else
		progress "check: each mail series builds after the trees it needs (ci/trees.sh build)"
		t1=$(date +%s)
		if "$TOP/ci/trees.sh" build >"$logdir/trees-build.log" 2>&1; then
			echo "the mail series per tree build as their merge plan says: ok"; pass=$((pass + 1))
		else
			echo "the mail series per tree build as their merge plan says: FAIL"; fail=$((fail + 1))
		fi
		sed 's/^/    /' "$logdir/trees-build.log"
		stage_time "check.sh: trees build" "$t1"
	fi
else
	echo "the mail series per tree ('trees') cover the series and apply as their merge plan says: FAIL"
	sed 's/^/    /' "$logdir/trees.log"; fail=$((fail + 1))
fi
mkdir -p "$BUILD/results"
echo "$pass $fail $skip" >"$BUILD/results/check.counts"
echo "check: $pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
