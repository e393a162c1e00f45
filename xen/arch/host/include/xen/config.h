/* Host environment: Xen's build-wide definitions. */
#ifndef __HOST_XEN_CONFIG_H__
#define __HOST_XEN_CONFIG_H__

#define NR_CPUS        256     /* Xen 4.17's x86 default */
#define PAGE_SHIFT     12
#define PAGE_SIZE      (1UL << PAGE_SHIFT)

/* printk levels; the host console prints them as "(XEN) [level] ". */
#define XENLOG_ERR     "<0>"
#define XENLOG_WARNING "<1>"
#define XENLOG_INFO    "<2>"
#define XENLOG_DEBUG   "<3>"

#define __read_mostly
#define __init
#define __initdata
#define cf_check
#define __section(s)   __attribute__((__section__(s)))
#define __used         __attribute__((__used__))
#define noinline       __attribute__((__noinline__))
#define always_inline  __inline__ __attribute__((__always_inline__))

#define likely(x)      __builtin_expect(!!(x), 1)
#define unlikely(x)    __builtin_expect(!!(x), 0)

#endif /* __HOST_XEN_CONFIG_H__ */
