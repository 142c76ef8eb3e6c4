/* doradma — CUDA slab pool, the GStreamer-free core of the slab allocator.
 *
 * One pool hands out slabs of one kind:
 *   managed  cuMemAllocManaged; attached to the host when the device lacks
 *            concurrentManagedAccess (Jetson Orin), so the CPU may touch it
 *            while unrelated kernels run;
 *   pinned   cuMemHostAlloc(DEVICEMAP|PORTABLE) and its device alias;
 *   device   cuMemCreate + cuMemAddressReserve/Map/SetAccess, requesting a
 *            POSIX fd handle type and gpuDirectRDMACapable where the device
 *            has them (dma-buf and NIC registration), else cuMemAlloc.
 * Driver allocations cost tens of microseconds and pin memory, so returned
 * slabs go onto per-size-class free lists; a byte budget bounds what the pool
 * holds (handed out + cached). Slabs are returned from any thread (GstMemory
 * free), hence one mutex per pool; driver calls happen outside it except on
 * eviction and destroy (cold).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda-api.h"

struct doradma_cuda_slab
{
  struct doradma_cuda_slab *next;       /* free list link, under pool lock */
  struct doradma_cuda_slab_pool *pool;
  struct doradma_cuda_slab_info info;
};

struct doradma_cuda_slab_pool
{
  pthread_mutex_t lock;
  struct doradma_cuda_device *dev;
  enum doradma_cuda_slab_kind kind;
  size_t gran;                  /* allocation granularity, power of 2 */
  bool vmm;                     /* device kind through cuMemCreate */
  CUmemAllocationProp prop;     /* for cuMemCreate */
  unsigned managed_flags;       /* CU_MEM_ATTACH_* */
  /* under lock: */
  struct doradma_cuda_slab *free_list[DORADMA_CUDA_SLAB_N_CLASSES];
  unsigned outstanding;         /* slabs handed out */
  bool shutting_down;
  struct doradma_cuda_slab_stats stats;
};

static uint64_t live_count;     /* __atomic */

static int
class_for (size_t size)
{
  int i;

  if (size > DORADMA_CUDA_SLAB_MAX_CLASS)
    return -1;
  for (i = 0; i < DORADMA_CUDA_SLAB_N_CLASSES; i++)
    if (doradma_cuda_slab_class_size (i) >= size)
      return i;
  return -1;
}

static size_t
round_up (size_t v, size_t gran)
{
  return (v + gran - 1) & ~(gran - 1);
}

uint64_t
doradma_cuda_slab_live_count (void)
{
  return __atomic_load_n (&live_count, __ATOMIC_RELAXED);
}

int
doradma_cuda_slab_pool_new (struct doradma_cuda_device *dev,
    enum doradma_cuda_slab_kind kind, uint64_t budget,
    struct doradma_cuda_slab_pool **out, struct doradma_diag *diag)
{
  const struct doradma_cuda_api *cu = doradma_cuda_api ();
  const struct doradma_cuda_device_info *info;
  struct doradma_cuda_slab_pool *p;
  size_t page = (size_t) sysconf (_SC_PAGESIZE);
  int ret, managed = 0;

  if (dev == NULL || out == NULL || kind < DORADMA_CUDA_SLAB_MANAGED
      || kind > DORADMA_CUDA_SLAB_DEVICE)
    return __doradma_cuda_diag (diag, "kind", -EINVAL,
        "slab pool: NULL device/out or unknown kind %d", (int) kind);
  *out = NULL;
  info = doradma_cuda_device_get_info (dev);
  if (budget == 0) {
    ret = doradma_cuda_slab_budget_from_env (&budget, diag);
    if (ret < 0)
      return ret;
    if (budget == 0)
      budget = DORADMA_CUDA_SLAB_DEFAULT_BUDGET;
  }
  if (kind == DORADMA_CUDA_SLAB_MANAGED) {
    cu->DeviceGetAttribute (&managed, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY,
        __doradma_cuda_device_handle (dev));
    if (!managed)
      return __doradma_cuda_diag (diag, "kind", -ENOTSUP,
          "slab pool: device %d (%s) does not support managed memory "
          "(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY=0)", info->ordinal, info->name);
  }

  p = calloc (1, sizeof *p);
  if (p == NULL)
    return __doradma_cuda_diag (diag, NULL, -ENOMEM, "out of memory");
  pthread_mutex_init (&p->lock, NULL);
  p->kind = kind;
  p->gran = page;
  p->stats.budget = budget;
  /* Without concurrent access the CPU may not touch any managed memory
   * while a kernel runs unless it is attached to the host. */
  p->managed_flags = info->concurrent_managed_access ?
      CU_MEM_ATTACH_GLOBAL : CU_MEM_ATTACH_HOST;

  if (kind == DORADMA_CUDA_SLAB_DEVICE && info->vmm_supported
      && cu->MemCreate && cu->MemAddressReserve && cu->MemMap
      && cu->MemSetAccess && cu->MemGetAllocationGranularity) {
    size_t g = 0;
    CUresult res;

    p->prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    p->prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p->prop.location.id = info->ordinal;
    if (info->posix_fd_handle_supported)
      p->prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    if (info->gpu_direct_rdma_with_vmm_supported)
      p->prop.allocFlags.gpuDirectRDMACapable = 1;
    res = cu->MemGetAllocationGranularity (&g, &p->prop,
        CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    if (res == CUDA_SUCCESS && g != 0 && (g & (g - 1)) == 0) {
      p->vmm = true;
      p->gran = g > page ? g : page;
    }
  }
  p->dev = doradma_cuda_device_ref (dev);
  *out = p;
  return 0;
}

/* Allocates the memory behind `s` (capacity set). Called without the pool
 * lock. Returns 0 or -errno with diag filled. */
static int
alloc_backing (struct doradma_cuda_slab_pool *p, struct doradma_cuda_slab *s,
    struct doradma_diag *diag)
{
  const struct doradma_cuda_api *cu = doradma_cuda_api ();
  struct doradma_cuda_slab_info *i = &s->info;
  size_t cap = i->capacity, free_b = 0, total_b = 0;
  CUresult res;
  CUdeviceptr d = 0;
  void *h = NULL;
  int ret = __doradma_cuda_push (p->dev, diag);

  if (ret < 0)
    return ret;
  switch (p->kind) {
    case DORADMA_CUDA_SLAB_MANAGED:
      /* Oversubscribed managed memory can hang the GPU, not just us. */
      res = cu->MemGetInfo (&free_b, &total_b);
      if (res != CUDA_SUCCESS) {
        ret = __doradma_cuda_fail (diag, "cuMemGetInfo", res, NULL);
        break;
      }
      if (cap > free_b) {
        ret = __doradma_cuda_diag (diag, "cuMemGetInfo", -ENOMEM,
            "managed slab of %zu bytes refused: only %zu bytes of device "
            "memory are free (cuMemGetInfo); managed memory is never "
            "oversubscribed", cap, free_b);
        break;
      }
      res = cu->MemAllocManaged (&d, cap, p->managed_flags);
      if (res != CUDA_SUCCESS) {
        ret = __doradma_cuda_fail (diag, "cuMemAllocManaged", res,
            " (%zu bytes)", cap);
        break;
      }
      i->host = (void *) (uintptr_t) d;
      i->device = d;
      break;
    case DORADMA_CUDA_SLAB_PINNED:
      res = cu->MemHostAlloc (&h, cap,
          CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE);
      if (res != CUDA_SUCCESS) {
        ret = __doradma_cuda_fail (diag, "cuMemHostAlloc", res,
            " (%zu bytes)", cap);
        break;
      }
      res = cu->MemHostGetDevicePointer (&d, h, 0);
      if (res != CUDA_SUCCESS) {
        ret = __doradma_cuda_fail (diag, "cuMemHostGetDevicePointer", res,
            NULL);
        cu->MemFreeHost (h);
        break;
      }
      i->host = h;
      i->device = d;
      break;
    case DORADMA_CUDA_SLAB_DEVICE:
      if (p->vmm) {
        CUmemGenericAllocationHandle mh;
        CUmemAccessDesc acc = { 0 };

        res = cu->MemCreate (&mh, cap, &p->prop, 0);
        if (res != CUDA_SUCCESS) {
          ret = __doradma_cuda_fail (diag, "cuMemCreate", res,
              " (%zu bytes, handle types 0x%x, gpuDirectRDMACapable %d)",
              cap, (unsigned) p->prop.requestedHandleTypes,
              (int) p->prop.allocFlags.gpuDirectRDMACapable);
          break;
        }
        res = cu->MemAddressReserve (&d, cap, 0, 0, 0);
        if (res != CUDA_SUCCESS) {
          ret = __doradma_cuda_fail (diag, "cuMemAddressReserve", res, NULL);
          cu->MemRelease (mh);
          break;
        }
        res = cu->MemMap (d, cap, 0, mh, 0);
        /* The mapping keeps the memory alive; the handle is not needed. */
        cu->MemRelease (mh);
        if (res != CUDA_SUCCESS) {
          ret = __doradma_cuda_fail (diag, "cuMemMap", res, NULL);
          cu->MemAddressFree (d, cap);
          break;
        }
        /* Mapping alone grants no access. */
        acc.location = p->prop.location;
        acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        res = cu->MemSetAccess (d, cap, &acc, 1);
        if (res != CUDA_SUCCESS) {
          ret = __doradma_cuda_fail (diag, "cuMemSetAccess", res, NULL);
          cu->MemUnmap (d, cap);
          cu->MemAddressFree (d, cap);
          break;
        }
        i->vmm = true;
      } else {
        res = cu->MemAlloc (&d, cap);
        if (res != CUDA_SUCCESS) {
          ret = __doradma_cuda_fail (diag, "cuMemAlloc", res, " (%zu bytes)",
              cap);
          break;
        }
      }
      i->device = d;
      break;
  }
  __doradma_cuda_pop ();
  if (ret == 0)
    __atomic_add_fetch (&live_count, 1, __ATOMIC_RELAXED);
  return ret;
}

static void
free_backing (struct doradma_cuda_slab_pool *p, struct doradma_cuda_slab *s)
{
  const struct doradma_cuda_api *cu = doradma_cuda_api ();
  struct doradma_cuda_slab_info *i = &s->info;

  /* Nothing to report to: a failing free is a driver bug or a lost
   * context; the memory is gone with the process anyway. */
  if (__doradma_cuda_push (p->dev, NULL) == 0) {
    switch (p->kind) {
      case DORADMA_CUDA_SLAB_MANAGED:
        cu->MemFree (i->device);
        break;
      case DORADMA_CUDA_SLAB_PINNED:
        cu->MemFreeHost (i->host);
        break;
      case DORADMA_CUDA_SLAB_DEVICE:
        if (i->vmm) {
          cu->MemUnmap (i->device, i->capacity);
          cu->MemAddressFree (i->device, i->capacity);
        } else {
          cu->MemFree (i->device);
        }
        break;
    }
    __doradma_cuda_pop ();
  }
  __atomic_sub_fetch (&live_count, 1, __ATOMIC_RELAXED);
  free (s);
}

static void
pool_finalize (struct doradma_cuda_slab_pool *p)
{
  pthread_mutex_destroy (&p->lock);
  doradma_cuda_device_unref (p->dev);
  free (p);
}

/* Frees cached slabs, largest class first, until `need` more bytes fit the
 * budget. Pool lock held. Returns true when they fit. */
static bool
make_room_locked (struct doradma_cuda_slab_pool *p, uint64_t need)
{
  int c;

  for (c = DORADMA_CUDA_SLAB_N_CLASSES - 1; c >= 0; c--) {
    while (p->stats.bytes_in_use + p->stats.bytes_cached + need >
        p->stats.budget && p->free_list[c] != NULL) {
      struct doradma_cuda_slab *s = p->free_list[c];

      p->free_list[c] = s->next;
      p->stats.bytes_cached -= s->info.capacity;
      p->stats.evictions++;
      free_backing (p, s);
    }
  }
  return p->stats.bytes_in_use + p->stats.bytes_cached + need <=
      p->stats.budget;
}

int
doradma_cuda_slab_alloc (struct doradma_cuda_slab_pool *pool, size_t size,
    struct doradma_cuda_slab **out, struct doradma_diag *diag)
{
  struct doradma_cuda_slab *s;
  size_t cap;
  int cls, ret;

  if (pool == NULL || out == NULL || size == 0)
    return __doradma_cuda_diag (diag, "size", -EINVAL,
        "slab alloc: NULL pool/out or zero size");
  *out = NULL;
  cls = class_for (size);
  if (cls >= 0) {
    /* Rounding a class to a power-of-two granularity lands on another
     * class (or past the largest one): key the free list by capacity. */
    cap = round_up (doradma_cuda_slab_class_size (cls), pool->gran);
    cls = class_for (cap);
    if (cls >= 0 && doradma_cuda_slab_class_size (cls) != cap)
      cls = -1;
  } else {
    cap = round_up (size, pool->gran);
  }

  pthread_mutex_lock (&pool->lock);
  if (pool->shutting_down) {
    pthread_mutex_unlock (&pool->lock);
    return __doradma_cuda_diag (diag, NULL, -ESHUTDOWN,
        "slab pool (%s) is being destroyed",
        doradma_cuda_slab_kind_name (pool->kind));
  }
  if (cls >= 0 && pool->free_list[cls] != NULL) {
    s = pool->free_list[cls];
    pool->free_list[cls] = s->next;
    s->next = NULL;
    pool->stats.bytes_cached -= cap;
    pool->stats.bytes_in_use += cap;
    pool->stats.allocs++;
    pool->stats.hits++;
    pool->stats.class_hits[cls]++;
    pool->outstanding++;
    pthread_mutex_unlock (&pool->lock);
    s->info.size = size;
    *out = s;
    return 0;
  }
  if (!make_room_locked (pool, cap)) {
    pool->stats.refusals++;
    ret = __doradma_cuda_diag (diag, DORADMA_CUDA_SLAB_BUDGET_ENV, -ENOMEM,
        "slab pool (%s) budget exhausted: %zu more bytes needed, %llu in "
        "use, budget %llu bytes (" DORADMA_CUDA_SLAB_BUDGET_ENV
        " or the budget argument)", doradma_cuda_slab_kind_name (pool->kind),
        cap, (unsigned long long) pool->stats.bytes_in_use,
        (unsigned long long) pool->stats.budget);
    pthread_mutex_unlock (&pool->lock);
    return ret;
  }
  /* Reserve the bytes now so concurrent allocations see them. */
  pool->stats.bytes_in_use += cap;
  pool->outstanding++;
  pthread_mutex_unlock (&pool->lock);

  s = calloc (1, sizeof *s);
  if (s == NULL) {
    ret = __doradma_cuda_diag (diag, NULL, -ENOMEM, "out of memory");
    goto undo;
  }
  s->pool = pool;
  s->info.kind = pool->kind;
  s->info.size = size;
  s->info.capacity = cap;
  s->info.size_class = cls;
  ret = alloc_backing (pool, s, diag);
  if (ret < 0) {
    free (s);
    goto undo;
  }
  pthread_mutex_lock (&pool->lock);
  pool->stats.allocs++;
  pool->stats.misses++;
  if (cls < 0)
    pool->stats.unpooled++;
  pthread_mutex_unlock (&pool->lock);
  *out = s;
  return 0;

undo:
  pthread_mutex_lock (&pool->lock);
  pool->stats.bytes_in_use -= cap;
  pool->outstanding--;
  if (ret == -ENOMEM)
    pool->stats.refusals++;
  pthread_mutex_unlock (&pool->lock);
  return ret;
}

const struct doradma_cuda_slab_info *
doradma_cuda_slab_get_info (const struct doradma_cuda_slab *slab)
{
  return &slab->info;
}

void
doradma_cuda_slab_free (struct doradma_cuda_slab *slab)
{
  struct doradma_cuda_slab_pool *p;
  bool release, last;
  int cls;

  if (slab == NULL)
    return;
  p = slab->pool;
  cls = slab->info.size_class;
  pthread_mutex_lock (&p->lock);
  p->stats.bytes_in_use -= slab->info.capacity;
  p->outstanding--;
  release = p->shutting_down || cls < 0;
  if (!release) {
    slab->next = p->free_list[cls];
    p->free_list[cls] = slab;
    p->stats.bytes_cached += slab->info.capacity;
  }
  last = p->shutting_down && p->outstanding == 0;
  pthread_mutex_unlock (&p->lock);
  if (release)
    free_backing (p, slab);
  if (last)
    pool_finalize (p);
}

int
doradma_cuda_slab_export_dmabuf (const struct doradma_cuda_slab *slab,
    int *fd, uint64_t * size, struct doradma_diag *diag)
{
  const struct doradma_cuda_api *cu = doradma_cuda_api ();
  const struct doradma_cuda_device_info *info;
  const struct doradma_cuda_slab_info *i;
  CUresult res;
  int ret, out_fd = -1;

  if (slab == NULL || fd == NULL)
    return __doradma_cuda_diag (diag, NULL, -EINVAL,
        "dma-buf export: NULL slab or fd");
  *fd = -1;
  i = &slab->info;
  info = doradma_cuda_device_get_info (slab->pool->dev);
  if (i->kind == DORADMA_CUDA_SLAB_MANAGED)
    return __doradma_cuda_diag (diag, "kind", -ENOTSUP,
        "dma-buf export refused: the slab is managed memory "
        "(cuMemAllocManaged), which CUDA cannot export as a dma-buf, share "
        "with another process or give a NIC for GPUDirect; use kind device");
  if (cu->MemGetHandleForAddressRange == NULL)
    return __doradma_cuda_diag (diag, "cuMemGetHandleForAddressRange",
        -ENOTSUP, "dma-buf export: the driver (version %d) lacks "
        "cuMemGetHandleForAddressRange (CUDA >= 11.7)",
        doradma_cuda_driver_version ());
  if (i->kind == DORADMA_CUDA_SLAB_PINNED
      && !info->host_alloc_dma_buf_supported)
    return __doradma_cuda_diag (diag, "kind", -ENOTSUP,
        "dma-buf export refused: device %d (%s) cannot export pinned host "
        "memory (CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED=0); use "
        "kind device, or register pinned memory with ibv_reg_mr", info->ordinal,
        info->name);
  if (i->kind == DORADMA_CUDA_SLAB_DEVICE && !info->dma_buf_supported)
    return __doradma_cuda_diag (diag, "kind", -ENOTSUP,
        "dma-buf export refused: device %d (%s) has "
        "CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED=0 (needs the open kernel "
        "module and Linux >= 5.12)", info->ordinal, info->name);

  ret = __doradma_cuda_push (slab->pool->dev, diag);
  if (ret < 0)
    return ret;
  /* Capacity is a multiple of the host page size, as the call requires. */
  res = cu->MemGetHandleForAddressRange (&out_fd, i->device, i->capacity,
      CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
  __doradma_cuda_pop ();
  if (res != CUDA_SUCCESS)
    return __doradma_cuda_fail (diag, "cuMemGetHandleForAddressRange", res,
        " (%s slab, %zu bytes)", doradma_cuda_slab_kind_name (i->kind),
        i->capacity);
  *fd = out_fd;
  if (size)
    *size = i->capacity;
  return 0;
}

void
doradma_cuda_slab_pool_get_stats (struct doradma_cuda_slab_pool *pool,
    struct doradma_cuda_slab_stats *stats)
{
  pthread_mutex_lock (&pool->lock);
  *stats = pool->stats;
  pthread_mutex_unlock (&pool->lock);
}

void
doradma_cuda_slab_pool_destroy (struct doradma_cuda_slab_pool *pool)
{
  struct doradma_cuda_slab *cached = NULL, *s;
  bool last;
  int c;

  if (pool == NULL)
    return;
  pthread_mutex_lock (&pool->lock);
  pool->shutting_down = true;
  for (c = 0; c < DORADMA_CUDA_SLAB_N_CLASSES; c++) {
    while ((s = pool->free_list[c]) != NULL) {
      pool->free_list[c] = s->next;
      s->next = cached;
      cached = s;
    }
  }
  pool->stats.bytes_cached = 0;
  last = pool->outstanding == 0;
  pthread_mutex_unlock (&pool->lock);
  while ((s = cached) != NULL) {
    cached = s->next;
    free_backing (pool, s);
  }
  /* Otherwise the last doradma_cuda_slab_free() finalizes. */
  if (last)
    pool_finalize (pool);
}
