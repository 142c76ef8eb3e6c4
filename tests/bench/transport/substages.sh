#!/bin/bash
# Finer than the benchmark's stages: where the producer's push -> publish
# and doradmasrc's deliver go, step by step. A scratch copy of gst/ at REV
# (default 6498448, the tree substages.patch was made on) gets
# substages.patch: clock marks in doradmasink's render, the producer's
# publish, doradmasrc's create() and its output; each process prints the p50
# of every step at exit ("PROF <step> p50 <us>"). Built in a temp dir (meson,
# the plugin only), then one paced pair with the benchmark's elements, as
# dm-spin (pinned to CPUs 0/1) or with a sleeping consumer:
#
#   bash tests/bench/transport/substages.sh [W H PERIOD_US FRAMES SPIN]
#        (default 640 480 2000 2000 1; SPIN=0: the consumer sleeps)
#
# TOOLS: the benchmark's tools (default build-bench/bench-transport, from
# BUILD_ONLY=1 bash tests/bench/transport/run.sh build-bench). SINKPROPS:
# extra doradmasink properties (e.g. enable-last-sample=false). Never used
# by the benchmark itself: the marks cost a clock read each.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../../.." && pwd)
W=${1:-640} H=${2:-480} P=${3:-2000} N=${4:-2000} SPIN=${5:-1}
REV=${REV:-6498448}
TOOLS=${TOOLS:-$top/build-bench/bench-transport}
[ -x "$TOOLS/bench-run" ] || { echo "substages: no $TOOLS/bench-run (BUILD_ONLY=1 bash tests/bench/transport/run.sh first)" >&2; exit 2; }
work=$(mktemp -d /tmp/doradma-substages-XXXXXX)
trap 'rm -rf "$work"' EXIT
(cd "$top" && git archive "$REV") | tar -x -C "$work"
patch -s -d "$work" -p1 < "$here/substages.patch"
meson setup "$work/build" "$work" >/dev/null
ninja -C "$work/build" gst/libgstdoradma.so >/dev/null

export GST_PLUGIN_PATH=$work/build/gst:$TOOLS
export GST_REGISTRY_1_0=$work/registry.bin
unset GST_PLUGIN_PATH_1_0
ch=substages-$$
if [ "$SPIN" = 1 ]; then
  sp="spin-time=100000000"; pc=(taskset -c 0); cc=(taskset -c 1)
else
  sp=""; pc=(); cc=()
fi
"${cc[@]}" "$TOOLS/bench-run" --timeout 120 doradmasrc name=rx channel=$ch \
  read-mode=next $sp ! benchstampsink name=sink warmup=20 stages=true \
  > "$work/cons.json" 2> "$work/cons.err" &
c=$!
# shellcheck disable=SC2086
"${pc[@]}" "$TOOLS/bench-run" --timeout 120 benchstampsrc name=src width=$W \
  height=$H warmup=20 period-us=$P num-frames=$N stage-probe=true ! \
  doradmasink name=tx channel=$ch mode=lossless wait-for-readers=1 sync=false \
  ${SINKPROPS:-} > "$work/prod.json" 2> "$work/prod.err"
wait $c
rm -f "${DORADMA_SHM_DIR:-/dev/shm}/doradma.$ch" "${DORADMA_SHM_DIR:-/dev/shm}/doradma.$ch~ctl"
grep -h PROF "$work/prod.err" "$work/cons.err"
/usr/bin/python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))['sink']
print('stages p50 (us): ' + ', '.join('%s %.2f' % (k[3:-4], v / 1e3)
      for k, v in d.items() if k.startswith('st_') and k.endswith('_p50'))
      + '; end-to-end %.2f' % (d['lat_p50'] / 1e3))" "$work/cons.json"
