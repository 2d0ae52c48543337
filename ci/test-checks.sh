#!/bin/bash
# Tests of the checks themselves: a deliberately broken patch must make the
# right check fail, and the good series must pass it.  Nothing here touches
# patches/, series or the main kernel tree's branch.
#
#   bad subject (no prefix)       -> ci/series-format.py fails
#   a sign-off in patches/, a mail without the sender's -> ci/series-format.py fails
#   trailing whitespace, >100 col -> ci/checkpatch.sh fails
#   spdxcheck.py dies (no GitPython) -> ci/checkpatch.sh fails
#   an undescribed parameter      -> ci/kerneldoc.sh fails
#   a test not in Makefile/.gitignore -> ci/selftest-hygiene.sh fails
#   a NULL check before kfree()   -> ci/cocci.sh fails that patch
#   spatch without the guard macros -> ci/cocci.sh fails on the parse rate
#   MAINTAINERS.snippet misordered -> ci/maintainers-snippet.sh fails
#   README.md's patch table without a row, with a subject the patch does
#   not have, or a wrong "N patches" -> ci/readme-series.sh fails
#   a net fix patch left out, or one that needs the series
#                                 -> ci/net-fix-alone.sh fails
#   a patch in no tree or two, a tree that does not apply -> ci/trees.sh fails
#   net-next without genirq in its needs    -> ci/trees.sh build fails
#   a new W=1 warning             -> ci/patch-build.sh fails on that patch
#   a new sparse-only warning     -> ci/patch-build.sh fails on that patch
#   a warning only without HARDIRQS_SW_RESEND -> the powerpc column fails,
#                                    x86_64 passes
#   a new .c file its config leaves out -> ci/patch-build.sh fails ("not
#                                    compiled")
#   struct irqaction's members moved, or a cache line longer
#                                 -> ci/hotpath.sh fails
#                                    (SKIP_BUILD_CHECK=1 leaves these out)
set -uo pipefail
. "$(dirname "$0")/lib.sh"
need_deps check || exit 1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; git -C "$KTREE" worktree remove --force "$BUILD/linux-bad" 2>/dev/null; git -C "$KTREE" branch -D irq-series-bad >/dev/null 2>&1' EXIT
pass=0 fail=0 skip=0
result() { # result OK|FAIL DESCRIPTION
	if [ "$1" = OK ]; then echo "ok     $2"; pass=$((pass + 1))
	else echo "FAIL   $2"; fail=$((fail + 1)); fi
}
expect_fail() { # expect_fail DESCRIPTION COMMAND...
	local d=$1; shift
	if "$@" >"$tmp/out" 2>&1; then result FAIL "$d (the check passed)"; sed 's/^/    /' "$tmp/out" | tail -5
	else result OK "$d"; fi
}
expect_pass() {
	local d=$1; shift
	if "$@" >"$tmp/out" 2>&1; then result OK "$d"
	else result FAIL "$d"; sed 's/^/    /' "$tmp/out" | tail -10; fi
}

mapfile -t files < <(series_files)
# The broken copies below edit a "genirq: Add ..." subject: the first such
# patch (patch 1 is a fix, "genirq/spurious: Don't ...").
good=$(grep -l '^Subject: \[PATCH\] genirq: Add ' "${files[@]}" | head -n 1)
[ -n "$good" ] || die "no patch with a 'genirq: Add' subject in series"

expect_pass "series-format passes the series" "$TOP/ci/series-format.py" "${files[@]}"
sed 's/^Subject: \[PATCH\] genirq: /Subject: [PATCH] /' "$good" >"$tmp/0001-bad-subject.patch"
expect_fail "series-format fails a subject without subsystem prefix" "$TOP/ci/series-format.py" "$tmp/0001-bad-subject.patch"
sed 's/^Subject: \[PATCH\] genirq: Add /Subject: [PATCH] genirq: add /' "$good" >"$tmp/0001-lowercase.patch"
expect_fail "series-format fails a lowercase summary outside netdev's trees" "$TOP/ci/series-format.py" "$tmp/0001-lowercase.patch"
sed 's/^Subject: \[PATCH\] genirq: Add /Subject: [PATCH] genirq: Added /' "$good" >"$tmp/0001-not-imperative.patch"
expect_fail "series-format fails a subject not in imperative mood" "$TOP/ci/series-format.py" "$tmp/0001-not-imperative.patch"
grep -v '^Assisted-by: ' "$good" >"$tmp/0001-no-assisted.patch"
expect_fail "series-format fails a patch without Assisted-by" "$TOP/ci/series-format.py" "$tmp/0001-no-assisted.patch"
sed '0,/^Assisted-by: .*/s//&\nSigned-off-by: Threadable IRQ Project <threadable-irq@example.org>/' "$good" >"$tmp/0001-sob.patch"
expect_fail "series-format fails a sign-off in patches/ (only the sender signs)" "$TOP/ci/series-format.py" "$tmp/0001-sob.patch"
sed '0,/^Assisted-by: /s//Reviewed-by: Some Maintainer <maint@example.org>\nAssisted-by: /' "$good" >"$tmp/0001-tag.patch"
expect_fail "series-format fails a tag in someone else's name" "$TOP/ci/series-format.py" "$tmp/0001-tag.patch"
sed '0,/^Assisted-by: .*/s//&\n\n# Conflicts:\n#\tkernel\/irq\/manage.c/' "$good" >"$tmp/0001-conflicts.patch"
expect_fail "series-format fails a changelog that kept git's conflict list" "$TOP/ci/series-format.py" "$tmp/0001-conflicts.patch"
# as_mail IN OUT: IN as make send mails it (ci/mails.sh does it with git):
# from the sender, whose Signed-off-by follows the last tag
sender="A. Sender <a.sender@example.com>"
as_mail() { sed -e "0,/^From: .*/s//From: $sender/" -e "0,/^Assisted-by: .*/s//&\nSigned-off-by: $sender/" "$1" >"$2"; }
as_mail "$good" "$tmp/0001-mail.patch"
expect_pass "series-format --mail passes the sender's mail" "$TOP/ci/series-format.py" --mail "$tmp/0001-mail.patch"
expect_fail "series-format --mail fails a mail without the sender's Signed-off-by" "$TOP/ci/series-format.py" --mail "$good"
as_mail "$tmp/0001-sob.patch" "$tmp/0001-mail-2sob.patch"
expect_fail "series-format --mail fails a mail with a second Signed-off-by" "$TOP/ci/series-format.py" --mail "$tmp/0001-mail-2sob.patch"

expect_pass "checkpatch passes the first genirq: Add patch as mailed" "$TOP/ci/checkpatch.sh" "$tmp/0001-mail.patch"
# Add trailing whitespace to the first added code line of the patch.
awk 'done == 0 && /^\+[^+]/ && /;$/ { print $0 "   "; done = 1; next } { print }' "$tmp/0001-mail.patch" >"$tmp/0001-ws.patch"
expect_fail "checkpatch fails a patch that adds trailing whitespace" "$TOP/ci/checkpatch.sh" "$tmp/0001-ws.patch"
# checkpatch goes on when its spdxcheck.py helper dies (a Python traceback
# on stderr), so the SPDX lines of new files went unchecked without
# python3-git.  A patch that adds files, with a GitPython that fails to
# import: checkpatch.sh must fail it.
# The first patch that adds a source file (checkpatch runs spdxcheck.py
# on its SPDX line; a new Documentation/ABI file has none).
newfile=
for f in "${files[@]}"; do
	if awk '/^diff --git / { p = $4 } /^new file mode/ && p ~ /\.(c|h|sh)$/ { found = 1; exit }
		END { exit !found }' "$f"; then
		newfile=$f
		break
	fi
done
[ -n "$newfile" ] || result FAIL "checkpatch/spdxcheck: no patch of the series adds a source file"
mkdir -p "$tmp/pybad/git"
echo 'raise ImportError("GitPython broken on purpose (test-checks)")' >"$tmp/pybad/git/__init__.py"
as_mail "$newfile" "$tmp/newfile.patch"
expect_pass "checkpatch passes $(basename "$newfile") as mailed, which adds files" "$TOP/ci/checkpatch.sh" "$tmp/newfile.patch"
expect_fail "checkpatch fails when its spdxcheck.py helper dies" \
	env PYTHONPATH="$tmp/pybad" "$TOP/ci/checkpatch.sh" "$tmp/newfile.patch"

expect_pass "maintainers-snippet passes MAINTAINERS.snippet" "$TOP/ci/maintainers-snippet.sh"
# S: before L: is not the canonical order.
awk '/^L:/ { l = $0; next } { print } /^S:/ { print l }' "$TOP/MAINTAINERS.snippet" >"$tmp/snippet"
expect_fail "maintainers-snippet fails a misordered entry" "$TOP/ci/maintainers-snippet.sh" "$tmp/snippet"

# README.md against series: each mutation in a copy of README.md, series
# and patches/.
expect_pass "readme-series passes README.md" "$TOP/ci/readme-series.sh"
mkdir -p "$tmp/readme"
cp -r "$TOP/README.md" "$TOP/series" "$TOP/patches" "$tmp/readme/"
sed '/^| 12 | /d' "$TOP/README.md" >"$tmp/readme/README.md"
expect_fail "readme-series fails a patch table without patch 12's row" "$TOP/ci/readme-series.sh" "$tmp/readme"
grep -q "row 12 says .*series has 0012-" "$tmp/out" || { result FAIL "... and says why ('row 12 says')"; sed 's/^/    /' "$tmp/out"; }
nseries=${#files[@]}
sed -E "0,/[0-9]+ patches/s//$((nseries - 1)) patches/" "$TOP/README.md" >"$tmp/readme/README.md"
expect_fail "readme-series fails a first paragraph that says $((nseries - 1)) patches" "$TOP/ci/readme-series.sh" "$tmp/readme"
grep -q "says \"$((nseries - 1)) patches\", series has $nseries" "$tmp/out" ||
	{ result FAIL "... and says why ('says \"$((nseries - 1)) patches\"')"; sed 's/^/    /' "$tmp/out"; }
cp "$TOP/README.md" "$tmp/readme/README.md"
sub=$(grep -l '^Subject: \[PATCH\] PCI: Add ' "$tmp"/readme/patches/*.patch | head -n 1)
if [ -n "$sub" ]; then
	sed -i 's/^Subject: \[PATCH\] PCI: Add /Subject: [PATCH] PCI: Introduce /' "$sub"
	expect_fail "readme-series fails a row whose subject is not its patch's" "$TOP/ci/readme-series.sh" "$tmp/readme"
else
	result FAIL "readme-series mutations: no 'PCI: Add' patch in the series"
fi

# The mail series per tree: each mutation in a copy of 'trees'.
expect_pass "trees passes the series" "$TOP/ci/trees.sh"
grep -v '^0028-' "$TOP/trees" >"$tmp/trees.nopatch"
expect_fail "trees fails a patch that is in no tree" env TREES_FILE="$tmp/trees.nopatch" "$TOP/ci/trees.sh"
grep -q "is in no tree" "$tmp/out" || { result FAIL "... and says why ('is in no tree')"; sed 's/^/    /' "$tmp/out"; }
awk '{ print } /^tree net net\/main$/ { print "0011-genirq-Add-irq_set_threaded-and-irq_get_threaded.patch" }' "$TOP/trees" >"$tmp/trees.twice"
expect_fail "trees fails a patch that is in two trees" env TREES_FILE="$tmp/trees.twice" "$TOP/ci/trees.sh"
grep -q "is in trees genirq and net" "$tmp/out" || { result FAIL "... and says why ('is in trees genirq and net')"; sed 's/^/    /' "$tmp/out"; }
# nvme's polling patch needs the two nvme patches before it: with them
# moved to another tree, the nvme tree does not apply
awk '/^00(10|12)-nvme-pci/ { held = held $0 "\n"; next }
	/^tree iwl-next / { print; printf "%s", held; next } { print }' "$TOP/trees" >"$tmp/trees.noapply"
expect_fail "trees fails a tree that does not apply after the trees it needs" env TREES_FILE="$tmp/trees.noapply" "$TOP/ci/trees.sh"
grep -q "tree nvme: .* does not apply" "$tmp/out" || { result FAIL "... and says why ('tree nvme: .* does not apply')"; sed 's/^/    /' "$tmp/out"; }
# net-next without genirq applies (no file in common) but does not build:
# net core calls genirq's new API
if [ "${SKIP_BUILD_CHECK:-0}" = 1 ] || [ ! -f "$KOUT/.config" ]; then
	echo "skip   trees build fails net-next without the genirq tree (SKIP_BUILD_CHECK=1 or no $KOUT/.config)"
	skip=$((skip + 1))
else
	sed "/^tree net-next /s/ genirq//" "$TOP/trees" >"$tmp/trees.noneed"
	expect_pass "trees applies net-next without the genirq tree" env TREES_FILE="$tmp/trees.noneed" "$TOP/ci/trees.sh"
	expect_fail "trees build fails net-next without the genirq tree" env TREES_FILE="$tmp/trees.noneed" "$TOP/ci/trees.sh" build net-next
	grep -q "FAIL   tree net-next does not build" "$tmp/out" && grep -q "net/core/dev.o" "$tmp/out" &&
		result OK "trees build names the tree and its objects" ||
		{ result FAIL "trees build names the tree and its objects"; sed 's/^/    /' "$tmp/out"; }
fi

# The net fix's three patches: each mutation in a copy of patches/ and series.
expect_pass "net-fix-alone passes the series" "$TOP/ci/net-fix-alone.sh"
mkdir -p "$tmp/netfix"
cp "$TOP"/patches/*.patch "$TOP/series" "$tmp/netfix/"
nsim=$(grep -l '^Subject: \[PATCH[^]]*\] netdevsim: ' "$tmp"/netfix/*.patch | head -n 1)
ntgt=$(grep -l '^Subject: \[PATCH[^]]*\] nvme-pci: Let a threaded I/O queue poll' "$tmp"/netfix/*.patch | head -n 1)
if [ -n "$nsim" ] && [ -n "$ntgt" ]; then
	cp "$nsim" "$tmp/nsim.keep"
	# netdevsim's patch no longer recognised: two of three
	sed -i 's/^\(Subject: \[PATCH[^]]*\]\) netdevsim: /\1 netdevsim-x: /' "$nsim"
	expect_fail "net-fix-alone fails with a net patch left out" "$TOP/ci/net-fix-alone.sh" "$tmp/netfix"
	cp "$tmp/nsim.keep" "$nsim"
	# a patch that needs the ones before it (nvme's polling needs patch 12's
	# context) in the place of netdevsim's
	sed -i 's/^\(Subject: \[PATCH[^]]*\]\) nvme-pci: Let a threaded/\1 netdevsim: Let a threaded/' "$ntgt"
	sed -i "/$(basename "$nsim")/d" "$tmp/netfix/series"
	expect_fail "net-fix-alone fails when a net patch needs the rest of the series" "$TOP/ci/net-fix-alone.sh" "$tmp/netfix"
else
	result FAIL "net-fix-alone mutations: no netdevsim or nvme polling patch in the series"
fi

# Scratch branch: the series plus broken patches, in a worktree of its own.
git -C "$KTREE" worktree prune
git -C "$KTREE" worktree add -q -b irq-series-bad "$BUILD/linux-bad" HEAD
bad=$BUILD/linux-bad
n=$(git -C "$bad" rev-list --count refs/irq-series/base..HEAD)

expect_pass "kernel-doc passes the series" env KTREE="$bad" "$TOP/ci/kerneldoc.sh"
printf '\n/**\n * irq_series_doc_demo - Not documented right\n * @a: the first\n */\nint irq_series_doc_demo(int a, int b);\n' \
	>>"$bad/kernel/irq/internals.h"
KTREE=$bad kgit commit -q -a -s -m "genirq: Add a kernel-doc warning on purpose" -m "Test of ci/kerneldoc.sh."
expect_fail "kernel-doc fails a patch that adds an undescribed parameter" \
	env KTREE="$bad" "$TOP/ci/kerneldoc.sh" $((n + 1))

expect_pass "selftest hygiene passes the series" env KTREE="$bad" "$TOP/ci/selftest-hygiene.sh" $(seq 1 "$n")
printf 'int main(void)\n{\n\treturn 0;\n}\n' >"$bad/tools/testing/selftests/irq/extra_test.c"
git -C "$bad" add tools/testing/selftests/irq/extra_test.c
KTREE=$bad kgit commit -q -s -m "selftests/irq: Add a test nobody builds" -m "Test of ci/selftest-hygiene.sh."
expect_fail "selftest hygiene fails a test missing from Makefile and .gitignore" \
	env KTREE="$bad" "$TOP/ci/selftest-hygiene.sh" $((n + 2))
git -C "$bad" reset -q --hard HEAD~2

# Coccinelle, with the one script that must fire (the full set runs in
# ci/check.sh): free/ifnullfree.cocci.
expect_pass "cocci passes the series (ifnullfree)" \
	env KTREE="$bad" COCCI_SCRIPTS=free/ifnullfree.cocci "$TOP/ci/cocci.sh"
printf '\nvoid irq_series_free_demo(void *p);\nvoid irq_series_free_demo(void *p)\n{\n\tif (p)\n\t\tkfree(p);\n}\n' \
	>>"$bad/kernel/irq/proc.c"
KTREE=$bad kgit commit -q -a -s -m "genirq: Add a Coccinelle report on purpose" -m "Test of ci/cocci.sh."
expect_fail "cocci fails a patch that adds a NULL check before kfree()" \
	env KTREE="$bad" COCCI_SCRIPTS=free/ifnullfree.cocci "$TOP/ci/cocci.sh"
grep -q "^FAIL   $((n + 1)) " "$tmp/out" && ! grep -q "^FAIL   [0-9]* " <(grep -v "^FAIL   $((n + 1)) " "$tmp/out") &&
	result OK "cocci blames the patch that added the report, and only it" ||
	result FAIL "cocci blames the patch that added the report, and only it"
git -C "$bad" reset -q --hard HEAD~1
# spatch 1.1 cannot parse scoped_guard(): without ci/cocci/macros.h it
# skips a third of kernel/irq/manage.c, and the gate must say so.
expect_fail "cocci fails when spatch cannot parse the touched files (no guard macros)" \
	env KTREE="$bad" COCCI_SCRIPTS=free/ifnullfree.cocci COCCI_MACROS=/dev/null "$TOP/ci/cocci.sh"
grep -q "spatch parses .*% of kernel/irq/manage.c (base .*the check cannot see the code" "$tmp/out" && result OK "cocci names the file it cannot parse" ||
	result FAIL "cocci names the file it cannot parse"

if [ "${SKIP_BUILD_CHECK:-0}" = 1 ]; then
	echo "skip   patch-build fails a patch that adds a W=1 warning (SKIP_BUILD_CHECK=1)"
	skip=$((skip + 1))
elif [ ! -f "$KOUT/.config" ]; then
	echo "skip   patch-build fails a patch that adds a W=1 warning (no $KOUT/.config)"
	skip=$((skip + 1))
else
	# One more commit on the scratch branch: an unused static function.
	printf '\nstatic int irq_series_unused_demo(void)\n{\n\treturn 0;\n}\n' >>"$BUILD/linux-bad/kernel/irq/proc.c"
	KTREE=$BUILD/linux-bad kgit commit -q -a -s -m "genirq: Add a warning on purpose" -m "Test of ci/patch-build.sh."
	expect_fail "patch-build fails a patch that adds a W=1 warning" \
		env KTREE="$BUILD/linux-bad" CROSS_ARCHES= "$TOP/ci/patch-build.sh" $((n + 1))
	grep -q "irq_series_unused_demo" "$tmp/out" && result OK "patch-build names the new warning" ||
		result FAIL "patch-build names the new warning"
	# A warning only sparse gives (gcc 12 has no -Wmissing-variable-declarations):
	# proves C=1 really runs sparse on 7.3 (scripts/checker-valid.sh).
	git -C "$bad" reset -q --hard HEAD~1
	printf '\nint irq_series_sparse_demo;\n' >>"$BUILD/linux-bad/kernel/irq/proc.c"
	KTREE=$BUILD/linux-bad kgit commit -q -a -s -m "genirq: Add a sparse warning on purpose" -m "Test of ci/patch-build.sh."
	expect_fail "patch-build fails a patch that adds a sparse-only warning" \
		env KTREE="$BUILD/linux-bad" CROSS_ARCHES= "$TOP/ci/patch-build.sh" $((n + 1))
	grep -q "irq_series_sparse_demo.*static" "$tmp/out" && result OK "patch-build names the sparse warning" ||
		result FAIL "patch-build names the sparse warning"

	# A warning only an architecture without HARDIRQS_SW_RESEND gives:
	# the powerpc column must see it, and x86_64 must not.
	git -C "$bad" reset -q --hard HEAD~1
	printf '\n#ifndef CONFIG_HARDIRQS_SW_RESEND\nstatic int irq_series_nosw_demo(void)\n{\n\treturn 0;\n}\n#endif\n' \
		>>"$bad/kernel/irq/proc.c"
	KTREE=$bad kgit commit -q -a -s -m "genirq: Add a warning without SW_RESEND on purpose" -m "Test of ci/patch-build.sh."
	expect_fail "patch-build's powerpc column fails a warning only powerpc gives" \
		env KTREE="$bad" CROSS_ARCHES=powerpc "$TOP/ci/patch-build.sh" $((n + 1))
	grep -q "^FAIL   $((n + 1)) \[powerpc\]" "$tmp/out" && grep -q "irq_series_nosw_demo" "$tmp/out" &&
		grep -q "^ok     $((n + 1)) \[x86_64\]" "$tmp/out" &&
		result OK "patch-build names the powerpc warning, and x86_64 passes the patch" ||
		{ result FAIL "patch-build names the powerpc warning, and x86_64 passes the patch"; sed 's/^/    /' "$tmp/out"; }
	# A new file that the configuration leaves out: nothing of it would
	# be checked (as the KUnit suite's file was, before .config.top).
	git -C "$bad" reset -q --hard HEAD~1
	printf '// SPDX-License-Identifier: GPL-2.0\nint irq_series_off_demo;\n' >"$bad/kernel/irq/irq_series_off_demo.c"
	echo 'obj-$(CONFIG_IRQ_SERIES_OFF_DEMO) += irq_series_off_demo.o' >>"$bad/kernel/irq/Makefile"
	git -C "$bad" add kernel/irq/irq_series_off_demo.c
	KTREE=$bad kgit commit -q -a -s -m "genirq: Add a file nothing builds on purpose" -m "Test of ci/patch-build.sh."
	expect_fail "patch-build fails a patch whose new .c file the configuration does not build" \
		env KTREE="$bad" CROSS_ARCHES= "$TOP/ci/patch-build.sh" $((n + 1))
	grep -q "not compiled in this configuration: kernel/irq/irq_series_off_demo.c" "$tmp/out" &&
		result OK "patch-build names the file it did not compile" ||
		result FAIL "patch-build names the file it did not compile"

	# The hard interrupt path: a member in front of struct irqaction moves
	# what the flow handlers read (code and layout fail); 64 bytes more at
	# its end make it three cache lines (layout fails). One pointer would
	# not: it fits in the tail padding of the 128 bytes.
	git -C "$bad" reset -q --hard HEAD~1
	expect_pass "hotpath passes the series" "$TOP/ci/hotpath.sh"
	sed -i 's/^struct irqaction {$/&\n\tunsigned long\t\tirq_series_demo;/' "$bad/include/linux/interrupt.h"
	KTREE=$bad kgit commit -q -a -s -m "genirq: Move the members of struct irqaction on purpose" -m "Test of ci/hotpath.sh."
	expect_fail "hotpath fails a patch that moves the members the hard path reads" \
		env HOT_NEW="$(git -C "$bad" rev-parse HEAD)" "$TOP/ci/hotpath.sh"
	grep -q "^FAIL   code:" "$tmp/out" && grep -q "^    handler 0 -> 8" "$tmp/out" &&
		result OK "hotpath names the changed code and the moved members" ||
		result FAIL "hotpath names the changed code and the moved members"
	git -C "$bad" reset -q --hard HEAD~1
	sed -i 's/^} ____cacheline_internodealigned_in_smp;$/\tchar\t\t\tirq_series_demo[64];\n&/' "$bad/include/linux/interrupt.h"
	KTREE=$bad kgit commit -q -a -s -m "genirq: Grow struct irqaction on purpose" -m "Test of ci/hotpath.sh."
	expect_fail "hotpath fails a patch that makes struct irqaction a cache line longer" \
		env HOT_NEW="$(git -C "$bad" rev-parse HEAD)" "$TOP/ci/hotpath.sh"
	grep -q "^FAIL   layout: struct irqaction grows from 128 to 192 bytes" "$tmp/out" &&
		result OK "hotpath names the growth" || result FAIL "hotpath names the growth"
	# net core's structs: a pointer more in struct napi_struct makes it a
	# cache line longer (512 bytes on x86_64 at the base).
	git -C "$bad" reset -q --hard HEAD~1
	sed -i 's/^\tstruct napi_config\t\*config;$/&\n\tvoid\t\t\t*irq_series_demo;/' "$bad/include/linux/netdevice.h"
	KTREE=$bad kgit commit -q -a -s -m "net: Grow struct napi_struct on purpose" -m "Test of ci/hotpath.sh."
	expect_fail "hotpath fails a patch that makes struct napi_struct a cache line longer" \
		env HOT_NEW="$(git -C "$bad" rev-parse HEAD)" "$TOP/ci/hotpath.sh"
	grep -q "^FAIL   net: struct napi_struct grows from 512 to 520 bytes" "$tmp/out" &&
		result OK "hotpath names the napi_struct growth" || result FAIL "hotpath names the napi_struct growth"
fi

mkdir -p "$BUILD/results"
echo "$pass $fail $skip" >"$BUILD/results/check-selftest.counts"
echo "checks of the checks: $pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
