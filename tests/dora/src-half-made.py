#!/usr/bin/python3
"""Description: a dora pool found half-made is "not there yet" (review
round 4, F1). dora's crate creates a pool in steps (shm_open O_EXCL,
ftruncate, then header and JSON), so a reader started first can open it
while it is 0 bytes or zero-filled. doradmasrc dora-pool=... used to fail
at once ("segment is too small: 0 bytes" / "bad magic 00 ..."); now it
waits (bounded by `timeout`), says so once after 3 s (a WARNING naming the
pool, "half-made"), and reads the pool once its creator has finished it.
The order is forced: the pool stays empty until the element has said it
waits for it, then this test fills that same file in place.
"""
import os
import shutil

import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

from dorapool import Pool, check, rust_json, shm_dir  # noqa: E402

W, H = 16, 8


def main():
    d = shm_dir("half")
    Gst.init(None)
    name = "dora_pool_half-%d_cam" % os.getpid()
    path = os.path.join(d, name)
    # what the creator will have written once done, made aside
    done = Pool(os.path.join(d, name + "-image"),
                rust_json(W * H, "uint8", [H, W]), W * H, gen=2)
    done.fill(bytes([7]) * (W * H))
    image = bytes(done.mm)
    # the creator's first step: an empty object at the name
    fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
    pipe = Gst.parse_launch(
        "doradmasrc dora-pool=%s poll-interval=1000000 ! "
        "video/x-raw,format=GRAY8 ! appsink name=sink sync=false "
        "max-buffers=1 drop=false" % name)
    sink = pipe.get_by_name("sink")
    bus = pipe.get_bus()
    pipe.set_state(Gst.State.PLAYING)
    try:
        msg = bus.timed_pop_filtered(15 * Gst.SECOND,
                                     Gst.MessageType.WARNING |
                                     Gst.MessageType.ERROR)
        check(msg is not None, "a message within 15 s of the empty pool")
        check(msg.type == Gst.MessageType.WARNING, "it is a WARNING, not an "
              "error: %s" % (msg.parse_error()[0].message
                             if msg.type == Gst.MessageType.ERROR else "ok"))
        err, dbg = msg.parse_warning()
        check(name in err.message and "half-made" in err.message,
              "it names the pool and says it is half-made: %s" % err.message)
        # the creator goes on: size, then header and JSON, then a frame
        os.ftruncate(fd, len(image))
        os.pwrite(fd, image, 0)
        os.close(fd)
        s = sink.emit("try-pull-sample", 10 * Gst.SECOND)
        check(s is not None and s.get_buffer().extract_dup(0, W * H)
              == bytes([7]) * (W * H), "the finished pool's frame is pushed")
        msg = bus.pop_filtered(Gst.MessageType.ERROR)
        check(msg is None, "no error")
    finally:
        pipe.set_state(Gst.State.NULL)
        shutil.rmtree(d, ignore_errors=True)
    print("PASS")


main()
