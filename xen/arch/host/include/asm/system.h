/*
 * Host environment: barriers, as Xen has them.  On x86 only smp_mb()
 * needs an instruction; the others keep the compiler from reordering.
 * arm64 orders neither loads nor stores on its own: dmb ish, for loads
 * (ishld) or stores (ishst) alone where that is all that is asked.
 * Ordering against other threads, as the C memory model sees it, comes
 * from read_atomic()/write_atomic() in asm/atomic.h.
 */
#ifndef __HOST_ASM_SYSTEM_H__
#define __HOST_ASM_SYSTEM_H__

#define barrier()   __asm__ __volatile__ ( "" : : : "memory" )
#define smp_mb()    __atomic_thread_fence(__ATOMIC_SEQ_CST)

#if defined(__aarch64__)
#define smp_rmb()   __asm__ __volatile__ ( "dmb ishld" : : : "memory" )
#define smp_wmb()   __asm__ __volatile__ ( "dmb ishst" : : : "memory" )
#define cpu_relax() __asm__ __volatile__ ( "yield" : : : "memory" )
#else
#define smp_rmb()   barrier()
#define smp_wmb()   barrier()
#define cpu_relax() __asm__ __volatile__ ( "pause" : : : "memory" )
#endif

#endif /* __HOST_ASM_SYSTEM_H__ */
