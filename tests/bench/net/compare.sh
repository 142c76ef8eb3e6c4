#!/usr/bin/env bash
# doradmanetsink/doradmanetsrc (UCX over TCP) against what a user would pick
# instead, in one run between the same two network namespaces (veth):
#   rtp   rtpvrawpay ! udpsink  /  udpsrc ! rtpvrawdepay   (RFC 4175)
#   gdp   gdppay ! tcpserversink  /  tcpclientsrc ! gdpdepay
#   ucx   doradmanetsink  /  doradmanetsrc channel=... (into a ring)
#   ucx-auth   the same with key-file (the handshake only)
#   ucx-crypt  the same with key-file and encrypt=true (AES-256-GCM)
# at 1080p60 and 4K60 (live) and 1080p unthrottled. net-probe stamps each
# frame with CLOCK_MONOTONIC before the sending element and reads it after
# the receiving one (the namespaces share the clock): frames/s delivered,
# end-to-end p50/p99, CPU per delivered frame (both processes).
#   sudo tests/bench/net/compare.sh BUILD_DIR [SECONDS [CSV]] > table.md
# CSV, when given, gets the same rows machine-readable (one header line;
# columns case,transport,made,delivered,fps,p50_ms,p99_ms,cpu_ms_per_frame;
# empty fields where nothing arrived) for tests/bench/net/plot.py.
set -u
build=${1:?usage: compare.sh BUILD_DIR [SECONDS [CSV]]}
secs=${2:-10}
csv=${3:-}
if [ -n "$csv" ]; then
  echo "case,transport,made,delivered,fps,p50_ms,p99_ms,cpu_ms_per_frame" > "$csv" ||
    { echo "compare.sh: cannot write $csv" >&2; exit 2; }
fi
scenario=bench
probe=$build/tests/bench/net/net-probe
export GST_PLUGIN_PATH_1_0=${GST_PLUGIN_PATH_1_0:-$build/gst}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../net/netns-lib.sh
. "$here/../../net/netns-lib.sh"

key=$work/bench.key
head -c 32 /dev/urandom > "$key"
chmod 600 "$key"

run_case () {   # run_case TRANSPORT LABEL CAPS LIVE N
  local t=$1 label=$2 caps=$3 live=$4 n=$5 src rx tx rxl txl
  # ONLY="ucx:4K60 gdp:4K60" runs those cases only
  [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $t:$label "* ]] || return 0
  src="videotestsrc is-live=$live pattern=ball num-buffers=$n ! $caps ! identity name=stamp"
  rxl=$work/$t-$label-rx.txt
  txl=$work/$t-$label-tx.txt
  port=$(( port + 1 ))
  local sec=
  [ "$t" = ucx-auth ] && sec="key-file=$key"
  [ "$t" = ucx-crypt ] && sec="key-file=$key encrypt=true"
  case $t in
    ucx|ucx-auth|ucx-crypt)
      start_in "$nsb" "$rxl" "$probe" --idle 3 --deadline $(( secs * 6 + 30 )) \
        doradmanetsrc address="$addr_b" port="$port" channel=bench-$port $sec \
        ! fakesink name=meter sync=false
      sleep 1
      start_in "$nsa" "$txl" "$probe" --deadline $(( secs * 6 + 30 )) \
        $src ! doradmanetsink host="$addr_b" port="$port" $sec ;;
    rtp)
      local w=${caps#*width=}; w=${w%%,*}
      local h=${caps#*height=}; h=${h%%,*}
      start_in "$nsb" "$rxl" "$probe" --idle 3 --deadline $(( secs * 6 + 30 )) \
        udpsrc address="$addr_b" port="$port" buffer-size=67108864 \
        caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=RAW,sampling=YCbCr-4:2:0,depth=(string)8,width=(string)$w,height=(string)$h,colorimetry=(string)BT709-2,payload=96" \
        ! rtpvrawdepay ! fakesink name=meter sync=false
      sleep 1
      start_in "$nsa" "$txl" "$probe" --deadline $(( secs * 6 + 30 )) \
        $src ! rtpvrawpay ! udpsink host="$addr_b" port="$port" \
        buffer-size=67108864 sync=false ;;
    gdp)
      start_in "$nsa" "$txl" "$probe" --deadline $(( secs * 6 + 30 )) \
        $src ! gdppay ! tcpserversink host="$addr_a" port="$port" sync=false
      sleep 1
      start_in "$nsb" "$rxl" "$probe" --idle 3 --deadline $(( secs * 6 + 30 )) \
        tcpclientsrc host="$addr_a" port="$port" ! gdpdepay \
        ! fakesink name=meter sync=false ;;
  esac
  tx=$started_timeout
  wait "$tx"
  # the receiver ends at EOS or after 3 s without frames
  for _ in $(seq 100); do grep -q "^frames=" "$rxl" 2>/dev/null && break; sleep 0.5; done
  local r s
  r=$(grep "^frames=" "$rxl" | tail -1)
  s=$(grep "^frames=" "$txl" | tail -1)
  local frames fps p50 p99 cpu_rx cpu_tx
  frames=$(sed -n 's/.*frames=\([0-9]*\).*/\1/p' <<< "$r")
  fps=$(sed -n 's/.*fps=\([0-9.]*\).*/\1/p' <<< "$r")
  p50=$(sed -n 's/.*p50_us=\([0-9]*\).*/\1/p' <<< "$r")
  p99=$(sed -n 's/.*p99_us=\([0-9]*\).*/\1/p' <<< "$r")
  cpu_rx=$(sed -n 's/.*cpu_s=\([0-9.]*\).*/\1/p' <<< "$r")
  cpu_tx=$(sed -n 's/.*cpu_s=\([0-9.]*\).*/\1/p' <<< "$s")
  if [ -z "$frames" ] || [ "$frames" = 0 ]; then
    echo "| $label | $t | $n | 0 | - | - | - | - |"
    [ -z "$csv" ] || echo "$label,$t,$n,0,,,," >> "$csv"
    return
  fi
  # one line of numbers, then printed as a table row and as a CSV row
  local row d_fps d_p50 d_p99 d_cpu
  row=$(awk -v f="$frames" -v fps="$fps" -v p50="$p50" -v p99="$p99" \
    -v a="${cpu_tx:-0}" -v b="${cpu_rx:-0}" \
    'BEGIN { printf "%d %.1f %.2f %.2f %.2f", f, fps, p50 / 1000, p99 / 1000,
             (a + b) * 1000 / f }')
  read -r frames d_fps d_p50 d_p99 d_cpu <<< "$row"
  echo "| $label | $t | $n | $frames | $d_fps | $d_p50 | $d_p99 | $d_cpu |"
  [ -z "$csv" ] || echo "$label,$t,$n,$frames,$d_fps,$d_p50,$d_p99,$d_cpu" >> "$csv"
}

echo "| case | transport | frames made | delivered | frames/s delivered | p50 ms | p99 ms | CPU ms / delivered frame |"
echo "|---|---|---|---|---|---|---|---|"
live=$(( secs * 60 ))
for t in ucx ucx-auth ucx-crypt rtp gdp; do
  run_case $t 1080p60 "video/x-raw,format=I420,width=1920,height=1080,framerate=60/1" true $live
done
for t in ucx ucx-auth ucx-crypt rtp gdp; do
  run_case $t 4K60 "video/x-raw,format=I420,width=3840,height=2160,framerate=60/1" true $live
done
for t in ucx ucx-auth ucx-crypt rtp gdp; do
  run_case $t 1080p-unthrottled "video/x-raw,format=I420,width=1920,height=1080,framerate=60/1" false $live
done
