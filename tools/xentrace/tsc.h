/*
 * xentrace: the TSC as dom0 reads it, which under Xen's default TSC mode
 * is the host's, Xen's trace clock on x86.  0 where user space cannot
 * read Xen's counter (arm64: CNTPCT_EL0 is the virtual count there).
 */
#ifndef TSC_H
#define TSC_H

#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

static inline uint64_t read_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    return 0;
#endif
}

#endif /* TSC_H */
