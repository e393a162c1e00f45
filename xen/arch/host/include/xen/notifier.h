/* Host environment: notifier chains. */
#ifndef __HOST_XEN_NOTIFIER_H__
#define __HOST_XEN_NOTIFIER_H__

struct notifier_block {
    int (*notifier_call)(struct notifier_block *nb, unsigned long action,
                         void *hcpu);
    struct notifier_block *next;
};

#define NOTIFY_DONE  0x0000

#endif /* __HOST_XEN_NOTIFIER_H__ */
