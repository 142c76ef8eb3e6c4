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
#                                          built with -Dcuda=disabled (all
#                                          but lib, reliability, fuzz)
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
#                                          registered for the run only; lib
#                                          includes the Relacy model
#                                          (relacy-protocol, aarch64 build)
#                                          and the interleave tests; the leg
#                                          fails if relacy-protocol was not
#                                          built (docs/platforms.md: what
#                                          this proves about weak memory)
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

# The chroot, its mounts (undone on exit) and its packages.
source "$(dirname "${BASH_SOURCE[0]}")/chroot-enter.sh"

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
     ! grep -q "gst_cuda_allocator_alloc_wrapped (>= 1.24) *: \(YES\|true\)" "$LOG/chroot-$b-setup.log"; then
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
    # and without the CUDA toolkit (when the first build had it): suites
    # lib (its models too), reliability and fuzz are left out, as none of
    # their programs compiles differently without CUDA and they ran above
    if [ -n "$cuda_real" ]; then
      build_and_test build-deb13-nocuda "-Dtests=enabled -Dbench=disabled -Dcuda=disabled" \
        "--no-suite lib --no-suite reliability --no-suite fuzz"
    fi ;;
  bullseye)
    # GStreamer 1.18 is below the supported minimum (1.20): the CPU-only
    # configuration accepts it for this test (meson_options.txt gst-1-18).
    build_and_test build-deb11 \
      "-Dtests=enabled -Dbench=enabled -Dcuda=disabled -Dgst-cuda=disabled -Dgst-1-18=true" "" ;;
  arm64)
    build_and_test build-arm64 \
      "--cross-file scripts/cross/aarch64-linux-gnu.ini -Dtests=enabled -Dbench=disabled" \
      "--suite lib --suite reliability --suite multiproc"
    # The model's scenarios must have run on this leg: a cross build that
    # quietly lost C++ or the Relacy headers would skip them.
    if [ -f "$SRC/build-arm64/build.ninja" ] &&
       ! [ -x "$SRC/build-arm64/tests/relacy/relacy-protocol" ]; then
      say "build-arm64: tests/relacy/relacy-protocol was not built (aarch64 g++ or relacy-dev missing): failed"
      rc=1
    fi ;;
esac
exit $rc
