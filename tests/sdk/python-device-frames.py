#!/usr/bin/python3
# The installed doradma module on device frames, without a GPU (sdk.sh mode
# python-device-frames): buffers an application builds on memory of
# gstreamer-cuda's type (tests/sdk/fake-cuda-memory.c: a made-up device
# address, host maps refused) stand for doradmasrc's memory:CUDAMemory
# output. Every check fails loudly.
#   device      __dlpack_device__ is (kDLCUDA, 0); __cuda_array_interface__
#               is at the memory's device address with the video meta's
#               shape and strides (a padded packed frame, a planar NV12)
#   no-host     numpy(), memoryview and the buffer protocol refuse with a
#               BufferError naming memory:CUDAMemory; the memory is never
#               mapped for the host (a real one would download a copy)
#   lifetime    a plane, or an unconsumed DLPack capsule, keeps the memory
#               alive after the frame, sample and buffer are gone
#   read-only   the frame info cannot be set (doradma.Frame), nor the
#               fields of GstDoradma.FrameMeta (gi/overrides/GstDoradma.py)
# usage: python-device-frames.py FAKE_CUDA_MEMORY_SO
import ctypes
import gc
import sys

import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
gi.require_version("GstDoradma", "1.0")
from gi.repository import Gst, GstDoradma, GstVideo  # noqa: E402

import doradma  # noqa: E402

Gst.init(None)
fake = ctypes.CDLL(sys.argv[1])
fake.fake_cuda_append.argtypes = [ctypes.c_void_p, ctypes.c_uint64,
                                  ctypes.c_size_t]
failures = []
kDLCUDA = 2


def check(cond, what):
    print("%s: %s" % ("ok" if cond else "FAIL", what))
    if not cond:
        failures.append(what)


def raises(exc, fn, *words):
    try:
        fn()
    except exc as e:
        return all(w in str(e) for w in words) or str(e)
    return False


def append_fake_cuda(buf, address, size):
    # the GstBuffer behind gi's wrapper (PyGBoxed: the pointer follows the
    # object header, as python/frame.c reads it too)
    ptr = ctypes.c_void_p.from_address(id(buf) + object.__basicsize__).value
    if fake.fake_cuda_append(ptr, address, size) != 0:
        sys.exit("FAIL: fake_cuda_append refused the buffer")


def device_buffer(address, size, fmt, width, height, offsets, strides):
    """A Gst.Buffer of one fake CUDA memory at `address`, with a video meta."""
    buf = Gst.Buffer.new()
    append_fake_cuda(buf, address, size)
    GstVideo.buffer_add_video_meta_full(buf, GstVideo.VideoFrameFlags.NONE,
                                        fmt, width, height, len(offsets),
                                        offsets + [0] * (4 - len(offsets)),
                                        strides + [0] * (4 - len(strides)))
    return buf


# -- device: a packed RGBA 64x8 frame, rows padded to 320 bytes ----------
ADDR = 0x7e0000100000
caps = Gst.Caps.from_string("video/x-raw(memory:CUDAMemory),format=RGBA,"
                            "width=64,height=8,framerate=30/1")
buf = device_buffer(ADDR, 320 * 8, GstVideo.VideoFormat.RGBA, 64, 8, [0],
                    [320])
sample = Gst.Sample.new(buf, caps, None, None)
frame = doradma.Frame(sample)
check(frame.transport == "cuda", "transport cuda (got %s)" % frame.transport)
check(frame.__dlpack_device__() == (kDLCUDA, 0),
      "__dlpack_device__ (kDLCUDA, 0) (got %s)"
      % (frame.__dlpack_device__(),))
cai = frame.__cuda_array_interface__
check(cai["data"] == (ADDR, True), "CAI data at the memory's device address, "
      "read-only (got (0x%x, %s))" % cai["data"])
check(cai["shape"] == (8, 64, 4) and cai["strides"] == (320, 4, 1),
      "CAI shape (8, 64, 4), strides (320, 4, 1) from the video meta (got "
      "%s %s)" % (cai["shape"], cai["strides"]))
check(cai["typestr"] == "|u1" and cai["version"] == 3, "CAI v3, |u1")
p = frame.planes[0]
check(p.device_pointer == ADDR and p.host_pointer == 0,
      "plane: device pointer, no host pointer")
check(frame.strides == (320,) and frame.size == (64, 8)
      and frame.format == "RGBA", "frame info: RGBA 64x8, stride 320")

# -- no-host ------------------------------------------------------------
r = raises(BufferError, frame.numpy, "memory:CUDAMemory",
           "__cuda_array_interface__")
check(r is True, "numpy() refuses a device frame, naming "
      "memory:CUDAMemory and what to use (got %r)" % r)
r = raises(BufferError, lambda: memoryview(p), "memory:CUDAMemory")
check(r is True, "memoryview(plane) refuses (got %r)" % r)
check(fake.fake_cuda_host_maps() == 0,
      "the CUDA memory was never mapped for the host (%d host maps)"
      % fake.fake_cuda_host_maps())

# -- lifetime -----------------------------------------------------------
capsule = frame.__dlpack__()
del frame, sample, buf, cai
gc.collect()
check(fake.fake_cuda_live() == 1,
      "a plane and a capsule keep the memory alive (%d live)"
      % fake.fake_cuda_live())
del p
gc.collect()
check(fake.fake_cuda_live() == 1, "the capsule alone keeps it (%d live)"
      % fake.fake_cuda_live())
del capsule
gc.collect()
check(fake.fake_cuda_live() == 0, "released when the last view goes (%d "
      "live)" % fake.fake_cuda_live())

# -- device: planar NV12 64x8, Gst.Buffer only (the video meta lays it out)
buf = device_buffer(ADDR, 128 * 8 + 128 * 4, GstVideo.VideoFormat.NV12, 64,
                    8, [0, 128 * 8], [128, 128])
frame = doradma.Frame(buf)
y, uv = frame.planes
check(frame.transport == "cuda" and len(frame.planes) == 2, "NV12: 2 planes")
check(y.__cuda_array_interface__["data"][0] == ADDR
      and uv.__cuda_array_interface__["data"][0] == ADDR + 128 * 8,
      "NV12: plane addresses at the meta's offsets")
check(uv.__cuda_array_interface__["shape"] == (4, 32, 2)
      and uv.__cuda_array_interface__["strides"] == (128, 2, 1),
      "NV12: UV plane 4 x 32 x 2, stride 128 (got %s %s)"
      % (uv.shape, uv.strides))
check(uv.__dlpack_device__() == (kDLCUDA, 0), "NV12: planes are kDLCUDA")
r = raises(BufferError, frame.__dlpack__, "2-plane")
check(r is True, "NV12: frame-level DLPack refuses a planar frame (%r)" % r)
del frame, y, uv, buf
gc.collect()

# -- writable: the application's own device buffer ------------------------
buf = device_buffer(ADDR, 256 * 8, GstVideo.VideoFormat.RGBA, 64, 8, [0],
                    [256])
frame = doradma.Frame(buf, writable=True)
check(frame.__cuda_array_interface__["data"] == (ADDR, False),
      "writable=True on the app's own buffer: CAI not read-only")
del frame, buf

# -- no layout: no caps, no video meta ---------------------------------
buf = Gst.Buffer.new()
append_fake_cuda(buf, ADDR, 256)
r = raises(ValueError, lambda: doradma.Frame(buf), "CUDAMemory",
           "no video caps")
check(r is True, "CUDA memory without caps or video meta: a ValueError "
      "saying why (%r)" % r)
del buf
gc.collect()
check(fake.fake_cuda_live() == 0, "no memory left (%d live)"
      % fake.fake_cuda_live())

# -- read-only frame info ----------------------------------------------
buf = Gst.Buffer.new_allocate(None, 64 * 8 * 4, None)
GstDoradma.buffer_add_doradma_frame_meta(buf, 41, 2, 123456789, 3)
GstVideo.buffer_add_video_meta(buf, GstVideo.VideoFrameFlags.NONE,
                               GstVideo.VideoFormat.RGBA, 64, 8)
frame = doradma.Frame(buf)
for name in ("format", "size", "strides", "pts", "dts", "duration",
             "sequence", "skipped", "publish_time", "transport", "slot",
             "writable", "caps", "planes"):
    def value():    # planes: new Plane objects each time, compare the count
        v = getattr(frame, name)
        return len(v) if name == "planes" else v
    before = value()
    r = raises(AttributeError, lambda: setattr(frame, name, 7))
    check(r is not False and value() == before,
          "Frame.%s cannot be set" % name)
meta = GstDoradma.buffer_get_doradma_frame_meta(buf)
for name, want in (("seq", 41), ("skipped", 2), ("publish_time", 123456789),
                   ("caps_epoch", 3), ("receive_time", 0),
                   ("delivery_time", 0)):
    r = raises(AttributeError, lambda: setattr(meta, name, 42), "read-only")
    check(r is True and getattr(GstDoradma.buffer_get_doradma_frame_meta(buf),
                                name) == want,
          "GstDoradma.FrameMeta.%s cannot be set (%r)" % (name, r))
check(frame.sequence == 41, "Frame.sequence still 41")

if failures:
    sys.exit("FAIL: %d check(s): %s" % (len(failures), "; ".join(failures)))
print("PASS: device frames (kDLCUDA, __cuda_array_interface__, no host "
      "view, lifetime) and read-only frame info")
