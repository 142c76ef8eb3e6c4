#!/usr/bin/python3
"""Description: a dora pool writer killed mid-write leaves the generation
odd (review round 4, F4): doradmasrc dora-pool=... pushes nothing more, as
documented, but no longer in silence: after 3 s it posts one WARNING
naming the pool and the odd generation ("its writer may have died
mid-write"), and it still follows the next complete write. Before the fix
it said nothing, even at GST_DEBUG=doradmadorasrc:4.
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
    d = shm_dir("odd")
    Gst.init(None)
    name = "dora_pool_odd-%d_cam" % os.getpid()
    pool = Pool(os.path.join(d, name), rust_json(W * H, "uint8", [H, W]),
                W * H, gen=2)
    pool.fill(frame(1))
    pipe = Gst.parse_launch(
        "doradmasrc dora-pool=%s poll-interval=1000000 ! "
        "video/x-raw,format=GRAY8 ! appsink name=sink sync=false "
        "max-buffers=1 drop=false" % name)
    sink = pipe.get_by_name("sink")
    bus = pipe.get_bus()
    pipe.set_state(Gst.State.PLAYING)
    try:
        s = sink.emit("try-pull-sample", 10 * Gst.SECOND)
        check(s is not None, "the pool's first frame within 10 s")
        # a write that never ends: generation 3
        pool.begin()
        pool.fill(frame(2))
        msg = bus.timed_pop_filtered(15 * Gst.SECOND,
                                     Gst.MessageType.WARNING |
                                     Gst.MessageType.ERROR)
        check(msg is not None, "a message within 15 s of the odd generation")
        check(msg.type == Gst.MessageType.WARNING, "it is a WARNING")
        err, dbg = msg.parse_warning()
        check(name in err.message and "odd" in err.message
              and "mid-write" in err.message, "it names the pool and the odd "
              "generation: %s" % err.message)
        # once: no second message while the stall goes on
        msg = bus.timed_pop_filtered(4 * Gst.SECOND,
                                     Gst.MessageType.WARNING |
                                     Gst.MessageType.ERROR)
        check(msg is None, "no second message while the generation stays odd")
        # the next complete write is followed
        pool.write(frame(3))
        s = sink.emit("try-pull-sample", 10 * Gst.SECOND)
        check(s is not None and s.get_buffer().extract_dup(0, W * H)
              == frame(3), "the next complete write is pushed")
    finally:
        pipe.set_state(Gst.State.NULL)
        shutil.rmtree(d, ignore_errors=True)
    print("PASS")


main()
