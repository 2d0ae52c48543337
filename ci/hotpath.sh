#!/bin/bash
# The series must add nothing to the hard interrupt path.  Two checks, at
# the base and after the last patch, with the guest's .config:
#
#   code    the object code of kernel/irq/handle.o (handle_irq_event(),
#           __handle_irq_event_percpu(), __irq_wake_thread()), chip.o (the
#           flow handlers) and spurious.o (note_interrupt()), disassembled
#           without addresses: every function must be the same.
#   layout  struct irqaction (pahole): every member the base has keeps its
#           offset, and the struct keeps its number of cache lines.
#   net     struct net_device keeps its size and every member's offset;
#           struct napi_struct keeps the offsets of its members up to
#           thread (its data path part) and its number of cache lines.
#
# Prints both layouts; logs in $BUILD/check/hotpath/.  "The base" is the
# base plus the mainline fixes the series starts with (see below).
#
#   ci/hotpath.sh                 base against the series (HEAD of the tree)
#   HOT_OLD=REV HOT_NEW=REV ci/hotpath.sh   any two revisions
set -uo pipefail
. "$(dirname "$0")/lib.sh"
need_deps check || exit 1

command -v pahole >/dev/null || die "no pahole (Debian package dwarves)"
# Resolved in the tree: the scratch worktree has a HEAD of its own.
old=$(git -C "$KTREE" rev-parse --verify "${HOT_OLD:-refs/irq-series/base}^{commit}") || die "no revision ${HOT_OLD:-refs/irq-series/base} in $KTREE"
# The mainline fixes at the head of the series (a Fixes: tag; patch 1,
# the spurious detector's fix, changes note_interrupt() on purpose) stand
# alone: the code check starts after them.  The layout check too.
if [ -z "${HOT_OLD:-}" ]; then
	for c in $(git -C "$KTREE" rev-list --reverse "$old..${HOT_NEW:-HEAD}"); do
		git -C "$KTREE" log -1 --format=%B "$c" | grep -q '^Fixes: ' || break
		echo "starting after the mainline fix $(git -C "$KTREE" log -1 --format='%h ("%s")' "$c")"
		old=$c
	done
fi
new=$(git -C "$KTREE" rev-parse --verify "${HOT_NEW:-HEAD}^{commit}") || die "no revision ${HOT_NEW:-HEAD} in $KTREE"
wt=$BUILD/linux-check
out=$BUILD/check/hotpath
objs=(kernel/irq/handle.o kernel/irq/chip.o kernel/irq/spurious.o)
rm -rf "$out"; mkdir -p "$out"
[ -f "$KOUT/.config" ] || die "no $KOUT/.config: run 'make kernel' first"
if [ ! -d "$wt" ]; then
	git -C "$KTREE" worktree prune
	git -C "$KTREE" worktree add -q --detach "$wt" "$old"
fi
export CCACHE_DIR=${CCACHE_DIR:-$BUILD/ccache}
export CCACHE_BASEDIR=$wt CCACHE_NOHASHDIR=1

# build_objs REV NAME: the objects at REV with debug info (for pahole; -g
# does not change gcc's code), their disassembly and the struct's layout.
build_objs() {
	local rev=$1 name=$2 o=$BUILD/obj-hot-$2 f
	git -C "$wt" checkout -q --detach "$rev" || return 1
	mkdir -p "$o"; cp "$KOUT/.config" "$o/.config"
	local kmake=(make -C "$wt" O="$o" -j"$JOBS" CC="ccache gcc" KBUILD_BUILD_TIMESTAMP=@0 KCFLAGS=-g)
	"${kmake[@]}" -s olddefconfig >/dev/null 2>&1 || return 1
	"${kmake[@]}" -s prepare >"$out/$name.build" 2>&1 || return 1
	for f in "${objs[@]}"; do rm -f "$o/$f"; done
	"${kmake[@]}" "${objs[@]}" >>"$out/$name.build" 2>&1 || return 1
	for f in "${objs[@]}"; do
		# Function headers and instructions, without addresses or bytes.
		objdump -d -r --no-show-raw-insn "$o/$f" |
			sed -E -n -e 's/^[0-9a-f]+ <([^>]+)>:$/== \1/p' \
				-e 's/^ +[0-9a-f]+:\t//p' |
			sed -E 's/\b[0-9a-f]+ <([^>+]+)(\+0x[0-9a-f]+)?>/<\1\2>/g'
	done >"$out/$name.dis"
	pahole -C irqaction "$o/kernel/irq/handle.o" >"$out/$name.pahole" 2>&1
	[ -s "$out/$name.pahole" ] || return 1
	rm -f "$o/net/core/dev.o"
	"${kmake[@]}" net/core/dev.o >>"$out/$name.build" 2>&1 || return 1
	pahole -C napi_struct "$o/net/core/dev.o" >"$out/$name.napi" 2>&1
	pahole -C net_device "$o/net/core/dev.o" >"$out/$name.netdev" 2>&1
	[ -s "$out/$name.napi" ] && [ -s "$out/$name.netdev" ]
}

# The base's results are kept for its revision and configuration: the
# checks of the checks (ci/test-checks.sh) compare three broken trees
# with the same base.
cache=$BUILD/check/hotpath-cache/$old-$(md5sum <"$KOUT/.config" | cut -c1-12)
if [ -s "$cache/old.dis" ] && [ -s "$cache/old.pahole" ] && [ -s "$cache/old.napi" ] && [ -s "$cache/old.netdev" ]; then
	progress "hotpath: the base's objects and structs from $cache"
	cp "$cache"/old.* "$out/"
else
	progress "hotpath: objects and struct irqaction at $(git -C "$KTREE" log -1 --format='%h %s' "$old")"
	build_objs "$old" old || die "cannot build ${objs[*]} at $old (see $out/old.build)"
	mkdir -p "$cache" && cp "$out"/old.dis "$out"/old.pahole "$out"/old.napi "$out"/old.netdev "$cache/"
fi
progress "hotpath: objects and struct irqaction at $(git -C "$KTREE" log -1 --format='%h %s' "$new")"
build_objs "$new" new || die "cannot build ${objs[*]} at $new (see $out/new.build)"

fail=0
nf=$(grep -c '^== ' "$out/old.dis")
[ "$nf" -gt 10 ] || die "only $nf functions disassembled at $old: the check would see nothing"
if cmp -s "$out/old.dis" "$out/new.dis"; then
	echo "ok     code: $nf functions of ${objs[*]##*/} identical ($(grep -vc '^== ' "$out/new.dis") instructions)"
else
	# One line per function: name and a hash of its instructions.
	fnsums() {
		awk '/^== / { if (fn != "") print fn, body; fn = $2; body = ""; next }
		     { body = body "|" $0 } END { if (fn != "") print fn, body }' "$1" |
			while read -r fn body; do echo "$fn $(printf '%s' "$body" | md5sum | cut -c1-12)"; done | sort
	}
	changed=$(join -a1 -a2 -e none -o 0,1.2,2.2 <(fnsums "$out/old.dis") <(fnsums "$out/new.dis") |
		awk '$2 != $3 { print $1 ($2 == "none" ? " (new)" : $3 == "none" ? " (gone)" : "") }')
	echo "FAIL   code: the hard interrupt path changed in $(echo "$changed" | wc -l) functions:"
	echo "$changed" | sed 's/^/    /'
	echo "    (diff -u $out/old.dis $out/new.dis)"
	fail=1
fi

# member lines of pahole: "TYPE NAME; /* OFFSET SIZE */" -> "NAME OFFSET"
members() {
	sed -E -n 's/^\t.*[ *]([a-z_]+)(\[[0-9]+\])?;[ \t]*\/\* +([0-9]+) +[0-9]+ \*\/$/\1 \3/p' "$1"
}
size_lines() {
	sed -E -n 's/.*size: ([0-9]+), cachelines: ([0-9]+).*/\1 \2/p' "$1"
}
read -r osize olines < <(size_lines "$out/old.pahole")
read -r nsize nlines < <(size_lines "$out/new.pahole")
[ -n "${osize:-}" ] && [ -n "${nsize:-}" ] || die "pahole printed no size (see $out/*.pahole)"
echo "struct irqaction at the base (${old:0:12}):"; sed 's/^/    /' "$out/old.pahole"
echo "struct irqaction after the series (${new:0:12}):"; sed 's/^/    /' "$out/new.pahole"
moved=$(join <(members "$out/old.pahole" | sort) <(members "$out/new.pahole" | sort) -a1 |
	awk '$2 != $3 { print $1 " " $2 " -> " ($3 == "" ? "gone" : $3) }')
nm=$(members "$out/old.pahole" | wc -l)
[ "$nm" -gt 10 ] || die "only $nm members of struct irqaction parsed at $old"
if [ -n "$moved" ]; then
	echo "FAIL   layout: members of the base moved:"; echo "$moved" | sed 's/^/    /'; fail=1
else
	echo "ok     layout: the $nm members of the base keep their offsets"
fi
if [ "$nlines" -gt "$olines" ]; then
	echo "FAIL   layout: struct irqaction grows from $osize to $nsize bytes, $olines to $nlines cache lines"; fail=1
else
	echo "ok     layout: struct irqaction $osize -> $nsize bytes, $olines -> $nlines cache lines"
fi

# net: the structs net core's part of the series touches.
moved_of() {	# moved_of OLD NEW [LAST]: base members (up to LAST) that moved
	join <(members "$1" | awk -v last="${3:-}" '{ print } $1 == last { exit }' | sort) \
		<(members "$2" | sort) -a1 | awk '$2 != $3 { print $1 " " $2 " -> " ($3 == "" ? "gone" : $3) }'
}
read -r osize olines < <(size_lines "$out/old.netdev")
read -r nsize nlines < <(size_lines "$out/new.netdev")
nm=$(members "$out/old.netdev" | wc -l)
[ "$nm" -gt 50 ] || die "only $nm members of struct net_device parsed at $old"
moved=$(moved_of "$out/old.netdev" "$out/new.netdev")
if [ -n "$moved" ] || [ "$nsize" != "$osize" ]; then
	echo "FAIL   net: struct net_device $osize -> $nsize bytes; moved:"; echo "$moved" | sed 's/^/    /'; fail=1
else
	echo "ok     net: struct net_device keeps its $osize bytes and the offsets of its $nm members"
fi
read -r osize olines < <(size_lines "$out/old.napi")
read -r nsize nlines < <(size_lines "$out/new.napi")
nm=$(members "$out/old.napi" | awk '{ print } $1 == "thread" { exit }' | wc -l)
[ "$nm" -gt 8 ] || die "only $nm members of struct napi_struct parsed at $old"
moved=$(moved_of "$out/old.napi" "$out/new.napi" thread)
if [ -n "$moved" ]; then
	echo "FAIL   net: members of struct napi_struct's data path part moved:"; echo "$moved" | sed 's/^/    /'; fail=1
elif [ "$nlines" -gt "$olines" ]; then
	echo "FAIL   net: struct napi_struct grows from $osize to $nsize bytes, $olines to $nlines cache lines"; fail=1
else
	echo "ok     net: struct napi_struct keeps the offsets of the $nm members up to thread; $osize -> $nsize bytes, $olines -> $nlines cache lines"
fi
echo "struct napi_struct after the series (${new:0:12}):"; sed 's/^/    /' "$out/new.napi"
git -C "$wt" checkout -q --detach "$old"
exit $fail
