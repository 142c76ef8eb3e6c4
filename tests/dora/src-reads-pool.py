#!/usr/bin/python3
"""Description: doradmasrc dora-pool=... reads pools written by a writer
that follows the spec (dorapool.py), in another process, byte-exact: the
Rust crate's compact JSON (gen 0 after create: a frame of zeros, spec §4.1)
and the Python binding's whitespace JSON without `transport` (gen 2 after
registration, data copied in), RGB with padded GStreamer rows, channel-order
BGR, GRAY8, uint16 [H, W] as GRAY16_LE, RGBA, the `caps` property (payload
as-is; a page-aligned pool whose size exceeds its tensor's bytes), each generation pushed once and in order. Pools re-created under
their name (a writer restart): pool-restart.py.
"""
import os
import random
import shutil

from dorapool import (Pool, check, gst_launch, padded, python_json,
                      rust_json, shm_dir, wait_size)


def run_case(d, tag, json_fn, shape, frames, initial_gen, expect,
             src_props=(), caps_filter=None, initial=None, dtype="uint8",
             pool_size=None):
    """Writes `frames` one at a time, each only after the reader output the
    previous one (the handshake makes the expected sequence exact)."""
    name = "dora_pool_df-%d_cam_%s" % (os.getpid(), tag)
    size = pool_size or len(frames[0])
    pool = Pool(os.path.join(d, name), json_fn(size, dtype, shape), size,
                gen=initial_gen)
    if initial is not None:
        pool.fill(initial)
    out = os.path.join(d, "out-%s.raw" % tag)
    n_out = len(expect)
    chain = ["doradmasrc", "dora-pool=" + name, "num-buffers=%d" % n_out,
             "poll-interval=200000"] + list(src_props)
    if caps_filter:
        chain += ["!", caps_filter]
    p = gst_launch(*chain, "!", "filesink", "location=" + out,
                   "buffer-mode=unbuffered", "sync=false")
    fsize = len(expect[0])
    # what the pool holds at start is the first output (gen 0 or 2: even)
    wait_size(p, out, fsize, tag)
    for i, fr in enumerate(frames):
        pool.write(fr)
        if i + 2 <= n_out:
            wait_size(p, out, (i + 2) * fsize, tag)
    res = p.communicate(timeout=20)
    check(p.returncode == 0, "%s: reader exit 0 (%s)" % (tag, res[1][-400:]))
    got = open(out, "rb").read()
    check(got == b"".join(expect), "%s: %d frames byte-exact and in order"
          % (tag, n_out))
    os.unlink(pool.path)


def main():
    d = shm_dir("src")
    rng = random.Random(11)
    W, H = 33, 7

    def frames(n, bpp):
        return [bytes(rng.randrange(256) for _ in range(W * H * bpp))
                for _ in range(n)]
    try:
        # Rust writer: the pool reads as a frame of zeros until written
        fr = frames(3, 3)
        run_case(d, "rust-rgb", rust_json, [H, W, 3], fr, 0,
                 [padded(x, W * 3, H) for x in [bytes(W * H * 3)] + fr])
        # Python binding: whitespace JSON, no transport, gen 2 + data
        fr = frames(4, 3)
        run_case(d, "python-rgb", python_json, [H, W, 3], fr[1:], 2,
                 [padded(x, W * 3, H) for x in fr], initial=fr[0])
        # BGR chosen by channel-order: downstream demands BGR caps
        fr = frames(2, 3)
        run_case(d, "bgr", rust_json, [H, W, 3], fr[1:], 2,
                 [padded(x, W * 3, H) for x in fr], initial=fr[0],
                 src_props=["channel-order=bgr"],
                 caps_filter="video/x-raw,format=BGR,width=33,height=7")
        fr = frames(2, 1)
        run_case(d, "gray", python_json, [H, W], fr[1:], 2,
                 [padded(x, W, H) for x in fr], initial=fr[0],
                 caps_filter="video/x-raw,format=GRAY8")
        # uint16 [H, W] (what doradmasink writes for GRAY16_LE), no `caps`
        fr = frames(2, 2)
        run_case(d, "gray16", rust_json, [H, W], fr[1:], 2,
                 [padded(x, W * 2, H) for x in fr], initial=fr[0],
                 caps_filter="video/x-raw,format=GRAY16_LE", dtype="uint16")
        fr = frames(2, 4)
        run_case(d, "rgba", rust_json, [H, W, 4], fr[1:], 2, fr,
                 initial=fr[0], caps_filter="video/x-raw,format=RGBA")
        # caps property: I420 16x16 in a flat uint8 pool, taken as-is
        fr = [bytes(rng.randrange(256) for _ in range(384)) for _ in range(2)]
        run_case(d, "caps-prop", rust_json, [384], fr[1:], 2, fr,
                 initial=fr[0], src_props=[
                     "caps=video/x-raw,format=I420,width=16,height=16,"
                     "framerate=0/1"],
                 caps_filter="video/x-raw,format=I420")
        # a page-aligned pool (JSON size 4096 > the [8, 16, 3] tensor's 384
        # bytes, which dora's crate allows) read with `caps` of that
        # tensor: refused before (F7), the tensor's bytes now
        fr = [bytes(rng.randrange(256) for _ in range(384)) for _ in range(2)]
        run_case(d, "page-aligned", rust_json, [8, 16, 3], fr[1:], 2, fr,
                 initial=fr[0], pool_size=4096, src_props=[
                     "caps=video/x-raw,format=RGB,width=16,height=8,"
                     "framerate=0/1"],
                 caps_filter="video/x-raw,format=RGB")
    finally:
        shutil.rmtree(d, ignore_errors=True)


main()
