#!/bin/bash
# Is it the frame size or the paced period? (issue 35)
#
# The paced phase gives each size its own period (2 ms at 480p/1080p, 5 ms
# at 4K, 20 ms at 8K: long enough for the copying transports at 8K), so a
# sleeping consumer's ratio to the futex floor that grows from 480p to 8K
# grows with the size and the period at once. This separates the two, in
# one run, interleaved, ROUNDS times:
#   - futex-floor at 2 and 20 ms, its sleeper without and with a 100 ms
#     FUTEX_WAIT timeout (a doradma reader's liveness slice);
#   - spin-ping with a sleeping reader (the ring alone, no GStreamer,
#     unpinned like futex-floor) at 2 and 20 ms, 480p's and 8K's slot size;
#   - bench.py paced, dm-lossless and dm-latest at every size: the default
#     periods, then every size at 2 ms, then every size at 20 ms.
#
#   bash tests/bench/transport/period-vs-size.sh BUILDDIR OUTDIR [ROUNDS]
#
# BUILDDIR as for run.sh (BUILD_ONLY=1 bash tests/bench/transport/run.sh
# BUILDDIR builds the tools); on the GPU machine carry .device,
# BUILDDIR/gst and BUILDDIR/bench-transport (run-device.sh says how).
# Writes OUTDIR/pings.jsonl, OUTDIR/default.json, OUTDIR/p2000.json,
# OUTDIR/p20000.json and OUTDIR/period-vs-size.log; summary:
#   /usr/bin/python3 tests/bench/transport/period-vs-size.py OUTDIR
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
case $builddir in /*) ;; *) builddir=$top/$builddir ;; esac
tools=$builddir/bench-transport
py=$(command -v /usr/bin/python3 || command -v python3)
export PYTHONUNBUFFERED=1 DORADMA_SHM_DIR=${DORADMA_SHM_DIR:-/dev/shm}
mkdir -p "$out"
log=$out/period-vs-size.log
{ nproc; uname -r; cat /proc/loadavg; } >"$log"
: >"$out/pings.jsonl"
for rnd in $(seq 1 "$rounds"); do
  for per in 2000 20000; do
    it=$((per == 2000 ? 400 : 100))
    for tmo in 0 100000000; do
      timeout 60 "$tools/futex-floor" "$it" "$per" "$tmo" |
        sed "s/^{/{\"tool\": \"futex\", \"round\": $rnd, /" >>"$out/pings.jsonl"
    done
    for size in 460800 49766400; do
      timeout 60 "$tools/spin-ping" "$it" "$per" 0 sleep -1 -1 "$size" |
        sed "s/^{/{\"tool\": \"ring\", \"round\": $rnd, /" >>"$out/pings.jsonl"
    done
  done
done
bench() {
  "$py" "$here/bench.py" --tools "$tools" --gst "$builddir/gst" \
    --phases paced --transports dm-lossless,dm-latest --no-pings \
    --rounds "$rounds" "$@" 2>&1 | tail -n 1 >>"$log"
}
bench --out "$out/default.json"
bench --period-us 2000 --out "$out/p2000.json"
bench --period-us 20000 --out "$out/p20000.json"
cat /proc/loadavg >>"$log"
