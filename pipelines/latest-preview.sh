#!/bin/sh
# latest-preview.sh — a slow consumer that never slows the producer: the
# preview reads the newest frame only (read-mode=latest); frames it misses
# are counted as "skipped" in doradmasrc's stats. copy=true copies each frame
# under the slot's seqlock instead of leasing it, so even a preview that
# holds buffers pins nothing in the ring.
set -e
CH=${CHANNEL:-preview}
gst-launch-1.0 videotestsrc is-live=true ! \
  video/x-raw,format=I420,width=1920,height=1080,framerate=60/1 ! \
  doradmasink channel="$CH" mode=latest &
PRODUCER=$!
trap 'kill $PRODUCER 2>/dev/null' EXIT INT TERM
gst-launch-1.0 doradmasrc channel="$CH" read-mode=latest copy=true ! \
  videorate ! video/x-raw,framerate=5/1 ! videoconvert ! autovideosink
