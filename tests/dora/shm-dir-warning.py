#!/usr/bin/python3
"""Description: DORADMA_SHM_DIR moves doradma's dora pools out of the reach
of dora's nodes, which always use /dev/shm (review round 4, F3); the
elements now say so instead of failing in silence:
- doradmasrc dora-pool=P with DORADMA_SHM_DIR set, P missing there but
  present in /dev/shm (a dora node's pool): one WARNING naming the variable
  and both places (before: a silent wait for ever);
- doradmasink dora-pool=P with DORADMA_SHM_DIR set: one WARNING that the
  pool is not in /dev/shm, naming the variable (before: none; dora's crate
  then failed with "os error 2").
The /dev/shm pool has a name unique to this run and is removed at the end.
"""
import os
import shutil

import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

import steps  # noqa: E402
from dorapool import Pool, check, rust_json, shm_dir  # noqa: E402

W, H = 16, 8


def first_message(pipe, what):
    msg = pipe.get_bus().timed_pop_filtered(10 * Gst.SECOND,
                                            Gst.MessageType.WARNING |
                                            Gst.MessageType.ERROR)
    check(msg is not None, "%s: a message within 10 s" % what)
    check(msg.type == Gst.MessageType.WARNING, "%s: a WARNING" % what)
    return msg.parse_warning()[0].message


def main():
    d = shm_dir("shmdir")
    Gst.init(None)
    name = "dora_pool_shmdir-%d_cam" % os.getpid()
    there = os.path.join("/dev/shm", name)
    steps.on_deadline(lambda: os.path.exists(there) and os.unlink(there))
    pool = Pool(there, rust_json(W * H, "uint8", [H, W]), W * H, gen=2)
    pool.fill(bytes(W * H))
    pipes = []
    try:
        src = Gst.parse_launch("doradmasrc dora-pool=%s ! fakesink" % name)
        pipes.append(src)
        src.set_state(Gst.State.PLAYING)
        m = first_message(src, "source")
        check("DORADMA_SHM_DIR" in m and there in m and d in m,
              "source: names the variable, %s and %s: %s" % (d, there, m))
        src.set_state(Gst.State.NULL)

        sname = "dora_pool_shmdir-%d_out" % os.getpid()
        sink = Gst.parse_launch(
            "appsrc name=src format=time caps=video/x-raw,format=GRAY8,"
            "width=%d,height=%d,framerate=30/1 ! doradmasink sync=false "
            "dora-pool=%s" % (W, H, sname))
        pipes.append(sink)
        sink.set_state(Gst.State.PLAYING)
        sink.get_by_name("src").emit("push-buffer",
                                     Gst.Buffer.new_wrapped(bytes(W * H)))
        m = first_message(sink, "sink")
        check("DORADMA_SHM_DIR" in m and "/dev/shm" in m and sname in m,
              "sink: names the pool, the variable and /dev/shm: %s" % m)
        check(os.path.exists(os.path.join(d, sname)),
              "sink: the pool is in DORADMA_SHM_DIR as documented")
    finally:
        for p in pipes:
            p.set_state(Gst.State.NULL)
        os.unlink(there)
        shutil.rmtree(d, ignore_errors=True)
    print("PASS")


main()
