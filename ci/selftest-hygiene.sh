#!/bin/bash
# Hygiene of the kselftests a patch adds or changes, as the tree has them
# at the patch: every new C test is a TEST_GEN_PROGS* of its Makefile and in
# its .gitignore, every new script is a TEST_PROGS*, a new directory is in
# tools/testing/selftests/Makefile TARGETS, 'config' is sorted when the
# patch changes it, 'settings' exists.  Patches that touch no kselftest
# pass.
#   ci/selftest-hygiene.sh N...   patch numbers (default: all)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

BASE_REF=refs/irq-series/base
mapfile -t commits < <(git -C "$KTREE" rev-list --reverse "$BASE_REF..HEAD")
want=("$@") bad=0 n=0
mkdir -p "$BUILD/check"; : >"$BUILD/check/selftest-hygiene.result"
at() { git -C "$KTREE" show "$1:$2" 2>/dev/null; }

for c in "${commits[@]}"; do
	n=$((n + 1))
	[ ${#want[@]} = 0 ] || [[ " ${want[*]} " == *" $n "* ]] || continue
	problems=()
	# A kselftest's directory: that of the file, or the closest one above
	# it with a Makefile (irq, net).  A new directory must be a TARGET;
	# one the base has is left as upstream keeps it (netdev's CI also
	# runs directories that are not TARGETS, drivers/net/netdevsim).
	targets=$(at "$c" tools/testing/selftests/Makefile | sed -n 's/^TARGETS += //p')
	for d in $(git -C "$KTREE" show --format= --name-only "$c" | grep '^tools/testing/selftests/.*/' |
		xargs -r -n1 dirname | sort -u); do
		while [ "${d%/*}" != tools/testing/selftests ] && ! at "$c" "$d/Makefile" >/dev/null; do d=${d%/*}; done
		t=${d#tools/testing/selftests/}
		at "$BASE_REF" "$d/Makefile" >/dev/null || grep -qxF "$t" <<<"$targets" ||
			problems+=("$t not in selftests/Makefile TARGETS")
		mk=$(at "$c" "$d/Makefile") || { problems+=("$d has no Makefile"); continue; }
		mk=$(printf '%s\n' "$mk" | sed -e ':a' -e '/\\$/N; s/\\\n//; ta')
		at "$c" "$d/settings" >/dev/null || problems+=("$d has no settings")
		if [ -n "$(git -C "$KTREE" show --format= --name-only "$c" -- "$d/config")" ] &&
			cfg=$(at "$c" "$d/config"); then
			[ "$cfg" = "$(printf '%s\n' "$cfg" | LC_ALL=C sort)" ] || problems+=("$d/config is not sorted")
		fi
		for f in $(git -C "$KTREE" show --format= --name-only --diff-filter=A "$c" -- "$d"); do
			b=$(basename "$f")
			case "$b" in
			*.c)
				p=${b%.c}
				printf '%s\n' "$mk" | grep -E '^TEST_GEN_PROGS[A-Z_]* *[:+]?=' | grep -qw "$p" ||
					problems+=("$p is not a TEST_GEN_PROGS of $d/Makefile")
				at "$c" "$d/.gitignore" | grep -qx "/\?$p" || problems+=("$p is not in $d/.gitignore") ;;
			*.sh)
				printf '%s\n' "$mk" | grep -E '^TEST_PROGS[A-Z_]* *[:+]?=' | grep -qw "$b" ||
					printf '%s\n' "$mk" | grep -E '^TEST_FILES *[:+]?=' | grep -qw "$b" ||
					problems+=("$b is not a TEST_PROGS of $d/Makefile") ;;
			esac
		done
	done
	subj=$(git -C "$KTREE" log -1 --format=%s "$c")
	if [ ${#problems[@]} = 0 ]; then
		echo "ok     $n $subj"; echo "$n ok" >>"$BUILD/check/selftest-hygiene.result"
	else
		echo "FAIL   $n $subj"; printf '    %s\n' "${problems[@]}"
		echo "$n FAIL" >>"$BUILD/check/selftest-hygiene.result"; bad=$((bad + 1))
	fi
done
echo "selftest hygiene: $bad patches with problems"
[ $bad = 0 ]
