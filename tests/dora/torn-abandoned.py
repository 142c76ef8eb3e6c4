#!/usr/bin/python3
"""Description: doradmasrc never pushes a torn copy nor an abandoned write.
Torn: a writer in another process rewrites a 1 MiB pool with uniform
frames (all bytes k) in chunks, back to back, while doradmasrc copies it:
every pushed frame must be uniform, and the src must have discarded torn
copies (its debug log counts them; a run without any proves nothing and
fails). Abandoned: a writer publishes A, then marks the generation odd,
writes half of B and dies; the src pushes nothing for it and keeps running;
a new writer recovers the pool (odd 2k+1 -> 2k+2, spec §4.1) and its frame C
is pushed: the output is exactly A, C.
"""
import os
import re
import shutil
import subprocess
import time

from dorapool import Pool, check, fail, gst_launch, rust_json, shm_dir

W = H = 1024


def torn(d):
    name = "dora_pool_df-%d_cam_torn" % os.getpid()
    size = W * H
    n_frames = 300
    pool = Pool(os.path.join(d, name), rust_json(size, "uint8", [H, W]), size,
                gen=0)
    pool.write(bytes([1]) * size)
    writer = subprocess.Popen(["/usr/bin/python3", "-c", """
import sys, time, random
sys.path.insert(0, %r)
from dorapool import Pool, Gen
import mmap, os
fd = os.open(%r, os.O_RDWR)
p = Pool.__new__(Pool)
p.mm = mmap.mmap(fd, os.fstat(fd).st_size)
p.data_offset = 512
p.gen = Gen(p.mm)
frames = [bytes([k]) * %d for k in range(2, 250)]
i = 0
while os.path.exists(%r):
    # chunked writes, and gaps about as long as the reader's copy: a copy
    # often starts on an even generation and overlaps the next write
    p.write(frames[i %% len(frames)], chunks=8)
    i += 1
    time.sleep(random.uniform(0, 0.0004))
""" % (os.path.dirname(os.path.abspath(__file__)), pool.path, size,
       pool.path)])
    env = dict(os.environ, GST_DEBUG="doradmadorasrc:5", GST_DEBUG_NO_COLOR="1")
    # frames come through a pipe and are checked as they arrive: no copy of
    # them lands in /dev/shm
    p = subprocess.Popen(["gst-launch-1.0", "-q", "doradmasrc",
                          "dora-pool=" + name, "num-buffers=%d" % n_frames,
                          "poll-interval=20000", "!", "fdsink", "fd=1",
                          "sync=false"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env)
    seq, bad, n = [], [], 0
    while True:
        f = p.stdout.read(size)
        if not f:
            break
        if len(f) != size or f.count(f[0]) != size:
            bad.append(n)
        seq.append(f[0])
        n += 1
    err = p.stderr.read().decode(errors="replace")
    p.wait()
    os.unlink(pool.path)
    writer.wait()
    check(p.returncode == 0, "torn: reader exit 0")
    check(n == n_frames, "torn: %d frames" % n)
    check(bad == [], "torn: every pushed frame is one whole generation "
          "(uniform bytes)%s" % ("" if not bad else " -- mixed: %s" % bad[:5]))
    check(all(seq[i] != seq[i + 1] for i in range(len(seq) - 1)),
          "torn: no generation pushed twice (consecutive frames differ): "
          "%s..." % seq[:12])
    m = re.findall(r"torn copy discarded \((\d+) so far\)", err)
    print("torn: the src saw and discarded %s torn copies" % (m[-1] if m else 0))
    return len(m)


def abandoned(d):
    name = "dora_pool_df-%d_cam_abandon" % os.getpid()
    size = 64 * 48 * 3
    pool = Pool(os.path.join(d, name), rust_json(size, "uint8", [48, 64, 3]),
                size, gen=1)        # odd from the start: nothing yet
    out = os.path.join(d, "abandon.raw")
    p = gst_launch("doradmasrc", "dora-pool=" + name, "num-buffers=2",
                   "poll-interval=200000", "!", "filesink", "location=" + out,
                   "buffer-mode=unbuffered", "sync=false")
    a, c = bytes([0xA]) * size, bytes([0xC]) * size
    time.sleep(0.3)
    check(not os.path.exists(out) or os.path.getsize(out) == 0,
          "abandoned: an odd generation at start pushes nothing")
    pool.write(a)                   # gen 1 -> 2
    t0 = time.time()
    while not os.path.exists(out) or os.path.getsize(out) < size:
        if time.time() - t0 > 20:
            fail("abandoned: frame A never arrived")
        time.sleep(0.002)
    # a writer in another process marks odd, writes half of B and dies
    subprocess.run(["/usr/bin/python3", "-c", """
import sys, mmap, os, ctypes
fd = os.open(%r, os.O_RDWR)
mm = mmap.mmap(fd, os.fstat(fd).st_size)
g = ctypes.c_uint64.from_buffer(mm, 96)
g.value = g.value + 1
mm[512:512 + %d] = bytes([0xB]) * %d
os._exit(0)
""" % (pool.path, size // 2, size // 2)], check=True)
    check(pool.gen.get() == 3, "abandoned: generation left odd (3)")
    time.sleep(0.5)
    check(p.poll() is None, "abandoned: the src still runs")
    check(os.path.getsize(out) == size, "abandoned: nothing pushed for the "
          "abandoned write")
    # recovery: begin on odd keeps it, end publishes 4
    pool.write(c)
    check(pool.gen.get() == 4, "abandoned: recovery 3 -> 4")
    res = p.communicate(timeout=20)
    check(p.returncode == 0, "abandoned: reader exit 0 (%s)" % res[1][-300:])
    check(open(out, "rb").read() == a + c, "abandoned: output is exactly A, C")
    os.unlink(pool.path)


def main():
    d = shm_dir("torn")
    try:
        # a run without a single overlap proves nothing: up to 3 runs must
        # produce torn copies (every run's frames must be whole regardless)
        seen = 0
        for _ in range(3):
            seen = torn(d)
            if seen:
                break
        check(seen > 0, "torn: torn copies happened and none was pushed")
        abandoned(d)
    finally:
        shutil.rmtree(d, ignore_errors=True)


main()
