#!/bin/bash
# GPU handoff latency (publish -> delivery, doradmasrc stats) over the ipc
# and unified transports, 1280x720 I420 at 30 fps, 300 frames. Same set-up
# as gpu-run.sh. Usage: tests/cuda-elements/gpu-bench.sh build-cuda OUTDIR
B=${1:-build-cuda}; O=${2:-/tmp/out}
mkdir -p "$O"
source .device/gstenv.sh
export GST_PLUGIN_PATH=$PWD/$B/gst DORADMA_SHM_DIR=/dev/shm
C="video/x-raw,format=I420,width=1280,height=720,framerate=30/1"
run () {  # name, producer tail, consumer tail
  ch=bench-$1-$$
  gst-launch-1.0 -m doradmasrc channel=$ch timeout=20000000000 on-writer-lost=eos $3 \
    > "$O/bench-$1.cons" 2>&1 &
  cp=$!
  gst-launch-1.0 -q videotestsrc is-live=true pattern=ball num-buffers=300 ! $C $2 \
    channel=$ch wait-for-readers=1 > "$O/bench-$1.prod" 2>&1
  wait $cp
  echo "$1: $(grep -o 'doradmasrc-stats.*' "$O/bench-$1.cons" | tail -1)" >> "$O/bench.log"
}
run ipc-cuda "! cudaupload ! doradmasink transport=ipc" "! cudadownload ! fakesink"
run ipc-sys "! doradmasink transport=ipc" "! fakesink"
run unified-cuda "! doradmasink" "transport=unified ! cudadownload ! fakesink"
run unified-sys "! doradmasink" "transport=unified ! fakesink"
run shmem "! doradmasink" "! fakesink"
