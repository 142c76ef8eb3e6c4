#!/usr/bin/python3
"""Description: the GPU transports of dora pools, read by doradmasrc across
processes, byte-exact. unified: a Rust-style pool (JSON transport
"unified", pinned_type "cuda"); the src registers the mapping base over the
whole segment and copies from alias + data_offset (an odd width makes it a
pitched 2-D copy; a wrong offset would read the header and fail the byte
check). unified-packed: the same path with `caps` NV12 30x8 over a packed
uint8 [12, 30] tensor (F7, round 4): two planes, each a pitched 2-D copy
from its own offset into GStreamer's padded layout. ipc: a Python-binding-style header-only pool whose payload is a
cuMemAlloc buffer in the writer process (ipc-pool-writer), reached through
the CUDA IPC handle in header bytes 32..96. Exits 77 without a CUDA device;
the ipc part is skipped (reported) on integrated GPUs, which lack legacy IPC.
"""
import os
import random
import shutil
import subprocess
import sys

from dorapool import (Pool, check, check_frames, fail, padded, rust_json,
                      shm_dir, wait_size)

WRITER = os.environ.get("DORADMA_DORA_IPC_WRITER")
W, H = 33, 7
STRIDE = (W * 3 + 3) & ~3   # GStreamer's RGB rows: 99 bytes padded to 100


def reader(name, out, n, props=()):
    env = dict(os.environ, GST_DEBUG="doradmadorasrc:4", GST_DEBUG_NO_COLOR="1")
    return subprocess.Popen(["gst-launch-1.0", "-q", "doradmasrc",
                             "dora-pool=" + name, "num-buffers=%d" % n] +
                            list(props) +
                            ["poll-interval=200000", "!", "filesink",
                             "location=" + out, "buffer-mode=unbuffered",
                             "sync=false"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def unified(d, frames):
    name = "dora_pool_df-%d_cam_unified" % os.getpid()
    size = W * H * 3
    pool = Pool(os.path.join(d, name),
                rust_json(size, "uint8", [H, W, 3], "unified"), size, gen=2)
    pool.fill(frames[0])
    out = os.path.join(d, "unified.raw")
    p = reader(name, out, len(frames))
    fs = len(padded(frames[0], W * 3, H))
    wait_size(p, out, fs, "unified")
    for i, fr in enumerate(frames[1:]):
        pool.write(fr)
        wait_size(p, out, (i + 2) * fs, "unified")
    _, err = p.communicate(timeout=30)
    check(p.returncode == 0, "unified: reader exit 0 (%s)" % err[-300:])
    check("reading through the CUDA device alias" in err,
          "unified: read through the device alias (base registered, "
          "payload at alias + data_offset)")
    check_frames(open(out, "rb").read(), [padded(f, W * 3, H) for f in frames],
                 "unified: %d frames byte-exact" % len(frames), STRIDE)
    os.unlink(pool.path)


def unified_packed(d, rng):
    name = "dora_pool_df-%d_cam_unipacked" % os.getpid()
    w, h = 30, 8
    size = w * h * 3 // 2           # 360 packed; 384 in GStreamer's layout
    frames = [bytes(rng.randrange(256) for _ in range(size))
              for _ in range(3)]

    def nv12(fr):
        return padded(fr[:w * h], w, h) + padded(fr[w * h:], w, h // 2)
    pool = Pool(os.path.join(d, name),
                rust_json(size, "uint8", [h * 3 // 2, w], "unified"), size,
                gen=2)
    pool.fill(frames[0])
    out = os.path.join(d, "unipacked.raw")
    p = reader(name, out, len(frames), props=[
        "caps=video/x-raw,format=NV12,width=%d,height=%d,framerate=0/1"
        % (w, h)])
    fs = len(nv12(frames[0]))
    wait_size(p, out, fs, "unified-packed")
    for i, fr in enumerate(frames[1:]):
        pool.write(fr)
        wait_size(p, out, (i + 2) * fs, "unified-packed")
    _, err = p.communicate(timeout=30)
    check(p.returncode == 0, "unified-packed: reader exit 0 (%s)"
          % err[-300:])
    check("reading through the CUDA device alias" in err,
          "unified-packed: read through the device alias")
    check_frames(open(out, "rb").read(), [nv12(f) for f in frames],
                 "unified-packed: %d NV12 frames byte-exact, pad 0"
                 % len(frames))
    os.unlink(pool.path)


def ipc(d, frames):
    name = "dora_pool_df-%d_cam_ipc" % os.getpid()
    src = os.path.join(d, "ipc-frames.raw")
    with open(src, "wb") as f:
        f.write(b"".join(frames))
    w = subprocess.Popen([WRITER, d, name, str(H), str(W), src],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    first = w.stdout.readline().strip()
    if first.startswith("SKIP"):
        print("ipc part skipped: " + first)
        w.wait()
        return
    check(first == "ready", "ipc: writer registered a header-only pool")
    out = os.path.join(d, "ipc.raw")
    p = reader(name, out, len(frames))
    fs = len(padded(frames[0], W * 3, H))
    wait_size(p, out, fs, "ipc")
    for i in range(1, len(frames)):
        w.stdin.write("next\n")
        w.stdin.flush()
        check(w.stdout.readline().strip() == "done", "ipc: frame %d written "
              "on the device" % i)
        wait_size(p, out, (i + 1) * fs, "ipc")
    _, err = p.communicate(timeout=30)
    w.stdin.close()
    w.wait()
    check(p.returncode == 0, "ipc: reader exit 0 (%s)" % err[-300:])
    check("reading through the CUDA IPC handle" in err,
          "ipc: read through the CUDA IPC handle")
    check_frames(open(out, "rb").read(), [padded(f, W * 3, H) for f in frames],
                 "ipc: %d frames byte-exact" % len(frames), STRIDE)


def main():
    if not WRITER:
        fail("DORADMA_DORA_IPC_WRITER is not set (meson sets it)")
    probe = subprocess.run([WRITER, "--probe"], capture_output=True, text=True)
    if probe.returncode == 77:
        print("SKIP: no CUDA device: " + probe.stdout.strip())
        sys.exit(77)
    print("device: " + probe.stdout.strip())
    rng = random.Random(5)
    frames = [bytes(rng.randrange(256) for _ in range(W * H * 3))
              for _ in range(4)]
    d = shm_dir("gpu")
    try:
        unified(d, frames)
        unified_packed(d, rng)
        ipc(d, frames)
    finally:
        shutil.rmtree(d, ignore_errors=True)


main()
