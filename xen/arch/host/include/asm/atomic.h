/*
 * Host environment: single-copy atomic accesses to shared memory.  On x86
 * they compile to plain moves, as Xen's do; as acquire loads and release
 * stores they also tell the C memory model (and ThreadSanitizer) the order
 * that x86 provides anyway.
 */
#ifndef __HOST_ASM_ATOMIC_H__
#define __HOST_ASM_ATOMIC_H__

#define read_atomic(p)      __atomic_load_n(p, __ATOMIC_ACQUIRE)
#define write_atomic(p, x)  __atomic_store_n(p, x, __ATOMIC_RELEASE)

#endif /* __HOST_ASM_ATOMIC_H__ */
