/*
 * Host environment: softirq tasklets.  tasklet_schedule() queues the
 * tasklet on the calling CPU; it runs when that CPU next processes softirqs
 * (host_process_softirqs(), the host's "return to guest").  Scheduling a
 * tasklet that is already queued does nothing, as in Xen.
 */
#ifndef __HOST_XEN_TASKLET_H__
#define __HOST_XEN_TASKLET_H__

#include <xen/types.h>

struct tasklet {
    struct tasklet *next;     /* in the queue of scheduled_on */
    int scheduled_on;         /* CPU, or -1 when not queued */
    void (*func)(void *data);
    void *data;
};

#define DECLARE_SOFTIRQ_TASKLET(name, fn, dat) \
    struct tasklet name = { .scheduled_on = -1, .func = (fn), .data = (dat) }

void tasklet_schedule(struct tasklet *t);

#endif /* __HOST_XEN_TASKLET_H__ */
