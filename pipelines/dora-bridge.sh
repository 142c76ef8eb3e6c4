#!/bin/sh
# dora-bridge.sh — GStreamer on both sides of a dora-rs memory pool. One
# process writes a live test pattern into a dora pool, exactly as dora's
# Rust writer lays it out (uint8 [480, 640, 3], compact JSON); a dora node
# could read it there. A second process reads that pool back as dora's
# consumers do (poll the generation, copy, re-check) and displays it. Each
# side copies a frame once: upstream buffer -> pool, pool -> GstBuffer.
# docs/dora.md has the details.
#
# Run it from a build tree:  GST_PLUGIN_PATH=build/gst pipelines/dora-bridge.sh
set -e
POOL=${POOL:-dora_pool_demo-$$_gst_frames}
gst-launch-1.0 videotestsrc is-live=true pattern=ball ! \
  video/x-raw,format=BGR,width=640,height=480,framerate=30/1 ! \
  doradmasink dora-pool="$POOL" &
PRODUCER=$!
trap 'kill $PRODUCER 2>/dev/null' EXIT INT TERM
gst-launch-1.0 doradmasrc dora-pool="$POOL" channel-order=bgr timeout=5000000000 ! \
  videoconvert ! autovideosink
