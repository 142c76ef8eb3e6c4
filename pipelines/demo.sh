#!/bin/sh
# demo.sh — the README's main demo: two processes share 720p video through a
# doradma ring for a few seconds, then both stop at EOS and the demo prints
# frames per second, publish-to-delivery latency and the copy counters from
# the elements' stats (posted as element messages at EOS, read with -m).
# Exits 0 by itself; nothing is left in /dev/shm.
#
# From a build tree:  GST_PLUGIN_PATH=build/gst pipelines/demo.sh
set -e
CH="demo-$$"
N=${FRAMES:-150}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"; rm -f /dev/shm/doradma."$CH" /dev/shm/doradma."$CH"~ctl' EXIT

gst-launch-1.0 -m doradmasrc channel="$CH" timeout=10000000000 ! fakesink \
  > "$TMP/consumer.txt" 2>&1 &
CONSUMER=$!
START=$(date +%s.%N)
gst-launch-1.0 -m videotestsrc is-live=true pattern=ball num-buffers="$N" ! \
  video/x-raw,format=I420,width=1280,height=720,framerate=60/1 ! \
  doradmasink channel="$CH" mode=lossless wait-for-readers=1 \
  > "$TMP/producer.txt" 2>&1
wait $CONSUMER
END=$(date +%s.%N)

field() { # file struct field
  grep "$2" "$1" | tail -1 | sed -n "s/.* $3=([a-z0-9]*)\([0-9]*\).*/\1/p"
}
PF=$(field "$TMP/producer.txt" doradmasink-stats frames)
PC=$(field "$TMP/producer.txt" doradmasink-stats copies)
CF=$(field "$TMP/consumer.txt" doradmasrc-stats frames)
CC=$(field "$TMP/consumer.txt" doradmasrc-stats copies)
P50=$(field "$TMP/consumer.txt" doradmasrc-stats latency-p50)
P99=$(field "$TMP/consumer.txt" doradmasrc-stats latency-p99)
if [ -z "$PF" ] || [ -z "$CF" ]; then
  echo "demo failed:"; cat "$TMP/producer.txt" "$TMP/consumer.txt"; exit 1
fi
awk -v f="$CF" -v s="$START" -v e="$END" -v pf="$PF" -v pc="$PC" -v cc="$CC" \
    -v p50="$P50" -v p99="$P99" 'BEGIN {
  printf "doradma demo: 1280x720 I420, producer and consumer in two processes\n";
  printf "  published %d frames, received %d, %.1f frames/s\n", pf, f, f / (e - s);
  printf "  latency publish->delivery: p50 %.1f us, p99 %.1f us\n", p50 / 1000, p99 / 1000;
  printf "  copies: producer %d, consumer %d (zero-copy both ends)\n", pc, cc;
}'
