#!/bin/bash
# On the GPU machine: doradmanetsink with device frames in, over UCX on
# 127.0.0.1 (no network namespaces there), into a ring read as
# memory:CUDAMemory on the receiving side; byte-exact against the same
# frames made without the network (checksumsink SHA-1 per frame).
#   cuda-1080p   videotestsrc ! cudaupload ! memory:CUDAMemory 1920x1080 RGBA
#                ! doradmanetsink
#   cuda-pitch   the same at 638x479 (a row of 2552 bytes: the CUDA memory's
#                pitch differs from the caps' stride, so staging re-packs)
#   ipc-ring     doradma's own device memory: doradmasink transport=ipc (the
#                slots in GPU memory) ! doradmasrc ! memory:CUDAMemory !
#                doradmanetsink
# Receiving side of each: doradmanetsrc channel=C (writes the local ring)
# and doradmasrc channel=C transport=unified ! memory:CUDAMemory !
# cudadownload ! checksumsink. The sender's stats must say
# gpu-path=staged-pinned with staged-frames = N (UCX without CUDA: Debian's
# 1.13 carried here), or device where the probe finds CUDA in UCX.
#
# Here, first: bash tests/net/gpu-prepare.sh BUILD (BUILD/net-gpu: the
# plugin and Debian 12's UCX .debs) and ../shared/device/prepare.sh
# (.device). There, from the repo root, with both carried:
#   source .device/gstenv.sh && bash tests/net/gpu-run.sh BUILD/net-gpu $OUT
# Files in OUT (3, small): env.log (versions, the UCX probe), summary.log
# (PASS/FAIL lines), cases.log (each case's sender/receiver/consumer log
# tails). Exit 0 only when every case passed.
# HOST_ONLY=1 runs the same plumbing on a machine without a GPU (system
# memory instead of CUDA memory, shmem rings, gpu-path=host expected): a
# check of this script, not of the GPU paths.
set -u
K=${1:-build/net-gpu}; O=${2:-/tmp/out}
mkdir -p "$O"
: > "$O/summary.log"
rc=0
fail () { echo "FAIL: $*" | tee -a "$O/summary.log"; rc=1; }
pass () { echo "PASS: $*" | tee -a "$O/summary.log"; }
[ -f "$K/plugin/libgstdoradma.so" ] ||
  { fail "no $K/plugin/libgstdoradma.so (run tests/net/gpu-prepare.sh here first)"; exit 1; }
command -v gst-launch-1.0 > /dev/null ||
  { fail "no gst-launch-1.0: source .device/gstenv.sh first"; exit 1; }

T=$(mktemp -d /tmp/net-gpu-XXXXXX)
DORADMA_SHM_DIR=$(mktemp -d /dev/shm/dd-netgpu-XXXXXX)
export DORADMA_SHM_DIR
pids=()
cleanup () {
  for p in "${pids[@]}"; do kill -9 "$p" 2> /dev/null; done
  wait 2> /dev/null
  rm -rf "$T" "$DORADMA_SHM_DIR"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# Debian's UCX, unpacked again whenever the carried set changes
U=${NETUCX:-/opt/netucx}
stamp=$(cd "$K/debs" && ls)
if [ "$(cat "$U/.debs" 2> /dev/null)" != "$stamp" ]; then
  rm -rf "$U"; mkdir -p "$U"
  for f in "$K"/debs/*.deb; do dpkg -x "$f" "$U" || { fail "dpkg -x $f"; exit 1; }; done
  echo "$stamp" > "$U/.debs"
fi
A=$U/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=$A${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export UCX_MODULE_DIR=$A/ucx
# TCP as between two hosts (loopback here); UCX_TLS set by the caller wins
export UCX_TLS=${UCX_TLS:-tcp}
unset GST_PLUGIN_PATH
export GST_PLUGIN_PATH_1_0=$PWD/$K/plugin
export GST_REGISTRY=$T/registry.bin GST_REGISTRY_1_0=$T/registry.bin

{
  date -u; uname -r
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  gst-launch-1.0 --version | head -1
  echo "UCX_TLS=$UCX_TLS UCX_MODULE_DIR=$UCX_MODULE_DIR"
  echo "--- ldd plugin (doradma, ucx, cuda, missing)"
  ldd "$K/plugin/net/libgstdoradmanet.so" | grep -E 'doradma|uc[pst]|cuda|not found'
  echo "--- doradmanetsink template"
  gst-inspect-1.0 doradmanetsink 2>&1 | grep -E 'video/x-raw'
  for e in cudaupload cudadownload checksumsink doradmanetsrc; do
    gst-inspect-1.0 "$e" > /dev/null 2>&1 && echo "$e: ok" || echo "$e: MISSING"
  done
} > "$O/env.log" 2>&1
cat "$O/env.log"
if [ -n "${HOST_ONLY:-}" ]; then
  UP="identity"; DEV="video/x-raw"; DOWN="identity"; RING=shmem; READ=shmem
else
  # video/x-raw after cudadownload: checksumsink takes any caps, and without
  # it cudadownload passes the CUDA memory through (hashed with its pitch)
  UP="cudaupload"; DEV="video/x-raw(memory:CUDAMemory)"; DOWN="cudadownload ! video/x-raw"
  RING=ipc; READ=unified
fi
for e in $UP ${DOWN%% *} checksumsink doradmanetsink doradmanetsrc; do
  gst-inspect-1.0 "$e" > /dev/null 2>&1 || { fail "element $e missing (env.log)"; exit 1; }
done
gst-inspect-1.0 doradmanetsink | grep -q 'memory:CUDAMemory' ||
  { fail "doradmanetsink does not take memory:CUDAMemory: a build without gstreamer-cuda?"; exit 1; }

N=${N:-30}
SOURCE="videotestsrc pattern=ball motion=sweep animation-mode=frames num-buffers=$N"
SHA='^[0-9]+:[0-9]{2}:[0-9]{2}\.[0-9]{9} [0-9a-f]{40}$'
port=$(( 20000 + $$ % 20000 ))

# the field FIELD of the last STRUCT message in FILE, value only
field () { grep -o "$2, .*" "$1" | tail -1 | grep -o "[ ,]$3=([a-z0-9]*)[^,;]*" | cut -d')' -f2; }

# bg LOG CMD...: CMD in the background under a deadline; $! in $bg_pid
bg () {
  local log=$1; shift
  timeout 120 "$@" > "$log" 2>&1 &
  bg_pid=$!
  pids+=("$bg_pid")
}

wait_for () {   # wait_for SECONDS FILE PATTERN PID: fails early when PID ended
  local end=$(( SECONDS + $1 ))
  while [ $SECONDS -lt "$end" ]; do
    grep -q "$3" "$2" 2> /dev/null && return 0
    kill -0 "$4" 2> /dev/null || return 1
    sleep 0.2
  done
  return 1
}

# run_case NAME WIDTH HEIGHT KIND (cuda: cudaupload; ipc: an ipc ring)
run_case () {
  local name=$1 w=$2 h=$3 kind=$4 d=$T/$1 ch=netgpu-$1-$$ caps
  local producer=""
  caps="video/x-raw,format=RGBA,width=$w,height=$h,framerate=30/1"
  port=$(( port + 1 ))
  mkdir -p "$d"
  echo "=== $name: ${w}x$h RGBA, $N frames, $kind" | tee -a "$O/summary.log"

  timeout 60 gst-launch-1.0 -q $SOURCE ! "$caps" ! checksumsink \
    2> "$d/ref.err" | grep -E "$SHA" | awk '{print $2}' > "$d/ref.txt"
  [ "$(wc -l < "$d/ref.txt")" -eq "$N" ] ||
    { fail "$name: no reference checksums ($(tail -2 "$d/ref.err"))"; return; }

  # the far side: the ring, and a reader taking it as CUDA memory
  bg "$d/rx.log" gst-launch-1.0 -m doradmanetsrc address=127.0.0.1 port=$port \
    channel="$ch" mode=lossless slots=4 wait-for-readers=1 ! fakesink
  local rx=$bg_pid
  wait_for 20 "$d/rx.log" PLAYING "$rx" ||
    { fail "$name: receiver did not start: $(grep -m1 -A1 ERROR "$d/rx.log" | tr '\n' ' ')"; return; }
  bg "$d/consumer.log" gst-launch-1.0 -m doradmasrc channel="$ch" \
    transport=$READ read-mode=next timeout=60000000000 ! "$DEV" ! $DOWN ! \
    checksumsink
  local consumer=$bg_pid

  if [ "$kind" = ipc ]; then
    # doradma's own device memory: the sender reads an ipc ring (slots in
    # GPU memory) as memory:CUDAMemory
    bg "$d/producer.log" gst-launch-1.0 -m $SOURCE ! "$caps" ! \
      doradmasink channel="$ch-src" transport=$RING mode=lossless wait-for-readers=1
    producer=$bg_pid
    timeout 120 gst-launch-1.0 -m doradmasrc channel="$ch-src" read-mode=next \
      timeout=60000000000 ! "$DEV" ! \
      doradmanetsink host=127.0.0.1 port=$port mode=lossless \
      timeout=60000000000 > "$d/tx.log" 2>&1
  else
    timeout 120 gst-launch-1.0 -m $SOURCE ! "$caps" ! $UP ! \
      "$DEV" ! doradmanetsink host=127.0.0.1 \
      port=$port mode=lossless timeout=60000000000 > "$d/tx.log" 2>&1
  fi
  local txr=$?
  wait "$consumer"; local cr=$?
  [ -n "$producer" ] && { wait "$producer" || fail "$name: ipc producer exited $? (cases.log)"; }
  kill "$rx" 2> /dev/null; wait "$rx" 2> /dev/null

  {
    echo "=== $name"
    for f in tx rx consumer producer; do
      [ -f "$d/$f.log" ] || continue
      echo "--- $f.log (tail)"
      grep -vE "$SHA" "$d/$f.log" | tail -25
    done
  } >> "$O/cases.log"

  [ $txr -eq 0 ] || fail "$name: sender exited $txr: $(grep -m1 -A1 ERROR "$d/tx.log" | tr '\n' ' ')"
  [ $cr -eq 0 ] || fail "$name: consumer exited $cr: $(grep -m1 -A1 ERROR "$d/consumer.log" | tr '\n' ' ')"
  grep -E "$SHA" "$d/consumer.log" | awk '{print $2}' > "$d/got.txt"
  if diff -q "$d/ref.txt" "$d/got.txt" > /dev/null; then
    pass "$name: $N frames byte-exact (SHA-1), $DEV in and out"
  else
    fail "$name: $(wc -l < "$d/got.txt") checksums received, they differ from the $N made locally"
  fi

  local types path staged frames bufs want=staged-pinned
  types=$(field "$d/tx.log" doradmanetsink-stats ucx-memory-types)
  path=$(field "$d/tx.log" doradmanetsink-stats gpu-path)
  staged=$(field "$d/tx.log" doradmanetsink-stats staged-frames)
  frames=$(field "$d/tx.log" doradmanetsink-stats frames)
  bufs=$(field "$d/tx.log" doradmanetsink-stats staging-buffers)
  case ",$types," in *,cuda,*) want=device ;; esac
  [ -n "${HOST_ONLY:-}" ] && want=host
  echo "$name: sender ucx-memory-types=$types gpu-path=$path frames=$frames" \
    "staged-frames=$staged staging-buffers=$bufs" \
    "device-frames=$(field "$d/tx.log" doradmanetsink-stats device-frames)" |
    tee -a "$O/summary.log"
  echo "$name: consumer $(grep -o 'doradmasrc-stats.*' "$d/consumer.log" | tail -1 |
    grep -oE '(frames|torn|cuda-path|memory)=\([a-z0-9]*\)[^,;]*' | tr '\n' ' ')" |
    tee -a "$O/summary.log"
  [ "$path" = "$want" ] || fail "$name: gpu-path=$path, want $want (ucx-memory-types=$types)"
  [ "$frames" = "$N" ] || fail "$name: the sender sent $frames of $N frames"
  if [ "$want" = staged-pinned ]; then
    [ "$staged" = "$N" ] || fail "$name: staged-frames=$staged, want $N"
    # reused: at most one per frame in flight (lossless: the far ring's slots)
    [ -n "$bufs" ] && [ "$bufs" -ge 1 ] && [ "$bufs" -le 4 ] ||
      fail "$name: staging-buffers=$bufs: the pinned buffers were not reused"
  fi
  [ "$(field "$d/consumer.log" doradmasrc-stats torn)" = 0 ] ||
    fail "$name: the ring's reader saw torn frames"
  [ -n "${HOST_ONLY:-}" ] && return
  [ "$(field "$d/consumer.log" doradmasrc-stats memory)" = memory:CUDAMemory ] ||
    fail "$name: the ring's reader did not give memory:CUDAMemory"
  [ "$(field "$d/consumer.log" doradmasrc-stats cuda-path)" = unified ] ||
    fail "$name: the ring's reader did not register the ring (cuda-path unified)"
}

run_case cuda-1080p 1920 1080 cuda
run_case cuda-pitch 638 479 cuda
run_case ipc-ring 1280 720 ipc

echo "--- /dev/shm left: $(ls "$DORADMA_SHM_DIR" | wc -l) objects" >> "$O/env.log"
[ $rc -eq 0 ] && pass "all cases" || echo "FAIL: see summary.log and cases.log" | tee -a "$O/summary.log"
exit $rc
