#!/bin/bash
# The transport benchmark on a machine that has no compiler, no -dev
# packages and no GStreamer (the GPU machine): everything is built here and
# carried. Here, in the project root:
#
#   meson setup build-bench && BUILD_ONLY=1 bash tests/bench/transport/run.sh build-bench
#   ../shared/device/prepare.sh       # .device/: GStreamer 1.22 runtime debs
#
# There (the device `run` tool, carry: .device build-bench/gst
# build-bench/bench-transport):
#
#   bash tests/bench/transport/run-device.sh build-bench $OUT 3
#
# writes $OUT/gpu16-<date>.json and $OUT/bench.log. Back here:
#
#   cp <files_at>/gpu16-<date>.json tests/bench/transport/runs/
#   /usr/bin/python3 tests/bench/transport/report.py \
#     --md docs/bench/results-16core.md --png-dir docs/bench \
#     --png-prefix transport-16core --cmd "tests/bench/transport/run-device.sh" \
#     tests/bench/transport/runs/gpu16-<date>.json
#
# (only the runs of the same code: an older gpu16-*.json has no stages and
# an older doradmasrc; pooling it would mix them)
#
# dm-spin is pinned to the last two CPUs (bench.py --pin auto).
#
# iceoryx (the anchor beside spin-ping) is not installed there: run.sh
# copied iox-roudi and its libiceoryx*.so.2 into bench-transport/iox/ and
# built iox-ping with an rpath to them, so carrying bench-transport carries
# iceoryx (Debian 12's build; the machine's glibc and libstdc++ are newer).
# iox-run.sh gives RouDi a private /tmp and /dev/shm in a mount namespace;
# where one cannot be made it runs in the shared ones (none other is there).
# 2 rounds take about 4 minutes on the 16-core machine.
set -euo pipefail
builddir=${1:?builddir}
out=${2:?out dir}
rounds=${3:-3}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../../.." && pwd)
cd "$top"
if [ -f .device/gstenv.sh ] && ! command -v gst-launch-1.0 >/dev/null; then
  # shellcheck disable=SC1091
  source .device/gstenv.sh
fi
export PYTHONUNBUFFERED=1
py=$(command -v /usr/bin/python3 || command -v python3)
mkdir -p "$out"
nproc; uname -r; (lscpu | head -20) || true
if [ -x "$top/$builddir/bench-transport/iox-ping" ]; then
  echo "iceoryx: carried ($(ls "$top/$builddir/bench-transport/iox" | tr '\n' ' '))"
  LD_LIBRARY_PATH=$top/$builddir/bench-transport/iox${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
    ldd "$top/$builddir/bench-transport/iox/iox-roudi" | grep "not found" || true
else
  echo "iceoryx: not carried (built where it was not installed): skipped"
fi
"$py" "$here/bench.py" --tools "$top/$builddir/bench-transport" \
  --gst "$top/$builddir/gst" --rounds "$rounds" \
  --out "$out/gpu16-$(date +%Y%m%d-%H%M%S).json" 2>&1 | tee "$out/bench.log"
