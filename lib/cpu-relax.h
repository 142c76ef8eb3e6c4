/* Private: the CPU's spin-wait hint, for the bounded polls before a futex
 * sleep (doradma_reader_set_spin, doradma_writer_set_spin). It tells the
 * core we are spinning: x86 `pause` yields the pipeline to the sibling
 * hyperthread and avoids the memory-order flush when the polled word moves;
 * aarch64 `yield` is the architectural hint (a no-op on many cores, still
 * correct). Elsewhere a compiler barrier keeps the poll from being hoisted. */
#ifndef DORADMA_CPU_RELAX_H
#define DORADMA_CPU_RELAX_H

static inline void
cpu_relax (void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause ();
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ __volatile__ ("yield" ::: "memory");
#else
  __asm__ __volatile__ ("" ::: "memory");
#endif
}

#endif
