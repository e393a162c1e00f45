/* Host environment: page frame helpers. */
#ifndef __HOST_XEN_PFN_H__
#define __HOST_XEN_PFN_H__

#include <xen/config.h>

#define PFN_DOWN(x)   ((x) >> PAGE_SHIFT)
#define PFN_UP(x)     (((x) + PAGE_SIZE - 1) >> PAGE_SHIFT)

#endif /* __HOST_XEN_PFN_H__ */
