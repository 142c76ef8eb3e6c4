#!/bin/sh
# lossless-recording.sh — every frame reaches the recorder: the producer
# (mode=lossless) waits until the next-mode reader consumed a frame before
# reusing its slot; the recorder encodes to a file. Both processes exit 0
# at EOS. on-reader-stall=error: a recorder stuck for `timeout` (5 s) stops
# the producer with an error instead of hanging it.
set -e
CH=${CHANNEL:-rec}
OUT=${OUT:-/tmp/doradma-recording.mkv}
gst-launch-1.0 doradmasrc channel="$CH" read-mode=next timeout=10000000000 ! \
  videoconvert ! jpegenc ! matroskamux ! filesink location="$OUT" &
RECORDER=$!
gst-launch-1.0 videotestsrc num-buffers=300 ! \
  video/x-raw,format=I420,width=640,height=480,framerate=30/1 ! \
  doradmasink channel="$CH" mode=lossless wait-for-readers=1 \
    on-reader-stall=error sync=false
wait $RECORDER
echo "recorded $OUT"
