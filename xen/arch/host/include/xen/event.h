/* Host environment: virtual interrupts to dom0. */
#ifndef __HOST_XEN_EVENT_H__
#define __HOST_XEN_EVENT_H__

#include <stdint.h>

void send_global_virq(uint32_t virq);

#endif /* __HOST_XEN_EVENT_H__ */
