#!/usr/bin/env bash
# doradmanetsink/doradmanetsrc (UCX over TCP) against what a user would pick
# instead, tuned, between the same two network namespaces (veth, MTU 9000):
#   rtp   rtpvrawpay mtu=8972 ! udpsink  /  udpsrc ! rtpvrawdepay (RFC 4175)
#   gdp   gdppay ! tcpserversink  /  tcpclientsrc blocksize=1048576 ! gdpdepay
#   gdp-1m  the same sender  /  fdsrc blocksize=1048576 ! gdpdepay on a
#         socket bash connects (tcpclientsrc reads at most 4 KiB whatever
#         its blocksize: GStreamer 1.22's MAX_READ_SIZE)
#   ucx   doradmanetsink  /  doradmanetsrc channel=... (into a ring)
#   ucx-auth   the same with key-file (the handshake only)
#   ucx-crypt  the same with key-file and encrypt=true (AES-256-GCM)
# at 1080p60 and 4K60 (live) and 1080p unthrottled, REPS times over (each
# repetition runs every case and transport, the transports' order rotated).
# net-probe stamps each frame with CLOCK_MONOTONIC and its number before
# the sending element and reads them after the receiving one (the
# namespaces share the clock). Only frames WARMUP (30) .. N-1 count, on
# every transport: what a transport lost while connecting is outside.
# Per case and repetition the source alone (videotestsrc ! fakesink, the
# same caps and frames) is measured too and subtracted from the sender's
# CPU. Prints one line per run, then the summary (median [min-max]).
#   sudo tests/bench/net/compare.sh BUILD_DIR [SECONDS [CSV [REPS]]]
# CSV gets every run (columns in netcsv.py; empty fields where nothing
# arrived) for tests/bench/net/plot.py.
set -u
build=${1:?usage: compare.sh BUILD_DIR [SECONDS [CSV [REPS]]]}
secs=${2:-10}
csv=${3:-}
reps=${4:-3}
warm=${WARMUP:-30}
scenario=bench
probe=$build/tests/bench/net/net-probe
export GST_PLUGIN_PATH_1_0=${GST_PLUGIN_PATH_1_0:-$build/gst}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../net/netns-lib.sh
. "$here/../../net/netns-lib.sh"

[ -n "$csv" ] || csv=$work/bench.csv
echo "rep,case,transport,made,delivered,fps,p50_ms,p99_ms,cpu_tx_ms,cpu_rx_ms,cpu_source_ms" > "$csv" ||
  { echo "compare.sh: cannot write $csv" >&2; exit 2; }
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

# jumbo frames for RTP (one datagram per 8972-byte packet: 9000 less the
# IPv4 and UDP headers); the TCP-based transports share the same link
set_mtu 9000 || fail "cannot set the veth MTU to 9000"
key=$work/bench.key
head -c 32 /dev/urandom > "$key"
chmod 600 "$key"
deadline_s=$(( secs * 6 + 30 ))

field () {      # field NAME LINE: NAME=value out of a net-probe line
  sed -n "s/.*\\b$1=\\([0-9.]*\\).*/\\1/p" <<< "$2"
}

wanted () {     # wanted TRANSPORT LABEL: ONLY="ucx:4K60 gdp:4K60" runs those
  [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1:$2 "* ]]
}

via=()
probe_in () {   # probe_in NS LOG NET-PROBE-ARGS...: $started_timeout is set;
  # net-probe is started through the command in via, if any
  start_in "$1" "$2" "${via[@]}" "$probe" --deadline "$deadline_s" \
    --window "$warm:$n" "${@:3}"
}

result_of () {  # result_of LOG: its net-probe line, once it is written
  for _ in $(seq 100); do grep -q "^frames=" "$1" 2>/dev/null && break; sleep 0.5; done
  grep "^frames=" "$1" | tail -1
}

per_frame () {  # per_frame SECONDS FRAMES: ms per frame ("" without frames)
  awk -v s="$1" -v f="$2" 'BEGIN { if (s != "" && f > 0) printf "%.2f", s * 1000 / f }'
}

source_alone () {   # source_alone LABEL: sets src_ms (ms per frame made)
  local log=$work/source-$rep-$1.txt s
  probe_in "$nsa" "$log" $src ! fakesink sync=false
  wait "$started_timeout"
  s=$(result_of "$log")
  src_ms=$(per_frame "$(field cpu_win_s "$s")" "$(field stamped "$s")")
}

run_case () {   # run_case TRANSPORT LABEL CAPS
  local t=$1 label=$2 caps=$3 rxl txl tx sec=
  rxl=$work/$rep-$t-$label-rx.txt
  txl=$work/$rep-$t-$label-tx.txt
  port=$(( port + 1 ))
  [ "$t" = ucx-auth ] && sec="key-file=$key"
  [ "$t" = ucx-crypt ] && sec="key-file=$key encrypt=true"
  case $t in
    ucx|ucx-auth|ucx-crypt)
      probe_in "$nsb" "$rxl" --idle 3 \
        doradmanetsrc address="$addr_b" port="$port" channel=bench-$port $sec \
        ! fakesink name=meter sync=false
      sleep 1
      probe_in "$nsa" "$txl" $src ! doradmanetsink host="$addr_b" port="$port" $sec
      tx=$started_timeout ;;
    rtp)
      local w=${caps#*width=}; w=${w%%,*}
      local h=${caps#*height=}; h=${h%%,*}
      probe_in "$nsb" "$rxl" --idle 3 \
        udpsrc address="$addr_b" port="$port" buffer-size=67108864 \
        caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=RAW,sampling=YCbCr-4:2:0,depth=(string)8,width=(string)$w,height=(string)$h,colorimetry=(string)BT709-2,payload=96" \
        ! rtpvrawdepay ! fakesink name=meter sync=false
      sleep 1
      probe_in "$nsa" "$txl" $src ! rtpvrawpay mtu=8972 \
        ! udpsink host="$addr_b" port="$port" buffer-size=67108864 sync=false
      tx=$started_timeout ;;
    gdp|gdp-1m)
      # held until the client is there: tcpserversink drops what it gets
      # before (the untuned runs lost 9-130 frames so)
      probe_in "$nsa" "$txl" --hold server $src ! gdppay \
        ! tcpserversink name=server host="$addr_a" port="$port" sync=false
      tx=$started_timeout
      sleep 1
      if [ "$t" = gdp ]; then
        probe_in "$nsb" "$rxl" --idle 3 \
          tcpclientsrc host="$addr_a" port="$port" blocksize=1048576 \
          ! gdpdepay ! fakesink name=meter sync=false
      else
        # bash connects fd 3 (no process in between), net-probe inherits it
        # shellcheck disable=SC2016
        via=(bash -c 'exec 3<>"/dev/tcp/$0/$1" && exec "${@:2}"' "$addr_a" "$port")
        probe_in "$nsb" "$rxl" --idle 3 fdsrc fd=3 blocksize=1048576 \
          ! gdpdepay ! fakesink name=meter sync=false
        via=()
      fi ;;
  esac
  wait "$tx"
  local r s made frames
  r=$(result_of "$rxl")
  s=$(result_of "$txl")
  made=$(field stamped "$s")
  frames=$(field frames "$r")
  if [ -z "$frames" ] || [ "$frames" = 0 ]; then
    echo "$rep,$label,$t,${made:-0},0,,,,,,$src_ms" >> "$csv"
    echo "rep $rep $label $t: made ${made:-0}, delivered 0"
    return
  fi
  local fps p50 p99 tx_ms rx_ms
  fps=$(field fps "$r")
  p50=$(awk -v u="$(field p50_us "$r")" 'BEGIN { printf "%.2f", u / 1000 }')
  p99=$(awk -v u="$(field p99_us "$r")" 'BEGIN { printf "%.2f", u / 1000 }')
  # the sender less the source; the receiver between its first and last
  # window frame, so over one frame fewer than it received
  tx_ms=$(awk -v t="$(per_frame "$(field cpu_win_s "$s")" "$made")" -v s="$src_ms" \
    'BEGIN { if (t != "" && s != "") printf "%.2f", t - s }')
  rx_ms=$(per_frame "$(field cpu_win_s "$r")" $(( frames - 1 )))
  echo "$rep,$label,$t,$made,$frames,$fps,$p50,$p99,$tx_ms,$rx_ms,$src_ms" >> "$csv"
  echo "rep $rep $label $t: made $made delivered $frames fps $fps p50 $p50 p99 $p99 cpu tx-source $tx_ms rx $rx_ms (source $src_ms)"
}

n=$(( secs * 60 ))
transports=(ucx ucx-auth ucx-crypt rtp gdp gdp-1m)
cases=("1080p60 video/x-raw,format=I420,width=1920,height=1080,framerate=60/1 true"
  "4K60 video/x-raw,format=I420,width=3840,height=2160,framerate=60/1 true"
  "1080p-unthrottled video/x-raw,format=I420,width=1920,height=1080,framerate=60/1 false")
for rep in $(seq "$reps"); do
  for c in "${cases[@]}"; do
    read -r label caps live <<< "$c"
    any=
    for t in "${transports[@]}"; do wanted "$t" "$label" && any=1; done
    [ -n "$any" ] || continue
    src="videotestsrc is-live=$live pattern=ball num-buffers=$n ! $caps ! identity name=stamp"
    source_alone "$label"
    # each repetition starts the case with another transport
    for i in "${!transports[@]}"; do
      t=${transports[$(( (i + rep - 1) % ${#transports[@]} ))]}
      wanted "$t" "$label" && run_case "$t" "$label" "$caps"
    done
  done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
python3 "$here/netcsv.py" "$csv"
