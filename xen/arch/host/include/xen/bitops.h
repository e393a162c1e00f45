/*
 * Host environment: the bit operations of Xen's <xen/bitops.h> that
 * trace.c uses, on arrays of unsigned long.
 */
#ifndef __HOST_XEN_BITOPS_H__
#define __HOST_XEN_BITOPS_H__

#include <stdbool.h>

#define HOST_LONG_BITS (8 * sizeof(unsigned long))

static inline bool test_bit(unsigned int nr, const unsigned long *addr)
{
    return addr[nr / HOST_LONG_BITS] >> (nr % HOST_LONG_BITS) & 1;
}

static inline void __set_bit(unsigned int nr, unsigned long *addr)
{
    addr[nr / HOST_LONG_BITS] |= 1UL << (nr % HOST_LONG_BITS);
}

static inline void set_bit(unsigned int nr, unsigned long *addr)
{
    __atomic_fetch_or(&addr[nr / HOST_LONG_BITS], 1UL << (nr % HOST_LONG_BITS),
                      __ATOMIC_SEQ_CST);
}

#endif /* __HOST_XEN_BITOPS_H__ */
