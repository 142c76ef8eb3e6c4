/* doradma GStreamer plugin — private declarations shared by the elements.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_ELEMENTS_H__
#define __GST_DORADMA_ELEMENTS_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <doradma/doradma.h>

G_BEGIN_DECLS

GST_ELEMENT_REGISTER_DECLARE (doradmasink);
GST_ELEMENT_REGISTER_DECLARE (doradmasrc);

GST_DEBUG_CATEGORY_EXTERN (gst_doradma_debug);

void doradma_element_init (GstPlugin * plugin);

/* Enumerations of the element properties. */
typedef enum
{
  GST_DORADMA_TRANSPORT_AUTO,
  GST_DORADMA_TRANSPORT_SHMEM,
  GST_DORADMA_TRANSPORT_UNIFIED,
  GST_DORADMA_TRANSPORT_IPC,
} GstDoradmaTransport;

typedef enum
{
  GST_DORADMA_MODE_LATEST,
  GST_DORADMA_MODE_LOSSLESS,
} GstDoradmaMode;

typedef enum
{
  GST_DORADMA_READ_MODE_NEXT,
  GST_DORADMA_READ_MODE_LATEST,
} GstDoradmaReadMode;

typedef enum
{
  GST_DORADMA_STALL_WAIT,
  GST_DORADMA_STALL_EVICT,
  GST_DORADMA_STALL_ERROR,
} GstDoradmaStallPolicy;

typedef enum
{
  GST_DORADMA_WRITER_LOST_WAIT,
  GST_DORADMA_WRITER_LOST_EOS,
  GST_DORADMA_WRITER_LOST_ERROR,
} GstDoradmaWriterLost;

GType gst_doradma_transport_get_type (void);
GType gst_doradma_mode_get_type (void);
GType gst_doradma_read_mode_get_type (void);
GType gst_doradma_stall_policy_get_type (void);
GType gst_doradma_writer_lost_get_type (void);
#define GST_TYPE_DORADMA_TRANSPORT (gst_doradma_transport_get_type ())
#define GST_TYPE_DORADMA_MODE (gst_doradma_mode_get_type ())
#define GST_TYPE_DORADMA_READ_MODE (gst_doradma_read_mode_get_type ())
#define GST_TYPE_DORADMA_STALL_POLICY (gst_doradma_stall_policy_get_type ())
#define GST_TYPE_DORADMA_WRITER_LOST (gst_doradma_writer_lost_get_type ())

/* Resolves `auto` through $DORADMA_TRANSPORT (empty = unset). Returns FALSE
 * with *bad_value set (to be g_free'd) when the variable holds an unknown
 * value. */
gboolean doradma_transport_resolve (GstDoradmaTransport requested,
    GstDoradmaTransport * resolved, gchar ** bad_value);
const gchar *doradma_transport_name (GstDoradmaTransport t);

/* Geometry shared by writer and reader: the rows and bytes per row that a
 * plane of `info`'s format needs at its width/height. The writer publishes
 * exactly these, the reader requires at least these. */
void doradma_plane_needs (const GstVideoInfo * info, guint plane,
    guint32 * rows, guint32 * row_bytes);

/* Nanoseconds of CLOCK_MONOTONIC, the clock of publish_time and mono_pts. */
GstClockTime doradma_monotonic_now (void);

/* Monotonic minus pipeline clock, sampled back to back (as unixfdsink). */
GstClockTimeDiff doradma_clock_diff (GstClock * clock);

/* ---------------------------------------------------------------------- */
/* Writer side: a refcounted handle on a doradma_writer, shared by the sink,
 * its pool and every slot memory, so that buffers of a replaced segment keep
 * their mapping until they are freed. All calls into the writer run under
 * `lock` (one marker per seqlock, design-review #7f). */

typedef enum
{
  DORADMA_SLOT_FREE = 0,        /* no WRITING mark; maybe published */
  DORADMA_SLOT_WRITING,         /* marked WRITING, handed upstream */
  DORADMA_SLOT_PUBLISHED,       /* published, memory still referenced */
} DoradmaSlotState;

typedef struct _DoradmaWriterHandle DoradmaWriterHandle;
struct _DoradmaWriterHandle
{
  gint refcount;
  GMutex lock;
  struct doradma_writer *w;
  guint32 n_slots;
  guint64 stride;
  /* one GstMemory per slot, created on demand; recycled by its dispose hook
   * while not referenced (cached[s] TRUE) */
  GstMemory *mems[DORADMA_MAX_SLOTS];
  gboolean cached[DORADMA_MAX_SLOTS];
  gboolean closing;
  /* transport ipc: the device allocation holding this segment's slots,
   * freed right after the writer closes (when the last slot memory of this
   * segment came back), not when the element stops */
  gpointer device_slots;
  GDestroyNotify device_slots_free;
};

DoradmaWriterHandle *doradma_writer_handle_new (struct doradma_writer *w);
DoradmaWriterHandle *doradma_writer_handle_ref (DoradmaWriterHandle * wh);
void doradma_writer_handle_unref (DoradmaWriterHandle * wh);

/* Callbacks a waiting slot acquisition uses: is the caller flushing? */
typedef gboolean (*DoradmaCancelledFunc) (gpointer data);

typedef struct
{
  enum doradma_slot_policy policy;
  GstClockTime timeout;         /* ns for lossless to wait for a free slot */
  GstDoradmaStallPolicy on_stall;
  DoradmaCancelledFunc cancelled;
  gpointer cancelled_data;
  GstElement *element;          /* errors and warnings go there */
  gboolean *waited;             /* out: had to wait for space */
} DoradmaAcquireParams;

/* Chooses a slot not referenced in this process, marks it WRITING and
 * returns its memory (a new reference, state WRITING, writable).
 * Returns GST_FLOW_OK, GST_FLOW_EOS meaning "no free slot and latest mode
 * must not wait", GST_FLOW_FLUSHING, or GST_FLOW_ERROR after posting an
 * element error. */
GstFlowReturn doradma_writer_handle_acquire (DoradmaWriterHandle * wh,
    const DoradmaAcquireParams * params, GstMemory ** mem);

/* Publishes the slot memory `mem` (state WRITING) with `info`: state becomes
 * PUBLISHED and the memory READONLY. Returns 0 or -errno from the lib. */
int doradma_writer_handle_publish (DoradmaWriterHandle * wh, GstMemory * mem,
    struct doradma_frame_info *info);

/* ---------------------------------------------------------------------- */
/* Reader side: a refcounted handle on a doradma_reader. Every leased memory
 * holds a reference, so the mapping outlives the element. */

typedef struct _DoradmaReaderHandle DoradmaReaderHandle;
struct _DoradmaReaderHandle
{
  gint refcount;
  struct doradma_reader *r;
  pid_t pid;                    /* a forked child never releases our leases */
  gint outstanding;             /* leased memories alive */
  /* DoradmaCudaReader (gstdoradmacuda.h): the segment's CUDA registration
   * or IPC mapping, or NULL; set once before the first lease, released by
   * the last unref BEFORE the reader unmaps */
  gpointer cuda;
};

DoradmaReaderHandle *doradma_reader_handle_new (struct doradma_reader *r);
DoradmaReaderHandle *doradma_reader_handle_ref (DoradmaReaderHandle * rh);
void doradma_reader_handle_unref (DoradmaReaderHandle * rh);

/* ---------------------------------------------------------------------- */
/* Memories (gstdoradmamemory.c). */

/* A read-only memory over a leased slot; takes over the lease (released by
 * the memory's free, from any thread) and a reference on `rh`. */
GstMemory *doradma_memory_new_lease (DoradmaReaderHandle * rh,
    const struct doradma_frame *frame);

/* The writable memory over slot `slot` of `wh` (no reference on wh: the
 * handle owns it and lends it out through doradma_writer_handle_acquire). */
GstMemory *doradma_memory_new_slot (DoradmaWriterHandle * wh, guint32 slot);

/* Slot memory accessors (writer side). NULL / FALSE for other memories. */
gboolean doradma_memory_is_slot (GstMemory * mem);
DoradmaWriterHandle *doradma_memory_slot_handle (GstMemory * mem);
guint32 doradma_memory_slot_index (GstMemory * mem);
DoradmaSlotState doradma_memory_slot_state (GstMemory * mem);
void doradma_memory_slot_set_state (GstMemory * mem, DoradmaSlotState state);

/* ---------------------------------------------------------------------- */
/* The sink's hooks, used by its pool (gstdoradmasink.c). */

/* Makes sure a writer exists whose slots hold `size` bytes (creating or
 * replacing the segment) and returns a new reference on it, or NULL after
 * posting an element error. */
DoradmaWriterHandle *gst_doradma_sink_prepare_writer (GstElement * sink,
    gsize size);
void gst_doradma_sink_get_acquire_params (GstElement * sink,
    DoradmaAcquireParams * params);
void gst_doradma_sink_count_fallback (GstElement * sink);
void gst_doradma_sink_count_wait (GstElement * sink);

G_END_DECLS

#endif /* __GST_DORADMA_ELEMENTS_H__ */
