#!/bin/bash
# Instructions per frame of the producer's push -> publish (the benchmark's
# "publish" stage: basesink's chain, doradmasink's render, the ring's
# publish), counted by callgrind: a count, not a time, so it does not move
# with the machine's load (no PMU needed; a loaded 2-core machine gives
# the same answer as an idle one). For before/after profiles of per-frame
# work; never used by the benchmark itself.
#
#   bash tests/bench/transport/frame-cost.sh GSTDIR [W H] [TOP]
#
# GSTDIR: a build's gst/ folder (the plugin to count). Runs benchstampsrc
# ! doradmasink (mode=latest, no reader, sync=false) for N1 and N2 frames;
# the difference of gst_pad_push's inclusive count over N2 - N1 frames is
# the per-frame cost, start-up (segment creation, caps) cancelled out.
# Prints "push->publish Ir/frame <n>" and the TOP (default 15) functions
# by inclusive count per frame. TOOLS: the benchmark's tools (default
# build-bench/bench-transport).
#
# SIDE=src counts the consumer instead: doradmasrc (read-mode=next,
# spin-time=0) ! fakesink under callgrind, fed by a paced producer outside
# it; "read->push Ir/frame" is create() minus the read (the benchmark's
# "deliver" stage: caps, timing, lease memory, metas).
#
# SIDE=lossless counts the producer of a lossless ring instead
# (doradmasink mode=lossless with a doradmasrc outside callgrind, paced):
# "acquire Ir/frame" is the slot pool's acquire (the ring's lossless
# acquire: which readers consumed what), besides push->publish.
#
# SIDE=floor counts the benchmark's floor pipeline (benchstampsrc !
# fakesink in one process, unthrottled): what GStreamer alone costs per
# frame, against which the benchmark's transport CPU is taken.
#
# Every side also prints "process Ir/frame": every thread's own
# instructions (user space; the kernel's are not counted), and the same
# split by the object that executes them (the plugin with its static
# lib, libgstreamer, libgstbase, GLib, libc, ...).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../../.." && pwd)
gstdir=$(cd "${1:?gst dir}" && pwd)
W=${2:-640} H=${3:-480} TOPN=${4:-15}
N1=${N1:-500} N2=${N2:-2500}
TOOLS=${TOOLS:-$top/build-bench/bench-transport}
work=$(mktemp -d /tmp/doradma-frame-cost-XXXXXX)
trap 'rm -rf "$work"' EXIT
export GST_PLUGIN_PATH=$gstdir:$TOOLS GST_REGISTRY_1_0=$work/registry.bin
unset GST_PLUGIN_PATH_1_0
export DORADMA_SHM_DIR=$work
gst-inspect-1.0 doradmasink >/dev/null

count_src() {
  "$TOOLS/bench-run" --timeout 600 benchstampsrc name=src width="$W" \
    height="$H" warmup=0 period-us=3000 num-frames="$1" ! doradmasink \
    name=tx channel="frame-cost-$$-$1" mode=lossless wait-for-readers=1 \
    sync=false >/dev/null 2>&1 &
  valgrind --tool=callgrind --callgrind-out-file="$work/cg.$1" \
    "$TOOLS/bench-run" --timeout 600 doradmasrc name=rx \
    channel="frame-cost-$$-$1" read-mode=next spin-time=0 ! fakesink \
    >/dev/null 2>"$work/vg.$1"
  wait
  callgrind_annotate --inclusive=yes --threshold=100 "$work/cg.$1" \
    >"$work/an.$1"
}
count_lossless() {
  "$TOOLS/bench-run" --timeout 600 doradmasrc name=rx \
    channel="frame-cost-$$-$1" read-mode=next spin-time=0 ! fakesink \
    >/dev/null 2>&1 &
  valgrind --tool=callgrind --callgrind-out-file="$work/cg.$1" \
    "$TOOLS/bench-run" --timeout 600 benchstampsrc name=src width="$W" \
    height="$H" warmup=0 period-us=3000 num-frames="$1" ! doradmasink \
    name=tx channel="frame-cost-$$-$1" mode=lossless wait-for-readers=1 \
    sync=false >/dev/null 2>"$work/vg.$1"
  wait
  callgrind_annotate --inclusive=yes --threshold=100 "$work/cg.$1" \
    >"$work/an.$1"
}
count_floor() {
  valgrind --tool=callgrind --callgrind-out-file="$work/cg.$1" \
    "$TOOLS/bench-run" --timeout 600 benchstampsrc name=src width="$W" \
    height="$H" warmup=0 num-frames="$1" ! fakesink sync=false \
    >/dev/null 2>"$work/vg.$1"
  callgrind_annotate --inclusive=yes --threshold=100 "$work/cg.$1" \
    >"$work/an.$1"
}
count() {
  if [ "${SIDE:-sink}" = floor ]; then count_floor "$1"; return; fi
  if [ "${SIDE:-sink}" = src ]; then count_src "$1"; return; fi
  if [ "${SIDE:-sink}" = lossless ]; then count_lossless "$1"; return; fi
  valgrind --tool=callgrind --callgrind-out-file="$work/cg.$1" \
    "$TOOLS/bench-run" --timeout 600 benchstampsrc name=src width="$W" \
    height="$H" warmup=0 num-frames="$1" ! doradmasink name=tx \
    channel="frame-cost-$$-$1" mode=latest sync=false \
    >/dev/null 2>"$work/vg.$1"
  callgrind_annotate --inclusive=yes --threshold=100 "$work/cg.$1" \
    >"$work/an.$1"
}
count "$N1"
count "$N2"
/usr/bin/python3 - "$work/an.$N1" "$work/an.$N2" "$((N2 - N1))" "$TOPN" \
  "$work/cg.$N1" "$work/cg.$N2" <<'EOF'
import os, re, sys
def by_object(p):
    """Self Ir per object (ob=) from a callgrind file: every cost line but
    the one after calls=, which is the call's inclusive cost. Cost lines
    are POSITIONS then EVENTS, as the file's headers name them."""
    names, ob, d, after_call = {}, "?", {}, False
    npos, ir = 1, 0
    for line in open(p):
        if line.startswith("positions:"):
            npos = len(line.split()) - 1
        elif line.startswith("events:"):
            ir = line.split()[1:].index("Ir")
        elif line.startswith(("ob=", "cob=")):
            # compressed: "(id) name" where it first appears, "(id)" after
            m = re.match(r"c?ob=(?:\((\d+)\))? ?(.*)", line.rstrip("\n"))
            key = m.group(1) or m.group(2)
            if m.group(2):
                names[key] = os.path.basename(m.group(2))
            if line.startswith("ob="):
                ob = names.get(key, "?")
        elif line.startswith("calls="):
            after_call = True
        elif line[:1] in "0123456789+-*":
            parts = line.split()
            if not after_call and len(parts) > npos + ir:
                d[ob] = d.get(ob, 0) + int(parts[npos + ir])
            after_call = False
    return d
def load(p):
    d = {}
    for line in open(p):
        m = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+\S*:(\S+)", line) or \
            re.match(r"\s*([\d,]+)\s+\S*:(\S+)", line)
        if m:
            # a function may be listed twice (two spellings of its file)
            d[m.group(2)] = max(d.get(m.group(2), 0),
                                int(m.group(1).replace(",", "")))
    return d
a, b, n, topn = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
per = {k: (b[k] - a.get(k, 0)) / n for k in b}
nan = float("nan")
if "gst_doradma_src_create" in per:
    print("read->push Ir/frame %.0f (create %.0f, read %.0f)" % (
        per["gst_doradma_src_create"] - per.get("gst_doradma_consumer_next", nan),
        per["gst_doradma_src_create"], per.get("gst_doradma_consumer_next", nan)))
else:
    print("push->publish Ir/frame %.0f" % per.get("gst_pad_push", nan))
    if "gst_doradma_pool_acquire_buffer" in per:
        # inclusive: GstBufferPool's wrapper around the slot pool's acquire
        print("acquire Ir/frame %.0f (gst_buffer_pool_acquire_buffer, slot pool %.0f)" % (
            per["gst_buffer_pool_acquire_buffer"], per["gst_doradma_pool_acquire_buffer"]))
for k, v in sorted(per.items(), key=lambda kv: -kv[1])[:topn]:
    print("%10.0f  %s" % (v, k))
oa, ob = by_object(sys.argv[5]), by_object(sys.argv[6])
objs = {k: (ob.get(k, 0) - oa.get(k, 0)) / n for k in set(oa) | set(ob)}
print("process Ir/frame %.0f (every thread, user space), by object:" %
      sum(objs.values()))
for k, v in sorted(objs.items(), key=lambda kv: -kv[1]):
    if abs(v) >= 1:
        print("%10.0f  %s" % (v, k))
EOF
