#!/usr/bin/python3
# The installed doradma Python module (doradma.Frame) against a live
# channel, run by sdk.sh (mode python-frames): every check fails loudly.
#   zero-copy   frame.numpy() is H x W x 4 at the slot's host address,
#               read-only; format, size, sequence, transport, slot given
#   lease       the frame's slot keeps its lease bit (doradma show --json)
#               while any one view lives (and nothing else: appsink drops
#               its own reference at the next pull): an ndarray, a NumPy array made by
#               from_dlpack, a Plane, an unconsumed DLPack capsule; after
#               del + gc.collect() the lease is gone
#   dlpack      numpy.from_dlpack(frame) shares the slot's data pointer
#   after-null  views kept after both pipelines reached NULL (the channel
#               removed, the reader closed) still hold the same bytes; the
#               interpreter does not crash touching them or dropping them
# usage: python-frames.py DORADMA_TOOL [torch]
#   torch: the same through torch.from_dlpack (exit 77 without torch)
import gc
import json
import os
import subprocess
import sys

import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstDoradma", "1.0")
from gi.repository import Gst, GstDoradma  # noqa: E402
import numpy as np  # noqa: E402

import doradma  # noqa: E402

TOOL = sys.argv[1]
WITH_TORCH = len(sys.argv) > 2 and sys.argv[2] == "torch"
if WITH_TORCH:
    try:
        import torch
    except ImportError as e:
        print("SKIP: torch is not installed (python3-torch): %s" % e)
        sys.exit(77)

# numpy.from_dlpack is NumPy >= 1.22 (Debian 12); older ones (Debian 11's
# 1.19) skip the DLPack checks, with the reason.
HAVE_DLPACK = hasattr(np, "from_dlpack")
if not HAVE_DLPACK:
    print("skipped: DLPack checks: NumPy %s has no from_dlpack (>= 1.22)"
          % np.__version__)

Gst.init(None)
CH = "sdk-frames-%d" % os.getpid()
failures = []


def check(cond, what):
    print("%s: %s" % ("ok" if cond else "FAIL", what))
    if not cond:
        failures.append(what)


def slot_leases(seq):
    """Lease bits of the slot holding frame `seq` (0 when no slot holds it
    any more: the writer reused it, so nobody leased it)."""
    out = subprocess.run([TOOL, "show", "--json", "--interval", "0", CH],
                         capture_output=True, text=True, check=True).stdout
    for s in json.loads(out)["slot_records"]:
        if s["state"] == "frame" and s["seq"] == seq:
            return int(s["lease_bits"], 16)
    return 0


producer = Gst.parse_launch(
    "videotestsrc is-live=true ! video/x-raw,format=RGBA,width=64,height=48,"
    "framerate=30/1 ! doradmasink channel=%s slots=8" % CH)
producer.set_state(Gst.State.PLAYING)
consumer = Gst.parse_launch(
    # appsink holds up to 4 (queue 2, its preroll, the last pulled) and the
    # test one more: max-leases 8 keeps every frame a leased slot
    "doradmasrc channel=%s max-leases=8 ! appsink name=sink max-buffers=2 drop=true "
    "enable-last-sample=false" % CH)
consumer.set_state(Gst.State.PLAYING)
sink = consumer.get_by_name("sink")


def pull():
    sample = sink.emit("try-pull-sample", 10 * Gst.SECOND)
    if sample is None:
        print("FAIL: no frame in 10 s")
        sys.exit(1)
    return sample


# zero-copy and frame info
sample = pull()
host = GstDoradma.memory_get_host_pointer(sample.get_buffer().peek_memory(0))
frame = doradma.Frame(sample)
rgba = frame.numpy()
check(rgba.shape == (48, 64, 4) and rgba.dtype == np.uint8,
      "numpy() shape %s" % (rgba.shape,))
check(rgba.ctypes.data == host != 0, "numpy() is the slot (zero-copy)")
check(not rgba.flags.writeable, "numpy() is read-only")
check(frame.format == "RGBA" and frame.size == (64, 48)
      and frame.strides == (256,) and frame.transport == "shmem"
      and isinstance(frame.sequence, int) and frame.sequence > 0
      and isinstance(frame.slot, int) and frame.pts is not None,
      "info: %s %s %s seq %s slot %s" % (frame.format, frame.size,
                                         frame.transport, frame.sequence,
                                         frame.slot))
try:
    doradma.Frame(sample, writable=True)
    check(False, "writable=True on a leased slot refused")
except ValueError:
    check(True, "writable=True on a leased slot refused")

# writable=True on the caller's own writable buffer: a writable view whose
# writes land in the buffer (mapped before the frame takes its reference,
# which would make the buffer shared)
own = Gst.Buffer.new_allocate(None, 16, None)
wframe = doradma.Frame(own, writable=True)
warr = wframe.numpy()
check(wframe.writable and warr.flags.writeable and warr.shape == (16,),
      "writable=True on an own buffer: writable %s, view writeable %s"
      % (wframe.writable, warr.flags.writeable))
warr[:] = np.arange(100, 116, dtype=np.uint8)
del warr, wframe
gc.collect()
check(own.extract_dup(0, 16) == bytes(range(100, 116)),
      "writes through the writable view land in the buffer: %r"
      % own.extract_dup(0, 16))

# a Frame exists only made whole: Frame.__new__ without a buffer is refused
# (it used to leave a Frame with no buffer whose getters crashed)
try:
    doradma.Frame.__new__(doradma.Frame)
    check(False, "Frame.__new__(Frame) refused")
except TypeError:
    check(True, "Frame.__new__(Frame) refused")
nframe = doradma.Frame.__new__(doradma.Frame, own)
check(nframe.pts is None and nframe.numpy().shape == (16,),
      "Frame.__new__(Frame, buffer) is a whole frame")
del nframe

# dlpack: the same pointer
if HAVE_DLPACK:
    tensor = np.from_dlpack(frame)
    check(tensor.ctypes.data == host and tensor.shape == (48, 64, 4),
          "numpy.from_dlpack shares the slot's pointer")
    del tensor
if WITH_TORCH:
    t = torch.from_dlpack(frame.planes[0])
    check(t.data_ptr() == host and tuple(t.shape) == (48, 64, 4),
          "torch.from_dlpack shares the slot's pointer")
    del t

# DLPack >= 1.0 (review round 4, R4-P2): asked with max_version, a
# versioned capsule whose flags say read-only; without it, the legacy one
import ctypes  # noqa: E402
_get_name = ctypes.pythonapi.PyCapsule_GetName
_get_name.restype, _get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
_get_ptr = ctypes.pythonapi.PyCapsule_GetPointer
_get_ptr.restype = ctypes.c_void_p
_get_ptr.argtypes = [ctypes.py_object, ctypes.c_char_p]


def versioned(capsule):
    """(name, major, minor, flags) of a capsule (DLManagedTensorVersioned:
    version u32 x 2, manager_ctx, deleter, flags u64)."""
    name = _get_name(capsule)
    if name != b"dltensor_versioned":
        return name, None, None, None
    p = _get_ptr(capsule, name)
    major, minor = (ctypes.c_uint32 * 2).from_address(p)
    flags = ctypes.c_uint64.from_address(p + 24).value
    return name, major, minor, flags


cap = frame.__dlpack__(max_version=(1, 0))
name, major, minor, flags = versioned(cap)
check(name == b"dltensor_versioned" and major == 1 and flags is not None
      and flags & 1, "__dlpack__(max_version=(1, 0)) of a leased frame: "
      "versioned, read-only (%s %s.%s flags %s)" % (name, major, minor, flags))
del cap
check(_get_name(frame.__dlpack__()) == b"dltensor",
      "__dlpack__() without max_version: the legacy capsule")
wcap = doradma.Frame(Gst.Buffer.new_allocate(None, 16, None),
                     writable=True).__dlpack__(max_version=(1, 1))
check(versioned(wcap)[3] == 0, "a writable frame's versioned capsule is not "
      "flagged read-only")
del wcap
try:
    frame.__dlpack__(copy=True)
    check(False, "__dlpack__(copy=True) refused")
except BufferError:
    check(True, "__dlpack__(copy=True) refused")
gc.collect()

# lease: visible while any one view lives, gone after del + gc.collect()
seq = frame.sequence
del rgba
views = {
    "ndarray": lambda f: f.numpy(),
    "plane": lambda f: f.planes[0],
    "unconsumed capsule": lambda f: f.__dlpack__(),
}
if HAVE_DLPACK:
    views["from_dlpack array"] = lambda f: np.from_dlpack(f)
if WITH_TORCH:
    views["torch tensor"] = lambda f: torch.from_dlpack(f.planes[0])
del frame, sample
gc.collect()
for name, make in views.items():
    sample = pull()
    frame = doradma.Frame(sample)
    seq = frame.sequence
    check(frame.transport == "shmem" and frame.slot is not None,
          "%s: the frame is a leased ring slot" % name)
    view = make(frame)
    del frame, sample
    pull()  # appsink keeps the last sample it handed out until the next pull
    gc.collect()
    check(slot_leases(seq) != 0, "%s alone holds the lease" % name)
    del view
    gc.collect()
    check(slot_leases(seq) == 0, "%s gone: lease released" % name)

# after-null: views outlive both pipelines
sample = pull()
frame = doradma.Frame(sample)
rgba = frame.numpy()
tensor = np.from_dlpack(frame) if HAVE_DLPACK else frame.numpy()
plane_view = memoryview(frame.planes[0])
keep = rgba.copy()
del frame, sample
consumer.set_state(Gst.State.NULL)
producer.set_state(Gst.State.NULL)
gc.collect()
check(np.array_equal(rgba, keep) and np.array_equal(tensor, keep)
      and bytes(plane_view) == keep.tobytes(),
      "views kept after NULL hold the same bytes")
check(int(rgba.astype(np.uint64).sum()) == int(keep.astype(np.uint64).sum()),
      "reading every byte after NULL")
del rgba, tensor, plane_view
gc.collect()
check(True, "views dropped after NULL, no crash")

if failures:
    print("FAIL: %d check(s): %s" % (len(failures), "; ".join(failures)))
    sys.exit(1)
print("PASS")
