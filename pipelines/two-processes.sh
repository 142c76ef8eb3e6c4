#!/bin/sh
# two-processes.sh — the basic doradma setup: one producer process publishes
# a live test pattern on channel "cam0"; a second process displays it. The
# producer's videotestsrc writes every frame straight into the ring slots
# (0 copies); the consumer's buffers point at the same shared pages.
#
# Run it from a build tree:  GST_PLUGIN_PATH=build/gst pipelines/two-processes.sh
set -e
CH=${CHANNEL:-cam0}
gst-launch-1.0 videotestsrc is-live=true pattern=ball ! \
  video/x-raw,format=I420,width=640,height=480,framerate=30/1 ! \
  doradmasink channel="$CH" &
PRODUCER=$!
trap 'kill $PRODUCER 2>/dev/null' EXIT INT TERM
gst-launch-1.0 doradmasrc channel="$CH" timeout=5000000000 ! videoconvert ! autovideosink
