/* doradma._frames.Frame: a Gst.Sample's or Gst.Buffer's frame, owning a
 * buffer reference and its mapping until the last view of it is gone.
 * Planes (plane.c) carry the views; this file maps, lays planes out and
 * answers what the frame is (format, size, strides, times, sequence,
 * transport). */
#include "frames.h"

#include <gst/doradma/gstdoradma.h>

/* gstreamer-cuda's public names (gst/cuda/gstcudamemory.h, 1.22 on), kept
 * here so that the module needs neither that library nor cuda.h: a
 * GstCudaMemory is told by its allocator's memory type, and mapping it with
 * this flag gives its CUDA device address instead of a host copy. */
#define CUDA_MEMORY_TYPE_NAME "gst.cuda.memory"
#define MAP_CUDA (GST_MAP_FLAG_LAST << 1)

/* PyGObject's wrapper of a boxed value (pygobject.h's PyGBoxed, the same
 * since PyGObject 3.0): the pointer is trusted only after the GType stored
 * next to it is one we expect and the object is a gi boxed wrapper. */
typedef struct
{
  PyObject_HEAD gpointer boxed;
  GType gtype;
  gboolean free_on_dealloc;
} PyGBoxedLayout;

static PyObject *gboxed_type;   /* gi._gi.GBoxed */

static gboolean
boxed_pointer (PyObject * obj, gpointer * ptr, GType * gtype)
{
  int is_boxed;

  if (gboxed_type == NULL) {
    PyObject *gi = PyImport_ImportModule ("gi._gi");
    if (gi == NULL)
      return FALSE;
    gboxed_type = PyObject_GetAttrString (gi, "GBoxed");
    Py_DECREF (gi);
    if (gboxed_type == NULL)
      return FALSE;
  }
  is_boxed = PyObject_IsInstance (obj, gboxed_type);
  if (is_boxed < 0)
    return FALSE;
  if (!is_boxed || Py_TYPE (obj)->tp_basicsize < (Py_ssize_t)
      sizeof (PyGBoxedLayout)) {
    PyErr_Format (PyExc_TypeError, "doradma.Frame takes a Gst.Sample or a "
        "Gst.Buffer, not %s", Py_TYPE (obj)->tp_name);
    return FALSE;
  }
  *ptr = ((PyGBoxedLayout *) obj)->boxed;
  *gtype = ((PyGBoxedLayout *) obj)->gtype;
  return TRUE;
}

/* The mapping that holds `p` (a GstVideoFrame maps each memory once). */
static Py_ssize_t
bytes_after (const FrameObject * f, const guint8 * p)
{
  guint i;

  if (!f->video)
    return f->map.data + f->map.size - p;
  for (i = 0; i < GST_VIDEO_MAX_PLANES; i++) {
    const GstMapInfo *m = &f->vframe.map[i];
    if (m->memory && p >= m->data && p < m->data + m->size)
      return m->data + m->size - p;
  }
  return 0;
}

/* The buffer's doradma memory when it is its only memory, else NULL. */
static GstMemory *
doradma_memory (const FrameObject * f)
{
  GstMemory *mem;

  if (gst_buffer_n_memory (f->buffer) != 1)
    return NULL;
  mem = gst_buffer_peek_memory (f->buffer, 0);
  return gst_is_doradma_memory (mem) ? mem : NULL;
}

/* Is every memory of the buffer a GstCudaMemory (memory:CUDAMemory, e.g.
 * doradmasrc's output for such caps)? */
static gboolean
cuda_memory_buffer (const FrameObject * f)
{
  guint i, n = gst_buffer_n_memory (f->buffer);

  for (i = 0; i < n; i++)
    if (!gst_memory_is_type (gst_buffer_peek_memory (f->buffer, i),
            CUDA_MEMORY_TYPE_NAME))
      return FALSE;
  return n > 0;
}

/* The CUDA address of host byte `p` of a one-memory doradma buffer with a
 * device alias (transport unified), else 0. */
static guint64
device_alias (const FrameObject * f, const guint8 * p)
{
  GstMemory *mem = doradma_memory (f);
  const guint8 *host;
  guint64 dev;

  if (mem == NULL)
    return 0;
  dev = gst_doradma_memory_get_device_pointer (mem);
  host = gst_doradma_memory_get_host_pointer (mem);
  if (dev == 0 || host == NULL || p < host)
    return 0;
  return dev + (guint64) (p - host);
}

/* rows x columns x bytes per pixel where the format has a pixel stride and
 * the rows fit the mapping; rows x stride bytes otherwise; never past the
 * mapping. */
static void
layout_plane (struct plane_layout *l, Py_ssize_t size, gint rows,
    gint columns, gint pstride, gint stride)
{
  l->size = size;
  if (rows > 0 && columns > 0 && pstride > 0 && stride >= columns * pstride
      && (Py_ssize_t) stride * (rows - 1) + columns * pstride <= size) {
    l->ndim = 3;
    l->shape[0] = rows;
    l->shape[1] = columns;
    l->shape[2] = pstride;
    l->strides[0] = stride;
    l->strides[1] = pstride;
    l->strides[2] = 1;
  } else if (rows > 0 && stride > 0 && (Py_ssize_t) stride * rows <= size) {
    l->ndim = 2;
    l->shape[0] = rows;
    l->shape[1] = stride;
    l->strides[0] = stride;
    l->strides[1] = 1;
  } else {
    l->ndim = 1;
    l->shape[0] = size;
    l->strides[0] = 1;
  }
}

static void
layout_video (FrameObject * f)
{
  const GstVideoFormatInfo *finfo = f->vframe.info.finfo;
  guint p, c;

  f->n_planes = GST_VIDEO_FRAME_N_PLANES (&f->vframe);
  for (p = 0; p < f->n_planes; p++) {
    struct plane_layout *l = &f->planes[p];
    gint rows = 0, columns = 0, pstride = 0;

    /* The first component stored in this plane gives its geometry. */
    for (c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++)
      if (GST_VIDEO_FORMAT_INFO_PLANE (finfo, c) == p) {
        rows = GST_VIDEO_FRAME_COMP_HEIGHT (&f->vframe, c);
        columns = GST_VIDEO_FRAME_COMP_WIDTH (&f->vframe, c);
        pstride = GST_VIDEO_FRAME_COMP_PSTRIDE (&f->vframe, c);
        break;
      }
    if (GST_VIDEO_FORMAT_INFO_IS_TILED (finfo))
      pstride = 0;
    if (f->cuda) {
      /* mapped with MAP_CUDA: the plane's address is a device address */
      l->host = NULL;
      l->device = (guint64) (guintptr) GST_VIDEO_FRAME_PLANE_DATA (&f->vframe,
          p);
    } else {
      l->host = GST_VIDEO_FRAME_PLANE_DATA (&f->vframe, p);
      l->device = device_alias (f, l->host);
    }
    layout_plane (l, bytes_after (f, GST_VIDEO_FRAME_PLANE_DATA (&f->vframe,
                p)), rows, columns, pstride,
        GST_VIDEO_FRAME_PLANE_STRIDE (&f->vframe, p));
  }
}

/* A slot with no host address (transport ipc): planes from the video meta
 * at the device address, for __cuda_array_interface__ and DLPack. */
static gboolean
layout_device_only (FrameObject * f, const GstVideoInfo * info)
{
  GstMemory *mem = doradma_memory (f);
  GstVideoMeta *meta = gst_buffer_get_video_meta (f->buffer);
  guint64 dev;
  guint p;

  if (mem == NULL || gst_doradma_memory_get_host_pointer (mem) != NULL
      || (dev = gst_doradma_memory_get_device_pointer (mem)) == 0)
    return FALSE;
  f->n_planes = meta ? meta->n_planes : GST_VIDEO_INFO_N_PLANES (info);
  for (p = 0; p < f->n_planes; p++) {
    gsize off = meta ? meta->offset[p] : GST_VIDEO_INFO_PLANE_OFFSET (info, p);
    gint stride = meta ? meta->stride[p] : GST_VIDEO_INFO_PLANE_STRIDE (info,
        p);
    gint c, rows = 0, columns = 0, pstride = 0;

    for (c = 0; c < (gint) GST_VIDEO_INFO_N_COMPONENTS (info); c++)
      if (GST_VIDEO_FORMAT_INFO_PLANE (info->finfo, c) == p) {
        rows = GST_VIDEO_INFO_COMP_HEIGHT (info, c);
        columns = GST_VIDEO_INFO_COMP_WIDTH (info, c);
        pstride = GST_VIDEO_INFO_COMP_PSTRIDE (info, c);
        break;
      }
    if (off >= mem->size)
      return FALSE;
    f->planes[p].host = NULL;
    f->planes[p].device = dev + off;
    layout_plane (&f->planes[p], (Py_ssize_t) (mem->size - off), rows,
        columns, pstride, stride);
  }
  return TRUE;
}

/* The video info of the caps, else of the buffer's video meta. */
static gboolean
video_info (FrameObject * f, GstVideoInfo * info)
{
  GstVideoMeta *meta;

  if (f->caps && gst_video_info_from_caps (info, f->caps))
    return TRUE;
  meta = gst_buffer_get_video_meta (f->buffer);
  if (meta == NULL)
    return FALSE;
  return gst_video_info_set_format (info, meta->format, meta->width,
      meta->height);
}

static int
frame_map (FrameObject * f)
{
  GstMapFlags flags = f->writable ? GST_MAP_READWRITE : GST_MAP_READ;
  GstVideoInfo info;
  gboolean have_info = video_info (f, &info);

  /* CUDA memory mapped for the host would be a download into a staging
   * copy: map it on the device, the planes' addresses are device ones. */
  if (cuda_memory_buffer (f)) {
    if (!have_info || !gst_video_frame_map (&f->vframe, &info, f->buffer,
            flags | MAP_CUDA)) {
      PyErr_Format (PyExc_ValueError, "the buffer's CUDA memory (memory:"
          "CUDAMemory) cannot be mapped on the device for %s%s",
          f->writable ? "writing" : "reading", have_info ? "" :
          ": no video caps and no GstVideoMeta to lay its planes out");
      return -1;
    }
    f->video = f->cuda = TRUE;
    layout_video (f);
    return 0;
  }
  if (have_info && gst_video_frame_map (&f->vframe, &info, f->buffer, flags)) {
    f->video = TRUE;
    layout_video (f);
    return 0;
  }
  if (have_info && !f->writable && layout_device_only (f, &info))
    return 0;
  if (gst_buffer_map (f->buffer, &f->map, flags)) {
    f->mapped = TRUE;
    f->n_planes = 1;
    f->planes[0].host = f->map.data;
    f->planes[0].device = device_alias (f, f->map.data);
    layout_plane (&f->planes[0], f->map.size, 0, 0, 0, 0);
    return 0;
  }
  PyErr_Format (PyExc_ValueError, "the buffer cannot be mapped for %s",
      f->writable ? "writing" : "reading");
  return -1;
}

static int
frame_fill (FrameObject * self, PyObject * args, PyObject * kwargs)
{
  static char *keywords[] = { "sample_or_buffer", "writable", NULL };
  PyObject *obj;
  int writable = 0;
  gpointer ptr;
  GType gtype;
  GstBuffer *buffer = NULL;
  GstCaps *caps = NULL;

  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "O|p:Frame", keywords, &obj,
          &writable) || !boxed_pointer (obj, &ptr, &gtype))
    return -1;
  if (gtype == GST_TYPE_SAMPLE) {
    buffer = gst_sample_get_buffer (ptr);
    caps = gst_sample_get_caps (ptr);
  } else if (gtype == GST_TYPE_BUFFER) {
    buffer = ptr;
  } else {
    PyErr_Format (PyExc_TypeError, "doradma.Frame takes a Gst.Sample or a "
        "Gst.Buffer, not a %s", g_type_name (gtype));
    return -1;
  }
  if (buffer == NULL) {
    PyErr_SetString (PyExc_ValueError, "the sample holds no buffer");
    return -1;
  }
  /* Writable only as the caller's own buffer is: a leased ring slot (or a
   * buffer someone else also holds) is read-only. */
  if (writable && (!gst_buffer_is_writable (buffer)
          || !gst_buffer_is_all_memory_writable (buffer))) {
    PyErr_SetString (PyExc_ValueError, "writable=True: the buffer is not "
        "writable (shared, or read-only memory such as a leased ring slot)");
    return -1;
  }
  self->writable = writable;
  self->caps = caps ? gst_caps_ref (caps) : NULL;
  /* Map before taking our reference: a write map needs the caller's buffer
   * still writable (ours would make it shared); the mapping stays valid. */
  self->buffer = buffer;
  if (frame_map (self) < 0) {
    self->buffer = NULL;
    return -1;
  }
  gst_buffer_ref (buffer);
  return 0;
}

/* Made whole in tp_new: no Frame exists without its buffer mapped
 * (Frame.__new__(Frame) fails like Frame() does). */
static PyObject *
frame_new (PyTypeObject * type, PyObject * args, PyObject * kwargs)
{
  FrameObject *self = (FrameObject *) type->tp_alloc (type, 0);

  if (self && frame_fill (self, args, kwargs) < 0)
    Py_CLEAR (self);
  return (PyObject *) self;
}

static void
frame_dealloc (FrameObject * self)
{
  if (self->video)
    gst_video_frame_unmap (&self->vframe);
  else if (self->mapped)
    gst_buffer_unmap (self->buffer, &self->map);
  if (self->buffer)
    gst_buffer_unref (self->buffer);    /* the slot goes back here */
  if (self->caps)
    gst_caps_unref (self->caps);
  Py_TYPE (self)->tp_free ((PyObject *) self);
}

/* ------------------------------------------------------------------------ */
/* what the frame is                                                        */
/* ------------------------------------------------------------------------ */

static PyObject *
clock_time (GstClockTime t)
{
  if (!GST_CLOCK_TIME_IS_VALID (t))
    Py_RETURN_NONE;
  return PyLong_FromUnsignedLongLong (t);
}

static PyObject *
frame_get_planes (FrameObject * self, void *closure)
{
  PyObject *t = PyTuple_New (self->n_planes);
  guint p;

  for (p = 0; t && p < self->n_planes; p++) {
    PyObject *plane = plane_new (self, p);
    if (plane == NULL) {
      Py_CLEAR (t);
      break;
    }
    PyTuple_SET_ITEM (t, p, plane);
  }
  return t;
}

static PyObject *
frame_get_format (FrameObject * self, void *closure)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (self->buffer);

  if (self->video)
    return PyUnicode_FromString (GST_VIDEO_FRAME_FORMAT (&self->vframe) ==
        GST_VIDEO_FORMAT_UNKNOWN ? "unknown" :
        gst_video_format_to_string (GST_VIDEO_FRAME_FORMAT (&self->vframe)));
  if (meta)
    return PyUnicode_FromString (gst_video_format_to_string (meta->format));
  Py_RETURN_NONE;
}

static PyObject *
frame_get_size (FrameObject * self, void *closure)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (self->buffer);

  if (self->video)
    return Py_BuildValue ("(ii)", GST_VIDEO_FRAME_WIDTH (&self->vframe),
        GST_VIDEO_FRAME_HEIGHT (&self->vframe));
  if (meta)
    return Py_BuildValue ("(II)", meta->width, meta->height);
  Py_RETURN_NONE;
}

static PyObject *
frame_get_strides (FrameObject * self, void *closure)
{
  PyObject *t = PyTuple_New (self->n_planes);
  guint p;

  for (p = 0; t && p < self->n_planes; p++) {
    PyObject *stride = PyLong_FromSsize_t (self->planes[p].ndim > 1 ?
        self->planes[p].strides[0] : self->planes[p].size);
    if (stride == NULL) {
      Py_CLEAR (t);
      break;
    }
    PyTuple_SET_ITEM (t, p, stride);
  }
  return t;
}

static PyObject *
frame_get_times (FrameObject * self, void *closure)
{
  GstBuffer *b = self->buffer;
  const char *which = closure;

  if (g_str_equal (which, "pts"))
    return clock_time (GST_BUFFER_PTS (b));
  if (g_str_equal (which, "dts"))
    return clock_time (GST_BUFFER_DTS (b));
  return clock_time (GST_BUFFER_DURATION (b));
}

/* GstDoradmaFrameMeta fields, None without the meta. */
static PyObject *
frame_get_meta (FrameObject * self, void *closure)
{
  GstDoradmaFrameMeta *m = gst_buffer_get_doradma_frame_meta (self->buffer);
  const char *which = closure;

  if (m == NULL)
    Py_RETURN_NONE;
  if (g_str_equal (which, "sequence"))
    return PyLong_FromUnsignedLongLong (m->seq);
  if (g_str_equal (which, "skipped"))
    return PyLong_FromUnsignedLongLong (m->skipped);
  return PyLong_FromUnsignedLongLong (m->publish_time);
}

static PyObject *
frame_get_transport (FrameObject * self, void *closure)
{
  GstMemory *mem = doradma_memory (self);

  if (self->cuda)
    return PyUnicode_FromString ("cuda");
  if (mem == NULL)
    return PyUnicode_FromString ("system");
  if (gst_doradma_memory_get_host_pointer (mem) == NULL)
    return PyUnicode_FromString ("ipc");
  return PyUnicode_FromString (gst_doradma_memory_get_device_pointer (mem) ?
      "unified" : "shmem");
}

static PyObject *
frame_get_slot (FrameObject * self, void *closure)
{
  GstMemory *mem = doradma_memory (self);

  if (mem == NULL)
    Py_RETURN_NONE;
  return PyLong_FromUnsignedLong (gst_doradma_memory_get_slot (mem));
}

static PyObject *
frame_get_writable (FrameObject * self, void *closure)
{
  return PyBool_FromLong (self->writable);
}

static PyObject *
frame_get_caps (FrameObject * self, void *closure)
{
  char *s;
  PyObject *r;

  if (self->caps == NULL)
    Py_RETURN_NONE;
  s = gst_caps_to_string (self->caps);
  r = PyUnicode_FromString (s);
  g_free (s);
  return r;
}

/* The single plane's method, or an error naming the planes to use. */
static PyObject *
frame_plane0_call (FrameObject * self, const char *method, PyObject * args,
    PyObject * kwargs)
{
  PyObject *plane, *fn, *r = NULL;

  if (self->n_planes != 1) {
    PyErr_Format (PyExc_BufferError, "a %u-plane frame is not one tensor: "
        "use frame.planes[i].%s", self->n_planes, method);
    return NULL;
  }
  plane = plane_new (self, 0);
  if (plane == NULL)
    return NULL;
  fn = PyObject_GetAttrString (plane, method);
  if (fn)
    r = PyObject_Call (fn, args, kwargs);
  Py_XDECREF (fn);
  Py_DECREF (plane);
  return r;
}

static PyObject *
frame_numpy (FrameObject * self, PyObject * unused)
{
  PyObject *planes, *out;
  guint p;

  if (self->n_planes == 1) {
    PyObject *none = PyTuple_New (0), *r = NULL;
    if (none)
      r = frame_plane0_call (self, "numpy", none, NULL);
    Py_XDECREF (none);
    return r;
  }
  planes = frame_get_planes (self, NULL);
  if (planes == NULL)
    return NULL;
  out = PyTuple_New (self->n_planes);
  for (p = 0; out && p < self->n_planes; p++) {
    PyObject *a = PyObject_CallMethod (PyTuple_GET_ITEM (planes, p), "numpy",
        NULL);
    if (a == NULL) {
      Py_CLEAR (out);
      break;
    }
    PyTuple_SET_ITEM (out, p, a);
  }
  Py_DECREF (planes);
  return out;
}

static PyObject *
frame_dlpack (FrameObject * self, PyObject * args, PyObject * kwargs)
{
  return frame_plane0_call (self, "__dlpack__", args, kwargs);
}

static PyObject *
frame_dlpack_device (FrameObject * self, PyObject * unused)
{
  PyObject *none = PyTuple_New (0), *r = NULL;

  if (none)
    r = frame_plane0_call (self, "__dlpack_device__", none, NULL);
  Py_XDECREF (none);
  return r;
}

static PyObject *
frame_get_cai (FrameObject * self, void *closure)
{
  PyObject *plane, *r;

  if (self->n_planes != 1 || self->planes[0].device == 0) {
    PyErr_SetString (PyExc_AttributeError, self->n_planes != 1 ?
        "__cuda_array_interface__: use frame.planes[i] of a planar frame" :
        "__cuda_array_interface__: the frame has no CUDA address (transport "
        "shmem or system memory; memory:CUDAMemory caps give device frames)");
    return NULL;
  }
  plane = plane_new (self, 0);
  if (plane == NULL)
    return NULL;
  r = PyObject_GetAttrString (plane, "__cuda_array_interface__");
  Py_DECREF (plane);
  return r;
}

static PyObject *
frame_repr (FrameObject * self)
{
  PyObject *fmt = frame_get_format (self, NULL), *tr =
      frame_get_transport (self, NULL), *r;

  r = PyUnicode_FromFormat ("<doradma.Frame %S %u plane%s transport %S>",
      fmt, self->n_planes, self->n_planes == 1 ? "" : "s", tr);
  Py_XDECREF (fmt);
  Py_XDECREF (tr);
  return r;
}

static PyGetSetDef frame_getset[] = {
  {"planes", (getter) frame_get_planes, NULL,
      "the planes, each a zero-copy view (buffer protocol, DLPack, CUDA)"},
  {"format", (getter) frame_get_format, NULL, "video format name, or None"},
  {"size", (getter) frame_get_size, NULL, "(width, height), or None"},
  {"strides", (getter) frame_get_strides, NULL, "bytes per row of each plane"},
  {"pts", (getter) frame_get_times, NULL, "PTS in ns, or None", "pts"},
  {"dts", (getter) frame_get_times, NULL, "DTS in ns, or None", "dts"},
  {"duration", (getter) frame_get_times, NULL, "duration in ns, or None",
      "duration"},
  {"sequence", (getter) frame_get_meta, NULL,
        "the writer's frame number (GstDoradmaFrameMeta.seq), or None",
      "sequence"},
  {"skipped", (getter) frame_get_meta, NULL,
      "frames this reader never got before this one, or None", "skipped"},
  {"publish_time", (getter) frame_get_meta, NULL,
      "CLOCK_MONOTONIC ns of the publish, or None", "publish_time"},
  {"transport", (getter) frame_get_transport, NULL,
      "shmem, unified (host and CUDA), ipc (a CUDA-only slot), cuda "
        "(memory:CUDAMemory, device only) or system"},
  {"slot", (getter) frame_get_slot, NULL, "ring slot index, or None"},
  {"writable", (getter) frame_get_writable, NULL, "mapped for writing"},
  {"caps", (getter) frame_get_caps, NULL, "the sample's caps, or None"},
  {"__cuda_array_interface__", (getter) frame_get_cai, NULL,
      "the single plane's CUDA array interface (device frames)"},
  {NULL}
};

static PyMethodDef frame_methods[] = {
  {"numpy", (PyCFunction) frame_numpy, METH_NOARGS,
      "numpy() -> ndarray (one plane) or tuple of ndarrays (planar): "
        "zero-copy views, read-only unless the frame is writable; each keeps "
        "the frame alive"},
  {"__dlpack__", (PyCFunction) (void (*)(void)) frame_dlpack,
        METH_VARARGS | METH_KEYWORDS,
      "DLPack capsule of the single plane (it keeps the frame alive)"},
  {"__dlpack_device__", (PyCFunction) frame_dlpack_device, METH_NOARGS,
      "(device type, device id) of the single plane"},
  {NULL}
};

PyTypeObject FrameType = {
  PyVarObject_HEAD_INIT (NULL, 0)
      .tp_name = "doradma.Frame",
  .tp_basicsize = sizeof (FrameObject),
  .tp_flags = Py_TPFLAGS_DEFAULT,
  .tp_doc = "Frame(sample_or_buffer, writable=False): a frame that owns a "
      "reference to the buffer and its mapping; views made from it (numpy(), "
      "DLPack, planes) keep it, and the ring slot it leases, alive.",
  .tp_new = frame_new,
  .tp_dealloc = (destructor) frame_dealloc,
  .tp_repr = (reprfunc) frame_repr,
  .tp_getset = frame_getset,
  .tp_methods = frame_methods,
};

/* ------------------------------------------------------------------------ */

static struct PyModuleDef frames_module = {
  PyModuleDef_HEAD_INIT,
  .m_name = "doradma._frames",
  .m_doc = "Frames with a safe lifetime (see the doradma package)",
  .m_size = -1,
};

PyMODINIT_FUNC
PyInit__frames (void)
{
  PyObject *m;

  if (!gst_is_initialized ())
    gst_init (NULL, NULL);
  if (PyType_Ready (&FrameType) < 0 || PyType_Ready (&PlaneType) < 0)
    return NULL;
  m = PyModule_Create (&frames_module);
  if (m == NULL)
    return NULL;
  Py_INCREF (&FrameType);
  Py_INCREF (&PlaneType);
  if (PyModule_AddObject (m, "Frame", (PyObject *) & FrameType) < 0
      || PyModule_AddObject (m, "Plane", (PyObject *) & PlaneType) < 0
      || PyModule_AddStringConstant (m, "version", DORADMA_PY_VERSION) < 0) {
    Py_DECREF (m);
    return NULL;
  }
  return m;
}
