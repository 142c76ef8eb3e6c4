#!/usr/bin/python3
"""Description: a renegotiation that leaves the tensor alone keeps the
sink's dora pool (review round 4, F2). doradmasink re-created its pool on
a framerate-only caps change (it compared the whole GstVideoInfo), and a
dora reader, which keeps its mapping and never re-opens, froze on the old
one. Now the pool (same inode) and a reader's mapping of it go on across
framerate and pixel-aspect-ratio changes; a real geometry change (other
width) still makes a new pool.
"""
import os
import shutil
import time

import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

from dorapool import check, gen_of, read_frame, read_header, shm_dir  # noqa

W, H = 16, 8
CAPS = "video/x-raw,format=GRAY8,width=%d,height=%d,framerate=%s," \
    "pixel-aspect-ratio=%s"


def wait_for(what, cond, secs=10):
    t0 = time.monotonic()
    while not cond():
        if time.monotonic() - t0 > secs:
            check(False, "%s within %d s" % (what, secs))
        time.sleep(0.002)


def inode(path):
    """The inode at the name, or None while it is missing (the sink
    unlinks the old pool before it links the new one)."""
    try:
        return os.stat(path).st_ino
    except FileNotFoundError:
        return None


def main():
    d = shm_dir("capskeep")
    Gst.init(None)
    name = "dora_pool_capskeep-%d_cam" % os.getpid()
    path = os.path.join(d, name)
    pipe = Gst.parse_launch(
        "appsrc name=src format=time ! doradmasink name=sink sync=false "
        "dora-pool=%s" % name)
    src = pipe.get_by_name("src")
    src.set_property("caps", Gst.Caps.from_string(CAPS % (W, H, "30/1",
                                                          "1/1")))
    pipe.set_state(Gst.State.PLAYING)
    try:
        def push(v):
            src.emit("push-buffer", Gst.Buffer.new_wrapped(bytes([v]) * (W * H)))

        push(1)
        wait_for("the pool", lambda: os.path.exists(path))
        mm, h = read_header(path)
        ino = os.stat(path).st_ino

        def shows(v):
            r = read_frame(mm, h["data_offset"], W * H)
            return r is not None and r[1] == bytes([v]) * (W * H)
        wait_for("frame 1 in the pool", lambda: shows(1))
        for v, fps, par in ((2, "15/1", "1/1"), (3, "15/1", "4/3")):
            src.set_property("caps", Gst.Caps.from_string(
                CAPS % (W, H, fps, par)))
            push(v)
            # either the reader's mapping shows it, or the name leads to
            # another pool that does: whichever comes first
            wait_for("frame %d written" % v, lambda: shows(v) or
                     inode(path) != ino)
            check(inode(path) == ino and shows(v),
                  "framerate %s, par %s: same pool, the reader's mapping "
                  "shows frame %d" % (fps, par, v))
        check(gen_of(mm) == 6, "generation 6 after 3 frames (got %d)"
              % gen_of(mm))
        # another geometry: a new pool
        src.set_property("caps", Gst.Caps.from_string(
            CAPS % (W + 4, H, "15/1", "4/3")))
        src.emit("push-buffer", Gst.Buffer.new_wrapped(bytes([4]) *
                                                       ((W + 4) * H)))
        wait_for("a new pool for width %d" % (W + 4),
                 lambda: inode(path) not in (None, ino))
        check(True, "width %d: a new pool" % (W + 4))
        msg = pipe.get_bus().pop_filtered(Gst.MessageType.ERROR)
        check(msg is None, "no error: %s" % (msg.parse_error()[0].message
                                             if msg else ""))
    finally:
        pipe.set_state(Gst.State.NULL)
        shutil.rmtree(d, ignore_errors=True)
    print("PASS")


main()
