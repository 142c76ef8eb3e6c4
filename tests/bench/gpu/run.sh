#!/bin/bash
# GPU transport head to head (docs/bench/gpu.md), on the GPU machine, from
# the repo root, with the kits .device (GStreamer 1.22) and .device-trixie
# (1.26) and two build folders carried:
#
#   tests/bench/gpu/run.sh B126 B122 OUTDIR [RES...]
#
# B126: a Debian 13 build (gst_cuda_allocator_alloc_wrapped: true), B122: a
# Debian 12 build with gstreamer-cuda; each needs gst/libgstdoradma.so and
# tests/bench/gpu/libgstgpustamp.so. NV12 frames carrying a 24-byte stamp
# (gpustampsrc -> ... -> gpustampsink, both in CUDA memory) through:
#   doradma-1.26   gpustampsrc ! doradmasink transport=ipc (gpustampsrc
#                  writes into the sink's CUDA slot pool) | doradmasrc !
#                  memory:CUDAMemory (the slot wrapped) ! gpustampsink
#   doradma-1.22   the same on 1.22 (a device copy out of the slot)
#   cudaipc-legacy gpustampsrc ! cudaipcsink ipc-mode=legacy | cudaipcsrc
#                  io-mode=import ! gpustampsink (1.26)
#   cudaipc-mmap   the same with ipc-mode=mmap
# each unpaced (frames/s delivered; both drop for a slow consumer: gaps) and
# paced at 60 fps (latency, CPU per frame, GPU
# memory); then kill -9 of either side. One line per run in OUTDIR/bench.log:
# the consumer's and producer's figures, doradmasrc's device copies, the GPU
# memory, and doradmasink's counters from its EOS message (frames, copies,
# device-copies: 0 where the producer wrote into the sink's CUDA slot pool).
# TRANSPORTS="doradma-1.26 ..." runs a subset; KILLS=0 leaves out the kill -9
# runs (a 4-transport run then fits one 10-minute device call).
B126=$(cd "${1:?B126}" && pwd -P); B122=$(cd "${2:?B122}" && pwd -P)
O=${3:?OUTDIR}; shift 3
RES=${*:-1920x1080 3840x2160}
mkdir -p "$O"; O=$(cd "$O" && pwd -P)
source .device-trixie/trixie-env.sh || exit 1
source .device/gstenv.sh
TX=$(pwd -P)/.device-trixie/tx
export TX_BINDS="$O ${TX_BINDS:-}" DORADMA_SHM_DIR=/dev/shm

apps_mib () {  # GPU memory of every compute process now, MiB
  nvidia-smi --query-compute-apps=used_memory --format=csv,noheader,nounits |
    { s=0; while read -r m; do s=$((s + ${m%% *})); done; echo $s; }
}
# launcher STACK: the gst-launch-1.0 command line of that stack
launcher () {
  if [ "$1" = 26 ]; then
    echo "env GST_PLUGIN_PATH=$B126/gst:$B126/tests/bench/gpu $TX gst-launch-1.0"
  else
    echo "env GST_PLUGIN_PATH=$B122/gst:$B122/tests/bench/gpu gst-launch-1.0"
  fi
}
# pipelines NAME RES PERIOD_US FRAMES: sets STACK, CONS, PROD
pipelines () {
  local w=${2%x*} h=${2#*x} caps
  caps="video/x-raw(memory:CUDAMemory),format=NV12,width=$w,height=$h,framerate=60/1"
  local src="gpustampsrc num-frames=$4 period-us=$3 ! $caps"
  case $1 in
    doradma-1.2[26])
      STACK=${1#doradma-1.}; local ch=gpub-$$-$RANDOM   # 26 or 22
      CONS="doradmasrc channel=$ch timeout=20000000000 on-writer-lost=eos ! video/x-raw(memory:CUDAMemory) ! gpustampsink"
      PROD="$src ! doradmasink transport=ipc channel=$ch wait-for-readers=1 sync=false" ;;
    cudaipc-legacy|cudaipc-mmap)
      STACK=26; local a=/tmp/gpub-$$-$RANDOM
      CONS="cudaipcsrc address=$a connection-timeout=15 io-mode=import ! gpustampsink"
      PROD="$src ! cudaipcsink address=$a ipc-mode=${1#cudaipc-} sync=false" ;;
  esac
}

# bench NAME RES PERIOD_US FRAMES: one run, one line in bench.log
bench () {
  local tag=$1-$2-p$3 L cp pp i
  pipelines "$1" "$2" "$3" "$4"; L=$(launcher $STACK)
  $L -m $CONS > "$O/$tag.cons" 2>&1 & cp=$!
  sleep 1.5
  $L -m $PROD > "$O/$tag.prod" 2>&1 & pp=$!
  (sleep 3; apps_mib > "$O/$tag.smi") &
  for i in $(seq 60); do kill -0 $pp 2>/dev/null || break; sleep 0.5; done
  kill -9 $pp 2>/dev/null
  for i in $(seq 20); do kill -0 $cp 2>/dev/null || break; sleep 0.5; done
  kill -9 $cp 2>/dev/null; wait
  printf '%s (GStreamer 1.%s) | %s | %s | copies: %s | gpu_mib=%s | sink: %s\n' "$tag" "$STACK" \
    "$(grep -ho 'gpustampsink:.*' "$O/$tag.cons" | tail -1)" \
    "$(grep -ho 'gpustampsrc:.*' "$O/$tag.prod" | tail -1)" \
    "$(grep -ho 'device-copies=[^,;]*' "$O/$tag.cons" | tail -1)" \
    "$(cat "$O/$tag.smi" 2>/dev/null)" \
    "$(grep -o 'doradmasink-stats.*' "$O/$tag.prod" | tail -1 |
       grep -oE '(frames|copies|device-copies|fallback-buffers|drops)=\(guint64\)[0-9]+' |
       sed 's/(guint64)//' | tr '\n' ' ')" | tee -a "$O/bench.log"
}

# killrun NAME producer|consumer: kill -9 one side 3 s into a 10 s run at
# 60 fps; what the other side does, and the GPU memory of all compute
# processes while running and once every process has ended.
killrun () {
  local tag=kill-$1-$2 L cp pp cp2 t0 i during
  pipelines "$1" 1920x1080 16666 600; L=$(launcher $STACK)
  $L -m $CONS > "$O/$tag.cons" 2>&1 & cp=$!
  sleep 1.5
  $L $PROD > "$O/$tag.prod" 2>&1 & pp=$!
  sleep 3
  during=$(apps_mib)
  t0=$(date +%s%N)
  if [ "$2" = producer ]; then
    kill -9 $pp
    for i in $(seq 150); do kill -0 $cp 2>/dev/null || break; sleep 0.1; done
    if kill -0 $cp 2>/dev/null; then res="consumer still running after 15 s"; kill -9 $cp
    else wait $cp; res="consumer exited $? after $(( ($(date +%s%N) - t0) / 1000000 )) ms"; fi
    res="$res; it said: $(grep -E 'Got EOS|^ERROR' "$O/$tag.cons" | head -1 | cut -c1-200)"
  else
    kill -9 $cp
    sleep 1
    $L $CONS > "$O/$tag.cons2" 2>&1 & cp2=$!
    for i in $(seq 200); do kill -0 $pp 2>/dev/null || break; sleep 0.1; done
    if kill -0 $pp 2>/dev/null; then res="producer still running 20 s later"; kill -9 $pp
    else wait $pp; res="producer exited $?"; fi
    for i in $(seq 100); do kill -0 $cp2 2>/dev/null || break; sleep 0.1; done
    kill -9 $cp2 2>/dev/null
    res="$res; a new consumer got: $(grep -ho 'gpustampsink:.*' "$O/$tag.cons2" | tail -1 | cut -c1-60)"
  fi
  wait 2>/dev/null
  sleep 1
  echo "$tag | $res | GPU memory of compute processes: $during MiB while running, $(apps_mib) MiB after" | tee -a "$O/kill.log"
}

{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  gst-launch-1.0 --version | head -1; "$TX" gst-launch-1.0 --version | head -1
  "$TX" gst-inspect-1.0 cudaipcsink 2>&1 | grep -A3 'ipc-mode' | head -8
  "$TX" gst-inspect-1.0 cudaipcsrc 2>&1 | grep -A3 'io-mode' | head -8; } > "$O/env.log" 2>&1
TRANSPORTS=${TRANSPORTS:-doradma-1.26 cudaipc-legacy cudaipc-mmap doradma-1.22}
for r in $RES; do
  for t in $TRANSPORTS; do
    bench $t "$r" 0 100000
    bench $t "$r" 16666 360
  done
done
for t in $TRANSPORTS; do
  [ "${KILLS:-1}" = 1 ] || break
  killrun $t producer
  killrun $t consumer
done
ls /dev/shm | grep -c gpub > "$O/shm-left.txt"
