"""The WARNINGs a pipeline posts until its EOS, for the tests that check
which settings a dora-pool element says it ignores (sink-ignored-settings,
src-ignored-settings)."""
import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

from dorapool import check  # noqa: E402


def warnings_until_eos(pipe, tag, on_async_done=None, timeout_s=10):
    """Pops the bus of `pipe` (already PLAYING) until EOS and returns the
    texts of the WARNINGs seen. An ERROR, or no message for `timeout_s`,
    fails the test naming `tag`. `on_async_done`, when given, runs at each
    ASYNC_DONE (a sink test ends its stream there)."""
    types = (Gst.MessageType.WARNING | Gst.MessageType.ERROR |
             Gst.MessageType.EOS)
    if on_async_done is not None:
        types |= Gst.MessageType.ASYNC_DONE
    bus, warnings = pipe.get_bus(), []
    while True:
        msg = bus.timed_pop_filtered(timeout_s * Gst.SECOND, types)
        check(msg is not None, "%s: no message within %d s" % (tag, timeout_s))
        check(msg.type != Gst.MessageType.ERROR, "%s: error %s" %
              (tag, msg.parse_error()[0].message if
               msg.type == Gst.MessageType.ERROR else ""))
        if msg.type == Gst.MessageType.WARNING:
            warnings.append(msg.parse_warning()[0].message)
        elif msg.type == Gst.MessageType.ASYNC_DONE:
            on_async_done()
        else:
            return warnings
