#!/bin/sh
# fan-out.sh — one producer, three consumers in three processes: a display,
# a preview that always shows the newest frame (read-mode=latest), and a
# frame-rate meter. The producer (mode=latest) never waits for any of them.
# Up to 64 readers can join one channel.
set -e
CH=${CHANNEL:-fan}
gst-launch-1.0 videotestsrc is-live=true ! \
  video/x-raw,format=NV12,width=1280,height=720,framerate=30/1 ! \
  doradmasink channel="$CH" slots=16 &
PIDS=$!
trap 'kill $PIDS 2>/dev/null' EXIT INT TERM
gst-launch-1.0 doradmasrc channel="$CH" ! videoconvert ! autovideosink &
PIDS="$PIDS $!"
gst-launch-1.0 doradmasrc channel="$CH" read-mode=latest ! videoscale ! \
  video/x-raw,width=320,height=180 ! videoconvert ! autovideosink &
PIDS="$PIDS $!"
gst-launch-1.0 doradmasrc channel="$CH" ! fpsdisplaysink video-sink=fakesink text-overlay=false -v
