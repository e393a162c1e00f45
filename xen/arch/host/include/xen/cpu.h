/* Host environment: CPU hotplug notifications. */
#ifndef __HOST_XEN_CPU_H__
#define __HOST_XEN_CPU_H__

#include <xen/notifier.h>

#define CPU_UP_PREPARE  0x0001   /* about to bring a CPU online */

void register_cpu_notifier(struct notifier_block *nb);

#endif /* __HOST_XEN_CPU_H__ */
