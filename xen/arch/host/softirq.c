/*
 * Host environment: softirq tasklets and virq delivery.
 *
 * Each CPU has a queue of scheduled tasklets; the CPU's thread runs them in
 * host_process_softirqs().  One lock covers every queue, as Xen's
 * tasklet_lock does.  A tasklet is taken off its queue before it runs, so
 * it can be scheduled again while running.
 */
#include <pthread.h>

#include <host.h>
#include <xen/event.h>
#include <xen/lib.h>
#include <xen/smp.h>
#include <xen/tasklet.h>

static struct tasklet *queue[NR_CPUS];
static pthread_mutex_t tasklet_lock = PTHREAD_MUTEX_INITIALIZER;

static void (*virq_handler)(unsigned int virq);
static unsigned long virq_count[32];

void tasklet_schedule(struct tasklet *t)
{
    unsigned int cpu = smp_processor_id();

    pthread_mutex_lock(&tasklet_lock);
    if ( t->scheduled_on < 0 )
    {
        t->scheduled_on = cpu;
        t->next = queue[cpu];
        queue[cpu] = t;
    }
    pthread_mutex_unlock(&tasklet_lock);
}

unsigned int host_process_softirqs(void)
{
    unsigned int cpu = smp_processor_id(), ran = 0;
    struct tasklet *t;

    for ( ; ; ran++ )
    {
        pthread_mutex_lock(&tasklet_lock);
        t = queue[cpu];
        if ( t )
        {
            queue[cpu] = t->next;
            t->scheduled_on = -1;
        }
        pthread_mutex_unlock(&tasklet_lock);
        if ( !t )
            return ran;
        t->func(t->data);
    }
}

void host_set_virq_handler(void (*handler)(unsigned int virq))
{
    __atomic_store_n(&virq_handler, handler, __ATOMIC_RELEASE);
}

unsigned long host_virq_count(unsigned int virq)
{
    return virq < ARRAY_SIZE(virq_count)
           ? __atomic_load_n(&virq_count[virq], __ATOMIC_ACQUIRE) : 0;
}

void send_global_virq(uint32_t virq)
{
    void (*handler)(unsigned int) =
        __atomic_load_n(&virq_handler, __ATOMIC_ACQUIRE);

    if ( virq < ARRAY_SIZE(virq_count) )
        __atomic_fetch_add(&virq_count[virq], 1, __ATOMIC_ACQ_REL);
    if ( handler )
        handler(virq);
}
