/*
 * Host environment: barriers.  On x86, as in Xen, only smp_mb() needs an
 * instruction; the others keep the compiler from reordering.  Ordering
 * against other threads, as the C memory model sees it, comes from
 * read_atomic()/write_atomic() in asm/atomic.h.
 */
#ifndef __HOST_ASM_SYSTEM_H__
#define __HOST_ASM_SYSTEM_H__

#define barrier()   __asm__ __volatile__ ( "" : : : "memory" )
#define smp_mb()    __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb()   barrier()
#define smp_wmb()   barrier()
#define cpu_relax() __asm__ __volatile__ ( "pause" : : : "memory" )

#endif /* __HOST_ASM_SYSTEM_H__ */
