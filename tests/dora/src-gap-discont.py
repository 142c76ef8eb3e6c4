#!/usr/bin/python3
"""Description: doradmasrc dora-pool=... marks a gap (review round 4, D1):
when the pool's generation moves by more than one write (+2) between two
frames it pushes, frames were lost; the next buffer is DISCONT and the
element's stats count them as skipped. The pool (dorapool.py, a writer
that follows the spec) jumps from generation 2 to 10 in one store, as a
writer that wrote four frames between two polls would leave it: the buffer
after is DISCONT with skipped 3; the next single write is not DISCONT.
Before the fix the gap was not DISCONT and skipped stayed 0.
"""
import os
import shutil

import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

from dorapool import Pool, check, rust_json, shm_dir  # noqa: E402

W, H = 16, 8


def frame(v):
    return bytes([v]) * (W * H)


def main():
    d = shm_dir("gap")
    Gst.init(None)
    name = "dora_pool_gap-%d_cam" % os.getpid()
    pool = Pool(os.path.join(d, name), rust_json(W * H, "uint8", [H, W]),
                W * H, gen=2)
    pool.fill(frame(10))
    pipe = Gst.parse_launch(
        "doradmasrc name=src dora-pool=%s poll-interval=1000000 ! "
        "video/x-raw,format=GRAY8 ! appsink name=sink sync=false "
        "max-buffers=1 drop=false" % name)
    sink = pipe.get_by_name("sink")
    src = pipe.get_by_name("src")
    pipe.set_state(Gst.State.PLAYING)

    def pull(what):
        s = sink.emit("try-pull-sample", 10 * Gst.SECOND)
        check(s is not None, "%s: a frame within 10 s" % what)
        b = s.get_buffer()
        return b.extract_dup(0, W * H)[:W * H], \
            b.has_flags(Gst.BufferFlags.DISCONT)

    def skipped():
        return src.get_property("stats").get_uint64("skipped")[1]

    try:
        data, _ = pull("first")
        check(data == frame(10), "the pool's first frame")
        # four writes between two polls: generation 2 -> 10, frame 14 left
        base = pool.begin()
        pool.fill(frame(14))
        pool.gen.set(base + 8)
        data, discont = pull("after the gap")
        check(data == frame(14), "the newest frame after the gap")
        check(discont, "the buffer after 3 lost generations is DISCONT")
        check(skipped() == 3, "stats: skipped %d, want 3" % skipped())
        pool.write(frame(15))
        data, discont = pull("next")
        check(data == frame(15) and not discont,
              "the next frame (one write later) is not DISCONT")
        check(skipped() == 3, "stats: skipped %d after it, want 3" % skipped())
    finally:
        pipe.set_state(Gst.State.NULL)
        shutil.rmtree(d, ignore_errors=True)
    print("PASS")


main()
