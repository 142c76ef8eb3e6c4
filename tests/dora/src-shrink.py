#!/usr/bin/python3
"""Description: the pool's owner shrinks and regrows its pool while
doradmasrc reads it (review round 4, F5, its trunc.py): ftruncate to 4096,
generation bumped, ftruncate back to full size, bumped again, in a loop
until the source stops (the event awaited: its exit, within LIMIT_S
seconds). A 1080p frame takes the copy long enough that a shrink lands in
the middle of one. The source must survive (no SIGBUS, exit 135 under a
shell) and report the shrink, naming the pool and its size; ROUNDS
processes in a row. Before the fix the copy was a memcpy from the mapping:
2 of 8 runs died of SIGBUS, the others failed the message check (no size
named); tests/dora/pool-shrink forces the same race deterministically
through the lib.
"""
import os
import shutil
import signal
import struct
import subprocess
import time

import steps
from dorapool import Pool, check, fail, gst_launch, rust_json, shm_dir

W, H = 1920, 1080
SIZE = W * H * 3
LIMIT_S = 30
ROUNDS = 3


def bump(pool):
    g = pool.gen.get()
    pool.gen.set((g | 1) + 1)


def wait_mapped(p, path, limit=60):
    """Waits until the process `p` maps `path` (the source opened it)."""
    t0 = time.time()
    while True:
        try:
            with open("/proc/%d/maps" % p.pid) as f:
                if any(line.rstrip().endswith(path) for line in f):
                    return
        except OSError:
            pass
        if p.poll() is not None or time.time() - t0 > limit:
            p.kill()
            fail("the source never mapped %s: %s" % (path, p.communicate()))
        time.sleep(0.002)


def one_round(d, k):
    name = "dora_pool_shrink-%d_cam%d" % (os.getpid(), k)
    path = os.path.join(d, name)
    pool = Pool(path, rust_json(SIZE, "uint8", [H, W, 3]), SIZE, gen=2)
    pool.fill(bytes(range(256)) * (SIZE // 256))
    full = os.stat(path).st_size
    p = gst_launch("doradmasrc", "dora-pool=" + name, "poll-interval=10000",
                   "!", "fakesink", "sync=false")
    # the event, not a time: the source maps the pool once it has opened
    # it, then copies each new generation
    wait_mapped(p, path)
    fd = os.open(path, os.O_RDWR)
    steps.step("round %d: shrinking and regrowing %s" % (k, name))
    n = 0
    t0 = time.time()
    try:
        while p.poll() is None and time.time() - t0 < LIMIT_S:
            os.ftruncate(fd, 4096)
            bump(pool)
            os.ftruncate(fd, full)
            bump(pool)
            n += 1
    finally:
        os.close(fd)
    try:
        o, e = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        o, e = p.communicate()
    text = o + e
    check(p.returncode != -signal.SIGBUS and p.returncode != 135,
          "round %d: no SIGBUS over %d shrinks (exit %s: %s)"
          % (k, n, p.returncode, text[-300:]))
    check(p.returncode != 0 and "shrank below its payload" in text
          and name in text and "now has" in text,
          "round %d: the source reports the shrink, naming the pool and its "
          "size (exit %s): %s" % (k, p.returncode, text[-400:]))
    os.unlink(path)


def main():
    d = shm_dir("shrink")
    try:
        for k in range(ROUNDS):
            one_round(d, k)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print("PASS")


main()
