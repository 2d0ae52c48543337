#!/bin/bash
# README.md describes the series as it is:
#   - its patch table (the markdown table whose header is "| # | patch |")
#     lists exactly the patches of series, in order, numbered 1..N, each
#     with its subject (the Subject: line of the patch file, joined over
#     continuation lines, the [PATCH] prefix stripped) in the patch column;
#   - every "N patches" in its first paragraph says the number of entries
#     of series.
#   ci/readme-series.sh [DIR]   DIR holds README.md, series and patches/
#                               (default: the project's)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

dir=${1:-$TOP}
readme=$dir/README.md
[ -f "$readme" ] || die "no $readme"
[ -f "$dir/series" ] || die "no $dir/series"
bad=0
fail() { echo "FAIL   $*"; bad=$((bad + 1)); }

# subject PATCH: its first Subject: header, unfolded, without [PATCH...]
subject() {
	awk '!on && /^Subject:/ { s = $0; sub(/^Subject:[ \t]*/, "", s); on = 1; next }
		on && /^[ \t]/ { t = $0; sub(/^[ \t]+/, " ", t); s = s t; next }
		on { exit }
		END { sub(/^\[PATCH[^]]*\][ \t]*/, "", s); print s }' "$1"
}

# The entries of series (comments and blank lines skipped) and their subjects
names=() subjects=()
while read -r f _; do
	case "$f" in '' | \#*) continue ;; esac
	p=$dir/patches/$f
	[ -f "$p" ] || p=$dir/$f
	if [ ! -f "$p" ]; then fail "series lists '$f' but there is no such file"; subjects+=(""); names+=("$f"); continue; fi
	names+=("$f")
	subjects+=("$(subject "$p")")
done <"$dir/series"
n=${#names[@]}
[ "$n" -gt 0 ] || die "series is empty"

# The table's rows: "NUMBER<TAB>PATCH COLUMN", the patch column's backticks
# taken off
rows=$(awk '/^\|[ \t]*#[ \t]*\|[ \t]*patch[ \t]*\|/ { on = 1; next }
	on && /^\|[ \t]*-/ { next }
	on && !/^\|/ { exit }
	on {
		split($0, c, "|")
		num = c[2]; gsub(/^[ \t]+|[ \t]+$/, "", num)
		sub(/^[ \t]*\|[^|]*\|[ \t]*/, ""); subj = $0
		# the patch column: a `...` span (it may hold a |), else up to the next |
		if (subj ~ /^`/) { subj = substr(subj, 2); subj = substr(subj, 1, index(subj, "`") - 1) }
		else { sub(/[ \t]*\|.*$/, "", subj) }
		print num "\t" subj
	}' "$readme")
if [ -z "$rows" ]; then
	fail "README.md has no patch table (a header \"| # | patch |\")"
else
	mapfile -t tab <<<"$rows"
	table_bad=0
	i=0
	while [ $i -lt "$n" ] || [ $i -lt ${#tab[@]} ]; do
		want_num=$((i + 1))
		if [ $i -ge ${#tab[@]} ]; then
			fail "README.md's patch table has no row $want_num: ${names[$i]} (\"${subjects[$i]}\")"
			table_bad=1
		elif [ $i -ge "$n" ]; then
			fail "README.md's patch table has a row ${tab[$i]%%$'\t'*} (\`${tab[$i]#*$'\t'}\`) beyond the $n patches of series"
			table_bad=1
		else
			num=${tab[$i]%%$'\t'*} subj=${tab[$i]#*$'\t'}
			if [ "$num" != "$want_num" ]; then
				fail "README.md's patch table: row $want_num is numbered '$num'"
				table_bad=1
			fi
			if [ "$subj" != "${subjects[$i]}" ]; then
				fail "README.md's patch table: row $want_num says \`$subj\`, series has ${names[$i]}: \"${subjects[$i]}\""
				table_bad=1
			fi
		fi
		i=$((i + 1))
	done
	[ $table_bad = 1 ] || echo "ok     README.md's patch table lists the $n patches of series in order, with their subjects"
fi

# The first paragraph: the first block of lines after the title that is
# not a heading
para=$(awk '/^#/ && !started { next }
	/^[ \t]*$/ { if (started) exit; next }
	{ started = 1; print }' "$readme")
counts=$(printf '%s\n' "$para" | grep -oE '\b[0-9]+ patches\b' | awk '{ print $1 }')
if [ -z "$counts" ]; then
	echo "ok     README.md's first paragraph gives no patch count"
else
	count_bad=0
	for c in $counts; do
		[ "$c" = "$n" ] || { fail "README.md's first paragraph says \"$c patches\", series has $n"; count_bad=1; }
	done
	[ $count_bad = 1 ] || echo "ok     README.md's first paragraph says $n patches, as series has"
fi
[ $bad = 0 ]
