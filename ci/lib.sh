# Shared helpers for the ci/ scripts.  Sourced, never run.
# shellcheck shell=bash

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
# The kernel git tree the series lives in: our unpacked Debian base, or the
# user's own tree (KERNEL_SRC=~/linux).
KTREE=${KTREE:-${KERNEL_SRC:-$BUILD/linux}}
KOUT=${KOUT:-$BUILD/obj}
BASE_TAG=${BASE_TAG:-series-base}
SERIES_BRANCH=${SERIES_BRANCH:-irq-thread-affinity}
# The project's identity: every patch is authored and signed off with it.
PROJECT_NAME=${PROJECT_NAME:-Threadable IRQ Project}
PROJECT_EMAIL=${PROJECT_EMAIL:-threadable-irq@example.org}
JOBS=${JOBS:-$(nproc)}
# Downloads and tools built from source, shared by every clone on the machine.
DEPS=${DEPS:-$HOME/.cache/irq-series-deps}
# The base: Debian's linux-source-7.3 from trixie-backports (mainline 7.3.4
# with Debian's patches), unpacked with dpkg-deb -x.
BASE_PKG=${BASE_PKG:-linux-source-7.3}
BASE_VERSION=${BASE_VERSION:-7.3.4-1~bpo13+1}
BASE_TARBALL=${BASE_TARBALL:-$DEPS/$BASE_PKG-$BASE_VERSION.tar.xz}
# sparse new enough for 7.3's scripts/checker-valid.sh (built by ci/deps.sh).
SPARSE_VERSION=${SPARSE_VERSION:-0.6.5~rc1-2}
SPARSE=${SPARSE:-$DEPS/bin/sparse}

# karch_env: the make arguments (KARCH_MAKE), cross compiler prefix
# (CROSS_COMPILE) and boot image (KIMAGE, relative to the output directory)
# for KARCH (default x86_64).
karch_env() {
	KARCH=${KARCH:-x86_64}
	case $KARCH in
	x86_64) CROSS_COMPILE=; KIMAGE=arch/x86/boot/bzImage ;;
	arm64) CROSS_COMPILE=aarch64-linux-gnu-; KIMAGE=arch/arm64/boot/Image ;;
	powerpc) CROSS_COMPILE=powerpc64-linux-gnu-; KIMAGE=vmlinux ;;
	*) die "KARCH=$KARCH: x86_64, arm64 or powerpc" ;;
	esac
	# x86_64 is the host: no ARCH=, as before there were other ones.
	KARCH_MAKE=()
	[ -z "$CROSS_COMPILE" ] || KARCH_MAKE=(ARCH="$KARCH" CROSS_COMPILE="$CROSS_COMPILE")
	command -v "${CROSS_COMPILE}gcc" >/dev/null ||
		die "no ${CROSS_COMPILE}gcc: run 'ci/deps.sh check' (cross columns) or 'ci/deps.sh arm64' (the arm64 guest)"
}

die() { echo "error: $*" >&2; exit 1; }
# need_deps GROUP: the packages of GROUP (ci/deps.sh GROUP), once per run:
# the scripts a stage calls inherit what it already installed.
need_deps() {
	case " ${IRQ_DEPS_HAVE:-} " in *" $1 "*) return 0 ;; esac
	"$TOP/ci/deps.sh" "$1" || return 1
	export IRQ_DEPS_HAVE="${IRQ_DEPS_HAVE:-} $1"
}
# progress MSG: a line for the user's terminal from a long stage whose own
# output goes to a log (ci/check.sh opens fd 3 on the terminal), with the
# time since the stage began.
# PROGRESS_T0 (epoch seconds, exported by the stage) keeps one clock across
# the stage's scripts.
progress() {
	local t=$(($(date +%s) - ${PROGRESS_T0:-$(date +%s)}))
	if { true >&3; } 2>/dev/null; then
		printf '>>> [%dm%02ds] %s\n' $((t / 60)) $((t % 60)) "$*" >&3
	else
		printf '>>> [%dm%02ds] %s\n' $((t / 60)) $((t % 60)) "$*" >&2
	fi
}
note() { echo ">>> $*" >&2; }
# stage_time NAME T0: append "SECONDS NAME", the seconds since epoch T0, to
# $BUILD/results/times (ci/summary.sh prints them).
stage_time() {
	mkdir -p "$BUILD/results"
	echo "$(($(date +%s) - $2)) $1" >>"$BUILD/results/times"
}
# timed NAME COMMAND...: run COMMAND, record its time as stage NAME and
# return its status.
timed() {
	local name=$1 t0 rc=0
	shift
	t0=$(date +%s)
	"$@" || rc=$?
	stage_time "$name" "$t0"
	return $rc
}

# patch_result RESULTS N COMMIT ok|FAIL [DETAILS]: one line per patch for a
# per-patch check: printed ("ok     N subject", details indented below a
# FAIL) and appended to RESULTS as "N ok|FAIL" (read by ci/check.sh).
patch_result() {
	local results=$1 n=$2 c=$3 r=$4 details=${5:-}
	if [ "$r" = ok ]; then
		echo "ok     $n $(git -C "$KTREE" log -1 --format=%s "$c")"
	else
		echo "FAIL   $n $(git -C "$KTREE" log -1 --format=%s "$c")"
		[ -z "$details" ] || printf '%s\n' "$details" | sed '/^$/d; s/^/    /'
	fi
	echo "$n $r" >>"$results"
}

# git in the kernel tree, committing as the project.
kgit() {
	git -C "$KTREE" -c user.name="$PROJECT_NAME" -c user.email="$PROJECT_EMAIL" \
		-c commit.gpgsign=false "$@"
}

# Patch files listed in series, in order (comments and blank lines skipped).
series_files() {
	local f
	while read -r f _; do
		case "$f" in '' | \#*) continue ;; esac
		if [ -f "$TOP/patches/$f" ]; then echo "$TOP/patches/$f"
		elif [ -f "$TOP/$f" ]; then echo "$TOP/$f"
		else die "series lists '$f' but there is no such file"; fi
	done <"$TOP/series"
}

# Stable patch-ids of the series files, one per line.
series_ids() {
	local p
	series_files | while read -r p; do
		git patch-id --stable <"$p" | cut -d' ' -f1
	done
}

# Stable patch-ids of the tree's commits on top of the base, oldest first.
tree_ids() {
	local c
	for c in $(git -C "$KTREE" rev-list --reverse "$BASE_TAG..HEAD"); do
		git -C "$KTREE" show --format= "$c" | git patch-id --stable | cut -d' ' -f1
	done
}

# sender_identity: the person who mails the series, in SENDER_NAME and
# SENDER_EMAIL; SENDER_PLACEHOLDER=1 when there is none.  The Developer's
# Certificate of Origin needs a real identity: the sender is the author
# of record of every mail and its only Signed-off-by.  It comes from
# PROJECT_NAME/PROJECT_EMAIL when they are set to something other than
# the placeholder, else from git (user.name, user.email).
PLACEHOLDER_NAME="Threadable IRQ Project" PLACEHOLDER_EMAIL=threadable-irq@example.org
sender_identity() {
	if [ "$PROJECT_NAME" != "$PLACEHOLDER_NAME" ] || [ "$PROJECT_EMAIL" != "$PLACEHOLDER_EMAIL" ]; then
		SENDER_NAME=$PROJECT_NAME SENDER_EMAIL=$PROJECT_EMAIL
	else
		SENDER_NAME=$(git -C "$KTREE" config user.name 2>/dev/null || true)
		SENDER_EMAIL=$(git -C "$KTREE" config user.email 2>/dev/null || true)
	fi
	SENDER_PLACEHOLDER=0
	if [ -z "$SENDER_NAME" ] || [ -z "$SENDER_EMAIL" ] ||
		[ "$SENDER_EMAIL" = "$PLACEHOLDER_EMAIL" ] || [ "$SENDER_NAME" = "$PLACEHOLDER_NAME" ]; then
		SENDER_PLACEHOLDER=1 SENDER_NAME=$PLACEHOLDER_NAME SENDER_EMAIL=$PLACEHOLDER_EMAIL
	fi
}

