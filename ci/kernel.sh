#!/bin/bash
# Configure (tinyconfig + kconfig-fragments/*.config +
# kconfig-fragments/arch/$KARCH.config + selftest configs) and build the
# guest kernel out of tree in $KOUT, with ccache.
# Fails when olddefconfig dropped or changed a symbol a fragment asked for.
#
# KARCH=x86_64 (default; bzImage), arm64 (Image, aarch64-linux-gnu-gcc) or
# powerpc (64-bit Book3E, powerpc64-linux-gnu-gcc; configured for make
# check's cross-build column, not booted).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
karch_env

[ -d "$KTREE" ] || die "no kernel tree at $KTREE: run 'make tree' first"
mkdir -p "$KOUT"
# Fragments, then the config files of our VM scenarios and of the kernel
# tree's kselftests that the VM runs and whose config fits a kernel without
# modules (KSFT_CONFIGS; net's asks for netdevsim as a module, so
# selftests/netdevsim-napi/config builds it in).
mapfile -t frags < <(ls "$TOP"/kconfig-fragments/*.config; ls "$TOP"/selftests/*/config 2>/dev/null
	for t in ${KSFT_CONFIGS:-irq}; do ls "$KTREE/tools/testing/selftests/$t/config" 2>/dev/null; done
	true)
frags+=("$TOP/kconfig-fragments/arch/$KARCH.config")
[ -n "${EXTRA_FRAGMENTS:-}" ] && frags+=($EXTRA_FRAGMENTS)
CCACHE=$(command -v ccache || true)
export CCACHE_DIR=${CCACHE_DIR:-$BUILD/ccache}
export CCACHE_BASEDIR=$KTREE CCACHE_NOHASHDIR=1
KMAKE=(make -C "$KTREE" O="$KOUT" -j"$JOBS" "${KARCH_MAKE[@]}" ${CCACHE:+CC="ccache ${CROSS_COMPILE:-}gcc"} KBUILD_BUILD_TIMESTAMP=@0 KBUILD_BUILD_USER=ci KBUILD_BUILD_HOST=ci)

# Regenerate .config from scratch; when the result is unchanged, keep the old
# file (and its timestamp) so that nothing is rebuilt for nothing.
"${KMAKE[@]}" -s tinyconfig >/dev/null
"$KTREE"/scripts/kconfig/merge_config.sh -m -O "$KOUT" "$KOUT/.config" "${frags[@]}" >"$KOUT/merge.log"
"${KMAKE[@]}" -s olddefconfig

# What the fragments ask for, the last one winning (as in merge_config.sh):
# "FRAGMENT<TAB>LINE" per symbol.
bad=0
while IFS=$'\t' read -r f line; do
	case "$line" in
	CONFIG_*=*) sym=${line%%=*}
		grep -qxF "$line" "$KOUT/.config" || {
			echo "kconfig: $f: asked for '$line', got '$(grep -E "^(# )?$sym[= ]" "$KOUT/.config" || echo unset)'" >&2
			bad=1; } ;;
	"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *}
		! grep -q "^$sym=" "$KOUT/.config" || {
			echo "kconfig: $f: asked for '$sym' unset, got '$(grep "^$sym=" "$KOUT/.config")'" >&2
			bad=1; } ;;
	esac
done < <(for f in "${frags[@]}"; do
		sed -n -e "s|^\(CONFIG_[A-Za-z0-9_]*\)=.*|\1\t$(basename "$f")\t&|p" \
			-e "s|^# \(CONFIG_[A-Za-z0-9_]*\) is not set|\1\t$(basename "$f")\t&|p" "$f"
	done | awk -F'\t' '{ last[$1] = $2 "\t" $3; if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 } }
		END { for (i = 0; i < n; i++) print last[order[i]] }')
if [ $bad != 0 ]; then
	# The unpatched base lacks the series' own symbols: say so, go on.
	[ "${ALLOW_MISSING_SYMBOLS:-0}" = 1 ] || die "olddefconfig dropped symbols asked for by the fragments (above)"
	note "ALLOW_MISSING_SYMBOLS=1: building without the symbols above"
fi

[ "${CONFIG_ONLY:-0}" = 1 ] && { note "config: $KOUT/.config"; exit 0; }
note "building $KARCH $KIMAGE in $KOUT (-j$JOBS${CCACHE:+, ccache})"
"${KMAKE[@]}" ${W:+W=$W} ${C:+C=$C} "$(basename "$KIMAGE")"
ls -l "$KOUT/$KIMAGE"
