/*
 * Host environment: per-CPU variables, laid out as Xen lays them out.
 * DEFINE_PER_CPU puts the template copy in the host_percpu section; at boot
 * each CPU gets its own copy of the whole section, and per_cpu() adds that
 * CPU's offset to the template's address.  A thread runs as one CPU at a
 * time (host_cpu_enter()), and this_cpu() uses the offset of that CPU.
 */
#ifndef __HOST_XEN_PERCPU_H__
#define __HOST_XEN_PERCPU_H__

#include <xen/config.h>

extern unsigned long __per_cpu_offset[NR_CPUS];
extern __thread unsigned long host_this_cpu_offset;

#define __DEFINE_PER_CPU(type, name) \
    __section("host_percpu") __typeof__(type) per_cpu_##name

#define DEFINE_PER_CPU(type, name)             __DEFINE_PER_CPU(type, name)
#define DEFINE_PER_CPU_READ_MOSTLY(type, name) __DEFINE_PER_CPU(type, name)

/* Hide the arithmetic from the compiler, which must not assume bounds. */
#define RELOC_HIDE(ptr, off) ({                                  \
    unsigned long ptr_;                                          \
    __asm__ ( "" : "=r" (ptr_) : "0" (ptr) );                    \
    (__typeof__(ptr))(ptr_ + (off)); })

#define per_cpu(var, cpu) \
    (*RELOC_HIDE(&per_cpu_##var, __per_cpu_offset[cpu]))
#define this_cpu(var) \
    (*RELOC_HIDE(&per_cpu_##var, host_this_cpu_offset))

#endif /* __HOST_XEN_PERCPU_H__ */
