/*
 * Host environment: the running vCPU.  Each host CPU starts in its idle
 * vCPU; the embedder (xen-sim, a test) switches it with host_set_current().
 */
#ifndef __HOST_XEN_SCHED_H__
#define __HOST_XEN_SCHED_H__

#include <xen/types.h>
#include <xen/cpumask.h>
#include <xen/smp.h>
#include <xen/spinlock.h>
#include <asm/time.h>
#include <public/xen.h>

struct domain {
    domid_t domain_id;
};

struct vcpu {
    int vcpu_id;
    struct domain *domain;
};

extern __thread struct vcpu *host_current;
#define current (host_current)

#endif /* __HOST_XEN_SCHED_H__ */
