#!/bin/bash
# Runs doradma's tests on another Debian release or architecture, inside a
# Debian chroot made with debootstrap (minbase) from the Debian archive that
# apt already uses here. One leg per call:
#
#   bash scripts/chroot-test.sh trixie     Debian 13, GStreamer 1.26: every
#                                          suite; with the host's CUDA toolkit
#                                          bind-mounted (read-only) when there
#                                          is one, so the >= 1.24 zero-copy
#                                          branch is compiled, and then again
#                                          built with -Dcuda=disabled
#   bash scripts/chroot-test.sh bullseye   Debian 11, GStreamer 1.18, GLib
#                                          2.66: every suite, CPU path only
#                                          (-Dcuda=disabled), meson from
#                                          Debian 12 (pure Python)
#   bash scripts/chroot-test.sh arm64      Debian 12 chroot: cross build for
#                                          aarch64 (the CUDA headers too when
#                                          the host has them: a Jetson-like
#                                          configuration), suites lib,
#                                          reliability and multiproc run under
#                                          qemu-user through binfmt_misc,
#                                          registered for the run only
#
# Needs root, debootstrap and (arm64) qemu-user-static on the host
# (scripts/install-deps.sh installs them). The chroots live OUTSIDE the
# clone, in $DORADMA_CHROOTS (default /var/cache/doradma/chroots/<leg>):
# created when absent (2-5 minutes each), reused when present; their
# packages are brought up to the leg's list on every run (no network when
# nothing is missing). The source tree is bind-mounted at the same path, so
# the build folders (build-deb13, build-deb13-nocuda, build-deb11,
# build-arm64) are in the clone.
#
# Mounts (proc, sys, the source tree, a private tmpfs /dev/shm, the CUDA
# toolkit) are removed on exit, however the script ends; objects the tests
# create in /dev/shm stay in that private tmpfs and go with it. A lock
# serialises runs of the same leg.
#
# Output: meson's test output, one summary per build (the caller counts
# their Ok/Fail/... lines); a failed set-up or build prints "... failed"
# and the exit status is 1.
set -uo pipefail

leg=${1:-}
case $leg in
  trixie)   suite=trixie ;;
  bullseye) suite=bullseye ;;
  arm64)    suite=bookworm ;;
  *) echo "usage: $0 trixie|bullseye|arm64" >&2; exit 2 ;;
esac

SRC=$(cd "$(dirname "$0")/.." && pwd)
ROOT=${DORADMA_CHROOTS:-/var/cache/doradma/chroots}
chroot_dir=$ROOT/$leg
JOBS=$(nproc 2>/dev/null || echo 2)

say () { echo "chroot-test[$leg]: $*"; }
die () { say "$*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, mount, chroot)"
command -v debootstrap >/dev/null || die "debootstrap not found: bash scripts/install-deps.sh"

# The Debian archive apt uses here (the entry of this release's main
# component), unless DORADMA_DEBIAN_MIRROR names one.
mirror=${DORADMA_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' 2>/dev/null |
           awk -v c="$codename" '$2 == c && $3 == "main" { print $1; exit }')
  if [ -z "$mirror" ]; then   # no lists fetched yet: read the sources themselves
    mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
             awk -v c="$codename" '$1 == "deb" && $3 == c { print $2; exit }')
  fi
  if [ -z "$mirror" ]; then   # deb822 .sources: the URIs of the stanza whose Suites has it
    mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
             awk -v c="$codename" '/^URIs:/ { u = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == c) { print u; exit } }')
  fi
  [ -n "$mirror" ] || die "no Debian archive found in apt's sources for '$codename': set DORADMA_DEBIAN_MIRROR"
fi

mkdir -p "$ROOT"
exec 9>"$ROOT/$leg.lock"
flock 9

# ---------------------------------------------------------------- mounts ----
mounts=()
binfmt_name=""
binfmt_mounted=0

cleanup () {
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
    umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}" ||
      say "could not unmount ${mounts[i]}"
  done
  mounts=()
  if [ -n "$binfmt_name" ] && [ -e "/proc/sys/fs/binfmt_misc/$binfmt_name" ]; then
    echo -1 > "/proc/sys/fs/binfmt_misc/$binfmt_name"
  fi
  if [ "$binfmt_mounted" = 1 ]; then umount /proc/sys/fs/binfmt_misc; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# mnt SOURCE TARGET [mount options...]: a private mount, undone by cleanup.
mnt () {
  local src=$1 dst=$2; shift 2
  mount "$@" "$src" "$dst" || die "mount $* $src $dst failed"
  mounts+=("$dst")
  mount --make-private "$dst" 2>/dev/null || true
}

# Mounts left behind by a run that was killed with SIGKILL.
unmount_stale () {
  local m
  findmnt -rn -o TARGET | awk -v p="$chroot_dir/" 'index($0, p) == 1' | sort -r |
    while read -r m; do umount "$m" 2>/dev/null || umount -l "$m"; done
}

# ---------------------------------------------------------- the chroot ----
if [ ! -e "$chroot_dir/.doradma-base" ]; then
  unmount_stale
  [ -z "$(findmnt -rn -o TARGET | grep -F "$chroot_dir")" ] ||
    die "$chroot_dir still has mounts: not removing it"
  rm -rf "$chroot_dir"
  say "creating $chroot_dir: debootstrap --variant=minbase $suite ($mirror)"
  t0=$(date +%s)
  debootstrap --variant=minbase "$suite" "$chroot_dir" "$mirror" \
      > "$ROOT/$leg.debootstrap.log" 2>&1 ||
    { tail -20 "$ROOT/$leg.debootstrap.log"; die "debootstrap failed (log: $ROOT/$leg.debootstrap.log)"; }
  if [ "$leg" = bullseye ]; then
    # Debian 11's meson (0.56) is older than doradma's minimum (0.61): take
    # Debian 12's, which is pure Python, and nothing else from Debian 12.
    echo "deb $mirror bookworm main" > "$chroot_dir/etc/apt/sources.list.d/bookworm.list"
    printf 'Package: *\nPin: release n=bookworm\nPin-Priority: 100\n' \
      > "$chroot_dir/etc/apt/preferences.d/bookworm-low"
  fi
  touch "$chroot_dir/.doradma-base"
  say "created in $(($(date +%s) - t0)) s"
else
  unmount_stale
fi

cp -L /etc/resolv.conf "$chroot_dir/etc/resolv.conf" 2>/dev/null || true
mnt proc "$chroot_dir/proc" -t proc
mnt sysfs "$chroot_dir/sys" -t sysfs
mnt tmpfs "$chroot_dir/dev/shm" -t tmpfs -o size=2g,mode=1777
# pseudo-terminals of our own (tests/cli drives `doradma watch` in one)
mkdir -p "$chroot_dir/dev/pts"
mnt devpts "$chroot_dir/dev/pts" -t devpts -o newinstance,ptmxmode=0666,mode=0620
if [ ! -c "$chroot_dir/dev/ptmx" ]; then
  rm -f "$chroot_dir/dev/ptmx"; ln -s pts/ptmx "$chroot_dir/dev/ptmx"
fi
for node in null zero full random urandom tty; do
  if [ ! -c "$chroot_dir/dev/$node" ]; then
    rm -f "$chroot_dir/dev/$node"; touch "$chroot_dir/dev/$node"
    mnt "/dev/$node" "$chroot_dir/dev/$node" --bind
  fi
done
mkdir -p "$chroot_dir$SRC"
mnt "$SRC" "$chroot_dir$SRC" --bind

# The host's CUDA toolkit (headers, nvcc), read-only, at the same path.
cuda_real=""
if [ -e /usr/local/cuda/include/cuda.h ] && [ "${DORADMA_CHROOT_CUDA:-1}" = 1 ]; then
  cuda_real=$(readlink -f /usr/local/cuda)
  mkdir -p "$chroot_dir$cuda_real"
  mnt "$cuda_real" "$chroot_dir$cuda_real" --bind -o ro
  [ "$cuda_real" = /usr/local/cuda ] || ln -sfn "$cuda_real" "$chroot_dir/usr/local/cuda"
else
  rm -f "$chroot_dir/usr/local/cuda"
fi

# in_chroot COMMAND...: runs bash -c COMMAND in the chroot, in the source
# tree, with a clean environment.
in_chroot () {
  chroot "$chroot_dir" /usr/bin/env -i \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 TERM=dumb CI="${CI:-}" DEBIAN_FRONTEND=noninteractive \
    DORADMA_SOAK_ROUNDS="${DORADMA_SOAK_ROUNDS:-}" \
    bash -c "cd '$SRC' && $1"
}

# ---------------------------------------------------------- packages ----
LOG=${DORADMA_TEST_LOGDIR:-$SRC/build-logs}
mkdir -p "$LOG"
deps_log=$LOG/chroot-$leg-deps.log
t0=$(date +%s)
case $leg in
  trixie)
    # The project's own script, as a user on Debian 13 runs it.
    in_chroot "DORADMA_DEPS=native bash scripts/install-deps.sh" > "$deps_log" 2>&1 ;;
  bullseye)
    in_chroot "DORADMA_DEPS=cpu bash scripts/install-deps.sh" > "$deps_log" 2>&1 ;;
  arm64)
    in_chroot "DORADMA_DEPS=cross-arm64 bash scripts/install-deps.sh" > "$deps_log" 2>&1 ;;
esac || { tail -30 "$deps_log"; die "installing packages failed (log: $deps_log)"; }
say "packages: $(tail -1 "$deps_log") ($(($(date +%s) - t0)) s)"

# ----------------------------------------------------------- binfmt ----
if [ "$leg" = arm64 ]; then
  bf=/proc/sys/fs/binfmt_misc
  if [ ! -e "$bf/register" ]; then
    mount -t binfmt_misc binfmt_misc "$bf" || die "cannot mount binfmt_misc"
    binfmt_mounted=1
  fi
  qemu=$(command -v qemu-aarch64-static) || die "qemu-aarch64-static not found on the host"
  if ! grep -qs '^enabled' "$bf"/qemu-aarch64 "$bf"/doradma-aarch64; then
    # F: the interpreter is opened now, so it runs inside the chroot too.
    printf '%s' ":doradma-aarch64:M::\\x7fELF\\x02\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02\\x00\\xb7\\x00:\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\x00\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xfe\\xff\\xff\\xff:$qemu:F" \
      > "$bf/register" || die "registering qemu-aarch64 with binfmt_misc failed"
    binfmt_name=doradma-aarch64
    say "binfmt_misc: aarch64 ELF -> $qemu (until this run ends)"
  fi
fi

# ------------------------------------------------------ build and test ----
# build_and_test BUILD_DIR "MESON ARGS" "MESON TEST ARGS": one configuration;
# a failed set-up or build prints "chroot-test: ... failed" (no meson
# summary: the caller counts it as a failure).
rc=0
build_and_test () {
  local b=$1 args=$2 suites=$3 t0 r
  t0=$(date +%s)
  if ! in_chroot "rm -rf $b && meson setup $b $args" > "$LOG/chroot-$b-setup.log" 2>&1 ||
     ! in_chroot "ninja -C $b -j $JOBS" > "$LOG/chroot-$b-build.log" 2>&1; then
    tail -40 "$LOG/chroot-$b-setup.log" "$LOG/chroot-$b-build.log" 2>/dev/null
    say "$b: set-up or build failed (logs: $LOG/chroot-$b-*.log)"
    rc=1
    return
  fi
  grep -E "^ +(GStreamer|GLib|meson|compat|CUDA|nvcc|gstreamer-cuda|gst_cuda_allocator)" \
    "$LOG/chroot-$b-setup.log" | sed "s/^/chroot-test[$leg] $b: /"
  if [ -n "$cuda_real" ] && [ "$b" = build-deb13 ] &&
     ! grep -q "gst_cuda_allocator_alloc_wrapped (>= 1.24): \(YES\|true\)" "$LOG/chroot-$b-setup.log"; then
    say "$b: the CUDA toolkit is mounted but the >= 1.24 zero-copy branch is not configured (see $LOG/chroot-$b-setup.log): failed"
    rc=1
    return
  fi
  say "$b: built in $(($(date +%s) - t0)) s"
  t0=$(date +%s)
  in_chroot "meson test -C $b --no-rebuild --num-processes $JOBS --print-errorlogs $suites"
  r=$?
  [ $r -eq 0 ] || rc=1
  say "$b: tests ran in $(($(date +%s) - t0)) s (meson test exit $r)"
}

case $leg in
  trixie)
    build_and_test build-deb13 "-Dtests=enabled -Dbench=enabled" ""
    # and without the CUDA toolkit (when the first build had it)
    if [ -n "$cuda_real" ]; then
      build_and_test build-deb13-nocuda "-Dtests=enabled -Dbench=disabled -Dcuda=disabled" ""
    fi ;;
  bullseye)
    # GStreamer 1.18 is below the supported minimum (1.20): the CPU-only
    # configuration accepts it for this test (meson_options.txt gst-1-18).
    build_and_test build-deb11 \
      "-Dtests=enabled -Dbench=enabled -Dcuda=disabled -Dgst-cuda=disabled -Dgst-1-18=true" "" ;;
  arm64)
    build_and_test build-arm64 \
      "--cross-file scripts/cross/aarch64-linux-gnu.ini -Dtests=enabled -Dbench=disabled" \
      "--suite lib --suite reliability --suite multiproc" ;;
esac
exit $rc
