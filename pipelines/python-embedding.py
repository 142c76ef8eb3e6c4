#!/usr/bin/python3
# python-embedding.py — an application pulls frames from a doradma channel
# with appsink (PyGObject). Start a producer first, e.g.
#   gst-launch-1.0 videotestsrc is-live=true ! video/x-raw,format=RGBA,width=320,height=240 ! doradmasink channel=app
# then: /usr/bin/python3 pipelines/python-embedding.py app
# The buffers appsink hands over map the producer's shared pages read-only;
# drop each sample promptly (its lease keeps the slot from being reused).
import sys

import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst

Gst.init(None)
channel = sys.argv[1] if len(sys.argv) > 1 else "app"
pipe = Gst.parse_launch(
    "doradmasrc name=src channel=%s timeout=10000000000 ! appsink name=out max-buffers=2 drop=true" % channel)
sink = pipe.get_by_name("out")
pipe.set_state(Gst.State.PLAYING)
for i in range(30):
    sample = sink.emit("try-pull-sample", 5 * Gst.SECOND)
    if sample is None:
        print("no frame within 5 s")
        break
    buf = sample.get_buffer()
    ok, info = buf.map(Gst.MapFlags.READ)
    if ok:
        print("frame %d: pts %d ns, %d bytes, first byte %d, caps %s" % (
            i, buf.pts, info.size, info.data[0], sample.get_caps().to_string()[:60]))
        buf.unmap(info)
print(pipe.get_by_name("src").get_property("stats").to_string())
pipe.set_state(Gst.State.NULL)
