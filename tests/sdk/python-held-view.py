#!/usr/bin/python3
# A Python app keeps one frame after setting its consumer pipeline to NULL
# (review round 4, R4-P1), run by sdk.sh against the installed SDK:
#   frame  a doradma.Frame NumPy view (the installed doradma module)
#   gi     a Gst.Buffer and its GstMapInfo, through gi only
# The lossless producer (on-reader-stall=error after 1 s, in this process)
# runs to its EOS while the view is held: the stopped consumer holds no
# back-pressure (before the fix: "a lossless reader stalled" 1 s after the
# NULL). The held slot stays pinned: `doradma show --json` counts it as
# pinned by a stopped reader, and the view's bytes do not change while the
# producer writes on; once the view is dropped, nothing is pinned.
# usage: python-held-view.py DORADMA_TOOL frame|gi
import gc
import hashlib
import json
import os
import subprocess
import sys

import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

TOOL, MODE = sys.argv[1], sys.argv[2]
if MODE == "frame":
    import doradma  # noqa: E402

Gst.init(None)
CH = "sdk-held-%s-%d" % (MODE, os.getpid())
N = 60  # 2 s of frames
failures = []


def check(cond, what):
    print("%s: %s" % ("ok" if cond else "FAIL", what))
    if not cond:
        failures.append(what)


def show():
    out = subprocess.run([TOOL, "show", "--json", "--interval", "0", CH],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


producer = Gst.parse_launch(
    "videotestsrc is-live=true pattern=ball num-buffers=%d ! video/x-raw,"
    "format=RGBA,width=64,height=48,framerate=30/1 ! doradmasink channel=%s "
    "mode=lossless wait-for-readers=1 slots=4 timeout=1000000000 "
    "on-reader-stall=error" % (N, CH))
consumer = Gst.parse_launch(
    "doradmasrc channel=%s timeout=10000000000 ! appsink name=sink "
    "max-buffers=1 drop=false enable-last-sample=false" % CH)
consumer.set_state(Gst.State.PLAYING)
producer.set_state(Gst.State.PLAYING)
sink = consumer.get_by_name("sink")

for _ in range(3):
    sample = sink.emit("try-pull-sample", 10 * Gst.SECOND)
    if sample is None:
        print("FAIL: no frame in 10 s")
        sys.exit(1)

buf = sample.get_buffer()
if MODE == "frame":
    frame = doradma.Frame(sample)
    check(frame.slot is not None, "the frame is a leased ring slot")
    view = frame.numpy()
    del frame
    digest = lambda: hashlib.sha1(view.tobytes()).hexdigest()  # noqa: E731
else:
    ok, info = buf.map(Gst.MapFlags.READ)
    check(ok, "Gst.Buffer.map")
    digest = lambda: hashlib.sha1(bytes(info.data)).hexdigest()  # noqa: E731
before = digest()
del sample
consumer.set_state(Gst.State.NULL)
del sink, consumer
gc.collect()

# the producer is still running: the held slot is pinned by a stopped reader
doc = show()
check(doc.get("slots_pinned_by_stopped_readers") == 1,
      "doradma show: slots pinned by stopped readers: %s (reader states %s)"
      % (doc.get("slots_pinned_by_stopped_readers"), doc.get("reader_states")))

bus = producer.get_bus()
msg = bus.timed_pop_filtered(20 * Gst.SECOND,
                             Gst.MessageType.EOS | Gst.MessageType.ERROR)
if msg is not None and msg.type == Gst.MessageType.ERROR:
    err, dbg = msg.parse_error()
    check(False, "the producer failed while a stopped consumer held a view: "
          "%s (%s)" % (err.message, dbg))
else:
    check(msg is not None, "the producer published its %d frames to EOS "
          "while the view was held" % N)
check(digest() == before, "the held view's bytes did not change while the "
      "producer wrote on")

if MODE == "frame":
    del view
else:
    buf.unmap(info)
    del info
del buf
gc.collect()
doc = show()
check(doc.get("slots_pinned_by_stopped_readers") == 0,
      "the view dropped: nothing pinned (%s)"
      % doc.get("slots_pinned_by_stopped_readers"))
producer.set_state(Gst.State.NULL)

if failures:
    print("FAIL: %d check(s): %s" % (len(failures), "; ".join(failures)))
    sys.exit(1)
print("PASS")
