#!/bin/bash
# Where the paced (60 fps) latency of the CUDA path goes, stage by stage
# (docs/bench/gpu-paced-20261204.md, issue 35 Deliver 4). On the GPU
# machine, from the repo root, with .device (GStreamer 1.22) carried, and
# .device-trixie (1.26) where B126 is given:
#
#   bash tests/bench/gpu/paced.sh B122 TOOLS OUTDIR [B126 [TOOLS126]]
#
# B122 / B126: build folders with gst/libgstdoradma.so (1.22 CUDA build;
# Debian 13 build with gst_cuda_allocator_alloc_wrapped: true).
# TOOLS: a folder with libgstgpustamp.so (tests/bench/gpu/gpustamp.c
# built against that GStreamer, see the doc) and, for the CPU-path
# comparison, the transport bench's futex-floor, bench-run and
# libgstdoradmabench.so (tests/bench/transport/run.sh BUILD_ONLY=1).
# TOOLS126: the same plugin built against 1.26 (default: TOOLS/126).
#
# Per stack, NV12 1920x1080 in CUDA memory, gpustampsrc ! doradmasink
# transport=ipc | doradmasrc ! memory:CUDAMemory ! gpustampsink:
#   paced     360 frames at 60 fps, doradmasrc spin-time=0 (the default:
#             the consumer sleeps on the futex between frames)
#   spin      the same with spin-time=20 ms (> the period: it never sleeps,
#             so the wake stage is a poll; costs a core)
#   unpaced   20000 frames as fast as the producer goes
# Each prints gpustampsink's stage split (prod, wake, src, hand, d2h; lat is the total;
# gpustamp.c) and gpustampsrc's h2d, one line per case in OUTDIR/stages.log,
# and doradmasrc's EOS stats (spins, sleeps, latency) in the .cons file.
# Then, in the same run, the CPU path: futex-floor at the same period and
# the transport bench's paced stages (floor, dm-lossless, dm-spin) at
# 1920x1080 and 16666 us (bench.py), OUTDIR/cpu-*.
# About 2 minutes for 1.22 alone, 4 with 1.26.
B122=$(cd "${1:?B122}" && pwd -P); TOOLS=$(cd "${2:?TOOLS}" && pwd -P)
O=${3:?OUTDIR}; B126=${4:-}; T126=${5:-$TOOLS/126}
mkdir -p "$O"; O=$(cd "$O" && pwd -P)
source .device/gstenv.sh || exit 1
export DORADMA_SHM_DIR=/dev/shm PYTHONUNBUFFERED=1
TX=
if [ -n "$B126" ]; then
  B126=$(cd "$B126" && pwd -P); T126=$(cd "$T126" && pwd -P)
  source .device-trixie/trixie-env.sh || exit 1
  TX=$(pwd -P)/.device-trixie/tx
  export TX_BINDS="$O ${TX_BINDS:-}"
fi
launcher () {
  if [ "$1" = 26 ]; then
    echo "env GST_PLUGIN_PATH=$B126/gst:$T126 $TX gst-launch-1.0"
  else
    echo "env GST_PLUGIN_PATH=$B122/gst:$TOOLS gst-launch-1.0"
  fi
}
# one STACK CASE FRAMES PERIOD_US SPIN_NS [W H]
one () {
  local stack=$1 tag=$2-1.$1 n=$3 per=$4 spin=$5 w=${6:-1920} h=${7:-1080}
  local L ch=gpst-$$-$RANDOM cp pp i caps
  caps="video/x-raw(memory:CUDAMemory),format=NV12,width=$w,height=$h,framerate=60/1"
  L=$(launcher "$stack")
  $L -m doradmasrc channel=$ch timeout=20000000000 on-writer-lost=eos \
    spin-time=$spin ! 'video/x-raw(memory:CUDAMemory)' ! gpustampsink \
    > "$O/$tag.cons" 2>&1 & cp=$!
  sleep 1.5
  $L -m gpustampsrc num-frames=$n period-us=$per ! "$caps" ! doradmasink \
    transport=ipc channel=$ch wait-for-readers=1 sync=false \
    > "$O/$tag.prod" 2>&1 & pp=$!
  for i in $(seq 80); do kill -0 $pp 2>/dev/null || break; sleep 0.5; done
  kill -9 $pp 2>/dev/null
  for i in $(seq 20); do kill -0 $cp 2>/dev/null || break; sleep 0.5; done
  kill -9 $cp 2>/dev/null; wait
  printf '%s | %s | %s | src: %s\n' "$tag" \
    "$(grep -ho 'gpustampsink:.*' "$O/$tag.cons" | tail -1)" \
    "$(grep -ho 'gpustampsrc:.*' "$O/$tag.prod" | tail -1)" \
    "$(grep -oE '(spins|sleeps|device-copies|latency-p50|latency-p99)=\([a-z0-9]+\)[0-9]+' \
       "$O/$tag.cons" | tail -5 | sed 's/([a-z0-9]*)//' | tr '\n' ' ')" |
    tee -a "$O/stages.log"
}

{ date -u; nproc; uname -r; lscpu | grep -E 'Model name|MHz|NUMA node0' || true
  cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null || echo "no cpufreq"
  nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.max.sm,persistence_mode --format=csv
  gst-launch-1.0 --version | head -1
  [ -n "$TX" ] && "$TX" gst-launch-1.0 --version | head -1; } > "$O/env.log" 2>&1

STACKS=22; [ -n "$B126" ] && STACKS="22 26"
for s in $STACKS; do
  one $s paced 360 16666 0
  one $s spin 360 16666 20000000
  one $s unpaced 20000 0 0
done
# GPU clocks once more, after the runs (pstate between frames is not visible
# to a one-shot query; this records what the card reports idle)
nvidia-smi --query-gpu=pstate,clocks.sm,clocks.mem --format=csv >> "$O/env.log" 2>&1

# The CPU path in the same machine session: the raw futex floor at the same
# period (and with a 100 ms timeout, as a doradma reader's wait), then the
# GStreamer pair with system memory and its own stages.
if [ -x "$TOOLS/futex-floor" ]; then
  "$TOOLS/futex-floor" 300 16666 > "$O/cpu-futex.json" 2>&1
  "$TOOLS/futex-floor" 300 16666 100000000 >> "$O/cpu-futex.json" 2>&1
fi
if [ -x "$TOOLS/bench-run" ]; then
  timeout 200 /usr/bin/python3 tests/bench/transport/bench.py --tools "$TOOLS" \
    --gst "$B122/gst" --rounds 1 --sizes 1920x1080 --phases paced \
    --transports floor,dm-lossless,dm-spin --period-us 16666 --no-pings \
    --out "$O/cpu-paced.json" > "$O/cpu-paced.log" 2>&1
fi
ls /dev/shm | grep -c gpst > "$O/shm-left.txt"
