#!/bin/bash
# Scenario `pitch` (GPU machine, tests/cuda-elements/gpu-run.sh): doradmasrc
# ! video/x-raw(memory:CUDAMemory) ! cudadownload at sizes whose default
# row stride is not the CUDA allocation's pitch (638-pixel RGBA: 2552 bytes
# a row), and one where they agree. Every frame's SHA-1 (checksumsink) must
# equal the producer's pattern made without doradma. Coverage, not a
# regression test: it passes on the H200 (1.22) with the source writing by
# the CUDA memory's own info (before 0ce5bda) and by the video meta (after).
# The mismatch that led to it was the probe's: `cudadownload ! checksumsink`
# without video/x-raw between them passes CUDA memory through, hashed with
# its pitch (2560 bytes a row at 638 RGBA, not 2552).
# Usage: pitch.sh (gst-launch-1.0 and the plugin on the environment's paths)
set -u
N=30
rc=0
for case in RGBA:638x479 I420:636x476 RGBA:640x480; do
  fmt=${case%%:*}; wh=${case#*:}; w=${wh%x*}; h=${wh#*x}
  caps="video/x-raw,format=$fmt,width=$w,height=$h,framerate=30/1"
  src="videotestsrc pattern=ball num-buffers=$N ! $caps"
  ch=ce-pitch-$fmt-$wh-$$
  sums () { grep -oE ' [0-9a-f]{40}$' | tr -d ' '; }
  ref=$(timeout 60 gst-launch-1.0 -q $src ! checksumsink 2>&1 | sums)
  timeout 60 gst-launch-1.0 -q $src ! doradmasink channel=$ch mode=lossless \
    wait-for-readers=1 sync=false > /dev/null 2>&1 &
  prod=$!
  got=$(timeout 60 gst-launch-1.0 -q doradmasrc channel=$ch read-mode=next \
    timeout=20000000000 on-writer-lost=eos ! "video/x-raw(memory:CUDAMemory)" ! \
    cudadownload ! video/x-raw ! checksumsink 2>&1 | sums)
  wait $prod
  nref=$(echo "$ref" | grep -c .); ngot=$(echo "$got" | grep -c .)
  same=$(diff <(echo "$ref") <(echo "$got") > /dev/null && echo yes || echo no)
  echo "pitch $fmt ${w}x$h: $ngot frames, reference $nref, equal: $same"
  [ "$nref" -eq $N ] && [ "$same" = yes ] || rc=1
done
[ $rc -eq 0 ] && echo "pitch: PASS" || echo "pitch: FAIL"
exit $rc
