#!/usr/bin/python3
# Description: an application (PyGObject) builds the consumer pipeline
# doradmasrc ! appsink, pulls frames from a gst-launch-1.0 producer process
# and checks them: caps, sizes, and every frame's SHA-1 equal to a reference
# computed in-process from the same videotestsrc pattern.
import hashlib
import os
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dora"))
from steps import deadline, on_deadline, step, track, waiting_for  # noqa: E402

try:
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
except Exception as e:  # noqa: BLE001
    print("SKIP: no PyGObject/Gst:", e)
    sys.exit(77)

Gst.init(None)
for name in ("videotestsrc", "appsink", "doradmasrc"):
    if Gst.ElementFactory.find(name) is None:
        print("SKIP: element %s not available" % name)
        sys.exit(77)

CAPS = "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1"
N = 40
channel = "mp-python-%d" % os.getpid()
shm = os.environ.get("DORADMA_SHM_DIR") or "/dev/shm"


def pull_all(desc, n):
    pipe = Gst.parse_launch(desc)
    sink = pipe.get_by_name("out")
    pipe.set_state(Gst.State.PLAYING)
    sums, caps = [], None
    for _ in range(n):
        sample = sink.emit("try-pull-sample", 20 * Gst.SECOND)
        if sample is None:
            break
        caps = sample.get_caps().to_string()
        buf = sample.get_buffer()
        ok, info = buf.map(Gst.MapFlags.READ)
        assert ok
        sums.append(hashlib.sha1(bytes(info.data)).hexdigest())
        buf.unmap(info)
    eos = sink.emit("try-pull-sample", 5 * Gst.SECOND) is None and sink.get_property("eos")
    pipe.set_state(Gst.State.NULL)
    return sums, caps, eos


def remove_channel(name):
    """Removes what the channel left in the test's shm directory; returns the names."""
    left = [f for f in os.listdir(shm) if f.startswith("doradma." + name)]
    for f in left:
        os.unlink(os.path.join(shm, f))
    return left


def main():
    deadline(35)  # meson kills at 60 s; a pull in C can hold the alarm off 20 s more
    step("reference frames in-process")
    ref, ref_caps, _ = pull_all(
        "videotestsrc pattern=ball num-buffers=%d ! %s ! appsink name=out sync=false" % (N, CAPS), N)
    assert len(ref) == N, "reference has %d frames" % len(ref)

    env = dict(os.environ)
    if env.get("GST_PLUGIN_SYSTEM_PATH_1_0", None) == "":
        del env["GST_PLUGIN_SYSTEM_PATH_1_0"]
    step("producer started: gst-launch-1.0 ... doradmasink channel=" + channel)
    prod = track(subprocess.Popen(
        shlex.split("gst-launch-1.0 videotestsrc pattern=ball num-buffers=%d ! %s ! "
                    "doradmasink channel=%s mode=lossless wait-for-readers=1 sync=false"
                    % (N, CAPS, channel)),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env))
    on_deadline(lambda: remove_channel(channel))
    try:
        step("pulling %d frames through doradmasrc ! appsink" % N)
        got, caps, eos = pull_all(
            "doradmasrc channel=%s timeout=20000000000 ! appsink name=out sync=false" % channel, N)
        step("waiting for the producer to exit")
        waiting_for(prod)
        rc = prod.wait(timeout=30)
        waiting_for(None)
    finally:
        if prod.poll() is None:
            prod.kill()
    out = prod.stdout.read().decode(errors="replace")
    ok = True
    if rc != 0:
        print("producer exited %d:\n%s" % (rc, out)); ok = False
    if got != ref:
        print("frames differ: got %d, ref %d" % (len(got), len(ref)))
        for i, (a, b) in enumerate(zip(got, ref)):
            if a != b:
                print("first difference at frame", i); break
        ok = False
    if caps is None or Gst.Caps.from_string(caps).is_equal(Gst.Caps.from_string(ref_caps)) is False:
        print("caps %s != %s" % (caps, ref_caps)); ok = False
    if not eos:
        print("no EOS after the last frame"); ok = False
    left = remove_channel(channel)
    if left:
        print("left in %s: %s" % (shm, left)); ok = False
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


sys.exit(main())
