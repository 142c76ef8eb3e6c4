/* The model's side of tests/relacy/real-atomic.h: lib's shared words as
 * Relacy atomics. lib keeps them as plain integers in mapped objects, and a
 * writer and a reader map the same object at different addresses, so a
 * word is named by its object (device, inode) and offset, found through the
 * mappings lib made (mmap, mmap64 and munmap are wrapped, -Wl,--wrap). The first
 * access in an iteration makes the word's atomic from the bytes there (the
 * object as created); every store and read-modify-write also writes the
 * bytes, so plain reads and the futex compare see the newest value, while
 * a load returns what the memory model allows. The futex system call is
 * wrapped too: FUTEX_WAIT compares the newest value and parks the thread in
 * Relacy until a FUTEX_WAKE on the same word (or, for a timed wait, until
 * Relacy ends it: a thread with a timeout is never deadlocked, so a
 * scenario whose waits must all end by an event makes them untimed,
 * model_untimed_waits, and a lost wake-up is then a deadlock Relacy
 * reports); clock_gettime, so that time passes. */
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <dlfcn.h>
#include <tuple>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <relacy/relacy.hpp>
/* lib and this file use the C library's own, not Relacy's emulation */
#undef new
#undef delete
#undef errno
#define errno (*__errno_location ())

#include "real-atomic.h"
#include "model-cells.h"

namespace
{
  /* Relacy replaces operator new with its per-iteration heap; the tables
   * outlive iterations, so they use the C library's. */
  template < class T > struct plain_allocator
  {
    typedef T value_type;
      plain_allocator ()
    {
    }
    template < class U > plain_allocator (const plain_allocator < U > &)
    {
    }
    T *allocate (size_t n)
    {
      T *p = static_cast < T * >((::malloc) (n * sizeof (T)));

      if (p == NULL)
        abort ();
      return p;
    }
    void deallocate (T * p, size_t)
    {
      (::free) (p);
    }
  };
  template < class T, class U > bool operator== (const plain_allocator < T > &,
      const plain_allocator < U > &)
  {
    return true;
  }
  template < class T, class U > bool operator!= (const plain_allocator < T > &,
      const plain_allocator < U > &)
  {
    return false;
  }

  typedef std::tuple < uint64_t, uint64_t, uint64_t > word_key;  /* dev, ino, offset */

  struct mapping
  {
    uintptr_t end;
    uint64_t dev, ino, offset;
  };

  /* Every width in a 64-bit atomic, zero-extended: 1-byte words (the caps
   * strings) and 4- and 8-byte ones. Relacy's strongly initialised atomic
   * (a value every thread may read, as bytes written before the threads
   * started are) starts at 0, so the atomic holds the word XOR its bytes
   * at the first access. */
  typedef rl::generic_atomic < uint64_t, true > word_atomic;

  struct cell
  {
    unsigned size;
    uint64_t first;             /* the bytes at the first access */
    word_atomic *a;
  };

  typedef std::map < uintptr_t, mapping, std::less < uintptr_t >,
      plain_allocator < std::pair < const uintptr_t, mapping > > >map_table;
  typedef std::map < word_key, cell, std::less < word_key >,
      plain_allocator < std::pair < const word_key, cell > > >cell_table;

  typedef std::set < uintptr_t, std::less < uintptr_t >,
      plain_allocator < uintptr_t > >site_table;

  map_table maps;               /* by start address */
  site_table sites;             /* return addresses of modelled calls */
  cell_table cells;
  bool modelled;                /* between model_begin and model_end */
  bool untimed;                 /* model_untimed_waits */
  bool no_spurious;             /* model_no_spurious_wakeups */
  void (*fetch_or_hook) (void); /* model_before_fetch_or */

  word_key key_of (const void *p)
  {
    uintptr_t a = (uintptr_t) p;
    map_table::iterator it = maps.upper_bound (a);

    if (it != maps.begin ()) {
      --it;
      if (a < it->second.end)
        return word_key (it->second.dev, it->second.ino,
            it->second.offset + (a - it->first));
    }
    return word_key (0, 0, a);  /* private memory: its address */
  }

  uint64_t bytes_get (const void *p, unsigned size)
  {
    uint64_t v = 0;

    memcpy (&v, p, size);       /* little-endian (layout.h) */
    return v;
  }

  cell & cell_of (const void *p, unsigned size)
  {
    word_key k = key_of (p);
    cell_table::iterator it = cells.find (k);

    if (size != 1 && size != 2 && size != 4 && size != 8) {
      fprintf (stderr, "model: %u-byte atomic at %p\n", size, p);
      abort ();
    }
    if (it != cells.end ()) {
      if (it->second.size != size) {
        fprintf (stderr, "model: word %p accessed as %u and %u bytes\n", p,
            it->second.size, size);
        abort ();
      }
      return it->second;
    }
    cell c = { size, bytes_get (p, size), new word_atomic };
    return cells.insert (std::make_pair (k, c)).first->second;
  }

  /* the call site in lib of a modelled access (for tests/relacy/reached.py) */
#define NOTE_SITE() sites.insert ((uintptr_t) __builtin_return_address (0))

  rl::memory_order mo_of (int mo)
  {
    return static_cast < rl::memory_order > (mo);
  }

  void write_through (void *p, unsigned size, uint64_t v)
  {
    memcpy (p, &v, size);
  }

  uint64_t mask_of (unsigned size)
  {
    return size == 8 ? ~0ull : (1ull << (8 * size)) - 1;
  }
}

static_assert (__ATOMIC_RELAXED == rl::mo_relaxed
    && __ATOMIC_ACQUIRE == rl::mo_acquire
    && __ATOMIC_RELEASE == rl::mo_release
    && __ATOMIC_ACQ_REL == rl::mo_acq_rel
    && __ATOMIC_SEQ_CST == rl::mo_seq_cst, "memory order numbering");

/* Outside the threads (a scenario's set-up and tear-down, one thread):
 * the plain build's builtins. */
#define NATIVE(p, size, op, ...) \
  (size == 1 ? (uint64_t) op ((uint8_t *) (p), __VA_ARGS__) : \
   size == 2 ? (uint64_t) op ((uint16_t *) (p), __VA_ARGS__) : \
   size == 4 ? (uint64_t) op ((uint32_t *) (p), __VA_ARGS__) : \
   (uint64_t) op ((uint64_t *) (p), __VA_ARGS__))

extern "C" uint64_t
model_atomic_load (const void *p, unsigned size, int mo)
{
  if (!modelled)
    return NATIVE (const_cast < void *>(p), size, __atomic_load_n, mo);
  NOTE_SITE ();
  cell & c = cell_of (p, size);

  return c.a->load (mo_of (mo), $) ^ c.first;
}

extern "C" void
model_atomic_store (void *p, unsigned size, uint64_t v, int mo)
{
  v &= mask_of (size);
  if (!modelled) {
    switch (size) {
      case 1:
        __atomic_store_n ((uint8_t *) p, (uint8_t) v, mo);
        return;
      case 2:
        __atomic_store_n ((uint16_t *) p, (uint16_t) v, mo);
        return;
      case 4:
        __atomic_store_n ((uint32_t *) p, (uint32_t) v, mo);
        return;
      default:
        __atomic_store_n ((uint64_t *) p, v, mo);
        return;
    }
  }
  NOTE_SITE ();
  cell & c = cell_of (p, size);
  c.a->store (v ^ c.first, mo_of (mo), $);
  write_through (p, size, v);
}

/* A read-modify-write as a CAS loop in the XOR space: one atomic RMW with
 * lib's order when it succeeds, a relaxed read when it fails. */
template < class F > static uint64_t
model_rmw (void *p, unsigned size, int mo, F f)
{
  cell & c = cell_of (p, size);
  uint64_t x = c.a->load (rl::mo_relaxed, $), old;

  for (;;) {
    old = x ^ c.first;
    if (c.a->compare_exchange_strong (x, (f (old) & mask_of (size)) ^ c.first,
            mo_of (mo), $, rl::mo_relaxed, $))
      break;
  }
  write_through (p, size, f (old));
  return old;
}

extern "C" uint64_t
model_atomic_fetch_or (void *p, unsigned size, uint64_t v, int mo)
{
  if (!modelled)
    return NATIVE (p, size, __atomic_fetch_or, v, mo);
  NOTE_SITE ();
  if (fetch_or_hook != NULL) {
    void (*hook) (void) = fetch_or_hook;

    fetch_or_hook = NULL;
    hook ();
  }
  return model_rmw (p, size, mo,[v](uint64_t x) {
        return x | v;
      }
  );
}

extern "C" uint64_t
model_atomic_fetch_and (void *p, unsigned size, uint64_t v, int mo)
{
  if (!modelled)
    return NATIVE (p, size, __atomic_fetch_and, v, mo);
  NOTE_SITE ();
  return model_rmw (p, size, mo,[v](uint64_t x) {
        return x & v;
      }
  );
}

/* The failure order is relaxed, as in lib's plain build. */
extern "C" int
model_atomic_cas (void *p, unsigned size, void *expected, uint64_t desired,
    int mo)
{
  uint64_t e = bytes_get (expected, size), x;
  bool ok;

  if (!modelled) {
    switch (size) {
      case 4:
        return __atomic_compare_exchange_n ((uint32_t *) p,
            (uint32_t *) expected, (uint32_t) desired, 0, mo,
            __ATOMIC_RELAXED);
      case 8:
        return __atomic_compare_exchange_n ((uint64_t *) p,
            (uint64_t *) expected, desired, 0, mo, __ATOMIC_RELAXED);
      default:
        abort ();
    }
  }
  NOTE_SITE ();
  cell & c = cell_of (p, size);
  x = e ^ c.first;
  ok = c.a->compare_exchange_strong (x, (desired & mask_of (size)) ^ c.first,
      mo_of (mo), $, rl::mo_relaxed, $);
  write_through (expected, size, x ^ c.first);
  if (ok)
    write_through (p, size, desired);
  return ok;
}

extern "C" void
model_atomic_fence (int mo)
{
  if (!modelled) {
    __atomic_thread_fence (mo);
    return;
  }
  NOTE_SITE ();
  rl::atomic_thread_fence (mo_of (mo), $);
}

void
model_before_fetch_or (void (*hook) (void))
{
  fetch_or_hook = hook;
}

void
model_reset (void)
{
  fetch_or_hook = NULL;
  /* an iteration that failed ended without model_end: its atomics went
   * with its context */
  cells.clear ();
  modelled = false;
  untimed = false;
  no_spurious = false;
}

void
model_begin (void)
{
  modelled = true;
}

void
model_untimed_waits (bool on)
{
  untimed = on;
}

void
model_no_spurious_wakeups (bool on)
{
  no_spurious = on;
}

void
model_end (void)
{
  modelled = false;
  for (cell_table::iterator it = cells.begin ();
      it != cells.end (); ++it) {
    delete it->second.a;
  }
  cells.clear ();
}

void
model_sites_write (const char *path)
{
  FILE *f = fopen (path, "w");
  Dl_info info;

  if (f == NULL)
    return;
  for (site_table::iterator it = sites.begin (); it != sites.end (); ++it)
    if (dladdr ((void *) *it, &info) && info.dli_fbase != NULL)
      fprintf (f, "0x%lx\n",
          (unsigned long) (*it - (uintptr_t) info.dli_fbase - 1));
  fclose (f);
}

/* ---- the wrapped system calls ---- */

extern "C" void *__real_mmap (void *addr, size_t len, int prot, int flags,
    int fd, off_t offset);
extern "C" void *__real_mmap64 (void *addr, size_t len, int prot, int flags,
    int fd, off_t offset);
extern "C" int __real_munmap (void *addr, size_t len);
extern "C" long __real_syscall (long nr, ...);

static void *
mapped (void *m, size_t len, int flags, int fd, off_t offset)
{
  struct stat st;

  if (m != MAP_FAILED && fd >= 0 && (flags & MAP_SHARED)
      && fstat (fd, &st) == 0) {
    mapping mp = { (uintptr_t) m + len, (uint64_t) st.st_dev,
      (uint64_t) st.st_ino, (uint64_t) offset
    };
    maps[(uintptr_t) m] = mp;
  }
  return m;
}

extern "C" void *
__wrap_mmap (void *addr, size_t len, int prot, int flags, int fd,
    off_t offset)
{
  return mapped (__real_mmap (addr, len, prot, flags, fd, offset), len, flags,
      fd, offset);
}

/* what lib calls with -D_FILE_OFFSET_BITS=64 (meson's default) */
extern "C" void *
__wrap_mmap64 (void *addr, size_t len, int prot, int flags, int fd,
    off_t offset)
{
  return mapped (__real_mmap64 (addr, len, prot, flags, fd, offset), len,
      flags, fd, offset);
}

extern "C" int
__wrap_munmap (void *addr, size_t len)
{
  maps.erase (maps.lower_bound ((uintptr_t) addr),
      maps.lower_bound ((uintptr_t) addr + len));
  return __real_munmap (addr, len);
}

static long
model_futex (uint32_t * uaddr, int op, uint32_t val, bool timed)
{
  cell & c = cell_of (uaddr, 4);

  switch (op & FUTEX_CMD_MASK) {
    case FUTEX_WAIT:
      /* the kernel compares under its bucket lock: the newest value */
      if ((c.a->fetch_add (0, rl::mo_relaxed, $) ^ c.first) != val) {
        errno = EAGAIN;
        return -1;
      }
      switch (c.a->wait (rl::ctx (), timed, !no_spurious, $)) {
        case rl::unpark_reason_normal:
          return 0;
        case rl::unpark_reason_timeout:
          errno = ETIMEDOUT;
          return -1;
        default:
          errno = EINTR;
          return -1;
      }
    case FUTEX_WAKE:
      return c.a->wake (rl::ctx (), val, $);
    default:
      errno = ENOSYS;
      return -1;
  }
}

/* The model's clock: in the threads, every reading is 10 ms after the
 * last, so that lib's time slices (a reader's liveness check every 100 ms,
 * a writer's sweep every 50 ms) end within a few of its loops, as they
 * would on a real CPU that ran them for that long. */
extern "C" int __real_clock_gettime (clockid_t id, struct timespec *ts);

extern "C" int
__wrap_clock_gettime (clockid_t id, struct timespec *ts)
{
  static uint64_t virtual_ns;
  int ret = __real_clock_gettime (id, ts);
  uint64_t now;

  if (id != CLOCK_MONOTONIC || ret != 0)
    return ret;
  now = (uint64_t) ts->tv_sec * 1000000000ull + (uint64_t) ts->tv_nsec;
  /* never backwards, also in set-up and tear-down */
  if (modelled)
    virtual_ns += 10000000ull;
  if (virtual_ns < now)
    virtual_ns = now;
  ts->tv_sec = (time_t) (virtual_ns / 1000000000ull);
  ts->tv_nsec = (long) (virtual_ns % 1000000000ull);
  return 0;
}

extern "C" long
__wrap_syscall (long nr, ...)
{
  va_list ap;
  long a[6];

  va_start (ap, nr);
  for (int i = 0; i < 6; i++)
    a[i] = va_arg (ap, long);
  va_end (ap);
  if (nr == SYS_futex && modelled)
    return model_futex ((uint32_t *) a[0], (int) a[1], (uint32_t) a[2],
        a[3] != 0 && !untimed);
  return __real_syscall (nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
