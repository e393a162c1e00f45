/*
 * xen-sim workloads: a simulated host, told as trace records.
 *
 * The host
 * --------
 * dom0 is 64-bit PV with one vCPU per pCPU and runs the block backend.
 * The guests are a 64-bit HVM guest with one vCPU per pCPU, a 32-bit HVM
 * guest, a 64-bit PV guest with two vCPUs and a 32-bit PV guest.  dom0's
 * vCPU v lives on pCPU v; the guests' vCPUs are dealt out to the pCPUs in
 * turn, so every pCPU hosts dom0 and at most WL_MAX_VCPUS - 1 others.
 *
 * Each step() is one thing happening on the pCPU, in this order of
 * precedence:
 *
 *   interrupt   a device completes I/O or a blocked vCPU's timer fires:
 *               the pCPU leaves its C-state (or its HVM guest vmexits),
 *               the waiting vCPU wakes, and preempts if the pCPU was idle
 *               or if it is dom0's;
 *   idle        the idle vCPU runs: switch to a runnable vCPU, or enter
 *               a C-state, which the next step leaves (for an interrupt,
 *               or for a tick);
 *   guest       the running vCPU's slice ends (preemption), or it does
 *               one thing: an HVM vCPU one vmexit with its handler records
 *               and vmentry, a PV vCPU one hypercall, fault or trap;
 *               either may block or yield, or ask dom0 for I/O.
 *
 * Block I/O: a guest notifies dom0 (an event channel send, by VMCALL or
 * hypercall), dom0 maps the request's grants, the device interrupts the
 * same pCPU later, and dom0 unmaps the grants and notifies the guest.
 *
 * Time: a step starts at (trace calls made so far) x (the workload's
 * ns_per_call), the pace of its default rate; the calls within a step take
 * no simulated time.  Paced at the default rate, simulated time keeps up
 * with the TSC, so payloads (run times, sleeps, deadlines) agree with it;
 * yet nothing depends on the real clock, and a seed gives the same records.
 *
 * The records are Xen 4.17's, with the payloads xenalyze reads: runstate
 * changes and the switch records of schedule(), credit2's records, VMX
 * exit reasons each with the handler records Xen's vmx.c writes for it
 * (and none for PENDING_INTERRUPT, which has none), PV hypercalls in the
 * V2 format, bounced page faults and traps, grant maps, IRQs and C-states.
 * Every record goes through a trc_*() call of xen/trace-events.h, made from
 * the event catalogue: the workloads can write no event, and no payload,
 * that the catalogue does not define, and HVM handler records have no TSC
 * because the catalogue says so, as Xen writes them.  Hypercalls go
 * through Xen's own __trace_hypercall().
 */
#include <stddef.h>
#include <string.h>

#include <host.h>
#include <xen/lib.h>
#include <xen/sched.h>
#include <xen/trace.h>
#include <xen/trace-events.h>

#include "workload.h"

#define US   1000ULL
#define MS   (1000 * US)

#define CREDIT_INIT    (10 * MS)       /* credit2's CSCHED2_CREDIT_INIT */
#define TSC_PER_US     2400            /* the payloads' TSC runs at 2.4 GHz */
#define WL_IDLE        (-1)            /* c->curr: the idle vCPU runs */

/* Runstates, numbered as public/vcpu.h does. */
enum { RS_RUNNING, RS_RUNNABLE, RS_BLOCKED };

/* Hypercall numbers and sub-commands, as public/xen.h and friends. */
enum {
    HC_mmu_update = 1,
    HC_stack_switch = 3,
    HC_memory_op = 12,
    HC_multicall = 13,
    HC_update_va_mapping = 14,
    HC_xen_version = 17,
    HC_grant_table_op = 20,
    HC_iret = 23,
    HC_vcpu_op = 24,
    HC_set_segment_base = 25,
    HC_mmuext_op = 26,
    HC_sched_op = 29,
    HC_event_channel_op = 32,
    HC_hvm_op = 34,
};
#define SCHEDOP_yield              0
#define SCHEDOP_block              1
#define GNTTABOP_map_grant_ref     0
#define GNTTABOP_unmap_grant_ref   1
#define VCPUOP_set_singleshot_timer 8
#define EVTCHNOP_send              4

/* VMX exit reasons (Intel SDM, appendix C). */
enum {
    VMX_EXCEPTION_NMI = 0,
    VMX_EXTERNAL_INTERRUPT = 1,
    VMX_PENDING_INTERRUPT = 7,
    VMX_CPUID = 10,
    VMX_HLT = 12,
    VMX_VMCALL = 18,
    VMX_CR_ACCESS = 28,
    VMX_IO_INSTRUCTION = 30,
    VMX_MSR_READ = 31,
    VMX_MSR_WRITE = 32,
    VMX_EPT_VIOLATION = 48,
};

/* Xen's own interrupt vectors, and the guests' (Linux's). */
#define LOCAL_TIMER_VECTOR      0xf9
#define EVENT_CHECK_VECTOR      0xfc
#define GUEST_TIMER_VECTOR      0xec
#define GUEST_CALLBACK_VECTOR   0xf3    /* Xen's event channel upcall */
#define GUEST_CALL_FUNC_VECTOR  0xfb
#define TRAP_no_device          7
#define TRAP_invalid_op         6
#define TRAP_gp_fault           13

#define P2M_MMIO_DM             4       /* p2m_mmio_dm */
#define INVALID_MFN             (~0ULL)
#define HVM_INTSRC_LAPIC        2

/*
 * What a vCPU may do in one step, and how often: a workload's mix is a
 * table of weights.
 */
enum wl_act {
    /* HVM vmexits */
    X_TIMER,            /* Xen's timer interrupt; the guest's fires too */
    X_IPI,              /* an event-check IPI; a call-function for it */
    X_TSC_DEADLINE,     /* the guest arms its LAPIC timer */
    X_EOI,              /* x2APIC EOI */
    X_ICR,              /* x2APIC IPI to a sibling vCPU */
    X_MSR_READ,
    X_CPUID,
    X_PIO,              /* PM timer, RTC, PCI config space */
    X_MMIO,             /* an emulated NIC's registers, the VGA console */
    X_VMCALL,           /* a hypercall that stays in Xen */
    X_CR,               /* CR4.PGE toggled to flush the TLB */
    X_HLT,              /* nothing to do: block */
    /* PV */
    P_IRET,
    P_MMU_UPDATE,
    P_UPDATE_VA,
    P_MMUEXT,
    P_MULTICALL,
    P_STACK_SWITCH,
    P_SEGBASE,
    P_TIMER,            /* VCPUOP_set_singleshot_timer */
    P_XEN_VERSION,
    P_FAULT,            /* a page fault bounced to the guest */
    P_PTWR,             /* a page table write emulated */
    P_TRAP,             /* another exception bounced */
    P_PRIVOP,           /* a privileged instruction emulated */
    P_YIELD,
    P_BLOCK,
    /* both */
    A_IO,               /* ask dom0 for block I/O */
};

struct wl_choice {
    uint8_t act;
    uint8_t weight;
};

struct wl_model {
    const struct wl_choice *hvm, *pv, *dom0;
    unsigned int nr_hvm, nr_pv, nr_dom0;
    uint32_t ns_per_call;       /* simulated time each trace call takes */
    uint32_t slice_us;          /* a vCPU's time slice */
    uint32_t sleep_min_us, sleep_max_us;    /* a blocked vCPU's timer */
};

/*
 * The domains: vcpus 0 means one per pCPU.  Their names, and their UUIDs
 * (wl_domain()), are what the host's xenstore says at start (store.c).
 */
static const struct wl_domain {
    domid_t id;
    uint8_t kind;
    uint8_t vcpus;
    const char *name;
} wl_domains[] = {
    { 0, WL_PV64,  0, "Domain-0" }, /* dom0 first: vcpu[0] everywhere */
    { 1, WL_HVM64, 0, "web-01" },
    { 2, WL_HVM32, 1, "legacy-32" },
    { 3, WL_PV64,  2, "db-01" },
    { 4, WL_PV32,  1, "pv32-tools" },
};

unsigned int wl_nr_domains(void)
{
    return ARRAY_SIZE(wl_domains);
}

const char *wl_domain(unsigned int i, unsigned int *domid,
                      uint8_t uuid[16])
{
    *domid = wl_domains[i].id;
    /* dom0's is all zeros; a guest's 5ba1d000-0000-4000-8000-00000000000N */
    memset(uuid, 0, 16);
    if ( *domid )
    {
        memcpy(uuid, "\x5b\xa1\xd0\x00\x00\x00\x40\x00\x80", 9);
        uuid[14] = *domid >> 8;
        uuid[15] = *domid;
    }
    return wl_domains[i].name;
}

/*
 * Random numbers
 * ==============
 */

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint32_t rnd(struct wl_cpu *c)
{
    uint64_t x = c->rng;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    c->rng = x;
    return (x * 0x2545f4914f6cdd1dULL) >> 32;
}

/* Uniform in [0, n). */
static uint32_t below(struct wl_cpu *c, uint32_t n)
{
    return ((uint64_t)rnd(c) * n) >> 32;
}

/* Uniform in [lo, hi]. */
static uint32_t between(struct wl_cpu *c, uint32_t lo, uint32_t hi)
{
    return lo + below(c, hi - lo + 1);
}

static bool one_in(struct wl_cpu *c, uint32_t n)
{
    return below(c, n) == 0;
}

static unsigned int pick(struct wl_cpu *c, const struct wl_choice *mix,
                         unsigned int n)
{
    unsigned int i, total = 0, r;

    for ( i = 0; i < n; i++ )
        total += mix[i].weight;
    r = below(c, total);
    for ( i = 0; r >= mix[i].weight; i++ )
        r -= mix[i].weight;
    return mix[i].act;
}

/*
 * Emitting records
 * ================
 *
 * Every trace call goes through one of these, which count it.
 */

/* The payloads' TSC: simulated time at 2.4 GHz. */
static uint64_t vtsc(const struct wl_cpu *c)
{
    return c->now * TSC_PER_US / US;
}

/* A repeatable run's records carry simulated time, not the host's TSC. */
static void stamp(const struct wl_cpu *c)
{
    if ( c->repeatable )
        host_set_tsc(vtsc(c));
}

/* One trc_*() call of xen/trace-events.h. */
#define EMIT(c, call)       \
    do {                    \
        stamp(c);           \
        call;               \
        (c)->calls++;       \
    } while ( 0 )

static void hypercall(struct wl_cpu *c, uint32_t event, unsigned long op,
                      xen_ulong_t a0, xen_ulong_t a1, xen_ulong_t a2)
{
    const xen_ulong_t args[6] = { a0, a1, a2 };

    stamp(c);
    __trace_hypercall(event, op, args);
    c->calls++;
}

static uint32_t lo32(uint64_t x)
{
    return x;
}

static uint16_t dom(const struct wl_vcpu *v)
{
    return v->domain.domain_id;
}

static uint16_t vid(const struct wl_vcpu *v)
{
    return v->vcpu.vcpu_id;
}

static bool is_hvm(const struct wl_vcpu *v)
{
    return v->kind == WL_HVM64 || v->kind == WL_HVM32;
}

static bool is_64(const struct wl_vcpu *v)
{
    return v->kind == WL_PV64 || v->kind == WL_HVM64;
}

static struct wl_vcpu *running(struct wl_cpu *c)
{
    return c->curr == WL_IDLE ? NULL : &c->vcpu[c->curr];
}

/* A plausible guest address: Linux's kernel text, or a program's. */
static uint64_t guest_rip(struct wl_cpu *c, const struct wl_vcpu *v,
                          bool kernel)
{
    uint32_t off = below(c, 1U << 22) & ~3U;

    if ( is_64(v) )
        return (kernel ? 0xffffffff81000000ULL : 0x0000555555554000ULL) + off;
    return (kernel ? 0xc1000000U : 0x08048000U) + off;
}

/* Where a Linux guest halts: its idle loop. */
static uint64_t idle_rip(const struct wl_vcpu *v)
{
    return is_64(v) ? 0xffffffff81b4d2beULL : 0xc17f3a1eU;
}

/*
 * HVM entry and exit
 * ==================
 */

static void hvm_exit(struct wl_cpu *c, struct wl_vcpu *v, uint32_t reason,
                     uint64_t rip)
{
    v->rip = rip;
    if ( v->kind == WL_HVM64 )
        EMIT(c, trc_hvm_vmexit64(reason, rip));
    else
        EMIT(c, trc_hvm_vmexit(reason, lo32(rip)));
    v->in_guest = false;
}

static void hvm_entry(struct wl_cpu *c, struct wl_vcpu *v)
{
    if ( v->vector )
    {
        if ( !v->window && one_in(c, 8) )
        {
            /* The guest has interrupts off: exit when it can take one. */
            EMIT(c, trc_hvm_intr_window(v->vector, HVM_INTSRC_LAPIC,
                                        UINT32_MAX));
            v->window = true;
        }
        else
        {
            EMIT(c, trc_hvm_inj_virq(v->vector, 0));
            v->vector = 0;
            v->window = false;
        }
    }
    EMIT(c, trc_hvm_vmentry());
    v->in_guest = true;
}

/*
 * Scheduling
 * ==========
 */

static void runstate_change(struct wl_cpu *c, uint16_t d, uint16_t v,
                            unsigned int from, unsigned int to)
{
    EMIT(c, trc_sched_runstate_change(from, to, d, v));
}

static bool any_runnable(const struct wl_cpu *c)
{
    unsigned int i;

    for ( i = 0; i < c->nr_vcpus; i++ )
        if ( c->vcpu[i].runstate == RS_RUNNABLE )
            return true;
    return false;
}

/*
 * Who runs next, once the running vCPU has become @prev_state: dom0 first,
 * since everyone's I/O waits on it, then the others in turn; the running
 * vCPU again if it is still runnable and nobody else is; else idle.
 */
static int pick_next(struct wl_cpu *c, unsigned int prev_state)
{
    unsigned int k, i;

    if ( c->vcpu[0].runstate == RS_RUNNABLE )
        return 0;
    for ( k = 1; k <= c->nr_vcpus; k++ )
    {
        i = (c->rr + k) % c->nr_vcpus;
        if ( c->vcpu[i].runstate == RS_RUNNABLE )
        {
            c->rr = i;
            return i;
        }
    }
    return prev_state == RS_RUNNABLE ? c->curr : WL_IDLE;
}

/* schedule()'s switch records, then the context switch itself. */
static void switch_to(struct wl_cpu *c, struct wl_vcpu *prev, int next_idx,
                      unsigned int prev_state)
{
    struct wl_vcpu *next = next_idx == WL_IDLE ? NULL : &c->vcpu[next_idx];
    uint16_t pd = prev ? dom(prev) : DOMID_IDLE;
    uint16_t pv = prev ? vid(prev) : c->cpu;
    uint16_t nd = next ? dom(next) : DOMID_IDLE;
    uint16_t nv = next ? vid(next) : c->cpu;
    uint64_t prev_since = prev ? prev->since : c->idle_since;
    uint64_t next_since = next ? next->since : c->idle_since;

    EMIT(c, trc_sched_switch_infprev(pd, pv, c->now - prev_since));
    EMIT(c, trc_sched_switch_infnext(nd, nv, c->now - next_since,
                                     c->model->slice_us * US));
    EMIT(c, trc_sched_switch(pd, pv, nd, nv));
    /* The idle vCPU is always runnable when it does not run. */
    runstate_change(c, pd, pv, RS_RUNNING, prev ? prev_state : RS_RUNNABLE);
    runstate_change(c, nd, nv, RS_RUNNABLE, RS_RUNNING);

    /* Not before: Xen writes all of the above as prev. */
    host_set_current(next ? &next->vcpu : NULL);

    if ( prev )
    {
        prev->runstate = prev_state;
        prev->since = c->now;
    }
    if ( next )
    {
        next->runstate = RS_RUNNING;
        next->since = c->now;
        next->fpu_cold = one_in(c, 2);
    }
    if ( !prev || !next )
        c->idle_since = c->now;
    c->curr = next_idx;
}

/*
 * The running vCPU (or the idle vCPU) has become @prev_state: pick who runs
 * next and switch, or carry on.  An HVM vCPU that gets the pCPU re-enters
 * its guest.
 */
static void schedule(struct wl_cpu *c, unsigned int prev_state)
{
    struct wl_vcpu *prev = running(c), *next;
    int next_idx = pick_next(c, prev_state);
    uint64_t ran = c->now - c->sched_at;
    int32_t burnt = ran > INT32_MAX ? INT32_MAX : (int32_t)ran;

    next = next_idx == WL_IDLE ? NULL : &c->vcpu[next_idx];

    EMIT(c, trc_csched2_schedule(c->cpu, (uint32_t)!prev << 8 |
                                         (uint32_t)c->tickled << 24));
    if ( prev )
    {
        prev->credit -= burnt;
        EMIT(c, trc_csched2_credit_burn(dom(prev), vid(prev), prev->credit,
                                        INT32_MIN /* no cap */, burnt));
    }
    if ( next && next->credit <= 0 )
    {
        int32_t start = next->credit;

        next->credit += CREDIT_INIT;
        EMIT(c, trc_csched2_credit_reset(dom(next), vid(next), start,
                                         next->credit));
    }
    if ( next )
        EMIT(c, trc_csched2_runq_candidate(dom(next), vid(next),
                                           c->tickled ? (int32_t)c->cpu : -1,
                                           next->credit));

    if ( next_idx == c->curr )
    {
        EMIT(c, trc_sched_switch_infcont(dom(next), vid(next),
                                         c->now - next->since,
                                         c->model->slice_us * US));
        EMIT(c, trc_sched_continue_running(dom(next), vid(next)));
    }
    else
        switch_to(c, prev, next_idx, prev_state);

    c->tickled = false;
    c->sched_at = c->now;
    c->slice_end = c->now + c->model->slice_us * US;
    if ( next && is_hvm(next) && !next->in_guest )
        hvm_entry(c, next);
}

/*
 * vcpu_wake() of blocked @w, on this pCPU.  Returns whether it should
 * preempt what runs here: it does if the pCPU idles, and dom0 does.
 */
static bool wake(struct wl_cpu *c, struct wl_vcpu *w)
{
    struct wl_vcpu *cur = running(c);
    unsigned int i, queued = 0;
    bool preempt = !cur || w == &c->vcpu[0];

    for ( i = 0; i < c->nr_vcpus; i++ )
        queued += c->vcpu[i].runstate == RS_RUNNABLE;

    EMIT(c, trc_sched_wake(dom(w), vid(w)));
    runstate_change(c, dom(w), vid(w), RS_BLOCKED, RS_RUNNABLE);
    w->runstate = RS_RUNNABLE;
    w->since = c->now;

    EMIT(c, trc_csched2_runq_pos(dom(w), vid(w), queued));
    EMIT(c, trc_csched2_tickle_new(dom(w), vid(w), c->cpu, w->credit));
    if ( preempt )
    {
        EMIT(c, trc_csched2_tickle(c->cpu));
        c->tickled = true;
    }
    return preempt;
}

/* The running vCPU @v blocks until its timer, or an event, wakes it. */
static void block(struct wl_cpu *c, struct wl_vcpu *v)
{
    const struct wl_model *m = c->model;

    EMIT(c, trc_sched_block(dom(v), vid(v)));
    v->wake_at = c->now + between(c, m->sleep_min_us, m->sleep_max_us) * US;
    schedule(c, RS_BLOCKED);
}

/*
 * Block I/O
 * =========
 */

/* vcpu[@i] notifies dom0 of a request; returns whether dom0 preempts. */
static bool io_request(struct wl_cpu *c, unsigned int i)
{
    c->io_queued |= 1U << i;
    return c->vcpu[0].runstate == RS_BLOCKED && wake(c, &c->vcpu[0]);
}

static unsigned int lowest_bit(unsigned int mask)
{
    return __builtin_ctz(mask);
}

/* dom0 maps a request's pages and hands it to the device. */
static void io_submit(struct wl_cpu *c)
{
    unsigned int i = lowest_bit(c->io_queued), n = between(c, 1, 4), k;

    c->io_queued &= ~(1U << i);
    c->io_issued |= 1U << i;
    c->io_grants[i] = n;
    hypercall(c, TRC_PV_HYPERCALL_V2, HC_grant_table_op,
              GNTTABOP_map_grant_ref, 0, n);
    for ( k = 0; k < n; k++ )
        EMIT(c, trc_mem_page_grant_map(dom(&c->vcpu[i])));
    if ( !c->io_irq_at )
        c->io_irq_at = c->now + between(c, 50, 800) * US;
}

/* dom0 unmaps a completed request's pages and notifies its guest. */
static void io_complete(struct wl_cpu *c)
{
    unsigned int i = lowest_bit(c->io_done), k;
    struct wl_vcpu *g = &c->vcpu[i];

    c->io_done &= ~(1U << i);
    hypercall(c, TRC_PV_HYPERCALL_V2, HC_grant_table_op,
              GNTTABOP_unmap_grant_ref, 0, c->io_grants[i]);
    for ( k = 0; k < c->io_grants[i]; k++ )
        EMIT(c, trc_mem_page_grant_unmap(dom(g)));
    hypercall(c, TRC_PV_HYPERCALL_V2, HC_event_channel_op, EVTCHNOP_send,
              0, 0);
    if ( is_hvm(g) && !g->vector )
        g->vector = GUEST_CALLBACK_VECTOR;
    if ( g->runstate == RS_BLOCKED )
        wake(c, g);     /* dom0 runs here: no preemption */
}

/* The MSI a pCPU's block queue interrupts on. */
static uint32_t dev_irq(const struct wl_cpu *c)
{
    return 120 + c->cpu;
}

void wl_notify(struct wl_cpu *c)
{
    EMIT(c, trc_hw_irq_handled(WL_NOTIFY_IRQ, 0, 0));
}

static uint32_t dev_vector(const struct wl_cpu *c)
{
    return 0x41 + (c->cpu % 12) * 8;
}

/*
 * HVM exits
 * =========
 */

static const struct {
    uint32_t leaf, subleaf, a, b, c, d;
} cpuid_leaves[] = {
    { 0x00000000, 0, 0x0000000d, 0x756e6547, 0x6c65746e, 0x49656e69 },
    { 0x00000001, 0, 0x000906ea, 0x00020800, 0xf7fa3203, 0x1f8bfbff },
    { 0x00000007, 0, 0x00000000, 0x009c27ab, 0x00000000, 0xbc000400 },
    { 0x0000000d, 1, 0x0000000f, 0x00000340, 0x00000000, 0x00000000 },
    { 0x40000000, 0, 0x40000005, 0x566e6558, 0x65584d4d, 0x4d4d566e },
    { 0x40000001, 0, 0x00040011, 0x00000000, 0x00000000, 0x00000000 },
};

static void hvm_cpuid(struct wl_cpu *c)
{
    unsigned int i = below(c, ARRAY_SIZE(cpuid_leaves));

    EMIT(c, trc_hvm_cpuid(cpuid_leaves[i].leaf, cpuid_leaves[i].subleaf,
                          cpuid_leaves[i].a, cpuid_leaves[i].b,
                          cpuid_leaves[i].c, cpuid_leaves[i].d));
}

static void hvm_msr_read(struct wl_cpu *c)
{
    static const struct {
        uint32_t msr;
        uint64_t value;
    } msr[] = {
        { 0x0000001b, 0xfee00d00 },     /* APIC_BASE: x2APIC, BSP */
        { 0x00000034, 0x00000000 },     /* SMI_COUNT */
        { 0x00000140, 0x00000000 },     /* MISC_FEATURES_ENABLES */
    };
    unsigned int i = below(c, ARRAY_SIZE(msr));

    EMIT(c, trc_hvm_msr_read(msr[i].msr, msr[i].value));
}

static void hvm_pio(struct wl_cpu *c)
{
    switch ( below(c, 5) )
    {
    case 0:     /* ACPI PM timer, 3.579545 MHz, 24 bits */
        EMIT(c, trc_hvm_ioport_read(0xb008,
                 (uint32_t)(c->now / US * 3579545 / 1000000) & 0xffffff));
        break;
    case 1:
        EMIT(c, trc_hvm_ioport_write(0x70, between(c, 0, 0x0d)));
        break;
    case 2:
        EMIT(c, trc_hvm_ioport_read(0x71, below(c, 0x60)));
        break;
    case 3:
        EMIT(c, trc_hvm_ioport_write(0xcf8, 0x80000000 | below(c, 8) << 11 |
                                            (below(c, 64) << 2)));
        break;
    default:
        EMIT(c, trc_hvm_ioport_read(0xcfc, 0x100b8086));
        break;
    }
}

/*
 * An access to an emulated e1000's registers, or a character written to
 * the VGA text console (80x25 cells of two bytes at 0xb8000): an EPT
 * violation, then MMIO.
 */
static void hvm_mmio(struct wl_cpu *c)
{
    static const struct {
        uint16_t reg;
        bool write;
    } regs[] = {
        { 0x0008, false },      /* STATUS */
        { 0x00c0, false },      /* ICR */
        { 0x00d0, true },       /* IMS */
        { 0x2818, true },       /* RDT */
        { 0x3818, true },       /* TDT */
        { 0, true },            /* the console */
    };
    unsigned int i = below(c, ARRAY_SIZE(regs));
    uint64_t gpa = regs[i].reg ? 0xf2020000 + regs[i].reg
                               : 0xb8000 + 2 * below(c, 80 * 25);

    EMIT(c, trc_hvm_npf(gpa, INVALID_MFN, regs[i].write ? 0x182 : 0x181,
                        P2M_MMIO_DM));
    if ( regs[i].write )
        EMIT(c, trc_hvm_iomem_write(lo32(gpa), below(c, 256)));
    else
        EMIT(c, trc_hvm_iomem_read(lo32(gpa), 0x80080783));
}

static void hvm_vmcall(struct wl_cpu *c)
{
    static const uint32_t ops[] = {
        HC_vcpu_op, HC_vcpu_op, HC_hvm_op, HC_memory_op, HC_xen_version,
        HC_grant_table_op, HC_sched_op,
    };

    EMIT(c, trc_hvm_vmmcall(ops[below(c, ARRAY_SIZE(ops))]));
}

/* One vmexit of the running HVM vCPU vcpu[@i], handled, and the vmentry. */
static void hvm_step(struct wl_cpu *c, unsigned int i)
{
    struct wl_vcpu *v = &c->vcpu[i];
    const struct wl_model *m = c->model;
    unsigned int act;
    bool resched = false;
    uint64_t deadline;

    if ( v->window )
    {
        /* No handler record: the injection follows at vmentry. */
        hvm_exit(c, v, VMX_PENDING_INTERRUPT, guest_rip(c, v, true));
        goto enter;
    }
    if ( v->fpu_cold )
    {
        hvm_exit(c, v, VMX_EXCEPTION_NMI, guest_rip(c, v, one_in(c, 2)));
        EMIT(c, trc_hvm_trap(TRAP_no_device));
        v->fpu_cold = false;
        goto enter;
    }

    act = pick(c, m->hvm, m->nr_hvm);
    switch ( act )
    {
    case X_TIMER:
    case X_IPI:
        hvm_exit(c, v, VMX_EXTERNAL_INTERRUPT, guest_rip(c, v, one_in(c, 2)));
        EMIT(c, trc_hvm_intr(act == X_TIMER ? LOCAL_TIMER_VECTOR
                                            : EVENT_CHECK_VECTOR));
        if ( !v->vector )
            v->vector = act == X_TIMER ? GUEST_TIMER_VECTOR
                                       : GUEST_CALL_FUNC_VECTOR;
        break;
    case X_TSC_DEADLINE:
        hvm_exit(c, v, VMX_MSR_WRITE, guest_rip(c, v, true));
        deadline = vtsc(c) + between(c, 100, 4000) * TSC_PER_US;
        EMIT(c, trc_hvm_msr_write(0x6e0, deadline));
        break;
    case X_EOI:
        hvm_exit(c, v, VMX_MSR_WRITE, guest_rip(c, v, true));
        EMIT(c, trc_hvm_msr_write(0x80b, 0));
        break;
    case X_ICR:
        hvm_exit(c, v, VMX_MSR_WRITE, guest_rip(c, v, true));
        EMIT(c, trc_hvm_msr_write(0x830, (uint64_t)below(c, 4) << 32 | 0xfd));
        break;
    case X_MSR_READ:
        hvm_exit(c, v, VMX_MSR_READ, guest_rip(c, v, true));
        hvm_msr_read(c);
        break;
    case X_CPUID:
        hvm_exit(c, v, VMX_CPUID, guest_rip(c, v, one_in(c, 2)));
        hvm_cpuid(c);
        break;
    case X_PIO:
        hvm_exit(c, v, VMX_IO_INSTRUCTION, guest_rip(c, v, true));
        hvm_pio(c);
        break;
    case X_MMIO:
        hvm_exit(c, v, VMX_EPT_VIOLATION, guest_rip(c, v, true));
        hvm_mmio(c);
        break;
    case A_IO:
        hvm_exit(c, v, VMX_VMCALL, guest_rip(c, v, true));
        EMIT(c, trc_hvm_vmmcall(HC_event_channel_op));
        resched = io_request(c, i);
        break;
    case X_VMCALL:
        hvm_exit(c, v, VMX_VMCALL, guest_rip(c, v, true));
        hvm_vmcall(c);
        break;
    case X_CR:
        hvm_exit(c, v, VMX_CR_ACCESS, guest_rip(c, v, true));
        EMIT(c, trc_hvm_cr_write64(4, one_in(c, 2) ? 0x3606f0 : 0x360670));
        break;
    case X_HLT:
    default:
        hvm_exit(c, v, VMX_HLT, idle_rip(v));
        EMIT(c, trc_hvm_hlt(0));
        block(c, v);
        return;
    }

 enter:
    if ( resched )
        schedule(c, RS_RUNNABLE);
    else
        hvm_entry(c, v);
}

/*
 * PV
 * ==
 */

/* A bounced exception: { rip, trapnr:15, use_error_code:1, error_code:16 }. */
static void pv_trap(struct wl_cpu *c, const struct wl_vcpu *v, uint32_t trap,
                    bool use_ec, uint16_t ec)
{
    uint32_t t = trap | (uint32_t)use_ec << 15 | (uint32_t)ec << 16;

    if ( is_64(v) )
        EMIT(c, trc_pv_trap64(v->rip, t));
    else
        EMIT(c, trc_pv_trap(lo32(v->rip), t));
}

/* A faulting address: a program's heap or mmap area, or the direct map. */
static uint64_t fault_addr(struct wl_cpu *c, const struct wl_vcpu *v,
                           bool user)
{
    uint64_t page = below(c, 1U << 16) * 4096ULL;

    if ( is_64(v) )
        return (user ? 0x00007f0000000000ULL : 0xffff888000000000ULL) +
               page * 16;
    return (user ? 0x08048000U : 0xc0000000U) + page;
}

static void pv_page_fault(struct wl_cpu *c, struct wl_vcpu *v)
{
    bool user = !one_in(c, 4);
    uint64_t addr = fault_addr(c, v, user) + below(c, 4096);
    uint32_t ec = (user ? 4 : 0) | (one_in(c, 2) ? 2 : 0) | one_in(c, 3);

    v->rip = guest_rip(c, v, !user);
    if ( is_64(v) )
        EMIT(c, trc_pv_page_fault64(v->rip, addr, ec));
    else
        EMIT(c, trc_pv_page_fault(lo32(v->rip), lo32(addr), ec));
}

/* A write to a page table that Xen emulates: { pte, addr, rip }. */
static void pv_ptwr(struct wl_cpu *c, struct wl_vcpu *v)
{
    uint64_t pte = (uint64_t)between(c, 0x100000, 0x7fffff) << 12 | 0x67;
    uint64_t addr = (is_64(v) ? 0xffff888000000000ULL : 0xc0000000U) +
                    below(c, 1U << 18) * 8ULL;

    v->rip = guest_rip(c, v, true);
    if ( is_64(v) )
        EMIT(c, trc_pv_ptwr_emulation64(pte, addr, v->rip));
    else
        EMIT(c, trc_pv_ptwr_emulation_pae(pte, lo32(addr), lo32(v->rip)));
}

static void pv_privop(struct wl_cpu *c, struct wl_vcpu *v)
{
    v->rip = guest_rip(c, v, true);
    if ( is_64(v) )
        EMIT(c, trc_pv_emulate_privop64(v->rip));
    else
        EMIT(c, trc_pv_emulate_privop(lo32(v->rip)));
}

static void pv_multicall(struct wl_cpu *c)
{
    static const uint32_t subcalls[] = {
        HC_update_va_mapping, HC_mmu_update, HC_mmuext_op, HC_stack_switch,
    };
    unsigned int n = between(c, 2, 6), k;

    hypercall(c, TRC_PV_HYPERCALL_V2, HC_multicall, 0, n, 0);
    for ( k = 0; k < n; k++ )
        hypercall(c, TRC_PV_HYPERCALL_SUBCALL,
                  subcalls[below(c, ARRAY_SIZE(subcalls))],
                  0, between(c, 1, 8), 0);
}

/* One thing the running PV vCPU vcpu[@i] does. */
static void pv_step(struct wl_cpu *c, unsigned int i)
{
    struct wl_vcpu *v = &c->vcpu[i];
    const struct wl_model *m = c->model;
    unsigned int act;
    bool resched = false;

    if ( v->fpu_cold )
    {
        EMIT(c, trc_pv_math_state_restore());
        v->fpu_cold = false;
        return;
    }
    if ( i == 0 && c->io_done )
    {
        io_complete(c);
        return;
    }
    if ( i == 0 && c->io_queued )
    {
        io_submit(c);
        return;
    }

    act = i == 0 ? pick(c, m->dom0, m->nr_dom0) : pick(c, m->pv, m->nr_pv);
    switch ( act )
    {
    case P_IRET:
        hypercall(c, TRC_PV_HYPERCALL_V2, HC_iret, 0, 0, 0);
        break;
    case P_MMU_UPDATE:
        hypercall(c, TRC_PV_HYPERCALL_V2, HC_mmu_update, 0, between(c, 1, 16),
                  0);
        break;
    case P_UPDATE_VA:
        hypercall(c, TRC_PV_HYPERCALL_V2, HC_update_va_mapping,
                  guest_rip(c, v, false), 0, 0);
        break;
    case P_MMUEXT:
        hypercall(c, TRC_PV_HYPERCALL_V2, HC_mmuext_op, 0, between(c, 1, 4),
                  0);
        break;
    case P_MULTICALL:
        pv_multicall(c);
        break;
    case P_STACK_SWITCH:
        hypercall(c, TRC_PV_HYPERCALL_V2, HC_stack_switch, 0xe02b, 0, 0);
        break;
    case P_SEGBASE:
        hypercall(c, TRC_PV_HYPERCALL_V2, HC_set_segment_base, 0, 0, 0);
        break;
    case P_TIMER:
        hypercall(c, TRC_PV_HYPERCALL_V2, HC_vcpu_op,
                  VCPUOP_set_singleshot_timer, vid(v), 0);
        break;
    case P_XEN_VERSION:
        hypercall(c, TRC_PV_HYPERCALL_V2, HC_xen_version, 0, 0, 0);
        break;
    case P_FAULT:
        pv_page_fault(c, v);
        break;
    case P_PTWR:
        pv_ptwr(c, v);
        break;
    case P_TRAP:
        v->rip = guest_rip(c, v, false);
        if ( one_in(c, 2) )
            pv_trap(c, v, TRAP_invalid_op, false, 0);
        else
            pv_trap(c, v, TRAP_gp_fault, true, 0);
        break;
    case P_PRIVOP:
        pv_privop(c, v);
        break;
    case A_IO:
        hypercall(c, TRC_PV_HYPERCALL_V2, HC_event_channel_op, EVTCHNOP_send,
                  0, 0);
        resched = io_request(c, i);
        break;
    case P_YIELD:
        hypercall(c, TRC_PV_HYPERCALL_V2, HC_sched_op, SCHEDOP_yield, 0, 0);
        EMIT(c, trc_sched_yield(dom(v), vid(v)));
        resched = true;
        break;
    case P_BLOCK:
    default:
        hypercall(c, TRC_PV_HYPERCALL_V2, HC_sched_op, SCHEDOP_block, 0, 0);
        block(c, v);
        return;
    }
    if ( resched )
        schedule(c, RS_RUNNABLE);
}

/*
 * The pCPU
 * ========
 */

/* The blocked vCPU whose timer is due first, or -1. */
static int timer_due(const struct wl_cpu *c)
{
    unsigned int i;
    int due = -1;

    for ( i = 0; i < c->nr_vcpus; i++ )
        if ( c->vcpu[i].runstate == RS_BLOCKED &&
             c->vcpu[i].wake_at <= c->now &&
             (due < 0 || c->vcpu[i].wake_at < c->vcpu[due].wake_at) )
            due = i;
    return due;
}

/* When the next timer or device interrupt comes. */
static uint64_t next_event(const struct wl_cpu *c)
{
    uint64_t t = UINT64_MAX;
    unsigned int i;

    for ( i = 0; i < c->nr_vcpus; i++ )
        if ( c->vcpu[i].runstate == RS_BLOCKED && c->vcpu[i].wake_at < t )
            t = c->vcpu[i].wake_at;
    if ( c->io_irq_at && c->io_irq_at < t )
        t = c->io_irq_at;
    return t;
}

/*
 * A device or timer interrupt, if one is due (or the pCPU sleeps and its
 * tick ends the sleep).  Returns whether there was one.
 */
static bool interrupt(struct wl_cpu *c)
{
    bool device = c->io_irq_at && c->io_irq_at <= c->now;
    int due = device ? -1 : timer_due(c);
    struct wl_vcpu *cur = running(c), *w = NULL;
    uint32_t vector = device ? dev_vector(c) : LOCAL_TIMER_VECTOR;
    bool preempt = false;

    if ( !device && due < 0 && !c->cstate )
        return false;

    if ( c->cstate )
    {
        EMIT(c, trc_pm_idle_exit(c->cstate, lo32(vtsc(c)), vector, 0, 0, 0));
        c->cstate = 0;
    }
    else if ( cur && is_hvm(cur) )
    {
        hvm_exit(c, cur, VMX_EXTERNAL_INTERRUPT,
                 guest_rip(c, cur, one_in(c, 2)));
        EMIT(c, trc_hvm_intr(vector));
    }

    if ( device )
    {
        uint32_t tsc_in = vtsc(c);

        EMIT(c, trc_hw_irq_handled(dev_irq(c), tsc_in,
                                   tsc_in + between(c, 1500, 9000)));
        c->io_done |= c->io_issued;
        c->io_issued = 0;
        c->io_irq_at = 0;
        if ( c->vcpu[0].runstate == RS_BLOCKED )
            w = &c->vcpu[0];
    }
    else if ( due >= 0 )
    {
        w = &c->vcpu[due];
        if ( is_hvm(w) && !w->vector )
            w->vector = GUEST_TIMER_VECTOR;
    }
    if ( w )
        preempt = wake(c, w);

    if ( preempt || (!cur && any_runnable(c)) )
        schedule(c, RS_RUNNABLE);
    else if ( cur && is_hvm(cur) )
        hvm_entry(c, cur);
    return true;
}

/*
 * The idle vCPU: run someone, or enter a C-state, as deep as the next
 * interrupt is far.  The pCPU leaves it at its next step, for that
 * interrupt or for a tick: a sleeping pCPU still has to let time pass.
 */
static void idle_step(struct wl_cpu *c)
{
    uint64_t sleep;

    if ( any_runnable(c) )
    {
        schedule(c, RS_RUNNABLE);
        return;
    }
    sleep = next_event(c) - c->now;
    c->cstate = sleep < 100 * US ? 1 : sleep < 2 * MS ? 2 : 3;
    EMIT(c, trc_pm_idle_entry(c->cstate, lo32(vtsc(c)), sleep / US,
                              sleep * 3 / 4 / US));
}

static void guest_step(struct wl_cpu *c)
{
    struct wl_vcpu *v = &c->vcpu[c->curr];

    if ( c->now >= c->slice_end )
    {
        /* The slice is over: the scheduler's timer interrupt. */
        if ( is_hvm(v) )
        {
            hvm_exit(c, v, VMX_EXTERNAL_INTERRUPT,
                     guest_rip(c, v, one_in(c, 2)));
            EMIT(c, trc_hvm_intr(LOCAL_TIMER_VECTOR));
        }
        schedule(c, RS_RUNNABLE);
        return;
    }
    if ( is_hvm(v) )
        hvm_step(c, c->curr);
    else
        pv_step(c, c->curr);
}

static unsigned int host_step(struct wl_cpu *c)
{
    uint64_t calls = c->calls;

    /*
     * Simulated time runs with the calls made, at the default rate's pace:
     * when paced there, it keeps up with the TSC from one step to the next.
     */
    c->now = calls * c->model->ns_per_call;
    if ( !interrupt(c) )
    {
        if ( c->curr == WL_IDLE )
            idle_step(c);
        else
            guest_step(c);
    }
    return c->calls - calls;
}

/* Give pCPU @cpu of @nr_cpus its vCPUs, all blocked, and its idle vCPU. */
static void host_init(struct wl_cpu *c, const struct wl_model *model,
                      unsigned int cpu, unsigned int nr_cpus, uint64_t seed)
{
    unsigned int d, v, n, dealt = 0;

    memset(c, 0, sizeof(*c));
    c->model = model;
    c->rng = splitmix64(seed ^ splitmix64(cpu)) ?: 1;
    c->cpu = cpu;
    c->curr = WL_IDLE;

    for ( d = 0; d < ARRAY_SIZE(wl_domains); d++ )
    {
        n = wl_domains[d].vcpus ?: nr_cpus;
        for ( v = 0; v < n; v++ )
        {
            struct wl_vcpu *w = &c->vcpu[c->nr_vcpus];
            unsigned int home = wl_domains[d].id ? dealt++ % nr_cpus : v;

            if ( home != cpu || c->nr_vcpus == WL_MAX_VCPUS )
                continue;
            w->domain.domain_id = wl_domains[d].id;
            w->vcpu.vcpu_id = v;
            w->vcpu.domain = &w->domain;
            w->kind = wl_domains[d].kind;
            w->runstate = RS_BLOCKED;
            w->credit = CREDIT_INIT;
            w->wake_at = between(c, 0, model->sleep_max_us) * US;
            c->nr_vcpus++;
        }
    }
}

/*
 * The workloads
 * =============
 */

#define IDLE_RATE   200         /* trace calls per second per pCPU */
#define BUSY_RATE   20000

#define MIXES(m) \
    .hvm = m##_hvm_mix, .nr_hvm = ARRAY_SIZE(m##_hvm_mix), \
    .pv = m##_pv_mix, .nr_pv = ARRAY_SIZE(m##_pv_mix), \
    .dom0 = m##_dom0_mix, .nr_dom0 = ARRAY_SIZE(m##_dom0_mix)

/* A busy host: guests run, exit and do I/O; the pCPUs are seldom idle. */
static const struct wl_choice busy_hvm_mix[] = {
    { X_TIMER, 10 }, { X_IPI, 4 }, { X_TSC_DEADLINE, 12 }, { X_EOI, 8 },
    { X_ICR, 4 }, { X_MSR_READ, 2 }, { X_CPUID, 5 }, { X_PIO, 10 },
    { X_MMIO, 10 }, { A_IO, 1 }, { X_VMCALL, 6 }, { X_CR, 2 }, { X_HLT, 6 },
};
static const struct wl_choice busy_pv_mix[] = {
    { P_IRET, 30 }, { P_MMU_UPDATE, 8 }, { P_UPDATE_VA, 6 }, { P_MMUEXT, 5 },
    { P_MULTICALL, 3 }, { P_STACK_SWITCH, 4 }, { P_SEGBASE, 4 },
    { P_TIMER, 3 }, { P_XEN_VERSION, 1 }, { P_FAULT, 6 }, { P_PTWR, 4 },
    { P_TRAP, 1 }, { P_PRIVOP, 2 }, { A_IO, 1 }, { P_YIELD, 1 },
    { P_BLOCK, 3 },
};
static const struct wl_choice busy_dom0_mix[] = {
    { P_IRET, 20 }, { P_MMU_UPDATE, 6 }, { P_UPDATE_VA, 4 }, { P_MMUEXT, 4 },
    { P_MULTICALL, 2 }, { P_STACK_SWITCH, 3 }, { P_SEGBASE, 3 },
    { P_TIMER, 3 }, { P_FAULT, 4 }, { P_PTWR, 3 }, { P_PRIVOP, 2 },
    { P_BLOCK, 30 },
};

static const struct wl_model busy_model = {
    MIXES(busy),
    .ns_per_call = 1000000000 / BUSY_RATE,
    .slice_us = 10000,          /* credit2's CSCHED2_MAX_TIMER */
    .sleep_min_us = 3000,
    .sleep_max_us = 15000,
};

/* An idle host: guests wake now and then for a few exits and halt again. */
static const struct wl_choice idle_hvm_mix[] = {
    { X_TIMER, 3 }, { X_TSC_DEADLINE, 4 }, { X_EOI, 3 }, { X_CPUID, 1 },
    { X_PIO, 1 }, { X_VMCALL, 1 }, { X_HLT, 5 },
};
static const struct wl_choice idle_pv_mix[] = {
    { P_IRET, 4 }, { P_TIMER, 2 }, { P_MMU_UPDATE, 1 }, { P_FAULT, 1 },
    { P_BLOCK, 4 },
};
static const struct wl_choice idle_dom0_mix[] = {
    { P_IRET, 4 }, { P_TIMER, 2 }, { P_MMU_UPDATE, 1 }, { P_BLOCK, 4 },
};

static const struct wl_model idle_model = {
    MIXES(idle),
    .ns_per_call = 1000000000 / IDLE_RATE,
    .slice_us = 100000,
    .sleep_min_us = 1000000,
    .sleep_max_us = 6000000,
};

static void idle_init(struct wl_cpu *c, unsigned int cpu, unsigned int nr_cpus,
                      uint64_t seed)
{
    host_init(c, &idle_model, cpu, nr_cpus, seed);
}

static void busy_init(struct wl_cpu *c, unsigned int cpu, unsigned int nr_cpus,
                      uint64_t seed)
{
    host_init(c, &busy_model, cpu, nr_cpus, seed);
}

static const struct workload wl_idle = {
    .name = "idle",
    .summary = "mostly idle pCPUs: C-states, timer ticks, guests waking now "
               "and then",
    .default_rate = IDLE_RATE,
    .init = idle_init,
    .step = host_step,
};

static const struct workload wl_mixed = {
    .name = "mixed",
    .summary = "a busy host: dom0, HVM and PV guests, vmexits, hypercalls, "
               "block I/O",
    .default_rate = BUSY_RATE,
    .init = busy_init,
    .step = host_step,
};

static const struct workload wl_flood = {
    .name = "flood",
    .summary = "mixed's events, every pCPU flat out, to overflow the buffers",
    .default_rate = 0,
    .unpaced = true,
    .init = busy_init,
    .step = host_step,
};

const struct workload *const workloads[] = {
    &wl_idle, &wl_mixed, &wl_flood, NULL,
};

const struct workload *workload_find(const char *name)
{
    const struct workload *const *w;

    for ( w = workloads; *w; w++ )
        if ( !strcmp((*w)->name, name) )
            return *w;
    return NULL;
}
