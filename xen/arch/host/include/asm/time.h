/* Host environment: the cycle counter, as Xen reads it on x86. */
#ifndef __HOST_ASM_TIME_H__
#define __HOST_ASM_TIME_H__

#include <stdint.h>

typedef uint64_t cycles_t;

/* How far this CPU's TSC is off the machine's: host_set_tsc_offset(). */
extern __thread int64_t host_tsc_offset;

static inline cycles_t get_cycles(void)
{
    uint32_t lo, hi;

    __asm__ __volatile__ ( "rdtsc" : "=a" (lo), "=d" (hi) );
    return (((uint64_t)hi << 32) | lo) + host_tsc_offset;
}

#endif /* __HOST_ASM_TIME_H__ */
