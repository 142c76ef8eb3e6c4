#!/usr/bin/python3
"""Description: doradmasrc dora-pool=... reads pools written by a writer
that follows the spec (dorapool.py), in another process, byte-exact: the
Rust crate's compact JSON (gen 0 after create: a frame of zeros, spec §4.1)
and the Python binding's whitespace JSON without `transport` (gen 2 after
registration, data copied in), RGB with padded GStreamer rows, channel-order
BGR, GRAY8, uint16 [H, W] as GRAY16_LE, RGBA, the `caps` property (payload
as-is in GStreamer's default layout; a page-aligned pool whose size exceeds
its tensor's bytes; a packed tensor, each plane's rows exactly as wide as
its pixels and the planes back to back, copied into the default layout:
NV12, I420 of odd width and height, RGB of an odd width), each generation
pushed once and in order. Pools re-created under their name (a writer
restart): pool-restart.py.
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
        # packed tensors read with `caps` (F7): each plane's rows exactly
        # as wide as its pixels, the planes back to back, as numpy, OpenCV
        # and dora nodes hold them. GStreamer's default layout pads rows to
        # 4 bytes (and I420's luma plane to an even height), so these were
        # refused ("describes frames of 384 bytes"); now copied into the
        # default layout, every pad byte 0.
        def rand(n):
            return bytes(rng.randrange(256) for _ in range(n))

        def nv12(fr, w, h):
            # Y: h rows of w; UV: h/2 rows of w (interleaved pairs)
            return padded(fr[:w * h], w, h) + padded(fr[w * h:], w, h // 2)
        # NV12 30x8 as uint8 [12, 30]: 360 bytes packed, 384 default
        fr = [rand(360) for _ in range(2)]
        run_case(d, "packed-nv12", rust_json, [12, 30], fr[1:], 2,
                 [nv12(x, 30, 8) for x in fr], initial=fr[0], src_props=[
                     "caps=video/x-raw,format=NV12,width=30,height=8,"
                     "framerate=0/1"],
                 caps_filter="video/x-raw,format=NV12")
        # the same in a page-aligned pool (size 4096 > the tensor's 360)
        fr = [rand(360) for _ in range(2)]
        run_case(d, "packed-page", rust_json, [12, 30], fr[1:], 2,
                 [nv12(x, 30, 8) for x in fr], initial=fr[0],
                 pool_size=4096, src_props=[
                     "caps=video/x-raw,format=NV12,width=30,height=8,"
                     "framerate=0/1"],
                 caps_filter="video/x-raw,format=NV12")

        # I420 33x7 as a flat uint8 [367]: Y 7 rows of 33, U and V 4 rows
        # of 17. Default: strides 36 and 20, U at 36 * 8 (the luma plane
        # rounded to an even height), V at 368, 448 bytes in all.
        def i420(fr):
            y, u, v = fr[:231], fr[231:299], fr[299:]
            return (padded(y, 33, 7) + bytes(36) + padded(u, 17, 4) +
                    padded(v, 17, 4))
        fr = [rand(367) for _ in range(2)]
        run_case(d, "packed-i420", rust_json, [367], fr[1:], 2,
                 [i420(x) for x in fr], initial=fr[0], src_props=[
                     "caps=video/x-raw,format=I420,width=33,height=7,"
                     "framerate=0/1"],
                 caps_filter="video/x-raw,format=I420")
        # one plane: RGB 33x7 as uint8 [7, 33, 3] with `caps` (rows of 99
        # bytes; 100 in the default layout)
        fr = [rand(693) for _ in range(2)]
        run_case(d, "packed-rgb", rust_json, [7, 33, 3], fr[1:], 2,
                 [padded(x, 99, 7) for x in fr], initial=fr[0], src_props=[
                     "caps=video/x-raw,format=RGB,width=33,height=7,"
                     "framerate=0/1"],
                 caps_filter="video/x-raw,format=RGB")
    finally:
        shutil.rmtree(d, ignore_errors=True)


main()
