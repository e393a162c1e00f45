/*
 * Host environment: the cycle counter, as Xen reads it: the TSC on x86,
 * the generic timer's virtual count (CNTVCT_EL0) on arm64, which Linux
 * lets user space read and which runs at CNTFRQ_EL0 on every CPU.
 */
#ifndef __HOST_ASM_TIME_H__
#define __HOST_ASM_TIME_H__

#include <stdbool.h>
#include <stdint.h>

typedef uint64_t cycles_t;

/* The machine's counter. */
static inline uint64_t host_cycle_counter(void)
{
#if defined(__x86_64__)
    uint32_t lo, hi;

    __asm__ __volatile__ ( "rdtsc" : "=a" (lo), "=d" (hi) );
    return ((uint64_t)hi << 32) | lo;
#elif defined(__aarch64__)
    uint64_t count;

    /* isb: not read ahead of the code before it, as Xen's get_cycles(). */
    __asm__ __volatile__ ( "isb; mrs %0, cntvct_el0" : "=r" (count)
                           : : "memory" );
    return count;
#else
#error "the host environment has a cycle counter on x86_64 and arm64 only"
#endif
}

/* How far this CPU's counter is off the machine's: host_set_tsc_offset(). */
extern __thread int64_t host_tsc_offset;

#ifdef HOST_SETTABLE_TSC
/* xen-sim's: a simulated clock this CPU reads instead, if set. */
extern __thread uint64_t host_tsc_value;
extern __thread bool host_tsc_is_set;

static inline cycles_t get_cycles(void)
{
    return (host_tsc_is_set ? host_tsc_value : host_cycle_counter()) +
           host_tsc_offset;
}
#else
static inline cycles_t get_cycles(void)
{
    return host_cycle_counter() + host_tsc_offset;
}
#endif

#endif /* __HOST_ASM_TIME_H__ */
