#!/usr/bin/python3
"""Description: doradmasink never clobbers the pool of a live writer and
replaces a stale one. Live doradma writer (another doradmasink holds it):
refused, and the first writer's pool keeps its inode. Live dora writer (a
process that maps the pool read-write, as dora's writers do): refused,
naming its pid. Stale (the writer exited, or was killed with -9): replaced
by a new object, which the independent reader sees with the new JSON.
"""
import os
import shutil
import signal
import subprocess
import time

from dorapool import (Pool, check, fail, gst_launch, gst_run, read_header,
                      rust_json, shm_dir)


def live_sink(name):
    return gst_launch("videotestsrc", "is-live=true", "!",
                      "video/x-raw,format=RGB,width=32,height=16", "!",
                      "doradmasink", "dora-pool=" + name)


def wait_exists(path, p):
    t0 = time.time()
    while not os.path.exists(path):
        if p.poll() is not None or time.time() - t0 > 20:
            fail("pool %s never appeared: %s" % (path, p.communicate()))
        time.sleep(0.005)


def second_sink(name):
    """A refused sink posts its error from set_caps, which gst-launch-1.0
    may miss (see dorapool.gst_run): a short timeout bounds that case."""
    return gst_run(["videotestsrc", "num-buffers=3", "!",
                    "video/x-raw,format=GRAY8,width=8,height=8", "!",
                    "doradmasink", "dora-pool=" + name], timeout=10)


def inode(path):
    try:
        return os.stat(path).st_ino
    except FileNotFoundError:
        return None


def header(path):
    """The pool's header fields, or None while the name is absent (the sink
    unlinks a stale pool, then links its own: for a moment there is none)."""
    try:
        mm, h = read_header(path)
    except FileNotFoundError:
        return None
    mm.close()
    return h


def wait_replaced(path, ino, p, deadline_s=20):
    """Waits for the event: the name leads to an object other than inode
    `ino` and its header was read from that object (the name still leads to
    it after the read). The sink links only complete pools, so that header
    is the new pool's final one. Returns it, or None after the deadline (the
    script's own deadline, scaled for the sanitizer runs, is the outer
    bound)."""
    t0 = time.time()
    while time.time() - t0 < deadline_s:
        if p.poll() is not None:
            fail("replacing a stale pool failed: %s" % (p.communicate(),))
        i = inode(path)
        if i not in (ino, None):
            h = header(path)
            if h is not None and inode(path) == i:
                return h
        time.sleep(0.005)
    return None


def main():
    d = shm_dir("live")
    pid = os.getpid()
    try:
        # a live doradmasink
        name = "dora_pool_df-%d_cam_a" % pid
        path = os.path.join(d, name)
        p = live_sink(name)
        wait_exists(path, p)
        ino = os.stat(path).st_ino
        rc, out = second_sink(name)
        check(rc != 0 and "a doradma writer holds it" in out,
              "live doradmasink: a second writer is refused")
        check(os.stat(path).st_ino == ino, "live doradmasink: pool untouched")
        # kill -9: the lock dies with it; the pool is stale
        p.send_signal(signal.SIGKILL)
        p.wait()
        check(os.path.exists(path), "kill -9 left the pool behind")
        p2 = live_sink(name)
        t0 = time.time()
        # the replacement unlinks the stale pool before it creates the new
        # one: between the two the path does not exist
        while inode(path) in (ino, None) and time.time() - t0 < 20:
            if p2.poll() is not None:
                fail("replacing a killed writer's pool failed: %s"
                     % (p2.communicate(),))
            time.sleep(0.005)
        check(inode(path) not in (ino, None),
              "stale pool of a killed doradmasink replaced")
        p2.send_signal(signal.SIGINT)
        p2.communicate(timeout=20)

        # a live dora writer: maps the pool read-write and stays
        name = "dora_pool_df-%d_cam_b" % pid
        path = os.path.join(d, name)
        Pool(path, rust_json(64, "uint8", [8, 8]), 64, gen=2).mm.close()
        holder = subprocess.Popen(["/usr/bin/python3", "-c", """
import mmap, os, sys, time
fd = os.open(%r, os.O_RDWR)
mm = mmap.mmap(fd, os.fstat(fd).st_size)
print("mapped", flush=True)
time.sleep(60)
""" % path], stdout=subprocess.PIPE, text=True)
        holder.stdout.readline()
        rc, out = second_sink(name)
        check(rc != 0 and ("process %d maps it read-write" % holder.pid) in out,
              "live dora writer: refused, naming pid %d" % holder.pid)
        _, h = read_header(path)
        check(h["json_text"] == rust_json(64, "uint8", [8, 8]),
              "live dora writer: its pool untouched")
        holder.kill()
        holder.wait()

        # stale: its writer exited; nobody maps it
        ino = os.stat(path).st_ino
        p = gst_launch("videotestsrc", "is-live=true", "!",
                       "video/x-raw,format=GRAY8,width=8,height=4", "!",
                       "doradmasink", "dora-pool=" + name)
        h = wait_replaced(path, ino, p)
        check(h is not None and h["json_text"] == rust_json(32, "uint8", [4, 8]),
              "stale pool replaced by the sink's: %s"
              % (h and h["json_text"],))
        p.send_signal(signal.SIGINT)
        p.communicate(timeout=20)
        # another user's pool is not ours to replace: only root could test it
    finally:
        shutil.rmtree(d, ignore_errors=True)


main()
