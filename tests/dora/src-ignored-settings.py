#!/usr/bin/python3
"""Description: doradmasrc dora-pool=P ignores the ring reader's settings,
as doradmasink did (review round 4, F8, the source's side): `read-mode`,
`copy-mode`/`copy`, `max-leases`, `transport`, `copy-to`, `copy-budget`
and `spin-time` change nothing on a pool (one buffer, copied every frame,
its transport from the pool's header), yet they were taken in silence.
Now one WARNING names those set to other than their defaults, the frames
still flow, and a source with the defaults (or with the properties the dora
path honours: timeout, allowed-uid, on-writer-lost, processing-deadline)
gets no such warning.
"""
import os
import shutil

import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

from buswarnings import warnings_until_eos  # noqa: E402
from dorapool import Pool, check, rust_json, shm_dir  # noqa: E402

W, H = 16, 8


def run(name, extra):
    """Reads one frame of pool `name`; returns the WARNING texts seen
    until then and the frame."""
    pipe = Gst.parse_launch(
        "doradmasrc dora-pool=%s num-buffers=1 %s ! video/x-raw,format=GRAY8 "
        "! appsink name=sink sync=false wait-on-eos=false" % (name, extra))
    got = None
    try:
        pipe.set_state(Gst.State.PLAYING)
        warnings = warnings_until_eos(pipe, extra)
        s = pipe.get_by_name("sink").emit("try-pull-sample", 0)
        if s is not None:
            got = s.get_buffer().extract_dup(0, W * H)
    finally:
        pipe.set_state(Gst.State.NULL)
    return warnings, got


def main():
    d = shm_dir("srcign")
    Gst.init(None)
    name = "dora_pool_srcign-%d_cam" % os.getpid()
    try:
        pool = Pool(os.path.join(d, name), rust_json(W * H, "uint8", [H, W]),
                    W * H, gen=2)
        pool.fill(bytes([7]) * (W * H))
        warnings, got = run(name, "read-mode=latest max-leases=2 "
                            "spin-time=1000")
        mine = [w for w in warnings if "Ignored with dora-pool" in w]
        check(len(mine) == 1 and all(p in mine[0] for p in
                                     ("read-mode", "max-leases",
                                      "spin-time")),
              "one WARNING naming read-mode, max-leases and spin-time: %s"
              % warnings)
        check(got == bytes([7]) * (W * H), "the frame still flows")
        warnings, got = run(name, "copy=true copy-budget=4096 transport=shmem")
        mine = [w for w in warnings if "Ignored with dora-pool" in w]
        check(len(mine) == 1 and "copy" in mine[0] and
              "copy-budget" in mine[0] and "transport" in mine[0] and
              "read-mode" not in mine[0], "one WARNING naming copy, "
              "copy-budget and transport only: %s" % warnings)
        for extra in ("", "timeout=5000000000 on-writer-lost=eos "
                      "processing-deadline=1000000 allowed-uid=%d"
                      % os.getuid()):
            warnings, got = run(name, extra)
            check(not [w for w in warnings if "Ignored with dora-pool" in w],
                  "%r: no such warning: %s" % (extra, warnings))
            check(got == bytes([7]) * (W * H), "%r: the frame" % extra)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print("PASS")


main()
