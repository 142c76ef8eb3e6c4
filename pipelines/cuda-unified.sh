#!/bin/sh
# Two processes, transport=unified: a CPU producer, and a consumer whose
# doradmasrc registers the ring with CUDA once and hands memory:CUDAMemory
# to cudadownload (device copy from the registered alias). Needs a GPU,
# -Dcuda=enabled -Dgst-cuda=enabled and gst-plugins-bad's nvcodec.
# Stats (transport, cuda-path, cuda-registrations) are printed at EOS.
set -e
CH=${CH:-cuda-unified-$$}
gst-launch-1.0 -m doradmasrc channel=$CH transport=unified timeout=10000000000 \
    on-writer-lost=eos ! cudadownload ! fakesink 2>&1 | grep -o 'doradmasrc-stats.*' &
C=$!
gst-launch-1.0 -q videotestsrc is-live=true pattern=ball num-buffers=300 ! \
    video/x-raw,format=I420,width=1280,height=720,framerate=30/1 ! \
    doradmasink channel=$CH wait-for-readers=1
wait $C
