/*
 * Host environment: Xen's asm/types.h is its basic types.  System headers
 * include an asm/types.h of their own (Linux's __u16 and so on), which
 * this one must not hide.
 */
#include_next <asm/types.h>
#include <xen/types.h>
