#!/usr/bin/python3
# On the GPU machine (tests/sdk/gpu-run.sh, after the example): the
# installed doradma module's __cuda_array_interface__ read back with
# cuMemcpyDtoH (device 0's primary context, through ctypes), for N frames
# of a lossless producer, then one frame's views kept past the pipeline's
# NULL and read back again, byte-exact.
#   unified  doradmasrc transport=unified ! appsink: the device address is
#            the slot's alias; the read-back equals frame.numpy()'s bytes
#   ipc      an ipc writer (doradmasink transport=ipc), read by doradmasrc
#            (transport auto: a writer's GPU slots are read through CUDA IPC)
#            ! video/x-raw(memory:CUDAMemory) ! appsink: a device-only frame
#            (GstCudaMemory); numpy() refuses,
#            __dlpack_device__ is kDLCUDA; the read-back is all there is
# With REF (checksumsink's SHA-1 per frame, one a line), each read-back's
# SHA-1 (rows without padding) must equal the reference's line.
# usage: gpu-frames.py CHANNEL N [unified|ipc] [REF]
# Prints one line per frame; exit 0 when every check held.
import ctypes
import gc
import hashlib
import sys

import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402
import numpy as np  # noqa: E402

import doradma  # noqa: E402

channel, n = sys.argv[1], int(sys.argv[2])
transport = sys.argv[3] if len(sys.argv) > 3 else "unified"
ref = open(sys.argv[4]).read().split() if len(sys.argv) > 4 else None
if transport not in ("unified", "ipc"):
    sys.exit("FAIL: transport %r: unified or ipc" % transport)
cu = ctypes.CDLL("libcuda.so.1")
cu.cuMemcpyDtoH_v2.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t]
cu.cuPointerGetAttribute.argtypes = [ctypes.c_void_p, ctypes.c_int,
                                     ctypes.c_uint64]
CU_POINTER_ATTRIBUTE_CONTEXT = 1
kDLCUDA = 2


def ck(r, what):
    if r != 0:
        sys.exit("FAIL: %s: CUresult %d" % (what, r))


dev, ctx = ctypes.c_int(), ctypes.c_void_p()
ck(cu.cuInit(0), "cuInit")
ck(cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
ck(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
ck(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")


def read_back(cai):
    """The bytes at a __cuda_array_interface__, rows x row bytes."""
    ptr = cai["data"][0]
    shape, strides = cai["shape"], cai["strides"]
    size = strides[0] * (shape[0] - 1) + shape[1] * shape[2]
    out = np.empty(size, np.uint8)
    ck(cu.cuMemcpyDtoH_v2(out.ctypes.data, ptr, size), "cuMemcpyDtoH")
    rows = np.lib.stride_tricks.as_strided(out, shape=shape,
                                           strides=strides)
    return np.ascontiguousarray(rows)


def in_primary_context(ptr):
    """Was the allocation made in device 0's primary context (what CuPy and
    torch use for device 0)?"""
    owner = ctypes.c_void_p()
    ck(cu.cuPointerGetAttribute(ctypes.byref(owner),
                                CU_POINTER_ATTRIBUTE_CONTEXT, ptr),
       "cuPointerGetAttribute(CONTEXT)")
    return owner.value == ctx.value


Gst.init(None)
if transport == "unified":
    desc = "doradmasrc name=src channel=%s transport=unified ! appsink " \
        "name=s max-buffers=2 enable-last-sample=false" % channel
else:
    desc = "doradmasrc name=src channel=%s ! " \
        "video/x-raw(memory:CUDAMemory) ! appsink name=s max-buffers=2 " \
        "enable-last-sample=false" % channel
print("consumer: " + desc)
consumer = Gst.parse_launch(desc)
consumer.set_state(Gst.State.PLAYING)
sink = consumer.get_by_name("s")
bad = []
kept = None
for i in range(n):
    sample = sink.emit("try-pull-sample", 20 * Gst.SECOND)
    if sample is None:
        sys.exit("FAIL: frame %d did not come" % i)
    frame = doradma.Frame(sample)
    cai = frame.__cuda_array_interface__
    got = read_back(cai)
    sha = hashlib.sha1(got.tobytes()).hexdigest()
    notes = []   # what is wrong with the frame
    where = ""   # what is only reported
    if transport == "unified":
        host = frame.numpy()
        if not np.array_equal(got, host):
            notes.append("device != numpy()")
        where = " host=0x%x" % host.ctypes.data
        del host
    else:
        if frame.transport != "cuda":
            notes.append("transport %s, not cuda" % frame.transport)
        if frame.__dlpack_device__() != (kDLCUDA, 0):
            notes.append("__dlpack_device__ %s" % (frame.__dlpack_device__(),))
        try:
            frame.numpy()
            notes.append("numpy() did not refuse")
        except BufferError:
            pass
    if ref is not None and (i >= len(ref) or ref[i] != sha):
        notes.append("sha1 differs from checksumsink's")
    primary = in_primary_context(cai["data"][0])
    print("frame %d seq %s transport %s device=0x%x shape %s strides %s "
          "primary-context %s sha1 %s %s%s" %
          (i, frame.sequence, frame.transport, cai["data"][0], cai["shape"],
           cai["strides"], "yes" if primary else "no", sha,
           "; ".join(notes) if notes else "equal", where))
    if notes:
        bad.append(i)
    if i == n // 2:
        kept = (frame.planes[0], got)
    del frame, sample, got
stats = consumer.get_by_name("src").get_property("stats")
print("stats: %s" % (stats.to_string() if stats else None))
consumer.set_state(Gst.State.NULL)
gc.collect()
plane, want = kept
after = np.array_equal(read_back(plane.__cuda_array_interface__), want)
if transport == "unified":
    after = after and np.array_equal(plane.numpy(), want)
print("frame %d kept past NULL: read back %s" %
      (n // 2, "equal" if after else "DIFFERS"))
del kept, plane
gc.collect()
if bad or not after:
    sys.exit("FAIL: %s: frame(s) %s wrong%s" %
             (transport, bad, "" if after else ", and the kept frame after NULL"))
print("PASS: %d %s frames, __cuda_array_interface__ read back byte-exact%s" %
      (n, transport, " (SHA-1 = checksumsink's)" if ref else ""))
