/* doradma._frames.Plane: one plane of a Frame as a zero-copy view: the
 * buffer protocol (NumPy, memoryview), numpy() shaped rows x columns x
 * bytes per pixel, DLPack, and __cuda_array_interface__ for a plane with a
 * CUDA address. Each export holds a reference to the plane, the plane one
 * to its frame: the mapping outlives every view made from it. */
#include "frames.h"

#include "dlpack.h"

static const struct plane_layout *
layout (const PlaneObject * self)
{
  return &self->frame->planes[self->index];
}

PyObject *
plane_new (FrameObject * frame, guint index)
{
  PlaneObject *p = PyObject_New (PlaneObject, &PlaneType);

  if (p == NULL)
    return NULL;
  Py_INCREF (frame);
  p->frame = frame;
  p->index = index;
  return (PyObject *) p;
}

static void
plane_dealloc (PlaneObject * self)
{
  Py_XDECREF (self->frame);
  PyObject_Free (self);
}

/* A device-only plane has no bytes the CPU may read: say what to use. */
static PyObject *
refuse_device_only (const PlaneObject * self)
{
  PyErr_Format (PyExc_BufferError, "a device-only frame (%s) has no host "
      "bytes: use __cuda_array_interface__ or DLPack (CuPy, torch), or "
      "copy it to system memory upstream (cudadownload)", self->frame->cuda ?
      "memory:CUDAMemory" : "transport ipc");
  return NULL;
}

static int
plane_getbuffer (PlaneObject * self, Py_buffer * view, int flags)
{
  const struct plane_layout *l = layout (self);

  if (l->host == NULL) {
    view->obj = NULL;
    refuse_device_only (self);
    return -1;
  }
  /* view->obj = self (a reference): the view keeps the frame mapped. */
  return PyBuffer_FillInfo (view, (PyObject *) self, l->host, l->size,
      !self->frame->writable, flags);
}

static PyBufferProcs plane_as_buffer = {
  .bf_getbuffer = (getbufferproc) plane_getbuffer,
};

static PyObject *
tuple_of (const Py_ssize_t * v, int n)
{
  PyObject *t = PyTuple_New (n);
  int i;

  for (i = 0; t && i < n; i++) {
    PyObject *item = PyLong_FromSsize_t (v[i]);
    if (item == NULL) {
      Py_CLEAR (t);
      break;
    }
    PyTuple_SET_ITEM (t, i, item);
  }
  return t;
}

static PyObject *
plane_get_shape (PlaneObject * self, void *closure)
{
  return tuple_of (layout (self)->shape, layout (self)->ndim);
}

static PyObject *
plane_get_strides (PlaneObject * self, void *closure)
{
  return tuple_of (layout (self)->strides, layout (self)->ndim);
}

static PyObject *
plane_get_pointer (PlaneObject * self, void *closure)
{
  if (closure)
    return PyLong_FromUnsignedLongLong (layout (self)->device);
  return PyLong_FromVoidPtr (layout (self)->host);
}

static PyObject *
plane_get_readonly (PlaneObject * self, void *closure)
{
  return PyBool_FromLong (!self->frame->writable);
}

/* numpy.frombuffer over the mapping (its base holds this plane), then the
 * plane's shape and strides over it. */
static PyObject *
plane_numpy (PlaneObject * self, PyObject * unused)
{
  const struct plane_layout *l = layout (self);
  PyObject *np = NULL, *tricks = NULL, *flat = NULL, *shape = NULL,
      *strides = NULL, *kw = NULL, *args = NULL, *fn = NULL, *r = NULL;

  if (l->host == NULL)
    return refuse_device_only (self);
  if (!(np = PyImport_ImportModule ("numpy"))
      || !(tricks = PyImport_ImportModule ("numpy.lib.stride_tricks"))
      || !(flat = PyObject_CallMethod (np, "frombuffer", "Os", self, "uint8"))
      || !(shape = plane_get_shape (self, NULL))
      || !(strides = plane_get_strides (self, NULL))
      || !(kw = Py_BuildValue ("{sOsOsO}", "shape", shape, "strides", strides,
              "writeable", self->frame->writable ? Py_True : Py_False))
      || !(args = PyTuple_Pack (1, flat))
      || !(fn = PyObject_GetAttrString (tricks, "as_strided")))
    goto out;
  r = PyObject_Call (fn, args, kw);
out:
  Py_XDECREF (np);
  Py_XDECREF (tricks);
  Py_XDECREF (flat);
  Py_XDECREF (shape);
  Py_XDECREF (strides);
  Py_XDECREF (kw);
  Py_XDECREF (args);
  Py_XDECREF (fn);
  return r;
}

/* ------------------------------------------------------------------------ */
/* DLPack                                                                   */
/* ------------------------------------------------------------------------ */

struct managed
{
  DLManagedTensor t;
  int64_t shape[3];
  int64_t strides[3];
};

/* Called by the consumer (NumPy, torch) when its array goes, from any
 * thread: drops the reference to the plane under the GIL. */
static void
managed_delete (DLManagedTensor * t)
{
  PyGILState_STATE gil = PyGILState_Ensure ();

  Py_XDECREF ((PyObject *) t->manager_ctx);
  PyMem_RawFree (t);
  PyGILState_Release (gil);
}

struct managed_versioned
{
  DLManagedTensorVersioned t;
  int64_t shape[3];
  int64_t strides[3];
};

static void
managed_versioned_delete (DLManagedTensorVersioned * t)
{
  PyGILState_STATE gil = PyGILState_Ensure ();

  Py_XDECREF ((PyObject *) t->manager_ctx);
  PyMem_RawFree (t);
  PyGILState_Release (gil);
}

static void
capsule_versioned_destroy (PyObject * capsule)
{
  DLManagedTensorVersioned *t;

  if (!PyCapsule_IsValid (capsule, "dltensor_versioned"))
    return;                     /* consumed: "used_dltensor_versioned" */
  t = PyCapsule_GetPointer (capsule, "dltensor_versioned");
  if (t && t->deleter)
    t->deleter (t);
}

/* A capsule nobody consumed (still named "dltensor") owns its tensor. */
static void
capsule_destroy (PyObject * capsule)
{
  DLManagedTensor *t;

  if (!PyCapsule_IsValid (capsule, "dltensor"))
    return;                     /* consumed: renamed "used_dltensor" */
  t = PyCapsule_GetPointer (capsule, "dltensor");
  if (t && t->deleter)
    t->deleter (t);
}

static gboolean
on_device (const struct plane_layout *l)
{
  return l->host == NULL;
}

static PyObject *plane_dlpack_device (PlaneObject * self, PyObject * unused);

static PyObject *
plane_dlpack (PlaneObject * self, PyObject * args, PyObject * kwargs)
{
  static char *keywords[] = { "stream", "max_version", "dl_device", "copy",
    NULL
  };
  const struct plane_layout *l = layout (self);
  PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None;
  PyObject *copy = Py_None, *capsule;
  DLTensor *dl;
  struct managed *m = NULL;
  struct managed_versioned *mv = NULL;
  long major = 0;
  int i;

  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "|$OOOO:__dlpack__",
          keywords, &stream, &max_version, &dl_device, &copy))
    return NULL;
  if (copy == Py_True) {
    PyErr_SetString (PyExc_BufferError, "__dlpack__: copy=True: frames are "
        "exported without a copy; copy the array instead (numpy.array, "
        "torch's .clone())");
    return NULL;
  }
  if (dl_device != Py_None) {
    PyObject *ours = plane_dlpack_device (self, NULL);
    int same = ours ? PyObject_RichCompareBool (ours, dl_device, Py_EQ) : -1;

    Py_XDECREF (ours);
    if (same < 0)
      return NULL;
    if (!same) {
      PyErr_SetString (PyExc_BufferError, "__dlpack__: dl_device differs "
          "from the frame's device (no cross-device export)");
      return NULL;
    }
  }
  /* A consumer that speaks DLPack >= 1.0 gets the versioned capsule, whose
   * flags say read-only (the ring is mapped PROT_READ: a write through a
   * tensor that does not know would be SIGSEGV). */
  if (max_version != Py_None) {
    PyObject *first = PyTuple_Check (max_version) &&
        PyTuple_GET_SIZE (max_version) >= 1 ?
        PyTuple_GET_ITEM (max_version, 0) : NULL;

    major = first ? PyLong_AsLong (first) : -1;
    if (major == -1 && PyErr_Occurred ())
      return NULL;
  }
  /* Host data is complete when published; a CUDA consumer's stream needs
   * no wait either (the producer synchronised before publishing). */
  if (!on_device (l) && stream != Py_None) {
    PyErr_SetString (PyExc_ValueError, "__dlpack__: stream must be None "
        "for host memory");
    return NULL;
  }
  if (major >= 1) {
    mv = PyMem_RawCalloc (1, sizeof *mv);
    if (mv == NULL)
      return PyErr_NoMemory ();
    dl = &mv->t.dl_tensor;
    for (i = 0; i < l->ndim; i++) {
      mv->shape[i] = l->shape[i];
      mv->strides[i] = l->strides[i];   /* uint8: elements are bytes */
    }
    dl->shape = mv->shape;
    dl->strides = mv->strides;
  } else {
    m = PyMem_RawCalloc (1, sizeof *m);
    if (m == NULL)
      return PyErr_NoMemory ();
    dl = &m->t.dl_tensor;
    for (i = 0; i < l->ndim; i++) {
      m->shape[i] = l->shape[i];
      m->strides[i] = l->strides[i];
    }
    dl->shape = m->shape;
    dl->strides = m->strides;
  }
  dl->data = on_device (l) ? (void *) (uintptr_t) l->device : (void *) l->host;
  dl->device.device_type = on_device (l) ? kDLCUDA : kDLCPU;
  dl->device.device_id = 0;
  dl->ndim = l->ndim;
  dl->dtype.code = kDLUInt;
  dl->dtype.bits = 8;
  dl->dtype.lanes = 1;
  Py_INCREF (self);
  if (mv != NULL) {
    mv->t.version.major = 1;
    mv->t.version.minor = 0;
    mv->t.manager_ctx = self;
    mv->t.deleter = managed_versioned_delete;
    mv->t.flags = self->frame->writable ? 0 : DLPACK_FLAG_BITMASK_READ_ONLY;
    capsule = PyCapsule_New (&mv->t, "dltensor_versioned",
        capsule_versioned_destroy);
    if (capsule == NULL)
      managed_versioned_delete (&mv->t);
    return capsule;
  }
  m->t.manager_ctx = self;
  m->t.deleter = managed_delete;
  capsule = PyCapsule_New (&m->t, "dltensor", capsule_destroy);
  if (capsule == NULL)
    managed_delete (&m->t);
  return capsule;
}

static PyObject *
plane_dlpack_device (PlaneObject * self, PyObject * unused)
{
  /* CUDA device 0's primary context: where doradma's addresses are. */
  return Py_BuildValue ("(ii)", on_device (layout (self)) ? kDLCUDA : kDLCPU,
      0);
}

static PyObject *
plane_get_cai (PlaneObject * self, void *closure)
{
  const struct plane_layout *l = layout (self);
  PyObject *shape, *strides, *r;

  if (l->device == 0) {
    PyErr_SetString (PyExc_AttributeError, "__cuda_array_interface__: the "
        "plane has no CUDA address (transport shmem or system memory; "
        "memory:CUDAMemory caps give device frames)");
    return NULL;
  }
  shape = plane_get_shape (self, NULL);
  strides = plane_get_strides (self, NULL);
  /* stream None: no synchronisation needed, the frame was complete when
   * published. */
  r = Py_BuildValue ("{sisOsOsss(KO)sO}", "version", 3, "shape", shape,
      "strides", strides, "typestr", "|u1", "data",
      (unsigned long long) l->device,
      self->frame->writable ? Py_False : Py_True, "stream", Py_None);
  Py_XDECREF (shape);
  Py_XDECREF (strides);
  return r;
}

static PyGetSetDef plane_getset[] = {
  {"shape", (getter) plane_get_shape, NULL,
      "(rows, columns, bytes per pixel), (rows, stride) or (bytes,)"},
  {"strides", (getter) plane_get_strides, NULL, "byte strides of shape"},
  {"host_pointer", (getter) plane_get_pointer, NULL,
      "host address of the plane's first byte (0: device only)", NULL},
  {"device_pointer", (getter) plane_get_pointer, NULL,
      "CUDA address of the plane's first byte (0: none)", "device"},
  {"readonly", (getter) plane_get_readonly, NULL, "views are read-only"},
  {"__cuda_array_interface__", (getter) plane_get_cai, NULL,
      "CUDA array interface v3 (planes with a CUDA address)"},
  {NULL}
};

static PyMethodDef plane_methods[] = {
  {"numpy", (PyCFunction) plane_numpy, METH_NOARGS,
      "numpy() -> ndarray: a zero-copy view that keeps the frame alive"},
  {"__dlpack__", (PyCFunction) (void (*)(void)) plane_dlpack,
        METH_VARARGS | METH_KEYWORDS,
      "__dlpack__(*, stream=None, max_version=None, dl_device=None, "
        "copy=None) -> capsule; the consumer's array keeps the frame alive. "
        "max_version >= (1, 0): a versioned capsule, flagged read-only "
        "unless the frame is writable"},
  {"__dlpack_device__", (PyCFunction) plane_dlpack_device, METH_NOARGS,
      "(kDLCPU or kDLCUDA, 0)"},
  {NULL}
};

PyTypeObject PlaneType = {
  PyVarObject_HEAD_INIT (NULL, 0)
      .tp_name = "doradma.Plane",
  .tp_basicsize = sizeof (PlaneObject),
  .tp_flags = Py_TPFLAGS_DEFAULT,
  .tp_doc = "One plane of a doradma.Frame: a zero-copy view (buffer "
      "protocol, numpy(), DLPack, __cuda_array_interface__).",
  .tp_dealloc = (destructor) plane_dealloc,
  .tp_as_buffer = &plane_as_buffer,
  .tp_getset = plane_getset,
  .tp_methods = plane_methods,
};
