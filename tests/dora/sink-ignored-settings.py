#!/usr/bin/python3
"""Description: doradmasink dora-pool=P ignores the ring's settings (review
round 4, F8): `permissions=0660` still made a 0600 pool, in silence. Now
one WARNING names the ring-only properties set to other than their
defaults (permissions, slots, ...), the pool is still written (mode 0600,
as dora's writers make it), and a sink with the defaults gets no such
warning. (The F3 warning about DORADMA_SHM_DIR, which the test sets, is
told apart by its text.)
"""
import os
import stat
import shutil

import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

from buswarnings import warnings_until_eos  # noqa: E402
from dorapool import check, shm_dir  # noqa: E402

W, H = 16, 8


def run(d, name, extra):
    """Writes one frame to pool `name`; returns the WARNING texts until
    EOS and the pool's mode while it existed."""
    pipe = Gst.parse_launch(
        "appsrc name=src format=time caps=video/x-raw,format=GRAY8,"
        "width=%d,height=%d,framerate=30/1 ! doradmasink name=sink "
        "sync=false dora-pool=%s %s" % (W, H, name, extra))
    path, mode = os.path.join(d, name), None

    def written():
        nonlocal mode
        if mode is None and os.path.exists(path):
            mode = stat.S_IMODE(os.stat(path).st_mode)
        src.emit("end-of-stream")

    try:
        pipe.set_state(Gst.State.PLAYING)
        src = pipe.get_by_name("src")
        src.emit("push-buffer", Gst.Buffer.new_wrapped(bytes(W * H)))
        warnings = warnings_until_eos(pipe, name, written)
    finally:
        pipe.set_state(Gst.State.NULL)
    return warnings, mode


def main():
    d = shm_dir("ignored")
    Gst.init(None)
    try:
        warnings, mode = run(d, "dora_pool_ign-%d_a" % os.getpid(),
                             "permissions=432 slots=5")
        mine = [w for w in warnings if "Ignored with dora-pool" in w]
        check(len(mine) == 1 and "permissions" in mine[0] and
              "slots" in mine[0], "one WARNING naming permissions and slots: "
              "%s" % warnings)
        check(mode == 0o600, "the pool is mode 0600: %s" %
              (oct(mode) if mode is not None else None))
        warnings, _ = run(d, "dora_pool_ign-%d_b" % os.getpid(), "")
        check(not [w for w in warnings if "Ignored with dora-pool" in w],
              "defaults: no such warning: %s" % warnings)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print("PASS")


main()
