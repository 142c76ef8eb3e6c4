#!/bin/bash
# doradma transport benchmark — one command:
#
#   bash tests/bench/transport/run.sh [builddir]        (default: build-bench)
#
# Builds the project (meson setup + ninja, if needed), builds the benchmark's
# test-only plugin and tools into <builddir>/bench-transport with cc and
# pkg-config (no meson file of another folder needed), runs bench.py (all
# transports interleaved, ROUNDS rounds), stores the raw run under
# tests/bench/transport/runs/, and regenerates docs/bench/results.md and
# docs/bench/*.png from the newest RUNS run files (default 2).
#
# Environment: ROUNDS (default 3), RUNS (runs in the report, default 2),
# BENCH_ARGS (extra bench.py arguments, e.g. "--sizes 640x480 --phases thr"),
# NO_REPORT=1 (only measure), BUILD_ONLY=1 (build the plugin and the tools,
# e.g. for run-device.sh on a machine without compilers or -dev packages).
# Needs: /usr/bin/python3 with python3-matplotlib for the plots.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../../.." && pwd)
builddir=${1:-build-bench}
case $builddir in /*) ;; *) builddir=$top/$builddir ;; esac
tools=$builddir/bench-transport
py=/usr/bin/python3

cd "$top"
if [ ! -f "$builddir/build.ninja" ]; then
  meson setup "$builddir" >/dev/null
fi
if ! ninja -C "$builddir" >"$builddir/bench-ninja.log" 2>&1; then
  echo "run.sh: the project does not build (see $builddir/bench-ninja.log);" \
       "measuring with whatever plugin is there" >&2
fi

mkdir -p "$tools"
CFLAGS="-O2 -g -Wall -Wextra -Wno-unused-parameter"
need() { [ ! -f "$1" ] || [ "$2" -nt "$1" ] || [ "$0" -nt "$1" ]; }
if need "$tools/libgstdoradmabench.so" "$here/benchplugin.c"; then
  cc $CFLAGS -shared -fPIC -I"$top/gst/doradma" -o "$tools/libgstdoradmabench.so" "$here/benchplugin.c" \
    $(pkg-config --cflags --libs gstreamer-base-1.0 gstreamer-video-1.0)
fi
if need "$tools/bench-run" "$here/bench-run.c"; then
  cc $CFLAGS -o "$tools/bench-run" "$here/bench-run.c" \
    $(pkg-config --cflags --libs gstreamer-1.0)
fi
if { need "$tools/spin-ping" "$here/spin-ping.c" || need "$tools/spin-ping" "$here/ping.h" ||
     need "$tools/spin-ping" "$builddir/lib/libdoradma.a"; } &&
   [ -f "$builddir/lib/libdoradma.a" ]; then
  cc $CFLAGS -I"$top/lib" -o "$tools/spin-ping" "$here/spin-ping.c" \
    "$builddir/lib/libdoradma.a" $(pkg-config --cflags --libs glib-2.0 json-glib-1.0) -lpthread
fi
if need "$tools/futex-floor" "$here/futex-floor.c"; then
  cc $CFLAGS -o "$tools/futex-floor" "$here/futex-floor.c"
fi
# iceoryx, the outside anchor for spin-ping (install-deps.sh installs it
# where the distribution has it): iox-ping, and iox-roudi with its
# libraries copied beside it so that the build folder can be carried to a
# machine without iceoryx (run-device.sh). Without iceoryx, bench.py skips
# it with a note.
iox_inc=$(ls -d /usr/include/iceoryx/v*/ 2>/dev/null | sort -V | tail -n 1)
if [ -n "$iox_inc" ] && [ -f "$iox_inc/iceoryx_binding_c/publisher.h" ] &&
   command -v iox-roudi >/dev/null; then
  if need "$tools/iox-ping" "$here/iox-ping.c" || need "$tools/iox-ping" "$here/ping.h"; then
    cc $CFLAGS -I"$iox_inc" -o "$tools/iox-ping" "$here/iox-ping.c" \
      -Wl,-rpath,'$ORIGIN/iox' -liceoryx_binding_c
  fi
  mkdir -p "$tools/iox"
  cp -L "$(command -v iox-roudi)" "$tools/iox/"
  for lib in $(ldd "$tools/iox/iox-roudi" "$tools/iox-ping" |
               awk '$1 ~ /^libiceoryx/ { print $3 }' | sort -u); do
    [ "$(dirname "$lib")" = "$tools/iox" ] || cp -L "$lib" "$tools/iox/"
  done
else
  rm -rf "$tools/iox-ping" "$tools/iox"
fi

if [ -n "${BUILD_ONLY:-}" ]; then
  echo "run.sh: built $builddir/gst and $tools (BUILD_ONLY: not measuring)"
  exit 0
fi

runs=$here/runs
mkdir -p "$runs"
out=$runs/run-$(date +%Y%m%d-%H%M%S).json
# shellcheck disable=SC2086
"$py" "$here/bench.py" --tools "$tools" --gst "$builddir/gst" --out "$out" \
  --rounds "${ROUNDS:-3}" ${BENCH_ARGS:-}

if [ -z "${NO_REPORT:-}" ]; then
  mkdir -p "$top/docs/bench"
  # shellcheck disable=SC2012
  mapfile -t last < <(ls -1 "$runs"/run-*.json | sort | tail -n "${RUNS:-2}")
  "$py" "$here/report.py" --md "$top/docs/bench/results.md" \
    --png-dir "$top/docs/bench" "${last[@]}"
fi
