/*
 * xen-sim workloads: what the simulated physical CPUs do, told as the
 * trace records they emit.
 *
 * A workload models a host: dom0 (PV, one vCPU per pCPU) and a few guests,
 * HVM and PV, 64- and 32-bit, scheduled by a credit2-like scheduler.  Each
 * vCPU lives on one pCPU for good, so a pCPU's thread schedules only its
 * own vCPUs and touches only its own struct wl_cpu: nothing is shared
 * between CPUs, and no vCPU ever runs on two pCPUs at once.
 *
 * Time in the model is simulated, in nanoseconds, and runs with the trace
 * calls made, at the pace of the workload's default rate.  A seed gives
 * the same records, payloads included, whatever the pace; only the
 * records' TSCs are the host's.
 */
#ifndef XEN_SIM_WORKLOAD_H
#define XEN_SIM_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include <xen/sched.h>

#define WL_MAX_VCPUS 8      /* vCPUs one pCPU hosts, dom0's included */

/* What a vCPU runs. */
enum wl_kind {
    WL_PV64,
    WL_PV32,                /* a 32-bit PV guest on 64-bit Xen */
    WL_HVM64,               /* in long mode: VMEXIT64 */
    WL_HVM32,
};

struct wl_model;            /* how busy a workload keeps the host */

/* One vCPU, as the pCPU it lives on sees it. */
struct wl_vcpu {
    struct vcpu vcpu;       /* what host_set_current() is given */
    struct domain domain;   /* this pCPU's copy; only the id is read */
    uint8_t kind;           /* enum wl_kind */
    uint8_t runstate;       /* RUNSTATE_* numbering of public/vcpu.h */
    bool in_guest;          /* HVM: entered and not exited since */
    bool window;            /* HVM: waits for an interrupt window */
    bool fpu_cold;          /* switched in; first FPU use still traps */
    uint8_t vector;         /* HVM: interrupt to inject; 0 if none */
    int32_t credit;         /* credit2 credit, ns */
    uint64_t since;         /* when it entered its runstate */
    uint64_t wake_at;       /* blocked: when its timer fires */
    uint64_t rip;           /* where the guest was last seen */
};

/*
 * One pCPU's generator.  init() fills it in and step() runs it; it points
 * into itself, so it must not move in between.
 */
struct wl_cpu {
    const struct wl_model *model;
    uint64_t rng;               /* xorshift64* state, never 0 */
    uint64_t now;               /* simulated time, ns */
    unsigned int cpu;
    unsigned int nr_vcpus;
    int curr;                   /* index in vcpu[]; -1: the idle vCPU */
    unsigned int rr;            /* round robin: the last vCPU picked */
    uint8_t cstate;             /* C-state slept in; 0 when awake */
    bool tickled;               /* a wake asked this pCPU to reschedule */
    uint64_t idle_since;        /* the idle vCPU entered its runstate */
    uint64_t sched_at;          /* last scheduling decision */
    uint64_t slice_end;         /* when the running vCPU's slice ends */
    /* Block I/O through dom0's backend: bit i stands for vcpu[i]. */
    uint8_t io_queued;          /* requests dom0 has not picked up */
    uint8_t io_issued;          /* requests the device works on */
    uint8_t io_done;            /* completions dom0 has not reaped */
    uint8_t io_grants[WL_MAX_VCPUS];    /* pages each request maps */
    uint64_t io_irq_at;         /* the device interrupts; 0 if idle */
    uint64_t calls;             /* trace calls made so far */
    bool repeatable;            /* records' TSCs: simulated time */
    struct wl_vcpu vcpu[WL_MAX_VCPUS];  /* vcpu[0] is dom0's */
};

struct workload {
    const char *name;           /* "idle", "mixed", "flood", ... */
    const char *summary;        /* one line for xen-sim --help */
    unsigned int default_rate;  /* events per second per CPU, when --rate
                                   is not given; 0 for an unpaced one */
    bool unpaced;               /* flood: run flat out whatever --rate says */
    void (*init)(struct wl_cpu *c, unsigned int cpu, unsigned int nr_cpus,
                 uint64_t seed);
    /*
     * Emit the next event(s) on the calling CPU (the thread already called
     * host_cpu_enter(cpu)); returns how many trace calls it made (>= 1).
     */
    unsigned int (*step)(struct wl_cpu *c);
};

const struct workload *workload_find(const char *name);   /* NULL if unknown */

/*
 * xen-sim --notify: Xen handles a device's interrupt for dom0 on @c's
 * pCPU: TRC_HW_IRQ_HANDLED of WL_NOTIFY_IRQ, which no workload's device
 * has; xen-sim then hands dom0's side its byte.
 */
#define WL_NOTIFY_IRQ 1000u
void wl_notify(struct wl_cpu *c);

/*
 * The host's domains, whatever the workload: the @i-th's name, its id and
 * UUID at *@domid and @uuid.
 */
unsigned int wl_nr_domains(void);
const char *wl_domain(unsigned int i, unsigned int *domid,
                      uint8_t uuid[16]);
extern const struct workload *const workloads[];   /* NULL-terminated */

#endif /* XEN_SIM_WORKLOAD_H */
