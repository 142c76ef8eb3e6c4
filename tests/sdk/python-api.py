#!/usr/bin/python3
# The installed typelib as a Python developer meets it (sdk.sh, mode
# python-api): review R3 SDK findings 10-13 and 15, and docs/sdk.md naming
# only Python names that exist. usage: python-api.py DOCS_SDK_MD VERSION
import os
import re
import sys
import time

import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstDoradma", "1.0")
from gi.repository import GLib, Gst, GstDoradma  # noqa: E402

Gst.init(None)
docs, version = sys.argv[1], sys.argv[2]
failures = []


def check(cond, what):
    print("%s: %s" % ("ok" if cond else "FAIL", what))
    if not cond:
        failures.append(what)


# 11: the GError domain is the string bindings and logs match on
check(GLib.quark_to_string(GstDoradma.slab_error_quark())
      == "gst-doradma-slab-error-quark",
      "error domain %r" % GLib.quark_to_string(GstDoradma.slab_error_quark()))

# 12: SlabAllocator does not hide Gst.Allocator.alloc
check("alloc" not in GstDoradma.SlabAllocator.__dict__
      and "get_stats" not in GstDoradma.SlabAllocator.__dict__
      and GstDoradma.SlabAllocator.alloc is Gst.Allocator.alloc,
      "SlabAllocator.alloc is Gst.Allocator.alloc")
check(callable(GstDoradma.slab_alloc) and callable(GstDoradma.slab_get_stats),
      "GstDoradma.slab_alloc and slab_get_stats")

# 13: the probe's report reaches Python whatever the verdict
report = GstDoradma.gpudirect_probe_report(0)
check(report is not None and report.get_name() == "doradma-gpudirect-probe"
      and isinstance(report.get_value("usable"), bool)
      and isinstance(report.get_value("libibverbs-detail"), str),
      "gpudirect_probe_report: %s" % (report.to_string() if report else None))
if not report.get_value("usable"):
    try:
        GstDoradma.gpudirect_probe(0)
        check(False, "gpudirect_probe raises when unusable")
    except GLib.Error as e:
        check(e.domain == "gst-doradma-slab-error-quark",
              "gpudirect_probe raises GLib.Error in its domain")

# 13: slab_memory_upload takes bytes (an array), not a bare pointer
src = [a for a in GstDoradma.slab_memory_upload.get_arguments()
       if a.get_name() == "src"]
check(src and src[0].get_type().get_tag_as_string() == "array",
      "slab_memory_upload(mem, offset, src): src is %s"
      % (src[0].get_type().get_tag_as_string() if src else None))

# 13: slab_memory_attach_stream takes the raw CUstream handle as an int
# (CuPy's Stream.ptr, torch's Stream.cuda_stream), None for the host;
# anything else is a ValueError (PyGObject), and memory that is not slab memory a
# GLib.Error naming it (not a critical and a bare False)
sysmem = Gst.Allocator.find(None).alloc(64, None)


def slab_error(fn, *args):
    try:
        r = fn(*args)
        return "returned %r" % (r,)
    except GLib.Error as e:
        return (e.domain == "gst-doradma-slab-error-quark"
                and e.code == GstDoradma.SlabError.UNSUPPORTED
                and "not doradma slab memory" in e.message
                and "SystemMemory" in e.message) or e.message
    except TypeError as e:
        return "TypeError: %s" % e


for stream in (0x7f00dead0000, None):
    r = slab_error(GstDoradma.slab_memory_attach_stream, sysmem, stream)
    check(r is True, "slab_memory_attach_stream(system memory, %r): GLib.Error "
          "UNSUPPORTED naming the memory (%s)" % (stream, r))
r = slab_error(GstDoradma.slab_memory_upload, sysmem, 0, b"abcd")
check(r is True, "slab_memory_upload(system memory): GLib.Error naming the "
      "memory (%s)" % r)
try:
    GstDoradma.slab_memory_attach_stream(sysmem, "stream")
    check(False, "slab_memory_attach_stream(mem, 'stream') is refused")
except (TypeError, ValueError) as e:
    check("integers" in str(e), "slab_memory_attach_stream(mem, 'stream') is "
          "refused: %s" % e)

# 15: versions
v = GstDoradma.version()
check("%d.%d.%d" % (v.major, v.minor, v.micro) == version
      and GstDoradma.version_string() == version
      and (GstDoradma.VERSION_MAJOR, GstDoradma.VERSION_MINOR,
           GstDoradma.VERSION_MICRO) == tuple(v),
      "version %s, want %s" % (GstDoradma.version_string(), version))

# 10: appsink at its defaults (unbounded queue) turns zero-copy into copies:
# doradmasrc says so, once, on the bus
ch = "sdk-api-%d" % os.getpid()
producer = Gst.parse_launch(
    "videotestsrc is-live=true ! video/x-raw,format=GRAY8,width=64,height=48,"
    "framerate=100/1 ! doradmasink channel=%s slots=12" % ch)
producer.set_state(Gst.State.PLAYING)
consumer = Gst.parse_launch("doradmasrc channel=%s name=src ! appsink name=s"
                            % ch)
consumer.set_state(Gst.State.PLAYING)
warnings = []
deadline = time.monotonic() + 20
bus = consumer.get_bus()
stats = None
while time.monotonic() < deadline:
    msg = bus.timed_pop_filtered(100 * Gst.MSECOND, Gst.MessageType.WARNING
                                 | Gst.MessageType.ERROR)
    if msg and msg.type == Gst.MessageType.ERROR:
        break
    if msg:
        warnings.append(msg.parse_warning()[0].message)
    stats = consumer.get_by_name("src").get_property("stats")
    if stats and stats.get_value("copies") >= 20:
        break
time.sleep(0.3)
while True:  # nothing more than the one warning
    msg = bus.pop_filtered(Gst.MessageType.WARNING)
    if msg is None:
        break
    warnings.append(msg.parse_warning()[0].message)
consumer.set_state(Gst.State.NULL)
producer.set_state(Gst.State.NULL)
check(stats is not None and stats.get_value("copies") >= 20
      and len(warnings) == 1 and "max-leases (4) reached" in warnings[0],
      "default appsink: %s copies, warnings %r" % (
          stats.get_value("copies") if stats else None, warnings))

# docs/sdk.md: every GstDoradma.name it shows exists
text = open(docs).read()
names = sorted(set(re.findall(r"GstDoradma\.([A-Za-z_][A-Za-z_0-9.]*[A-Za-z_0-9])", text)))
for name in names:
    obj = GstDoradma
    try:
        for part in name.split("."):
            obj = getattr(obj, part)
        ok = True
    except AttributeError:
        ok = False
    check(ok, "docs/sdk.md names GstDoradma.%s" % name)
check(len(names) >= 8, "docs/sdk.md names %d GstDoradma members" % len(names))

if failures:
    print("FAIL: %d check(s): %s" % (len(failures), "; ".join(failures)))
    sys.exit(1)
print("PASS")
