/* Host environment: Xen's basic types, from the C library's. */
#ifndef __HOST_XEN_TYPES_H__
#define __HOST_XEN_TYPES_H__

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t  u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef bool bool_t;
typedef uint64_t paddr_t;

#endif /* __HOST_XEN_TYPES_H__ */
