/*
 * Host environment: spinlocks and interrupt masking.  A host CPU takes no
 * asynchronous interrupts, so local_irq_save() only records the state; the
 * lock itself is a test-and-test-and-set lock with acquire/release order.
 */
#ifndef __HOST_XEN_SPINLOCK_H__
#define __HOST_XEN_SPINLOCK_H__

#include <xen/types.h>
#include <asm/system.h>

typedef struct { unsigned char locked; } spinlock_t;

#define SPIN_LOCK_UNLOCKED   { 0 }
#define DEFINE_SPINLOCK(l)   spinlock_t l = SPIN_LOCK_UNLOCKED
#define spin_lock_init(l)    (*(l) = (spinlock_t)SPIN_LOCK_UNLOCKED)

extern __thread bool host_irqs_enabled;

static inline void spin_lock(spinlock_t *l)
{
    while ( __atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE) )
        while ( __atomic_load_n(&l->locked, __ATOMIC_RELAXED) )
            cpu_relax();
}

static inline void spin_unlock(spinlock_t *l)
{
    __atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

static inline unsigned long host_irq_save(void)
{
    unsigned long flags = host_irqs_enabled;

    host_irqs_enabled = false;
    return flags;
}

#define local_irq_save(f)     ((f) = host_irq_save())
#define local_irq_restore(f)  (host_irqs_enabled = (f))
#define local_irq_is_enabled() (host_irqs_enabled)

#define spin_lock_irqsave(l, f) \
    ({ local_irq_save(f); spin_lock(l); })
#define spin_unlock_irqrestore(l, f) \
    ({ spin_unlock(l); local_irq_restore(f); })

#endif /* __HOST_XEN_SPINLOCK_H__ */
