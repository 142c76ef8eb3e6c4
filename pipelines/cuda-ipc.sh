#!/bin/sh
# Two processes, transport=ipc (discrete GPU): cudaupload writes device
# memory, doradmasink copies it device->device into a slot of its GPU
# allocation (IPC handle in the ring's header), doradmasrc in the other
# process opens the handle once and copies each slot into a GstCudaMemory
# for cudadownload. Stats printed at EOS.
set -e
CH=${CH:-cuda-ipc-$$}
gst-launch-1.0 -m doradmasrc channel=$CH timeout=10000000000 on-writer-lost=eos ! \
    cudadownload ! fakesink 2>&1 | grep -o 'doradmasrc-stats.*' &
C=$!
gst-launch-1.0 -q videotestsrc is-live=true pattern=ball num-buffers=300 ! \
    video/x-raw,format=I420,width=1280,height=720,framerate=30/1 ! \
    cudaupload ! doradmasink channel=$CH transport=ipc wait-for-readers=1
wait $C
