"""doradma: GStreamer video frames as NumPy arrays, DLPack tensors and CUDA
arrays, without a copy and without a dangling view.

    import doradma
    frame = doradma.Frame(appsink.emit("try-pull-sample", Gst.SECOND))
    rgba = frame.numpy()                 # H x W x 4 view of the ring slot
    t = numpy.from_dlpack(frame)         # the same bytes, no copy
    del frame                            # the views keep it alive

A Frame owns a reference to the buffer and its mapping. Every view made
from it (frame.numpy(), frame.planes[i], DLPack capsules and the arrays
NumPy or torch make from them, CUDA arrays) keeps the frame alive; when the
last one is garbage-collected the buffer is unmapped and released, and with
it the ring slot's lease. The trade-off: a held frame holds a ring slot
(`doradma show` lists the lease), so a producer has one slot fewer (a
lossless one too: once the pipeline is at NULL its reader holds no
back-pressure, only the slots of frames still held), and
past doradmasrc's max-leases it copies instead of lending. Keep views of
frames you still need, copy (numpy.array(view)) what you keep for long.

Frame(sample_or_buffer, writable=False)
    .numpy()          ndarray (packed: rows x columns x bytes per pixel) or a
                      tuple of them (planar: one per plane), read-only
                      unless writable=True on a writable buffer
    .planes           Plane objects: .numpy(), .shape, .strides,
                      .host_pointer, .device_pointer, DLPack, CUDA
    .__dlpack__(), .__dlpack_device__()    single-plane frames
    .__cuda_array_interface__              frames with a CUDA address
                                           (transport unified, ipc or cuda)
    .format .size .strides .pts .dts .duration .caps
    .sequence .skipped .publish_time       (GstDoradmaFrameMeta)
    .transport ("shmem", "unified", "ipc", "cuda", "system") .slot .writable
    (read-only: setting any of them raises AttributeError)

memory:CUDAMemory buffers (e.g. "doradmasrc channel=cam !
video/x-raw(memory:CUDAMemory) ! appsink", how an ipc producer's frames
stay on the GPU) are device frames: transport "cuda", __dlpack_device__
(kDLCUDA, 0), __cuda_array_interface__ at the device address with the
video meta's pitch; numpy() raises BufferError.
"""
import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import Gst  # noqa: E402  (initialises the types we check)

from ._frames import Frame, Plane, version as __version__  # noqa: E402

__all__ = ["Frame", "Plane", "__version__"]
