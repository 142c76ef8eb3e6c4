#!/bin/bash
# Installs every Debian 12 package doradma needs to build, test, fuzz and run
# its demo. Idempotent: when everything is already installed it makes no
# network access at all; otherwise one `apt-get update`, then one install.
# Run as root (or it uses sudo when available).
set -euo pipefail

PACKAGES=(
  # build
  meson ninja-build pkg-config gcc clang libclang-rt-14-dev python3
  libglib2.0-dev libjson-glib-dev
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  libgstreamer-plugins-bad1.0-dev libibverbs-dev
  # run-time plugins for the demo, element and multi-process tests
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad gstreamer1.0-libav
  # Python consumers (tests/multiproc/python-appsink.py)
  python3-gi python3-gst-1.0 gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  # test tools: system-call counting cross-checks, mounts for ENOSPC tests
  strace util-linux procps python3-matplotlib
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

SUDO=
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=sudo
  else
    echo "install-deps: missing packages (${missing[*]}) and not root: run as root" >&2
    exit 1
  fi
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
