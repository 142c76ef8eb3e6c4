"""PyGObject overrides for GstDoradma: what doradmasrc recorded about a
frame (GstDoradma.FrameMeta, from buffer_get_doradma_frame_meta) is
read-only from Python. The typelib alone would let `meta.seq = 42` stick on
a read-only buffer's meta (GObject introspection makes every public struct
field writable); C keeps its plain struct. Installed with the doradma module
into <site>/gi/overrides, which PyGObject searches on sys.path."""
from ..module import get_introspection_module

GstDoradma = get_introspection_module("GstDoradma")

__all__ = []


def _read_only(self, name, value=None):
    raise AttributeError(
        "GstDoradma.FrameMeta.%s is read-only: it is doradmasrc's record of "
        "the frame (add or update one with "
        "GstDoradma.buffer_add_doradma_frame_meta on a writable buffer)"
        % name)


# A plain struct has no GType, so gi's override() cannot subclass it: the
# introspected class itself refuses assignment, for the structs that
# buffer_get_doradma_frame_meta returns as much as for new ones.
GstDoradma.FrameMeta.__setattr__ = _read_only
GstDoradma.FrameMeta.__delattr__ = _read_only
