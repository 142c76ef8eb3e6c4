#!/usr/bin/python3
"""Description: doradmasink dora-pool=... writes a pool that an independent
reader (dorapool.py, from the spec alone) reads byte-exact, across
processes: the Rust writer's header and compact JSON, mode 0600, the
payload tightly packed (an odd width: GStreamer pads rows, dora must not),
the generation even after each frame (2 per frame), for RGB, GRAY8, BGRA,
and the unified transport (by property and by DORA_MEMORY_POOL_TRANSPORT).
"""
import os
import random
import shutil
import time

from dorapool import (HEADER, MAGIC, check, data_offset_for, fail, gen_of,
                      padded, read_frame, read_header, rust_json, shm_dir,
                      gst_launch)

W, H, N = 33, 7, 6


def run_case(d, tag, gst_fmt, channels, transport_prop=None, env_transport=None,
             expect_transport="shmem"):
    name = "dora_pool_df-%d_cam_%s" % (os.getpid(), tag)
    path = os.path.join(d, name)
    bpp = channels or 1
    rng = random.Random(tag)
    frames = [bytes(rng.randrange(256) for _ in range(W * H * bpp))
              for _ in range(N)]
    raw = os.path.join(d, "in-%s.raw" % tag)
    with open(raw, "wb") as f:
        for fr in frames:
            f.write(padded(fr, W * bpp, H))
    sink = ["doradmasink", "dora-pool=" + name]
    if transport_prop:
        sink.append("transport=" + transport_prop)
    env = dict(os.environ)
    if env_transport is not None:
        env["DORA_MEMORY_POOL_TRANSPORT"] = env_transport
    p = gst_launch("filesrc", "location=" + raw, "!", "rawvideoparse",
                   "format=" + gst_fmt, "width=%d" % W, "height=%d" % H,
                   "framerate=20/1", "!", *sink, env=env)
    # map the pool while the producer runs; the mapping outlives its unlink
    t0 = time.time()
    while not os.path.exists(path):
        if p.poll() is not None or time.time() - t0 > 20:
            out = p.communicate()
            fail("%s: pool never appeared: %s" % (tag, out))
        time.sleep(0.001)
    mm, h = read_header(path)
    size = W * H * bpp
    seen = []
    while p.poll() is None:
        r = read_frame(mm, h["data_offset"], size)
        if r and (not seen or seen[-1][0] != r[0]):
            seen.append(r)
        time.sleep(0.002)
    out = p.communicate()
    check(p.returncode == 0, "%s: producer exit 0 (%s)" % (tag, out[1][-300:]))
    shape = [H, W, channels] if channels else [H, W]
    want_json = rust_json(size, "uint8", shape, expect_transport)
    check(h["json_text"] == want_json,
          "%s: JSON is the Rust writer's compact form: %s" % (tag, h["json_text"]))
    check(h["json_len"] == len(want_json), "%s: json_len %d" % (tag, h["json_len"]))
    check(h["data_offset"] == data_offset_for(len(want_json)) == 512,
          "%s: data_offset 512" % tag)
    check(h["seg_len"] == 512 + size, "%s: segment = data_offset + size" % tag)
    check(h["mode"] == 0o600, "%s: mode 0600 (%o)" % (tag, h["mode"]))
    check(h["ipc_flag"] == 0 and mm[0:8] == MAGIC, "%s: magic, ipc_flag 0" % tag)
    check(mm[32:96] == bytes(64) and mm[104:256] == bytes(152),
          "%s: handle and reserved bytes zero" % tag)
    check(mm[HEADER + len(want_json):512] == bytes(512 - HEADER - len(want_json)),
          "%s: JSON padding zero" % tag)
    for g, data in seen:
        if g == 0 or g % 2 or g // 2 > N or data != frames[g // 2 - 1]:
            fail("%s: generation %d carried bytes that are not frame %d"
                 % (tag, g, g // 2 - 1))
    check(len(seen) >= 2, "%s: %d distinct generations observed mid-run, each "
          "byte-exact to the frame it numbers" % (tag, len(seen)))
    check(gen_of(mm) == 2 * N, "%s: final generation %d == 2 * %d frames"
          % (tag, gen_of(mm), N))
    check(mm[512:512 + size] == frames[-1], "%s: final payload is the last "
          "frame, tightly packed" % tag)
    check(not os.path.exists(path), "%s: the sink unlinked its pool on stop"
          % tag)
    mm.close()


def main():
    d = shm_dir("sink")
    try:
        run_case(d, "rgb", "rgb", 3)
        run_case(d, "gray", "gray8", 0)
        run_case(d, "bgra", "bgra", 4)
        run_case(d, "unified", "rgb", 3, transport_prop="unified",
                 expect_transport="unified")
        run_case(d, "envunified", "rgb", 3, env_transport="unified",
                 expect_transport="unified")
        run_case(d, "envempty", "rgb", 3, env_transport="")
    finally:
        shutil.rmtree(d, ignore_errors=True)


main()
