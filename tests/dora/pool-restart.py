#!/usr/bin/python3
"""Description: a dora writer that frees its pool and creates it again
under the same name with another frame size (a node restarted at another
resolution), larger and then smaller: doradmasrc renegotiates and delivers
the new frames byte-exact (it used to copy the larger frame into a buffer
sized for the old one: a heap overflow; and to push one buffer of the old
size for the smaller). A pool freed and not created again is reported on
the bus and `on-writer-lost` applies: wait (a warning, and a pool created
later is still followed), eos (the pipeline ends) or error. A pool
re-created at once with the same size is followed too.
"""
import os
import random
import shutil
import signal
import subprocess
import time

from dorapool import (Pool, check, gst_launch, padded, python_json,
                      rust_json, shm_dir, wait_size)


def resized(d, rng):
    """RGB 16x8, then 40x30 (larger), then 6x4 (smaller)."""
    name = "dora_pool_df-%d_cam_resized" % os.getpid()
    path = os.path.join(d, name)
    sizes = [(16, 8), (40, 30), (6, 4)]
    frames = [bytes(rng.randrange(256) for _ in range(w * h * 3))
              for w, h in sizes]
    expect = [padded(f, w * 3, h) for f, (w, h) in zip(frames, sizes)]
    out = os.path.join(d, "out-resized.raw")
    pool = Pool(path, rust_json(len(frames[0]), "uint8", [8, 16, 3]),
                len(frames[0]), gen=2)
    pool.fill(frames[0])
    p = gst_launch("doradmasrc", "dora-pool=" + name, "num-buffers=3",
                   "poll-interval=200000", "!", "filesink", "location=" + out,
                   "buffer-mode=unbuffered", "sync=false")
    total = len(expect[0])
    wait_size(p, out, total, "resized")
    for f, (w, h), e in zip(frames[1:], sizes[1:], expect[1:]):
        os.unlink(path)
        pool = Pool(path, rust_json(len(f), "uint8", [h, w, 3]), len(f),
                    gen=2)
        pool.fill(f)
        total += len(e)
        wait_size(p, out, total, "resized")
    res = p.communicate(timeout=20)
    check(p.returncode == 0, "resized: reader exit 0 (%s)" % res[1][-400:])
    got = open(out, "rb").read()
    check(got == b"".join(expect), "resized: 16x8, then the larger 40x30, "
          "then the smaller 6x4 pool's frame, each byte-exact (%d bytes, "
          "expected %d)" % (len(got), len(b"".join(expect))))
    os.unlink(path)


def freed(d, policy, rng):
    """The writer frees its pool after one frame and does not come back."""
    name = "dora_pool_df-%d_cam_freed-%s" % (os.getpid(), policy)
    path = os.path.join(d, name)
    f = bytes(rng.randrange(256) for _ in range(8 * 8))
    pool = Pool(path, rust_json(len(f), "uint8", [8, 8]), len(f), gen=2)
    pool.fill(f)
    out = os.path.join(d, "out-freed-%s.raw" % policy)
    # not -q: gst-launch prints WARNING messages only without it
    p = subprocess.Popen(["gst-launch-1.0", "doradmasrc", "dora-pool=" + name,
                          "on-writer-lost=" + policy, "!", "filesink",
                          "location=" + out, "buffer-mode=unbuffered",
                          "sync=false"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    wait_size(p, out, len(f), "freed-" + policy)   # pushed; now it polls
    os.unlink(path)
    if policy == "wait":
        # the event, not a time: gst-launch prints the bus warning as it
        # comes (g_print flushes); then the source must still run. A source
        # that never warns ends the loop at its exit, or the script's
        # deadline ends a silent hang.
        seen = ""
        for line in p.stdout:
            seen += line
            if "was freed by its writer; waiting" in line:
                break
        check("was freed by its writer; waiting" in seen,
              "freed, wait: a warning on the bus (%s)" % seen[-300:])
        check(p.poll() is None, "freed, wait: still running after it")
        p.send_signal(signal.SIGINT)
        p.communicate(timeout=20)
        return
    try:
        out = p.communicate(timeout=10)[0]
    except subprocess.TimeoutExpired:
        p.kill()
        out = p.communicate()[0]
        check(False, "freed, %s: the pipeline did not stop (%s)"
              % (policy, out[-300:]))
    if policy == "eos":
        check(p.returncode == 0 and "was freed by its writer" in out,
              "freed, eos: the pipeline ends, saying why (%s)" % out[-300:])
    else:
        check(p.returncode != 0 and "was freed by its writer" in out,
              "freed, error: an error naming the pool (%s)" % out[-300:])


def restart(d, rng, gap):
    """The writer frees its pool and registers a new one of the same size
    under the same name (python JSON this time), `gap` seconds later: the
    src re-opens and re-validates it and goes on with the new pool's frame.
    A gap of 2 s is reported as freed first (on-writer-lost=wait)."""
    W, H = 16, 8
    name = "dora_pool_df-%d_cam_back%d" % (os.getpid(), gap)
    path = os.path.join(d, name)
    x, y = (bytes(rng.randrange(256) for _ in range(W * H * 4))
            for _ in range(2))
    pool = Pool(path, rust_json(len(x), "uint8", [H, W, 4]), len(x), gen=2)
    pool.fill(x)
    out = os.path.join(d, "out-back%d.raw" % gap)
    p = gst_launch("doradmasrc", "dora-pool=" + name, "num-buffers=2", "!",
                   "filesink", "location=" + out, "buffer-mode=unbuffered",
                   "sync=false")
    wait_size(p, out, len(x), "back")
    os.unlink(path)
    time.sleep(gap)
    pool = Pool(path, python_json(len(y), "uint8", [H, W, 4]), len(y), gen=2)
    pool.fill(y)
    wait_size(p, out, 2 * len(x), "back")
    res = p.communicate(timeout=20)
    check(p.returncode == 0, "back after %d s: reader exit 0 (%s)"
          % (gap, res[1][-300:]))
    check(open(out, "rb").read() == x + y, "back after %d s: the re-created "
          "pool's frame follows the old one's, byte-exact" % gap)
    os.unlink(path)


def main():
    d = shm_dir("restart")
    rng = random.Random(20)
    try:
        resized(d, rng)
        for policy in ["wait", "eos", "error"]:
            freed(d, policy, rng)
        restart(d, rng, 0)
        restart(d, rng, 2)
    finally:
        shutil.rmtree(d, ignore_errors=True)


main()
