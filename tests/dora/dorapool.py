"""Independent dora memory-pool reader and writer for the tests, written from
the interop spec alone (reference/doradma-spec.md §1-§4), with mmap, struct
and json only: none of doradma's code. The tests use it to check what
doradmasink writes and to produce what doradmasrc reads.

Layout (spec §1): magic b"DORADMA\\0" | json_len u64 @8 | data_offset u64 @16
| ipc_flag u64 @24 | ipc handle 64 B @32 | write_gen u64 @96 | reserved to
256 | JSON @256 | zero padding | payload @data_offset.
"""
import ctypes
import json
import mmap
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

import steps

MAGIC = b"DORADMA\0"
HEADER = 256
GEN_OFF = 96


def data_offset_for(json_len):
    """spec §3: 256 + ceil(json_len / 256) * 256."""
    return HEADER + -(-json_len // 256) * 256


def rust_json(size, dtype, shape, transport="shmem"):
    """dora's Rust crate: compact serde_json, keys in insertion order."""
    pinned = "cpu" if transport == "shmem" else "cuda"
    return json.dumps({"size": size, "dtype": dtype, "shape": shape,
                       "pinned_type": pinned, "transport": transport},
                      separators=(",", ":"))


def python_json(size, dtype, shape, pinned="cpu"):
    """dora's Python binding: json.dumps defaults (", " and ": "), no
    transport key."""
    return json.dumps({"size": size, "dtype": dtype, "shape": shape,
                       "pinned_type": pinned})


class Gen:
    """The generation word as one aligned 8-byte access (ctypes), never a
    byte-wise struct write: readers must never see half a counter."""

    def __init__(self, mm):
        self.word = ctypes.c_uint64.from_buffer(mm, GEN_OFF)

    def get(self):
        return self.word.value

    def set(self, v):
        self.word.value = v & 0xFFFFFFFFFFFFFFFF


class Pool:
    """A pool written by this process, like a dora writer (single writer)."""

    def __init__(self, path, json_text, payload_len, gen=0, ipc_flag=0,
                 ipc_handle=b"", seg_len=None, data_offset=None,
                 json_len=None, raw_json=None):
        body = raw_json if raw_json is not None else json_text.encode()
        jl = len(body) if json_len is None else json_len
        do = data_offset_for(len(body)) if data_offset is None else data_offset
        if seg_len is None:
            seg_len = data_offset_for(len(body)) + payload_len
        self.path = path
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
        os.ftruncate(fd, seg_len)
        self.mm = mmap.mmap(fd, seg_len) if seg_len else None
        os.close(fd)
        if self.mm is None:
            return
        hdr = bytearray(min(seg_len, HEADER))
        hdr[0:8] = MAGIC[:len(hdr)] if len(hdr) >= 8 else MAGIC[:len(hdr)]
        if len(hdr) >= 32:
            struct.pack_into("<QQQ", hdr, 8, jl & (2**64 - 1),
                             do & (2**64 - 1), ipc_flag)
        if len(hdr) >= 96:
            hdr[32:32 + len(ipc_handle)] = ipc_handle
        self.mm[0:len(hdr)] = bytes(hdr)
        end = min(seg_len, HEADER + len(body))
        if end > HEADER:
            self.mm[HEADER:end] = body[:end - HEADER]
        self.data_offset = do
        if seg_len >= HEADER:
            self.gen = Gen(self.mm)
            self.gen.set(gen)

    def write(self, payload, chunks=1, pause=0.0):
        """Rust writer begin/end (spec §4.1): odd (unless already odd), the
        payload, even = baseline + 2."""
        base = self.begin()
        self.fill(payload, chunks, pause)
        self.gen.set(base + 2)

    def begin(self):
        cur = self.gen.get()
        if cur % 2 == 0:
            self.gen.set(cur + 1)
        return cur & ~1

    def fill(self, payload, chunks=1, pause=0.0):
        n = len(payload)
        step = -(-n // chunks)
        for i in range(0, n, step):
            self.mm[self.data_offset + i:self.data_offset + min(n, i + step)] \
                = payload[i:i + step]
            if pause:
                time.sleep(pause)


def read_header(path):
    """Maps a pool read-only; returns (mmap, fields) after the checks a
    reader needs for these tests (magic, bounds)."""
    fd = os.open(path, os.O_RDONLY)
    st = os.fstat(fd)
    mm = mmap.mmap(fd, st.st_size, prot=mmap.PROT_READ)
    os.close(fd)
    magic = mm[0:8]
    json_len, data_offset, ipc_flag = struct.unpack_from("<QQQ", mm, 8)
    assert magic == MAGIC, magic
    assert HEADER + json_len <= data_offset <= st.st_size
    meta = json.loads(mm[HEADER:HEADER + json_len].decode())
    return mm, dict(seg_len=st.st_size, mode=st.st_mode & 0o7777,
                    json_len=json_len, data_offset=data_offset,
                    ipc_flag=ipc_flag, json_text=mm[HEADER:HEADER + json_len]
                    .decode(), meta=meta)


def gen_of(mm):
    return struct.unpack_from("<Q", mm, GEN_OFF)[0]


def read_frame(mm, data_offset, size):
    """Seqlock copy (spec §4.1): even opening sample, copy, same sample
    after. Returns (gen, bytes) or None."""
    g = gen_of(mm)
    if g % 2:
        return None
    data = mm[data_offset:data_offset + size]
    if gen_of(mm) != g:
        return None
    return g, data


def shm_dir(tag, deadline_s=150):
    """The test's private directory; also arms its deadline (below meson's
    180 s for the dora suite), which removes the directory."""
    d = tempfile.mkdtemp(prefix="dora-%s-%d-" % (tag, os.getpid()),
                         dir=os.environ.get("DORADMA_SHM_DIR") or "/dev/shm")
    os.environ["DORADMA_SHM_DIR"] = d
    steps.deadline(deadline_s)
    steps.on_deadline(lambda: shutil.rmtree(d, ignore_errors=True))
    return d


def gst_launch(*args, **kw):
    p = subprocess.Popen(["gst-launch-1.0", "-q"] + list(args),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, **kw)
    steps.step("started %d: gst-launch-1.0 %s" % (p.pid, " ".join(args)))
    return steps.track(p)


def gst_run(args, timeout=30, env=None):
    """Runs a pipeline to its end; returns (exit code, stdout + stderr).
    gst-launch-1.0 handles ERROR messages in a bus sync handler that calls
    g_main_loop_quit(): an error posted while it is still setting PAUSED,
    before its main loop runs, is lost and it waits forever (seen about 1 run
    in 20 with a sink that refuses caps). The error is printed all the same:
    after `timeout` the process is killed and exit code 124 returned with
    its output, so callers still check what the element said."""
    p = steps.track(subprocess.Popen(["gst-launch-1.0", "-q"] + list(args),
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True,
                                     env=env))
    steps.waiting_for(p)
    try:
        out, err = p.communicate(timeout=timeout)
        code = p.returncode
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        code = 124
    steps.waiting_for(None)
    return code, out + err


def out_size(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def wait_size(p, path, n, tag, limit=20):
    """Waits until the reader process `p` wrote `n` bytes to `path`."""
    t0 = time.time()
    while out_size(path) < n:
        if p.poll() is not None or time.time() - t0 > limit:
            p.kill()
            fail("%s: reader output stuck at %d of %d bytes: %s"
                 % (tag, out_size(path), n, p.communicate()))
        time.sleep(0.002)


def padded(frame, width_bytes, height):
    """GStreamer's default layout: rows rounded up to 4 bytes, zero pad."""
    stride = (width_bytes + 3) & ~3
    out = bytearray()
    for y in range(height):
        out += frame[y * width_bytes:(y + 1) * width_bytes]
        out += bytes(stride - width_bytes)
    return bytes(out)


def frames_mismatch(got, expect, stride=None):
    """None when `got` is exactly the frames `expect`, one after another.
    Otherwise where it first goes wrong, for the log: which frame, the byte
    offset in it (row and column when rows are `stride` bytes), both byte
    values, how many bytes of that frame differ, and which expected frame
    it equals instead, if any (a stale or repeated frame)."""
    fs = len(expect[0])
    want = b"".join(expect)
    if got == want:
        return None
    why = []
    if len(got) != len(want):
        why.append("got %d bytes, expected %d (%d frames of %d)"
                   % (len(got), len(want), len(expect), fs))
    for i, exp in enumerate(expect):
        fr = got[i * fs:(i + 1) * fs]
        if fr == exp:
            continue
        if len(fr) < fs:
            why.append("frame %d is short (%d of %d bytes)" % (i, len(fr), fs))
            break
        off = next(k for k in range(fs) if fr[k] != exp[k])
        where = "byte %d" % off
        if stride:
            where += " (row %d, column %d)" % divmod(off, stride)
        same = [j for j, e in enumerate(expect) if e == fr]
        why.append("frame %d of %d differs first at %s: got 0x%02x, expected "
                   "0x%02x; %d of its %d bytes differ; it equals %s"
                   % (i, len(expect), where, fr[off], exp[off],
                      sum(a != b for a, b in zip(fr, exp)), fs,
                      "expected frame %d" % same[0] if same
                      else "no expected frame"))
        break
    return "; ".join(why)


def check_frames(got, expect, msg, stride=None):
    """check() of got == b"".join(expect) that says where they differ."""
    bad = frames_mismatch(got, expect, stride)
    if bad:
        fail("%s: %s" % (msg, bad))
    print("ok - " + msg)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)
    print("ok - " + msg)
