#!/usr/bin/python3
# doradma SDK example: frames as NumPy arrays without a copy (PyGObject).
#
# Runs "doradmasrc channel=CHANNEL ! appsink", pulls N frames and views each
# as a NumPy array over the ring slot itself: the array's data address is
# the mapped memory's address, which is the slot's host address from
# GstDoradma.memory_get_host_pointer. With --cuda it also takes the slot's
# CUDA device address (GstDoradma.memory_get_device_pointer; doradmasrc
# transport=unified or ipc) and wraps it in an object with
# __cuda_array_interface__, so CuPy (cupy.asarray) or PyTorch
# (torch.as_tensor(..., device="cuda")) use it without a copy; here it is
# read back with the CUDA driver through ctypes to show it holds the frame.
#
# Needs the installed SDK's typelib (GstDoradma-1.0), PyGObject with
# GStreamer's Python overrides (python3-gst-1.0) and NumPy:
#   /usr/bin/python3 python-numpy.py cam0 10 [--cuda]
# Prints one line per frame ("frame I seq Q skipped K slot S ... sha1 H") and exits
# 0 when N frames were viewed zero-copy, 1 otherwise (with the reason).
import argparse
import ctypes
import hashlib
import sys

import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
gi.require_version("GstDoradma", "1.0")
from gi.repository import Gst, GstVideo, GstDoradma  # noqa: E402
import numpy as np  # noqa: E402


class CudaFrame:
    """A device frame for CUDA array consumers (CuPy, PyTorch, Numba)."""

    def __init__(self, devptr, shape, strides):
        self.__cuda_array_interface__ = {
            "version": 3, "shape": shape, "strides": strides,
            "typestr": "|u1", "data": (devptr, True),  # read-only lease
            "stream": None,  # the producer's copy is complete when published
        }


class CudaDriver:
    """Just enough of libcuda.so.1 to copy device memory to the host."""

    def __init__(self):
        try:
            self.cu = ctypes.CDLL("libcuda.so.1")
        except OSError as e:
            raise RuntimeError("--cuda needs the CUDA driver: %s" % e) from None
        self.cu.cuMemcpyDtoH_v2.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t]
        dev, ctx = ctypes.c_int(), ctypes.c_void_p()
        self.check(self.cu.cuInit(0), "cuInit")
        self.check(self.cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
        # doradma's device addresses are valid in device 0's primary context
        self.check(self.cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
        self.check(self.cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")

    @staticmethod
    def check(r, what):
        if r != 0:
            raise RuntimeError("%s failed: CUresult %d" % (what, r))

    def read(self, devptr, n):
        out = np.empty(n, np.uint8)
        self.check(self.cu.cuMemcpyDtoH_v2(out.ctypes.data, devptr, n), "cuMemcpyDtoH")
        return out


def plane0_shape(caps, buf):
    """(height, stride) of plane 0: the video meta's when there is one."""
    info = GstVideo.VideoInfo.new_from_caps(caps)
    meta = GstVideo.buffer_get_video_meta(buf)
    stride = meta.stride[0] if meta else info.stride[0]
    return info.height, stride, info.width * info.finfo.pixel_stride[0]


def view_frame(i, sample, cuda):
    buf = sample.get_buffer()
    mem = buf.peek_memory(0)
    if buf.n_memory() != 1 or not GstDoradma.is_doradma_memory(mem):
        return ("not doradma slot memory (doradmasrc copy=true, more buffers held than "
                "max-leases, or an ipc writer: its frames are downloaded for system memory)")
    host = GstDoradma.memory_get_host_pointer(mem)      # an int
    devptr = GstDoradma.memory_get_device_pointer(mem)  # an int, 0 = none
    slot = GstDoradma.memory_get_slot(mem)
    meta = GstDoradma.buffer_get_doradma_frame_meta(buf)
    if meta is None:
        return "no GstDoradmaFrameMeta"
    h, stride, row = plane0_shape(sample.get_caps(), buf)
    line = "frame %d seq %d skipped %d slot %d" % (i, meta.seq, meta.skipped, slot)
    if host:
        ok, info = buf.map(Gst.MapFlags.READ)
        if not ok:
            return "cannot map"
        if not isinstance(info.data, memoryview):
            buf.unmap(info)
            return "info.data is a copy: install GStreamer's Python overrides (python3-gst-1.0)"
        flat = np.frombuffer(info.data, np.uint8)       # no copy: a view
        image = None
        try:
            if flat.ctypes.data != host:
                return "array at 0x%x, slot at 0x%x: a copy" % (flat.ctypes.data, host)
            image = flat[:h * stride].reshape(h, stride)[:, :row]  # still a view
            assert np.shares_memory(image, flat)
            line += " bytes %d sha1 %s zero-copy array=0x%x host=0x%x rows=%d" % (
                flat.size, hashlib.sha1(flat).hexdigest(), flat.ctypes.data, host, image.shape[0])
        finally:
            del flat, image
            buf.unmap(info)
    if cuda is not None:
        if not devptr:
            return line + ": no device pointer (doradmasrc transport=unified or ipc, on a GPU)"
        frame = CudaFrame(devptr, (h, stride), (stride, 1))
        back = cuda.read(frame.__cuda_array_interface__["data"][0], buf.get_size())
        line += " device=0x%x device-sha1 %s" % (devptr, hashlib.sha1(back).hexdigest())
    print(line, flush=True)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("channel")
    ap.add_argument("frames", type=int)
    ap.add_argument("--cuda", action="store_true",
                    help="also read each frame through its CUDA device pointer")
    ap.add_argument("--src-args", default="", help="extra doradmasrc properties")
    a = ap.parse_args()
    Gst.init(None)
    try:
        cuda = CudaDriver() if a.cuda else None
    except RuntimeError as e:
        print(e, file=sys.stderr)
        return 1
    # Every buffer downstream holds a lease, appsink's queue included: past
    # doradmasrc's max-leases (4) frames arrive as copies. max-buffers=2 keeps
    # queue + the one being pushed + the one in hand within it.
    pipe = Gst.parse_launch("doradmasrc channel=%s timeout=20000000000 %s ! "
                            "appsink name=out sync=false max-buffers=2" % (a.channel, a.src_args))
    sink = pipe.get_by_name("out")
    pipe.set_state(Gst.State.PLAYING)
    err = None
    for i in range(a.frames):
        sample = sink.emit("try-pull-sample", 20 * Gst.SECOND)
        if sample is None:
            err = "frame %d: none within 20 s (EOS or error)" % i
            break
        err = view_frame(i, sample, cuda)
        del sample  # the buffer holds a ring slot: give it back now
        if err:
            err = "frame %d: %s" % (i, err)
            break
    pipe.set_state(Gst.State.NULL)
    if err:
        print(err, file=sys.stderr)
        return 1
    return 0


sys.exit(main())
