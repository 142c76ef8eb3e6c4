/* doradma._frames: a frame that owns a buffer reference and its mapping
 * (frame.c), and its planes, each a zero-copy view with the buffer
 * protocol, DLPack and __cuda_array_interface__ (plane.c). Every plane, and
 * every array or capsule made from one, holds a reference to its frame: the
 * frame, and so the ring slot's lease, lives until the last of them goes. */
#ifndef DORADMA_PY_FRAMES_H
#define DORADMA_PY_FRAMES_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <gst/gst.h>
#include <gst/video/video.h>

#define FRAME_MAX_PLANES GST_VIDEO_MAX_PLANES

/* Where a plane is and how it is laid out, in bytes. */
struct plane_layout
{
  guint8 *host;                 /* NULL: device only */
  guint64 device;               /* CUDA device address, 0: none */
  Py_ssize_t size;              /* bytes from host/device to the end of the mapping */
  int ndim;                     /* 3 (rows, columns, bytes per pixel) or 1 */
  Py_ssize_t shape[3];
  Py_ssize_t strides[3];
};

typedef struct
{
  PyObject_HEAD GstBuffer *buffer;      /* our reference */
  GstCaps *caps;                /* NULL when none was given */
  gboolean video;               /* a GstVideoFrame is mapped */
  gboolean mapped;              /* `map` is mapped (not video) */
  gboolean cuda;                /* memory:CUDAMemory, vframe mapped on the device */
  gboolean writable;
  GstVideoFrame vframe;
  GstMapInfo map;
  guint n_planes;
  struct plane_layout planes[FRAME_MAX_PLANES];
} FrameObject;

typedef struct
{
  PyObject_HEAD FrameObject *frame;     /* strong reference */
  guint index;
} PlaneObject;

extern PyTypeObject FrameType;
extern PyTypeObject PlaneType;

/* A new plane view of frame->planes[index]. */
PyObject *plane_new (FrameObject * frame, guint index);

#endif
