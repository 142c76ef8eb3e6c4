#!/usr/bin/python3
# On the GPU machine (tests/sdk/gpu-run.sh, after the example): the
# installed doradma module on doradmasrc transport=unified frames. For each
# of N frames, frame.__cuda_array_interface__'s device address read back
# with cuMemcpyDtoH (device 0's primary context, through ctypes) equals
# frame.numpy()'s bytes; then one frame's views are kept past both
# pipelines' NULL and read back again, byte-exact.
# usage: gpu-frames.py CHANNEL N  (a lossless producer of N RGBA frames on
# CHANNEL, waiting for one reader). Prints one line per frame; exit 0 when
# every check held.
import ctypes
import gc
import sys

import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402
import numpy as np  # noqa: E402

import doradma  # noqa: E402

channel, n = sys.argv[1], int(sys.argv[2])
cu = ctypes.CDLL("libcuda.so.1")
cu.cuMemcpyDtoH_v2.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t]


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


Gst.init(None)
consumer = Gst.parse_launch(
    "doradmasrc channel=%s transport=unified ! appsink name=s max-buffers=2 "
    "enable-last-sample=false" % channel)
consumer.set_state(Gst.State.PLAYING)
sink = consumer.get_by_name("s")
bad = 0
kept = None
for i in range(n):
    sample = sink.emit("try-pull-sample", 20 * Gst.SECOND)
    if sample is None:
        sys.exit("FAIL: frame %d did not come" % i)
    frame = doradma.Frame(sample)
    cai = frame.__cuda_array_interface__
    host = frame.numpy()
    same = np.array_equal(read_back(cai), host)
    bad += not same
    print("frame %d seq %s transport %s host=0x%x device=0x%x shape %s "
          "read-back %s" % (i, frame.sequence, frame.transport,
                            host.ctypes.data, cai["data"][0], cai["shape"],
                            "equal" if same else "DIFFERS"))
    if i == n // 2:
        kept = (frame.planes[0], host.copy())
    del frame, sample, host
consumer.set_state(Gst.State.NULL)
gc.collect()
plane, want = kept
after = np.array_equal(read_back(plane.__cuda_array_interface__), want) \
    and np.array_equal(plane.numpy(), want)
print("frame %d kept past NULL: device and host bytes %s" %
      (n // 2, "equal" if after else "DIFFER"))
del kept, plane
gc.collect()
if bad or not after:
    sys.exit("FAIL: %d frame(s) differ on the device%s" %
             (bad, "" if after else ", and the kept frame after NULL"))
print("PASS: %d unified frames, __cuda_array_interface__ byte-exact" % n)
