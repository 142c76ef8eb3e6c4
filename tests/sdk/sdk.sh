#!/bin/bash
# The installed SDK, one check per mode (tests/sdk/meson.build passes the
# build's paths in SDK_*). Every mode installs the build into a fresh DESTDIR
# and then uses only what was installed there: no path into the source or
# build tree reaches the compiler, the loader, GI or GStreamer.
#   install-layout  exactly the public files, soname, exported symbols, .pc
#   gst-inspect     the installed plugin is found through the system path
#   c-example       examples/sdk/c-appsink.c built with pkg-config, run
#                   against a live producer: frames zero-copy, bytes equal
#   python-example  examples/sdk/python-numpy.py: NumPy views at the slot's
#                   address, bytes equal (needs -Dintrospection)
#   python-frames   the installed doradma module (tests/sdk/python-frames.py):
#                   zero-copy, the lease held exactly as long as a view,
#                   DLPack sharing the slot, views outliving the pipeline
#   python-frames-torch  the same through torch.from_dlpack (skips without
#                   python3-torch)
#   python-doc-example  docs/sdk.md's Python example, extracted and run as
#                   written
#   python-device-frames  the doradma module on memory:CUDAMemory-like
#                   buffers without a GPU (tests/sdk/python-device-frames.py,
#                   fake-cuda-memory.c); read-only frame info
#   python-held-view  a doradma.Frame view kept past the consumer's NULL:
#                   the lossless producer runs on, the slot stays pinned
#                   (tests/sdk/python-held-view.py frame)
#   gi-held-buffer  the same with a Gst.Buffer and its map, gi only
#                   (tests/sdk/python-held-view.py gi)
#   python-api      the typelib's Python names: error domain, SlabAllocator
#                   not hiding Gst.Allocator.alloc, the probe report, the
#                   version; every GstDoradma.name docs/sdk.md shows exists
# Exit 77 = skipped, with the reason.
set -u
mode=$1
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

T=$(mktemp -d /tmp/doradma-sdk-$mode-XXXXXX)
export DORADMA_SHM_DIR=$(mktemp -d "${DORADMA_SHM_DIR:-/dev/shm}/doradma-sdk-XXXXXX")
cleanup() { [ -n "${prod_pid:-}" ] && kill "$prod_pid" 2>/dev/null; rm -rf "$T" "$DORADMA_SHM_DIR"; }
trap cleanup EXIT

D=$T/destdir
"$SDK_MESON" install -C "$SDK_BUILD_ROOT" --no-rebuild --destdir "$D" --quiet \
  > "$T/install.log" 2>&1 || { cat "$T/install.log"; fail "meson install --destdir failed"; }
P=$D$SDK_PREFIX; L=$D$SDK_LIBDIR; PLUG=$D$SDK_PLUGINDIR
rel() { echo "${1#"$SDK_PREFIX"/}"; }

# Only the installed SDK from here on: the build tree's plugin path goes,
# the installed plugin dir joins the system path, the loader finds the
# installed library (a DESTDIR is not in ld.so.conf).
unset GST_PLUGIN_PATH GST_PLUGIN_PATH_1_0 GST_PLUGIN_SYSTEM_PATH_1_0 GI_TYPELIB_PATH
export GST_PLUGIN_SYSTEM_PATH=$PLUG:$SDK_SYSTEM_PLUGINDIR
export GST_REGISTRY_1_0=$T/registry.bin
export LD_LIBRARY_PATH=$L

# A producer of N RGBA frames on a channel of our own, and the reference
# SHA-1 of the same frames (checksumsink, in-process, no doradma).
CAPS="video/x-raw,format=RGBA,width=64,height=48,framerate=30/1"
N=12
channel=sdk-$mode-$$
start_producer() {
  gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=$N ! $CAPS ! \
    doradmasink channel=$channel mode=lossless wait-for-readers=1 sync=false \
    > "$T/producer.log" 2>&1 &
  prod_pid=$!
}
reference() {
  gst-inspect-1.0 checksumsink > /dev/null 2>&1 || skip "no checksumsink (gst-plugins-bad debugutilsbad) for the reference"
  gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=$N ! $CAPS ! checksumsink \
    | awk '{print $2}' > "$T/ref.txt"
  [ "$(wc -l < "$T/ref.txt")" -eq $N ] || fail "reference has $(wc -l < "$T/ref.txt") frames"
}
# compare the sha1 column of an example's output with the reference
compare() {
  sed -n 's/.* sha1 \([0-9a-f]*\).*/\1/p' "$1" > "$T/got.txt"
  diff "$T/ref.txt" "$T/got.txt" > "$T/diff.txt" || { cat "$1" "$T/diff.txt"; fail "frame bytes differ from the producer's"; }
  # GstDoradmaFrameMeta: a lossless producer and one reader, so the writer's
  # frame numbers 1..N in order and none skipped
  sed -n 's/.* seq \([0-9]*\) skipped \([0-9]*\) .*/\1 \2/p' "$1" > "$T/seq.txt"
  seq 1 $N | sed 's/$/ 0/' | diff - "$T/seq.txt" > "$T/diff.txt" || { cat "$1" "$T/diff.txt"; fail "frame meta: seq/skipped are not 1..$N/0"; }
  wait "$prod_pid"; r=$?; prod_pid=
  [ $r -eq 0 ] || { cat "$T/producer.log"; fail "producer exited $r"; }
}

case $mode in
install-layout)
  # Exactly these files, nothing private (no *private.h, no lib/ headers).
  want="include/gstreamer-1.0/gst/doradma/doradma-prelude.h
include/gstreamer-1.0/gst/doradma/gstdoradma.h
include/gstreamer-1.0/gst/doradma/gstdoradmaallocator.h
include/gstreamer-1.0/gst/doradma/gstdoradmaframemeta.h
include/gstreamer-1.0/gst/doradma/gstdoradmamemory.h
include/gstreamer-1.0/gst/doradma/gstdoradmaversion.h
$(rel "$SDK_LIBDIR")/libgstdoradma-1.0.so
$(rel "$SDK_LIBDIR")/libgstdoradma-1.0.so.0
$(rel "$SDK_LIBDIR")/pkgconfig/gstreamer-doradma-1.0.pc
$(rel "$SDK_PLUGINDIR")/libgstdoradma.so"
  [ "${SDK_NET_PLUGIN:-no}" = yes ] && want="$want
$(rel "$SDK_PLUGINDIR")/libgstdoradmanet.so"
  [ "$SDK_INTROSPECTION" = yes ] && want="$want
$(rel "$SDK_LIBDIR")/girepository-1.0/GstDoradma-1.0.typelib
share/gir-1.0/GstDoradma-1.0.gir"
  [ -f "$SDK_SOURCE_ROOT/tools/meson.build" ] && want="$want
bin/doradma"
  [ -n "$SDK_PYTHON" ] && want="$want
$(rel "${SDK_PYTHON_DIR%/}")/doradma/__init__.py
$(rel "${SDK_PYTHON_DIR%/}")/gi/overrides/GstDoradma.py
$(rel "${SDK_PYTHON_DIR%/}")/doradma/_frames$("$SDK_PYTHON" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"
  # meson >= 1.2 byte-compiles installed Python sources (__pycache__/*.pyc,
  # per interpreter version): bytecode of the module and of the overrides,
  # not files of the SDK.
  (cd "$P" && find . \( -type f -o -type l \) | sed 's|^\./||' \
     | grep -v '^'"$(rel "$SDK_LIBDIR")"'/libgstdoradma-1.0\.so\.0\.[0-9.]*$' \
     | grep -v -e '/doradma/__pycache__/[^/]*\.pyc$' \
         -e '/gi/overrides/__pycache__/GstDoradma\.[^/]*\.pyc$' | sort) > "$T/got.txt"
  echo "$want" | sort > "$T/want.txt"
  diff "$T/want.txt" "$T/got.txt" || fail "installed files differ from the SDK's list (< expected, > installed)"
  ls "$L"/libgstdoradma-1.0.so.0.* > /dev/null 2>&1 || fail "no versioned libgstdoradma-1.0.so.0.x.y"
  out=$(cd "$D" && find . \( -type f -o -type l \) | grep -v "^\.$SDK_PREFIX/")
  [ -z "$out" ] || fail "files outside the prefix: $out"

  soname=$(objdump -p "$L/libgstdoradma-1.0.so" | awk '$1 == "SONAME" {print $2}')
  [ "$soname" = libgstdoradma-1.0.so.0 ] || fail "soname '$soname', want libgstdoradma-1.0.so.0"
  objdump -p "$PLUG/libgstdoradma.so" | grep -q 'NEEDED *libgstdoradma-1.0.so.0' \
    || fail "the plugin does not link libgstdoradma-1.0.so.0"
  # libibverbs is dlopened by the GPUDirect code only: no SDK user needs rdma-core
  ! objdump -p "$L/libgstdoradma-1.0.so" | grep -q 'NEEDED *libibverbs' \
    || fail "libgstdoradma-1.0.so links libibverbs (it must dlopen it)"

  # Exported = declared GST_DORADMA_API in the installed headers, plus the
  # constructors and recyclers the plugin uses (gstdoradmamemoryprivate.h, not installed).
  api_decls() { awk '/^GST_DORADMA_API/ {getline; if (match($0, /[a-z_0-9]+ \(/)) print substr($0, RSTART, RLENGTH - 2)}' "$@"; }
  api_decls "$P"/include/gstreamer-1.0/gst/doradma/*.h > "$T/public.txt"
  api_decls "$SDK_SOURCE_ROOT/gst/doradma/gstdoradmamemoryprivate.h" > "$T/private.txt"
  [ "$(cat "$T/private.txt")" = "gst_doradma_memory_new
gst_doradma_memory_get_owner
gst_doradma_memory_disown
gst_doradma_memory_reuse" ] || fail "private exports changed: $(cat "$T/private.txt")"
  for f in gst_is_doradma_memory gst_doradma_memory_get_host_pointer \
      gst_doradma_memory_get_device_pointer gst_doradma_memory_get_slot \
      gst_buffer_get_doradma_frame_meta gst_doradma_frame_meta_api_get_type \
      gst_doradma_slab_allocator_new gst_doradma_slab_allocator_get_type; do
    grep -qx "$f" "$T/public.txt" || fail "$f not declared GST_DORADMA_API in the installed headers"
  done
  sort -u "$T/public.txt" "$T/private.txt" > "$T/want-syms.txt"
  nm -D --defined-only "$L/libgstdoradma-1.0.so" | awk '{print $3}' | sort > "$T/syms.txt"
  diff "$T/want-syms.txt" "$T/syms.txt" || fail "exported symbols differ from the declared API (< declared, > exported)"

  # The .pc: relative to the configured prefix, no private requirements (an
  # application needs no -dev package of our internals).
  pc=$L/pkgconfig/gstreamer-doradma-1.0.pc
  grep -qx "prefix=$SDK_PREFIX" "$pc" || fail "pc prefix is not $SDK_PREFIX"
  ! grep -q '^Requires.private\|^Libs.private' "$pc" || fail "pc has private requirements: $(grep private "$pc")"
  echo "PASS: $(wc -l < "$T/got.txt") files, soname $soname, $(wc -l < "$T/syms.txt") exported symbols"
  ;;

gst-inspect)
  out=$(gst-inspect-1.0 doradma 2>&1) || fail "gst-inspect-1.0 doradma: $out"
  file=$(echo "$out" | awk '/Filename/ {print $2}')
  [ "$file" = "$PLUG/libgstdoradma.so" ] || fail "plugin loaded from '$file', want $PLUG/libgstdoradma.so"
  for e in doradmasink doradmasrc; do
    gst-inspect-1.0 $e > /dev/null 2>&1 || fail "gst-inspect-1.0 $e"
  done
  echo "PASS: $file"
  ;;

c-example)
  command -v pkg-config > /dev/null || skip "no pkg-config"
  pkg-config --exists gstreamer-app-1.0 || skip "no gstreamer-app-1.0 (libgstreamer-plugins-base1.0-dev)"
  # The .pc says prefix=$SDK_PREFIX; the SDK sits under $D: relocate a copy.
  mkdir -p "$T/pc" "$T/app"
  sed "s|^prefix=.*|prefix=$P|" "$L/pkgconfig/gstreamer-doradma-1.0.pc" > "$T/pc/gstreamer-doradma-1.0.pc"
  cp "$SDK_SOURCE_ROOT/examples/sdk/c-appsink.c" "$T/app/"
  flags=$(PKG_CONFIG_PATH=$T/pc pkg-config --cflags --libs gstreamer-doradma-1.0 gstreamer-app-1.0) \
    || fail "pkg-config gstreamer-doradma-1.0"
  case "$flags" in *"$SDK_SOURCE_ROOT"*|*"$SDK_BUILD_ROOT"*) fail "pkg-config points into the tree: $flags";; esac
  (cd "$T/app" && "$SDK_CC" -Wall -Werror c-appsink.c -o c-appsink $flags) || fail "building c-appsink.c against the installed SDK"
  ldd "$T/app/c-appsink" | grep -q "libgstdoradma-1.0.so.0 => $L/" || fail "c-appsink does not load the installed library: $(ldd "$T/app/c-appsink" | grep doradma)"
  reference
  start_producer
  "$T/app/c-appsink" "$channel" $N > "$T/out.txt" 2>&1 || { r=$?; cat "$T/out.txt"; fail "c-appsink exited $r"; }
  compare "$T/out.txt"
  echo "PASS: $N frames read zero-copy by the installed C example, bytes equal"; head -2 "$T/out.txt"
  ;;

python-example)
  [ "$SDK_INTROSPECTION" = yes ] || skip "built without GObject introspection (-Dintrospection=disabled or no gobject-introspection): no GstDoradma-1.0 typelib"
  py=/usr/bin/python3
  $py -c 'import gi, numpy; gi.require_version("Gst", "1.0"); gi.require_version("GstVideo", "1.0")' 2>/dev/null \
    || skip "/usr/bin/python3 lacks PyGObject/GstVideo typelib/NumPy (python3-gi gir1.2-gst-plugins-base-1.0 python3-numpy)"
  export GI_TYPELIB_PATH=$L/girepository-1.0
  # the typelib and the library behind it (both mapped) are the installed
  # ones; the frame meta is kept by a buffer copy
  got=$($py -c 'import gi; gi.require_version("Gst", "1.0"); gi.require_version("GstDoradma", "1.0")
from gi.repository import Gst, GstDoradma
Gst.init(None)
b = Gst.Buffer.new_allocate(None, 16, None)
GstDoradma.buffer_add_doradma_frame_meta(b, 41, 2, 123456789, 3)
c = b.copy_deep()  # kept alive: the meta lives in the copy
m = GstDoradma.buffer_get_doradma_frame_meta(c)
print(m.seq, m.skipped, m.publish_time, m.caps_epoch)
print("\n".join(sorted(set(l.split()[-1] for l in open("/proc/self/maps") if "GstDoradma-1.0.typelib" in l or "libgstdoradma-1.0" in l))))' 2>&1)
  [ "$got" = "41 2 123456789 3
$L/girepository-1.0/GstDoradma-1.0.typelib
$(readlink -f "$L/libgstdoradma-1.0.so.0")" ] || fail "Python's GstDoradma (want the installed typelib and library, and the meta copied): $got"
  mkdir -p "$T/app"; cp "$SDK_SOURCE_ROOT/examples/sdk/python-numpy.py" "$T/app/"
  reference
  start_producer
  (cd "$T/app" && $py python-numpy.py "$channel" $N) > "$T/out.txt" 2>&1 || { r=$?; cat "$T/out.txt"; fail "python-numpy.py exited $r"; }
  # zero copy: the array's address is the slot's host address, every frame
  n=$(awk '/ zero-copy array=/ { split($0, a, "array="); split(a[2], b, " "); split($0, c, "host="); split(c[2], d, " "); if (b[1] == d[1] && b[1] != "0x0") ok++ } END {print ok + 0}' "$T/out.txt")
  [ "$n" -eq $N ] || { cat "$T/out.txt"; fail "$n of $N frames viewed at the slot's address"; }
  compare "$T/out.txt"
  echo "PASS: $N frames as NumPy views at the slot address, bytes equal"; head -2 "$T/out.txt"
  ;;
python-api)
  [ "$SDK_INTROSPECTION" = yes ] || skip "built without GObject introspection: no GstDoradma-1.0 typelib"
  /usr/bin/python3 -c 'import gi' 2>/dev/null || skip "/usr/bin/python3 lacks PyGObject (python3-gi)"
  gst-inspect-1.0 appsink > /dev/null 2>&1 || skip "no appsink (gst-plugins-base)"
  export GI_TYPELIB_PATH=$L/girepository-1.0
  /usr/bin/python3 "$SDK_SOURCE_ROOT/tests/sdk/python-api.py" "$SDK_SOURCE_ROOT/docs/sdk.md" "$SDK_VERSION" \
    > "$T/out.txt" 2>&1 || { r=$?; cat "$T/out.txt"; fail "python-api.py exited $r"; }
  cat "$T/out.txt"
  ;;
python-device-frames)
  [ -n "$SDK_PYTHON" ] || skip "the doradma Python module was not built (-Dpython, or no python3 with PyGObject, NumPy and headers)"
  [ "$SDK_INTROSPECTION" = yes ] || skip "built without GObject introspection: no GstDoradma-1.0 typelib"
  command -v pkg-config > /dev/null || skip "no pkg-config"
  export GI_TYPELIB_PATH=$L/girepository-1.0
  export PYTHONPATH=$D${SDK_PYTHON_DIR%/}
  # shellcheck disable=SC2046
  "$SDK_CC" -shared -fPIC -Wall -Werror -o "$T/fake-cuda-memory.so" \
    "$SDK_SOURCE_ROOT/tests/sdk/fake-cuda-memory.c" $(pkg-config --cflags --libs gstreamer-1.0) \
    || fail "building fake-cuda-memory.c"
  "$SDK_PYTHON" "$SDK_SOURCE_ROOT/tests/sdk/python-device-frames.py" "$T/fake-cuda-memory.so" \
    > "$T/out.txt" 2>&1
  r=$?; cat "$T/out.txt"
  [ $r -eq 0 ] || fail "python-device-frames.py exited $r"
  ;;
python-frames|python-frames-torch|python-doc-example)
  [ -n "$SDK_PYTHON" ] || skip "the doradma Python module was not built (-Dpython, or no python3 with PyGObject, NumPy and headers)"
  [ "$SDK_INTROSPECTION" = yes ] || skip "built without GObject introspection: no GstDoradma-1.0 typelib"
  export GI_TYPELIB_PATH=$L/girepository-1.0
  export PYTHONPATH=$D${SDK_PYTHON_DIR%/}
  # the module imported is the installed one
  got=$("$SDK_PYTHON" -c 'import doradma; print(doradma._frames.__file__)' 2>&1)
  case "$got" in "$PYTHONPATH"/doradma/_frames*) ;; *) fail "import doradma: $got";; esac
  if [ $mode = python-doc-example ]; then
    "$SDK_PYTHON" -c 'import numpy; numpy.from_dlpack' 2>/dev/null \
      || skip "the example uses numpy.from_dlpack (NumPy >= 1.22); $("$SDK_PYTHON" -c 'import numpy; print("NumPy", numpy.__version__)')"
    # the block after the marker, as written in the docs
    awk '/<!-- tests\/sdk: python-doc-example -->/ {f = 1; next} f && /^```python/ {p = 1; next} p && /^```/ {exit} p' \
      "$SDK_SOURCE_ROOT/docs/sdk.md" > "$T/example.py"
    [ -s "$T/example.py" ] || fail "no Python example after the marker in docs/sdk.md"
    (cd "$T" && "$SDK_PYTHON" example.py) > "$T/out.txt" 2>&1 || { r=$?; cat "$T/out.txt"; fail "docs/sdk.md's Python example exited $r"; }
    cat "$T/out.txt"; echo "PASS: docs/sdk.md's Python example ran as written"
    exit 0
  fi
  "$SDK_PYTHON" "$SDK_SOURCE_ROOT/tests/sdk/python-frames.py" "$P/bin/doradma" \
    $([ $mode = python-frames-torch ] && echo torch) > "$T/out.txt" 2>&1
  r=$?; cat "$T/out.txt"
  [ $r -eq 77 ] && exit 77
  [ $r -eq 0 ] || fail "python-frames.py exited $r"
  ;;
python-held-view|gi-held-buffer)
  [ -n "$SDK_PYTHON" ] || skip "the doradma Python module was not built (-Dpython, or no python3 with PyGObject, NumPy and headers)"
  export PYTHONPATH=$D${SDK_PYTHON_DIR%/}
  "$SDK_PYTHON" "$SDK_SOURCE_ROOT/tests/sdk/python-held-view.py" "$P/bin/doradma" \
    $([ $mode = python-held-view ] && echo frame || echo gi) > "$T/out.txt" 2>&1
  r=$?; cat "$T/out.txt"
  [ $r -eq 0 ] || fail "python-held-view.py exited $r"
  ;;
*) fail "unknown mode $mode" ;;
esac
