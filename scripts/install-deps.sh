#!/bin/bash
# Installs the Debian packages doradma needs, picking names by what the
# distribution has (tested on Debian 11, 12 and 13). Idempotent: when
# everything is already installed it makes no network access at all;
# otherwise one `apt-get update`, then one install. Run as root (or it uses
# sudo when available).
#
#   bash scripts/install-deps.sh            # everything: build, every test,
#                                           # fuzz, sanitizers, demo, and the
#                                           # tools of the chroot/arm64 legs
#   DORADMA_DEPS=native bash ...            # the same without the chroot and
#                                           # qemu tools (used inside the
#                                           # Debian 13 chroot)
#   DORADMA_DEPS=cpu bash ...               # CPU-path build and tests only
#                                           # (Debian 11 chroot: its meson is
#                                           # too old, Debian 12's is taken)
#   DORADMA_DEPS=cross-arm64 bash ...       # aarch64 cross build and the
#                                           # arm64 run-time for qemu-user
set -euo pipefail

profile=${DORADMA_DEPS:-full}
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")

SUDO=
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
updated=0
apt_update () {
  if [ $updated = 0 ]; then $SUDO apt-get update -qq; updated=1; fi
}

# The major version of the distribution's default clang (14 on Debian 12,
# 19 on Debian 13): libclang-rt-N-dev (libFuzzer, the sanitizer run-times)
# is only a Recommends of clang-N.
clang_major () {
  local v
  v=$(dpkg-query -W -f='${Version}' clang 2>/dev/null || true)
  if [ -z "$v" ]; then
    v=$(apt-cache policy clang 2>/dev/null | sed -n 's/^ *Candidate: //p')
    if [ -z "$v" ] || [ "$v" = "(none)" ]; then
      apt_update
      v=$(apt-cache policy clang | sed -n 's/^ *Candidate: //p')
    fi
  fi
  # 1:14.0-55.7~deb12u1 -> 14
  v=${v#*:}
  echo "${v%%[.~-]*}"
}

# Installed, or installable from this distribution's sources (looked up in
# the local lists first: no network when they know it).
available () {
  local c
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed" && return 0
  c=$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p')
  if [ -z "$c" ] || [ "$c" = "(none)" ]; then
    apt_update
    c=$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p')
  fi
  [ -n "$c" ] && [ "$c" != "(none)" ]
}

BUILD=(meson ninja-build pkg-config gcc python3)
GST_DEV=(libglib2.0-dev libjson-glib-dev libgstreamer1.0-dev
         libgstreamer-plugins-base1.0-dev libibverbs-dev)
GST_RUN=(gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
         gstreamer1.0-plugins-bad)
# Python consumers (tests/multiproc/python-appsink.py)
PY_GST=(python3-gi python3-gst-1.0 gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0)
# test tools: system-call counting cross-checks, mounts for ENOSPC tests
TEST_TOOLS=(strace util-linux procps)

case $profile in
  full|native)
    PACKAGES=("${BUILD[@]}" "${GST_DEV[@]}" libgstreamer-plugins-bad1.0-dev
              # g++: nvcc compiles the CUDA test kernels' host side with it
              g++ clang "libclang-rt-$(clang_major)-dev"
              "${GST_RUN[@]}" gstreamer1.0-libav "${PY_GST[@]}" "${TEST_TOOLS[@]}"
              python3-matplotlib
              # the SDK: GstDoradma-1.0 GIR/typelib, the NumPy example
              gobject-introspection libgirepository1.0-dev python3-numpy
              # the doradma Python module (python/): Python.h
              python3-dev
              # scripts/gst-indent (the C style check)
              indent
              # tests/relacy: the protocol on a relaxed memory model
              relacy-dev)
    # doradmanetsink/doradmanetsrc (UCX: Debian 12 has 1.13, 13 has 1.18)
    # and their namespace tests (ip, tc, nft: tests/net); built only where UCX is
    if available libucx-dev; then
      # GnuTLS: HMAC-SHA-256 of their key-file handshake (gst/net)
      PACKAGES+=(libucx-dev ucx-utils iproute2 nftables libgnutls28-dev)
    else
      echo "install-deps: no libucx-dev here: doradmanetsink/doradmanetsrc will not be built" >&2
      PACKAGES+=(iproute2)
    fi
    if [ "$profile" = full ]; then
      # scripts/chroot-test.sh: Debian 13 / Debian 11 chroots, arm64 under qemu
      PACKAGES+=(debootstrap qemu-user-static)
    fi ;;
  cpu)
    PACKAGES=("${BUILD[@]}" "${GST_DEV[@]}" "${GST_RUN[@]}" "${PY_GST[@]}"
              "${TEST_TOOLS[@]}") ;;
  cross-arm64)
    if ! dpkg --print-foreign-architectures | grep -qx arm64; then
      $SUDO dpkg --add-architecture arm64
      updated=0
    fi
    # g++-aarch64-linux-gnu and relacy-dev (headers, arch all): the
    # Relacy model (tests/relacy) built for aarch64 too
    PACKAGES=("${BUILD[@]}" g++ gcc-aarch64-linux-gnu libc6-dev-arm64-cross
              g++-aarch64-linux-gnu relacy-dev
              libglib2.0-dev:arm64 libjson-glib-dev:arm64 libgstreamer1.0-dev:arm64
              libgstreamer-plugins-base1.0-dev:arm64 libgstreamer-plugins-bad1.0-dev:arm64
              libibverbs-dev:arm64
              gstreamer1.0-tools:arm64 gstreamer1.0-plugins-base:arm64
              gstreamer1.0-plugins-good:arm64 gstreamer1.0-plugins-bad:arm64
              "${TEST_TOOLS[@]}") ;;
  *) echo "install-deps: unknown DORADMA_DEPS=$profile (full, native, cpu, cross-arm64)" >&2; exit 2 ;;
esac

# doradma needs meson >= 0.61. Debian 11 has 0.56: take Debian 12's (pure
# Python; the caller adds a Debian 12 source with a low pin, as
# scripts/chroot-test.sh does).
meson_target=meson
if [ "$codename" = bullseye ]; then meson_target=meson/bookworm; fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    if [ "$p" = meson ]; then missing+=("$meson_target"); else missing+=("$p"); fi
  elif [ "$p" = meson ] && ! dpkg --compare-versions \
        "$(dpkg-query -W -f='${Version}' meson)" ge 0.61; then
    missing+=("$meson_target")
  fi
done

# iceoryx, the outside anchor of the transport benchmark (iox-ping beside
# spin-ping): only where the distribution has it (Debian 12 has 2.0.3);
# elsewhere the benchmark skips it with a note. Asking the package lists
# costs no network access unless an install happens anyway.
has_candidate () {
  local v
  v=$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p')
  [ -n "$v" ] && [ "$v" != "(none)" ]
}
if [ "$profile" = full ] || [ "$profile" = native ]; then
  for p in iceoryx libiceoryx-binding-c-dev; do
    if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      continue
    fi
    if ! has_candidate "$p" && [ ${#missing[@]} -gt 0 ]; then apt_update; fi
    if has_candidate "$p"; then
      missing+=("$p")
    else
      echo "install-deps: $p is not in ${codename:-this release}: the benchmark" \
           "runs without its iceoryx anchor" >&2
    fi
  done
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages already installed ($profile, ${codename:-unknown release})"
  exit 0
fi

if [ "$(id -u)" -ne 0 ] && [ -z "$SUDO" ]; then
  echo "install-deps: missing packages (${missing[*]}) and not root: run as root" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
apt_update
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "install-deps: installed ${#missing[@]} packages ($profile, ${codename:-unknown release})"
