/*
 * model: the machine a trace describes (model.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "hashtab.h"
#include "merge.h"
#include "model.h"
#include "relay.h"

/* Events are named from the catalogue's header (xtfile.h includes it). */
#define HYPERCALL_V2_OP     (~TRC_PV_HYPERCALL_V2_ARG_MASK) /* the rest: which
                                                              args follow */
#define NO_INDEX            UINT32_MAX

/*
 * An HVM vCPU's injected interrupts since its last halt, for the time
 * from each to the halt (xenalyze's "wake to halt"): per vector, the
 * entry into the guest after its injection (1: the next entry; 0: none
 * open), and whether it is the wake's.
 */
#define TO_HALT_VECTORS 256

struct to_halt {
    uint32_t open;              /* vectors injected since the last halt */
    uint32_t pending;           /* of them, waiting for an entry */
    bool has_wake;              /* the wake's vector is among them */
    uint64_t since[TO_HALT_VECTORS];
    bool wake[TO_HALT_VECTORS];
};

struct vstate {
    uint32_t domvcpu;
    bool ran;                   /* it has been running: its domain's
                                   concurrency counts it (domain_change()) */
    bool hvm;                   /* an HVM record has been its */
    bool waking;                /* woken from blocked, not yet entered */
    struct to_halt *to_halt;    /* from its first injection; NULL */
    enum model_state state;
    enum model_cause cause;
    uint64_t since;
    uint32_t pcpu;              /* runs or last ran on; MODEL_CPU_NONE */
    bool exit_open;
    bool exit_svm;
    bool exit_arm;
    uint32_t exit_reason;
    uint32_t exit_pcpu;
    uint64_t exit_rip, exit_start;
    unsigned int nr_handlers;
    struct xt_record handlers[MODEL_MAX_HANDLERS];
    bool inject_pending;        /* Arm: a virtual interrupt made pending */
    uint32_t inject_virq;       /* while a pCPU handled a physical IRQ */
    uint64_t inject_irq_tsc;    /* taken then */
};

/* A domain's vCPUs by runstate, for its concurrency. */
struct dstate {
    uint32_t domid;
    uint32_t in[MODEL_STATES];  /* its vCPUs in each runstate */
    enum model_domain_state state;
    uint64_t since;             /* 0: no vCPU has changed yet */
};

struct pstate {
    uint32_t cpu;
    uint32_t current;           /* index in vcpus, or NO_INDEX */
    uint64_t first_tsc;         /* of its first and last record in the */
    uint64_t last_tsc;          /* whole trace */
    bool has_tsc;
    bool scheduled;             /* a record put a vCPU on it or took one
                                   off, or a loss hid what it ran */
    bool in_cstate;
    uint32_t cstate;
    uint64_t cstate_since;
    bool switching;             /* @sw waits for prev's runstate change */
    struct model_event sw;
    bool in_irq;                /* Arm: from TRC_ARM_IRQ to the next */
    uint64_t irq_tsc;           /* TRC_ARM_RETURN, and the last IRQ's TSC */
};

struct model {
    struct xt_reader *reader;
    const struct xt_dom0_info *dom0;    /* whose lanes it skips */
    struct model_ops ops;
    void *arg;
    uint64_t trace_first, trace_last;   /* the whole trace's TSCs */
    uint64_t first, last;               /* the window's */
    bool last_open;                     /* it ends before the trace:
                                           [first, last) */

    /*
     * The pCPUs with a batch, ascending, found by CPU number through
     * @by_cpu (index + 1, for numbers below @nr_by_cpu), or a binary
     * search above: a hostile file's CPU numbers can be anything.
     */
    unsigned int nr_pcpus;
    struct pstate *pcpus;
    uint32_t *by_cpu;
    unsigned int nr_by_cpu;
    /*
     * A stream's pCPUs (and TSC range) are learnt as records come: @pcpus
     * in the order of their first batch (the reader's cpu_index), found
     * through @by_cpu, which covers every CPU number.  Its range is the
     * first record's TSC on (the smallest, in TSC order) to the pCPUs'
     * last, as a file's index gives it.
     */
    bool streamed;
    bool started;               /* a record with a TSC has come */
    size_t pcpus_cap;
    struct pstate *last_pcpu;   /* of the last record, found again */
    bool in_cpu_order;          /* model_options.by_cpu */
    int (*each)(void *each_arg, const struct xt_record *rec);
    void *each_arg;             /* model_options' */
    unsigned int threads;       /* model_options' */

    unsigned int nr_vcpus;
    size_t vcpus_cap;
    struct vstate *vcpus;
    struct hashtab index;       /* domvcpu -> index in vcpus */

    unsigned int nr_domains;
    size_t domains_cap;
    struct dstate *domains;
    struct hashtab domain_index;    /* domid -> index in domains */

    struct model_record what;   /* of the record being taken */
    struct model_stats stats;
};

/*
 * vCPUs
 */

static uint64_t vcpu_key(const void *vcpus, unsigned int i)
{
    return ((const struct vstate *)vcpus)[i].domvcpu;
}

static uint64_t vcpu_hash(const void *vcpus, unsigned int i)
{
    return hashtab_hash(vcpu_key(vcpus, i));
}

/* The index of @domvcpu, which is added if new; NO_INDEX with ENOMEM. */
static uint32_t vcpu_index(struct model *m, uint32_t domvcpu)
{
    unsigned int s = hashtab_get(&m->index, domvcpu, m->vcpus, vcpu_key);

    if ( s )
        return s - 1;
    /* Room first, so that a failure leaves the table as it was. */
    if ( array_fit(&m->vcpus, &m->vcpus_cap, m->nr_vcpus + 1,
                   sizeof(*m->vcpus)) ||
         hashtab_fit(&m->index, m->nr_vcpus + 1, m->vcpus, vcpu_hash) )
        return NO_INDEX;
    s = hashtab_find(&m->index, domvcpu, m->vcpus, vcpu_key);
    m->vcpus[m->nr_vcpus] = (struct vstate){
        .domvcpu = domvcpu, .state = MODEL_UNKNOWN,
        .since = m->trace_first, .pcpu = MODEL_CPU_NONE,
    };
    hashtab_set(&m->index, s, m->nr_vcpus);
    return m->nr_vcpus++;
}

#define DENSE_CPUS  4096

static struct pstate *pcpu_find(const struct model *m, uint32_t cpu)
{
    unsigned int lo = 0, hi = m->nr_pcpus;

    /* Records come a pCPU's run at a time (merge.h). */
    if ( m->last_pcpu && m->last_pcpu->cpu == cpu )
        return m->last_pcpu;
    if ( cpu < m->nr_by_cpu )
        return m->by_cpu[cpu] ? &m->pcpus[m->by_cpu[cpu] - 1] : NULL;
    while ( lo < hi )
    {
        unsigned int mid = lo + (hi - lo) / 2;

        if ( m->pcpus[mid].cpu == cpu )
            return &m->pcpus[mid];
        if ( m->pcpus[mid].cpu < cpu )
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static struct vstate *current_of(struct model *m, uint32_t cpu)
{
    struct pstate *p = pcpu_find(m, cpu);

    return p && p->current != NO_INDEX ? &m->vcpus[p->current] : NULL;
}

/*
 * Emitting, clipped to the window
 */

static void emit(struct model *m, struct model_event *ev)
{
    ev->began = ev->start > m->trace_first ? ev->start : m->trace_first;
    if ( ev->end > m->last || (ev->end == m->last && m->last_open) )
        ev->goes_on = true;
    if ( ev->start < m->first )
        ev->start = m->first;
    if ( ev->end > m->last )
        ev->end = m->last;
    if ( ev->start > ev->end ||
         (ev->start == ev->end && (ev->start < m->first ||
                                   ev->start > m->last)) )
        return;
    m->ops.event(m->arg, ev);
}

static void emit_point(struct model *m, struct model_event *ev,
                       const struct xt_record *rec, uint32_t domvcpu)
{
    ev->pcpu = rec->cpu;
    ev->domvcpu = domvcpu;
    ev->start = ev->end = ev->began = rec->tsc;
    if ( rec->tsc >= m->first && rec->tsc <= m->last )
        m->ops.event(m->arg, ev);
}

/*
 * Domains
 */

static uint64_t domain_key(const void *domains, unsigned int i)
{
    return ((const struct dstate *)domains)[i].domid;
}

static uint64_t domain_hash(const void *domains, unsigned int i)
{
    return hashtab_hash(domain_key(domains, i));
}

/* @domid's state, which is added if new; NULL with ENOMEM. */
static struct dstate *domain_of(struct model *m, uint32_t domid)
{
    unsigned int s = hashtab_get(&m->domain_index, domid, m->domains,
                                 domain_key);

    if ( s )
        return &m->domains[s - 1];
    if ( array_fit(&m->domains, &m->domains_cap, m->nr_domains + 1,
                   sizeof(*m->domains)) ||
         hashtab_fit(&m->domain_index, m->nr_domains + 1, m->domains,
                     domain_hash) )
        return NULL;
    s = hashtab_find(&m->domain_index, domid, m->domains, domain_key);
    m->domains[m->nr_domains] = (struct dstate){ .domid = domid };
    hashtab_set(&m->domain_index, s, m->nr_domains);
    return &m->domains[m->nr_domains++];
}

/* As xenalyze's domain_runstate(): the vCPUs not yet proven left out. */
static enum model_domain_state concurrency(const struct dstate *d)
{
    const uint32_t *in = d->in;
    uint32_t known = in[MODEL_RUNNING] + in[MODEL_RUNNABLE] +
                     in[MODEL_BLOCKED] + in[MODEL_OFFLINE] + in[MODEL_LOST];
    bool asleep = in[MODEL_BLOCKED] || in[MODEL_OFFLINE];

    if ( in[MODEL_LOST] == known )
        return MODEL_DOM_LOST;
    if ( in[MODEL_RUNNING] )
        return in[MODEL_RUNNABLE] ? MODEL_DOM_HAZARD :
               asleep ? MODEL_DOM_PARTIAL_RUN : MODEL_DOM_FULL_RUN;
    if ( in[MODEL_RUNNABLE] )
        return asleep ? MODEL_DOM_PARTIAL_CONTENTION
                      : MODEL_DOM_FULL_CONTENTION;
    return MODEL_DOM_BLOCKED;
}

/*
 * @v enters @state at @tsc: its domain's concurrency since its last vCPU
 * change is booked, as xenalyze books it at each change of one of its
 * vCPUs, and classified again.  As in xenalyze, a vCPU counts from its
 * first running on ("leaving INIT"): until then its states are its own,
 * not yet its domain's.
 */
static void domain_change(struct model *m, const struct vstate *v,
                          enum model_state state, uint64_t tsc)
{
    uint32_t domid = v->domvcpu >> 16;
    struct model_event ev = {
        .type = MODEL_EV_DOMAIN, .pcpu = MODEL_CPU_NONE,
        .domvcpu = model_domvcpu(domid, 0xffff), .end = tsc,
    };
    struct dstate *d;

    if ( domid == MODEL_DOMID_IDLE ||
         (!v->ran && state != MODEL_RUNNING) || !(d = domain_of(m, domid)) )
        return;
    if ( d->since && tsc > d->since )
    {
        ev.start = d->since;
        ev.u.domain.state = d->state;
        emit(m, &ev);
    }
    if ( v->ran && v->state != MODEL_UNKNOWN )
        d->in[v->state]--;
    if ( (v->ran || state == MODEL_RUNNING) && state != MODEL_UNKNOWN )
        d->in[state]++;
    d->state = concurrency(d);
    d->since = tsc;
}

/* Close @v's interval at @tsc and enter @state with @cause. */
static void enter(struct model *m, struct vstate *v, uint64_t tsc,
                  enum model_state state, enum model_cause cause,
                  enum model_end end_by)
{
    struct model_event ev = {
        .type = MODEL_EV_RUNSTATE, .pcpu = v->pcpu, .domvcpu = v->domvcpu,
        .start = v->since, .end = tsc,
        .u.runstate = { .state = v->state, .cause = v->cause,
                        .end_by = end_by, .next = state },
    };

    if ( tsc < v->since )
        tsc = ev.end = v->since;
    if ( tsc > v->since )
        emit(m, &ev);
    /* The end is domains_finish()'s. */
    if ( end_by != MODEL_END_TRACE )
        domain_change(m, v, state, tsc);
    v->ran |= state == MODEL_RUNNING;
    /* The record's pCPU's vCPU ends a run: where it ran from. */
    if ( v->state == MODEL_RUNNING && current_of(m, v->pcpu) == v &&
         m->last_pcpu && m->last_pcpu->cpu == v->pcpu )
        m->what.ran_since = v->since;
    /* The record ends a state it proves, not a gap in what is known. */
    if ( v->state <= MODEL_OFFLINE )
    {
        m->what.closes = true;
        m->what.ticks = tsc - v->since;
    }
    v->state = state;
    v->cause = cause;
    v->since = tsc;
}

static void close_exit(struct model *m, struct vstate *v, uint64_t tsc,
                       uint32_t pcpu)
{
    uint64_t blocked = v->since > v->exit_start ? v->since : v->exit_start;
    struct model_event ev = {
        .type = MODEL_EV_EXIT, .pcpu = v->exit_pcpu, .domvcpu = v->domvcpu,
        .start = v->exit_start, .end = tsc >= v->exit_start ? tsc : v->exit_start,
        .u.exit = {
            .reason = v->exit_reason, .svm = v->exit_svm,
            .arm = v->exit_arm, .rip = v->exit_rip,
            .nr_handlers = v->nr_handlers, .handlers = v->handlers,
            .entry_pcpu = pcpu,
            .halted = v->state == MODEL_BLOCKED && tsc > blocked
                      ? tsc - blocked : 0,
            .halted_since = blocked,
        },
    };

    v->exit_open = false;
    emit(m, &ev);
    m->what.closes = true;
    m->what.ticks = ev.end - ev.start;
}

/* @v's state is not known from @tsc on: records that would say are lost. */
static void lose(struct model *m, struct vstate *v, uint64_t tsc)
{
    if ( v->exit_open )
    {
        v->exit_open = false;
        m->stats.exits_dropped++;
    }
    v->inject_pending = false;
    v->waking = false;
    if ( v->to_halt )
        memset(v->to_halt, 0, sizeof(*v->to_halt));
    if ( v->state == MODEL_LOST || v->state == MODEL_UNKNOWN )
        return;
    enter(m, v, tsc > v->since ? tsc : v->since, MODEL_LOST,
          MODEL_CAUSE_NONE, MODEL_END_LOSS);
}

/*
 * Guest interrupts to the next halt, as xenalyze's "wake to halt"
 */

/* @vector injected into @v: open until its halt; -1 with ENOMEM. */
static int to_halt_inject(struct vstate *v, uint32_t vector)
{
    struct to_halt *h = v->to_halt;

    if ( vector >= TO_HALT_VECTORS )
        return 0;
    if ( !h && !(h = v->to_halt = calloc(1, sizeof(*h))) )
        return -1;
    /* The first injected after a wake-up, before the entry, is its own. */
    if ( v->waking && !h->has_wake )
    {
        h->has_wake = true;
        h->wake[vector] = true;
    }
    if ( !h->since[vector] )
    {
        h->since[vector] = 1;
        h->open++;
        h->pending++;
    }
    return 0;
}

/* @v enters the guest at @tsc: its interrupts pending count from now. */
static void to_halt_entry(struct vstate *v, uint64_t tsc)
{
    struct to_halt *h = v->to_halt;
    unsigned int i;

    v->waking = false;
    for ( i = 0; h && h->pending && i < TO_HALT_VECTORS; i++ )
        if ( h->since[i] == 1 )
        {
            h->since[i] = tsc;
            h->pending--;
        }
}

/*
 * @v's runstate changes from @old to @new at @tsc: a wake-up (blocked to
 * runnable) is waking until the next entry; a halt (running to blocked)
 * ends every interrupt open, each an event from its entry.
 */
static void to_halt_change(struct model *m, struct vstate *v,
                           enum model_state old, enum model_state new,
                           uint64_t tsc)
{
    struct to_halt *h = v->to_halt;
    struct model_event ev = {
        .type = MODEL_EV_TO_HALT, .pcpu = v->pcpu, .domvcpu = v->domvcpu,
        .end = tsc,
    };
    unsigned int i;

    /* As xenalyze, which knows a vCPU is HVM once it has an HVM record. */
    if ( !v->hvm || v->state == MODEL_LOST )
        return;
    if ( old == MODEL_BLOCKED && new == MODEL_RUNNABLE )
    {
        v->waking = true;
        return;
    }
    if ( old == MODEL_RUNNABLE && new == MODEL_RUNNING )
        return;
    if ( old == MODEL_RUNNING && new != MODEL_OFFLINE )
        v->waking = false;
    if ( old != MODEL_RUNNING || new != MODEL_BLOCKED || !h || !h->open )
        return;
    for ( i = 0; i < TO_HALT_VECTORS; i++ )
    {
        /* One never entered, or entered at the halt, lasted nothing. */
        if ( h->since[i] > 1 && tsc > h->since[i] )
        {
            ev.start = h->since[i];
            ev.u.to_halt = (typeof(ev.u.to_halt)){
                .vector = i, .wake = h->wake[i], .alone = h->open == 1,
            };
            emit(m, &ev);
        }
        h->since[i] = 0;
        h->wake[i] = false;
    }
    h->open = h->pending = 0;
    h->has_wake = false;
}

/*
 * Scheduler records
 */

static void switch_done(struct model *m, struct pstate *p);

/* @v runs on @cpu from @tsc (it was proven running there). */
static void set_running(struct model *m, uint32_t index, uint32_t cpu)
{
    struct vstate *v = &m->vcpus[index];
    struct pstate *p = pcpu_find(m, cpu), *q = pcpu_find(m, v->pcpu);

    if ( q && q->current == index )
        q->current = NO_INDEX;
    if ( p )
    {
        p->current = index;
        p->scheduled = true;
    }
    v->pcpu = cpu;
}

static int runstate_change(struct model *m, const struct xt_record *rec)
{
    enum model_state old = xt_runstate_old(rec->event);
    enum model_state new = xt_runstate_new(rec->event);
    enum model_state from;
    struct pstate *p;
    uint32_t i;
    struct vstate *v;

    if ( !rec->nr_extra || old > MODEL_OFFLINE || new > MODEL_OFFLINE )
        return 0;
    if ( (i = vcpu_index(m, rec->extra[0])) == NO_INDEX )
        return -1;
    v = &m->vcpus[i];

    to_halt_change(m, v, old, new, rec->tsc);

    /* A change from a state not held: what happened between is lost. */
    from = v->state;
    if ( from <= MODEL_OFFLINE && from != old )
    {
        m->stats.mismatches++;
        from = MODEL_LOST;
    }
    v->state = from;

    p = pcpu_find(m, rec->cpu);
    if ( p && p->switching && p->sw.u.sw.prev == v->domvcpu &&
         old == MODEL_RUNNING )
    {
        p->sw.u.sw.prev_state = new;
        switch_done(m, p);
    }

    /* Waiting for a pCPU is no part of an exit's cost (xenalyze too). */
    if ( new == MODEL_RUNNABLE && v->exit_open )
        close_exit(m, v, rec->tsc, rec->cpu);

    if ( old == MODEL_RUNNING )
    {
        struct pstate *q = pcpu_find(m, v->pcpu);

        if ( q && q->current == i )
            q->current = NO_INDEX;
        if ( p )
            p->scheduled = true;
    }
    enter(m, v, rec->tsc, new,
          new != MODEL_RUNNABLE ? MODEL_CAUSE_NONE :
          old == MODEL_RUNNING ? MODEL_CAUSE_PREEMPTED : MODEL_CAUSE_WOKEN,
          MODEL_END_RECORD);
    if ( new == MODEL_RUNNING )
        set_running(m, i, rec->cpu);
    return 0;
}

/*
 * TRC_SCHED_CONTINUE_RUNNING: the scheduler ran, and @domvcpu goes on
 * running on its pCPU.  It starts a new running interval (a new time
 * slice), as xenalyze counts it; it also proves the state of a vCPU lost
 * or unknown.
 */
static int continue_running(struct model *m, const struct xt_record *rec)
{
    uint32_t i = vcpu_index(m, rec->extra[0]);
    struct pstate *p = pcpu_find(m, rec->cpu);
    struct vstate *v;

    if ( i == NO_INDEX )
        return -1;
    v = &m->vcpus[i];
    /*
     * As the first scheduler record of its pCPU, it proves the vCPU ran
     * there since the pCPU's first record: nothing was switched in before
     * (xenalyze takes it so too).  So too for a vCPU last seen waiting
     * elsewhere, before that first record: it was switched in there before
     * the pCPU's records begin (real Xen on Arm: a busy dom0 vCPU preempted
     * on pCPU 0, found running by pCPU 1's first records).
     */
    if ( v->state != MODEL_RUNNING && p && !p->scheduled && p->has_tsc &&
         v->since <= p->first_tsc && p->first_tsc <= rec->tsc )
        enter(m, v, p->first_tsc, MODEL_RUNNING, MODEL_CAUSE_NONE,
              MODEL_END_RECORD);
    else
        enter(m, v, rec->tsc, MODEL_RUNNING, MODEL_CAUSE_NONE,
              MODEL_END_RECORD);
    set_running(m, i, rec->cpu);
    return 0;
}

/*
 * A switch says which vCPU runs on its pCPU from now: the one HVM and PV
 * records there are of.  Runstates change only by their own records, which
 * Xen writes just after the switch.
 */
static int sched_switch(struct model *m, const struct xt_record *rec)
{
    struct model_event ev = { .type = MODEL_EV_SWITCH };
    struct pstate *p;
    uint32_t pi, ni;

    if ( rec->nr_extra < 4 )
        return 0;
    pi = vcpu_index(m, model_domvcpu(rec->extra[0], rec->extra[1]));
    ni = pi == NO_INDEX ? NO_INDEX :
         vcpu_index(m, model_domvcpu(rec->extra[2], rec->extra[3]));
    if ( ni == NO_INDEX )
        return -1;
    ev.u.sw.prev = m->vcpus[pi].domvcpu;
    ev.u.sw.next = m->vcpus[ni].domvcpu;
    ev.u.sw.prev_state = m->vcpus[pi].state;
    set_running(m, ni, rec->cpu);
    if ( !(p = pcpu_find(m, rec->cpu)) )
        return 0;
    ev.pcpu = rec->cpu;
    ev.domvcpu = ev.u.sw.next;
    ev.start = ev.end = ev.began = rec->tsc;
    p->sw = ev;
    p->switching = true;
    return 0;
}

/*
 * The switch on @p, once its prev's runstate change has said where prev
 * went (it follows the switch), or once another record shows it will not.
 */
static void switch_done(struct model *m, struct pstate *p)
{
    p->switching = false;
    if ( p->sw.start >= m->first && p->sw.start <= m->last )
        m->ops.event(m->arg, &p->sw);
}

static int sched_wake(struct model *m, const struct xt_record *rec)
{
    struct model_event ev = { .type = MODEL_EV_WAKE };
    uint32_t i;

    if ( rec->nr_extra < 2 )
        return 0;
    if ( (i = vcpu_index(m, model_domvcpu(rec->extra[0],
                                          rec->extra[1]))) == NO_INDEX )
        return -1;
    ev.u.wake.target_pcpu = m->vcpus[i].pcpu;
    emit_point(m, &ev, rec, m->vcpus[i].domvcpu);
    return 0;
}

/*
 * A loss on a pCPU hides whatever it did: the vCPU it ran, and every vCPU
 * not running elsewhere (it may have been woken or run there), are lost
 * from the first lost record.  An idle vCPU runs only on its own pCPU.
 */
static void lost_records(struct model *m, const struct xt_record *rec)
{
    struct model_event ev = { .type = MODEL_EV_LOST, .pcpu = rec->cpu,
                              .domvcpu = MODEL_VCPU_NONE };
    struct pstate *p = pcpu_find(m, rec->cpu);
    struct xt_lost lost;
    unsigned int i;

    if ( !xt_record_lost(rec, &lost) )
        return;
    ev.start = lost.first_tsc <= rec->tsc ? lost.first_tsc : rec->tsc;
    ev.end = rec->tsc;
    ev.u.lost.count = lost.count;
    emit(m, &ev);
    for ( i = 0; i < m->nr_vcpus; i++ )
    {
        struct vstate *v = &m->vcpus[i];
        bool here = p && p->current == i;

        if ( (v->domvcpu >> 16 == MODEL_DOMID_IDLE &&
              (v->domvcpu & 0xffff) != rec->cpu) ||
             (v->state == MODEL_RUNNING && !here) )
            continue;
        lose(m, v, ev.start);
    }
    if ( p )
    {
        p->current = NO_INDEX;
        p->in_cstate = false;
        p->in_irq = false;
        p->scheduled = true;
    }
}

/*
 * HVM records, of the vCPU that runs on their pCPU
 */

static void hvm_exit(const struct xt_record *rec, struct vstate *v)
{
    bool wide = rec->event & TRC_64_FLAG;

    if ( rec->nr_extra < (wide ? 3u : 2u) )
        return;
    v->exit_open = true;
    v->exit_svm = (rec->event & ~(TRC_HVM_NESTEDFLAG | TRC_64_FLAG)) ==
                  TRC_HVM_SVM_EXIT;
    v->exit_arm = false;
    v->exit_reason = rec->extra[0];
    v->exit_rip = wide ? rec->extra[1] | (uint64_t)rec->extra[2] << 32
                       : rec->extra[1];
    v->exit_start = rec->tsc;
    v->exit_pcpu = rec->cpu;
    v->nr_handlers = 0;
}

/* A record of what the open exit (or trap) of @v does, kept with it. */
static void exit_handler(struct vstate *v, const struct xt_record *rec)
{
    if ( !v->exit_open )
        return;
    if ( v->nr_handlers < MODEL_MAX_HANDLERS )
        v->handlers[v->nr_handlers] = *rec;
    v->nr_handlers++;
}

static void hvm_handler(struct model *m, const struct xt_record *rec,
                        struct vstate *v, uint32_t id)
{
    struct model_event ev;

    exit_handler(v, rec);
    if ( !rec->nr_extra )
        return;
    switch ( id )
    {
    case TRC_HVM_VMMCALL:
        ev = (struct model_event){
            .type = MODEL_EV_HYPERCALL,
            .u.hypercall = { .op = rec->extra[0], .hvm = true },
        };
        break;
    case TRC_HVM_INJ_VIRQ:
        ev = (struct model_event){
            .type = MODEL_EV_INJECT, .u.inject.vector = rec->extra[0],
        };
        break;
    case TRC_HVM_INTR:
        ev = (struct model_event){
            .type = MODEL_EV_IRQ,
            .u.irq = { .vector = rec->extra[0], .irq = UINT32_MAX },
        };
        break;
    default:
        return;
    }
    emit_point(m, &ev, rec, v->domvcpu);
}

/* An HVM record; -1 with ENOMEM. */
static int hvm_record(struct model *m, const struct xt_record *rec)
{
    uint32_t id = rec->event & ~TRC_HVM_NESTEDFLAG;
    struct vstate *v = current_of(m, rec->cpu);

    if ( !v )
    {
        m->stats.orphan_hvm++;
        return 0;
    }
    v->hvm = true;
    if ( id == TRC_HVM_VMEXIT || id == TRC_HVM_VMEXIT64 ||
         (id & ~TRC_64_FLAG) == TRC_HVM_SVM_EXIT )
        hvm_exit(rec, v);
    else if ( id == TRC_HVM_VMENTRY )
    {
        to_halt_entry(v, rec->tsc);
        if ( v->exit_open )
            close_exit(m, v, rec->tsc, rec->cpu);
    }
    else if ( (id & XT_CLASS_ALL) == TRC_HVM_HANDLER )
    {
        if ( id == TRC_HVM_INJ_VIRQ && rec->nr_extra &&
             to_halt_inject(v, rec->extra[0]) )
            return -1;
        hvm_handler(m, rec, v, id);
    }
    return 0;
}

/*
 * PV records
 */

static void pv_record(struct model *m, const struct xt_record *rec)
{
    uint32_t id = rec->event & ~TRC_64_FLAG;
    struct vstate *v = current_of(m, rec->cpu);
    uint32_t who = v ? v->domvcpu : MODEL_VCPU_NONE;
    struct model_event ev = { .type = MODEL_EV_HYPERCALL };

    if ( id == TRC_PV_HYPERCALL_V2 || id == TRC_PV_HYPERCALL_SUBCALL )
    {
        if ( !rec->nr_extra )
            return;
        ev.u.hypercall.op = rec->extra[0] & HYPERCALL_V2_OP;
        ev.u.hypercall.subcall = id == TRC_PV_HYPERCALL_SUBCALL;
    }
    else if ( id == TRC_PV_HYPERCALL )
    {
        /* {eip, eax}, or {rip lo, hi, eax} */
        unsigned int at = rec->event & TRC_64_FLAG ? 2 : 1;

        if ( rec->nr_extra <= at )
            return;
        ev.u.hypercall.op = rec->extra[at];
    }
    else
        ev = (struct model_event){ .type = MODEL_EV_PV, .u.pv.event = rec->event };
    emit_point(m, &ev, rec, who);
}

/*
 * A record a guest wrote with HVMOP_xentrace: its own event, in the low
 * 12 bits, written in the context of its vCPU.
 */
static void guest_record(struct model *m, const struct xt_record *rec)
{
    struct vstate *v = current_of(m, rec->cpu);
    struct model_event ev = {
        .type = MODEL_EV_GUEST,
        .u.guest.event = rec->event & ~XT_CLASS_ALL,
    };

    emit_point(m, &ev, rec, v ? v->domvcpu : MODEL_VCPU_NONE);
}

/*
 * A memory operation (TRC_MEM), by the catalogue's fields in the layout
 * of the record's Xen: "dom" and "order", or Xen 4.17's "dom_order"
 * (the domain in the low 16 bits, the order in the high).
 */
static void mem_record(struct model *m, const struct xt_record *rec)
{
    const struct xt_event_desc *d = xt_event_find_xen(rec->event,
                                                      rec->xen_version);
    struct vstate *v = current_of(m, rec->cpu);
    struct model_event ev = {
        .type = MODEL_EV_MEM,
        .u.mem = { .event = d ? d->id : rec->event, .dom = UINT32_MAX,
                   .order = UINT32_MAX },
    };
    uint32_t w;

    if ( xt_record_field(rec, "dom_order", &w) )
    {
        ev.u.mem.dom = w & 0xffffu;
        ev.u.mem.order = w >> 16;
    }
    if ( xt_record_field(rec, "dom", &w) )
        ev.u.mem.dom = w & 0xffffu;
    if ( xt_record_field(rec, "order", &w) )
        ev.u.mem.order = w;
    emit_point(m, &ev, rec, v ? v->domvcpu : MODEL_VCPU_NONE);
}

/*
 * Interrupts and C-states
 */

static void irq_record(struct model *m, const struct xt_record *rec,
                       uint32_t vector, uint32_t irq)
{
    struct vstate *v = current_of(m, rec->cpu);
    struct model_event ev = {
        .type = MODEL_EV_IRQ, .u.irq = { .vector = vector, .irq = irq },
    };

    emit_point(m, &ev, rec, v ? v->domvcpu : MODEL_VCPU_NONE);
}

static void pm_record(struct model *m, const struct xt_record *rec)
{
    struct pstate *p = pcpu_find(m, rec->cpu);
    unsigned int i;

    if ( !p || !rec->nr_extra )
        return;
    if ( rec->event == TRC_PM_IDLE_ENTRY )
    {
        p->in_cstate = true;
        p->cstate = rec->extra[0];
        p->cstate_since = rec->tsc;
        return;
    }
    if ( p->in_cstate )
    {
        struct model_event ev = {
            .type = MODEL_EV_CSTATE, .pcpu = rec->cpu,
            .domvcpu = MODEL_VCPU_NONE, .start = p->cstate_since,
            .end = rec->tsc, .u.cstate.cstate = p->cstate,
        };

        p->in_cstate = false;
        emit(m, &ev);
        m->what.closes = true;
        m->what.ticks = ev.end - ev.start;
    }
    /* The vectors pending when the pCPU woke (Xen's trace_exit_reason()). */
    for ( i = 2; i < rec->nr_extra && rec->extra[i]; i++ )
        irq_record(m, rec, rec->extra[i], UINT32_MAX);
}

/*
 * Arm records (xen/patches/arm): traps as exits, and interrupts
 */

static void arm_trap(struct vstate *v, const struct xt_record *rec)
{
    if ( rec->nr_extra < 4 )
        return;
    v->exit_open = true;
    v->exit_svm = false;
    v->exit_arm = true;
    v->exit_reason = rec->extra[0];
    v->exit_rip = rec->extra[2] | (uint64_t)rec->extra[3] << 32;
    v->exit_start = rec->tsc;
    v->exit_pcpu = rec->cpu;
    v->nr_handlers = 0;
}

/*
 * Xen enters the guest: the trap open ends, and so does the wait for a
 * virtual interrupt made pending while a pCPU handled a physical IRQ.
 */
static void arm_return(struct model *m, const struct xt_record *rec,
                       struct pstate *p, struct vstate *v)
{
    if ( p )
        p->in_irq = false;
    if ( !v )
        return;
    if ( v->exit_open )
        close_exit(m, v, rec->tsc, rec->cpu);
    if ( v->inject_pending )
    {
        struct model_event ev = {
            .type = MODEL_EV_INJECT_LATENCY, .pcpu = rec->cpu,
            .domvcpu = v->domvcpu, .start = v->inject_irq_tsc,
            .end = rec->tsc >= v->inject_irq_tsc ? rec->tsc
                                                 : v->inject_irq_tsc,
            .u.inject = { .vector = v->inject_virq, .arm = true },
        };

        v->inject_pending = false;
        emit(m, &ev);
    }
}

/* TRC_ARM_VIRQ_INJECT: {domain << 16 | vcpu, virq}, for any vCPU. */
static int arm_inject(struct model *m, const struct xt_record *rec,
                      struct pstate *p)
{
    struct model_event ev = { .type = MODEL_EV_INJECT };
    struct vstate *v;
    uint32_t i;

    if ( rec->nr_extra < 2 )
        return 0;
    if ( (i = vcpu_index(m, rec->extra[0])) == NO_INDEX )
        return -1;
    v = &m->vcpus[i];
    if ( p && p->in_irq && !v->inject_pending )
    {
        v->inject_pending = true;
        v->inject_virq = rec->extra[1];
        v->inject_irq_tsc = p->irq_tsc;
    }
    ev.u.inject.vector = rec->extra[1];
    ev.u.inject.arm = true;
    emit_point(m, &ev, rec, v->domvcpu);
    return 0;
}

static int arm_record(struct model *m, const struct xt_record *rec,
                      struct pstate *p)
{
    struct vstate *v = current_of(m, rec->cpu);

    m->stats.arm_records++;
    switch ( rec->event )
    {
    case TRC_ARM_IRQ:
        if ( !rec->nr_extra )
            break;
        /*
         * The latest: an idle pCPU takes IRQs and never returns to a
         * guest, and the injection is made by the IRQ being handled.
         */
        if ( p )
        {
            p->in_irq = true;
            p->irq_tsc = rec->tsc;
        }
        irq_record(m, rec, UINT32_MAX, rec->extra[0]);
        break;
    case TRC_ARM_VIRQ_INJECT:
        return arm_inject(m, rec, p);
    case TRC_ARM_RETURN:
        arm_return(m, rec, p, v);
        break;
    case TRC_ARM_TRAP:
    case TRC_ARM_TRAP_HVC:
    case TRC_ARM_TRAP_MMIO:
        if ( !v )
            m->stats.orphan_hvm++;
        else if ( rec->event == TRC_ARM_TRAP )
            arm_trap(v, rec);
        else
            exit_handler(v, rec);
        break;
    }
    return 0;
}

/* A stream's pCPU @index, the reader's, and those before it. */
static int pcpus_grow(struct model *m, unsigned int index)
{
    if ( array_fit(&m->pcpus, &m->pcpus_cap, index + 1, sizeof(*m->pcpus)) )
        return -1;
    for ( ; m->nr_pcpus <= index; m->nr_pcpus++ )
    {
        struct pstate *p = &m->pcpus[m->nr_pcpus];

        *p = (struct pstate){
            .cpu = xt_reader_cpu(m->reader, m->nr_pcpus)->cpu,
            .current = NO_INDEX,
        };
        if ( p->cpu < m->nr_by_cpu )
            m->by_cpu[p->cpu] = m->nr_pcpus + 1;
    }
    m->last_pcpu = NULL;        /* it may have moved */
    return 0;
}

/*
 * What a file's index tells the model at the start, a stream's record
 * @rec tells it as it comes: its pCPU, that pCPU's TSCs, the trace's.
 */
static int learn(struct model *m, const struct xt_record *rec)
{
    struct pstate *p;

    if ( rec->cpu_index >= m->nr_pcpus && pcpus_grow(m, rec->cpu_index) )
        return -1;
    if ( !rec->has_tsc )
        return 0;
    p = &m->pcpus[rec->cpu_index];
    if ( !p->has_tsc )
        p->first_tsc = rec->tsc;
    p->has_tsc = true;
    p->last_tsc = rec->tsc;
    if ( !m->started )
    {
        m->started = true;
        m->trace_first = rec->tsc;
        if ( m->first < rec->tsc )
            m->first = rec->tsc;
    }
    return 0;
}

/*
 * Taking records
 */

int model_feed(struct model *m, const struct xt_record *rec)
{
    uint32_t ev = rec->event;
    struct xt_record within;
    struct pstate *p;
    struct vstate *v;
    int ret = 0;

    if ( xt_dom0_is_lane(m->dom0, rec->cpu) )   /* dom0's own events */
    {
        if ( m->ops.dom0 && rec->tsc >= m->first && rec->tsc <= m->last )
            m->ops.dom0(m->arg, rec);
        return 0;
    }
    if ( m->streamed && learn(m, rec) )
        return -1;
    /*
     * A TSC outside the trace's range (one that went backwards on its
     * CPU: damage) is taken at the range's edge, so that intervals stay
     * inside the span.
     */
    if ( rec->tsc < m->trace_first || rec->tsc > m->trace_last )
    {
        within = *rec;
        within.tsc = rec->tsc < m->trace_first ? m->trace_first
                                               : m->trace_last;
        rec = &within;
    }

    m->stats.records++;
    m->what = (struct model_record){ .domvcpu = MODEL_VCPU_NONE };
    /* The reader's index of the pCPU is the model's, on a file. */
    p = rec->cpu_index < m->nr_pcpus && m->pcpus[rec->cpu_index].cpu == rec->cpu
        ? &m->pcpus[rec->cpu_index] : pcpu_find(m, rec->cpu);
    m->last_pcpu = p;
    if ( p && p->switching &&
         !xt_is_runstate_change(ev) )
        switch_done(m, p);
    switch ( ev >> 16 )
    {
    case TRC_SCHED >> 16:       /* _MIN, _CLASS, _VERBOSE */
        if ( xt_is_runstate_change(ev) )
            ret = runstate_change(m, rec);
        else if ( ev == TRC_SCHED_CONTINUE_RUNNING && rec->nr_extra )
            ret = continue_running(m, rec);
        else if ( ev == TRC_SCHED_SWITCH )
            ret = sched_switch(m, rec);
        else if ( ev == TRC_SCHED_WAKE )
            ret = sched_wake(m, rec);
        break;
    case TRC_HVM >> 16:
        ret = hvm_record(m, rec);
        break;
    case TRC_PV >> 16:
        pv_record(m, rec);
        break;
    case TRC_HW >> 16:
        if ( ev == TRC_PM_IDLE_ENTRY || ev == TRC_PM_IDLE_EXIT )
            pm_record(m, rec);
        else if ( ev == TRC_HW_IRQ_HANDLED && rec->nr_extra >= 3 )
            irq_record(m, rec, UINT32_MAX, rec->extra[0]);
        else if ( (ev & XT_CLASS_ALL) == TRC_HW_ARM )
            ret = arm_record(m, rec, p);
        break;
    case TRC_GUEST >> 16:
        guest_record(m, rec);
        break;
    case TRC_MEM >> 16:
        mem_record(m, rec);
        break;
    case TRC_GEN >> 16:
        if ( ev == TRC_LOST_RECORDS )
            lost_records(m, rec);
        else if ( ev == TRC_TRACE_IRQ && rec->nr_extra >= 3 )
            irq_record(m, rec, rec->extra[0], UINT32_MAX);
        break;
    }
    if ( ret )
        return -1;
    if ( m->ops.record && rec->tsc >= m->first && rec->tsc <= m->last )
    {
        v = current_of(m, rec->cpu);
        m->what.domvcpu = v ? v->domvcpu : MODEL_VCPU_NONE;
        if ( v && v->state == MODEL_RUNNING && !m->what.ran_since )
            m->what.ran_since = v->since;
        m->ops.record(m->arg, rec, &m->what);
    }
    return 0;
}

/*
 * The end: a running vCPU is known to run until its pCPU's last record,
 * and no further; every other state holds to the end of the trace.
 */
static uint64_t known_until(struct model *m, const struct vstate *v)
{
    struct pstate *p = pcpu_find(m, v->pcpu);

    /* Before a stream's end, its pCPUs' last records are yet to come. */
    if ( m->streamed && m->trace_last == UINT64_MAX )
        return UINT64_MAX;
    if ( v->state == MODEL_RUNNING && p && p->has_tsc &&
         p->last_tsc < m->trace_last )
        return p->last_tsc;
    return m->trace_last;
}

static int by_last_tsc(const void *a, const void *b)
{
    const struct pstate *p = *(const struct pstate *const *)a;
    const struct pstate *q = *(const struct pstate *const *)b;

    if ( p->last_tsc != q->last_tsc )
        return p->last_tsc < q->last_tsc ? -1 : 1;
    return p->cpu < q->cpu ? -1 : p->cpu > q->cpu;
}

/*
 * The domains' end, as xenalyze's: as each pCPU runs out of records, in
 * that order, the vCPU it runs is lost there; the other vCPUs' states
 * stay open, unbooked.  -1 with ENOMEM.
 */
static int domains_finish(struct model *m)
{
    struct pstate **by_end = malloc((m->nr_pcpus ? m->nr_pcpus : 1) *
                                    sizeof(*by_end));
    unsigned int i, n = 0;

    if ( !by_end )
        return -1;
    for ( i = 0; i < m->nr_pcpus; i++ )
        if ( m->pcpus[i].has_tsc && m->pcpus[i].current != NO_INDEX )
            by_end[n++] = &m->pcpus[i];
    qsort(by_end, n, sizeof(*by_end), by_last_tsc);
    for ( i = 0; i < n; i++ )
    {
        struct vstate *v = &m->vcpus[by_end[i]->current];

        if ( v->state == MODEL_RUNNING )
        {
            domain_change(m, v, MODEL_LOST, by_end[i]->last_tsc);
            v->ran = false;     /* counted no more */
        }
    }
    free(by_end);
    return 0;
}

int model_finish(struct model *m)
{
    unsigned int i;

    if ( m->streamed )
    {
        m->trace_last = 0;
        for ( i = 0; i < m->nr_pcpus; i++ )
            if ( m->pcpus[i].has_tsc && m->pcpus[i].last_tsc > m->trace_last )
                m->trace_last = m->pcpus[i].last_tsc;
        if ( m->last > m->trace_last )
        {
            m->last = m->trace_last;
            m->last_open = false;       /* as a file's past its --to */
        }
        if ( m->first > m->last )
            m->first = m->last;
    }

    for ( i = 0; i < m->nr_pcpus; i++ )
        if ( m->pcpus[i].switching )
            switch_done(m, &m->pcpus[i]);
    if ( domains_finish(m) )
        return -1;

    for ( i = 0; i < m->nr_vcpus; i++ )
    {
        struct vstate *v = &m->vcpus[i];
        uint64_t end = known_until(m, v);

        enter(m, v, end, MODEL_UNKNOWN, MODEL_CAUSE_NONE, MODEL_END_TRACE);
        if ( end < m->trace_last )
            enter(m, v, m->trace_last, MODEL_UNKNOWN, MODEL_CAUSE_NONE,
                  MODEL_END_TRACE);
    }
    return 0;
}

/* [@start, @end) of @v's open interval, in @state, as model_cut()'s. */
static void cut_piece(struct model *m, const struct vstate *v,
                      enum model_state state, uint64_t start, uint64_t end)
{
    struct model_event ev = {
        .type = MODEL_EV_RUNSTATE, .pcpu = v->pcpu, .domvcpu = v->domvcpu,
        .start = start, .end = end, .goes_on = true,
        .u.runstate = { .state = state,
                        .cause = state == v->state ? v->cause
                                                   : MODEL_CAUSE_NONE,
                        .end_by = MODEL_END_CUT, .next = state },
    };

    if ( end > start )
        emit(m, &ev);
}

/* What model_finish() would book of each open interval up to @tsc. */
void model_cut(struct model *m, uint64_t tsc)
{
    unsigned int i;

    for ( i = 0; i < m->nr_vcpus; i++ )
    {
        const struct vstate *v = &m->vcpus[i];
        uint64_t known = known_until(m, v);

        if ( known < v->since )
            known = v->since;
        if ( known > tsc )
            known = tsc;
        cut_piece(m, v, v->state, v->since, known);
        cut_piece(m, v, MODEL_UNKNOWN, known, tsc);
    }
}

bool model_window_open(const struct model *m)
{
    return m->last_open;
}

/*
 * The records that tie pCPUs together, which the model takes in TSC order
 * (merge.h): the scheduler's, which move vCPUs between states and pCPUs,
 * losses, which touch every vCPU not running, and Arm's records: an
 * injection makes an interrupt pending for a vCPU anywhere, and the
 * latency ends at that vCPU's return to the guest on its own pCPU.  Any
 * other record is about its pCPU and the vCPU that runs there, which only
 * records of that pCPU change.
 */
static const struct merge_sync sync_records[] = {
    { XT_CLASS_ALL, TRC_SCHED_MIN },
    { XT_CLASS_ALL, TRC_SCHED_VERBOSE },
    { 0x0fffffffu, TRC_LOST_RECORDS },
    { XT_CLASS_ALL, TRC_HW_ARM },
    { 0, 0 },
};

static int feed(void *m, const struct xt_record *rec)
{
    return model_feed(m, rec);
}

static int next_merged(void *g, struct xt_record *rec)
{
    return merge_next(g, rec);
}

int model_run(struct model *m)
{
    struct merge *g = merge_new(m->reader,
                                m->in_cpu_order ? sync_records : NULL);
    struct relay_ops ops = {
        .each = m->each, .each_arg = m->each_arg,
        .take = feed, .take_arg = m,
    };
    int ret, err;

    if ( !g )
        return -1;
    ret = relay_run(m->reader, next_merged, g, m->threads, &ops);
    err = errno;
    merge_free(g);
    errno = err;
    return ret ? ret : model_finish(m);
}

struct model *model_new(struct xt_reader *r, const struct model_options *o,
                        const struct model_ops *ops, void *arg)
{
    const struct xt_reader_info *info = xt_reader_info(r);
    struct model *m = calloc(1, sizeof(*m));
    bool any = false;
    unsigned int i;

    if ( !m )
        return NULL;
    m->reader = r;
    m->dom0 = xt_reader_dom0(r);
    m->ops = *ops;
    m->arg = arg;
    m->streamed = info->streamed;
    m->nr_pcpus = m->pcpus_cap = info->nr_cpus;
    m->nr_by_cpu = info->streamed ? XT_CPUS_MAX + 1 :
                   info->nr_cpus && info->max_cpu < DENSE_CPUS ?
                   info->max_cpu + 1 : 0;
    m->pcpus = calloc(m->nr_pcpus ? m->nr_pcpus : 1, sizeof(*m->pcpus));
    m->by_cpu = calloc(m->nr_by_cpu ? m->nr_by_cpu : 1, sizeof(*m->by_cpu));
    if ( !m->pcpus || !m->by_cpu )
    {
        model_free(m);
        return NULL;
    }
    for ( i = 0; i < info->nr_cpus; i++ )
    {
        const struct xt_cpu_info *ci = xt_reader_cpu(r, i);
        struct pstate *p = &m->pcpus[i];

        p->cpu = ci->cpu;
        p->current = NO_INDEX;
        if ( ci->cpu < m->nr_by_cpu )
            m->by_cpu[ci->cpu] = i + 1;
        /* dom0's lanes hold no record of Xen's: a pCPU that never ran */
        if ( !ci->has_tsc || xt_reader_is_dom0_lane(r, ci->cpu) )
            continue;
        p->has_tsc = true;
        p->first_tsc = ci->first_tsc;
        p->last_tsc = ci->last_tsc;
        if ( !any || ci->first_tsc < m->trace_first )
            m->trace_first = ci->first_tsc;
        if ( !any || ci->last_tsc > m->trace_last )
            m->trace_last = ci->last_tsc;
        any = true;
    }
    m->first = m->trace_first;
    m->last = m->trace_last;
    if ( m->streamed )
        m->trace_last = m->last = UINT64_MAX;   /* until model_finish() */
    if ( o )
    {
        m->in_cpu_order = o->by_cpu;
        m->each = o->each;
        m->each_arg = o->each_arg;
        m->threads = o->threads;
    }
    if ( o && (o->from || o->to) )
    {
        if ( o->from > m->first )
            m->first = o->from;
        if ( o->to && o->to <= m->last )
        {
            m->last = o->to;
            m->last_open = true;
        }
        if ( m->first > m->last )
            m->first = m->last;
    }
    return m;
}

void model_free(struct model *m)
{
    unsigned int i;

    if ( !m )
        return;
    free(m->pcpus);
    free(m->by_cpu);
    for ( i = 0; i < m->nr_vcpus; i++ )
        free(m->vcpus[i].to_halt);
    free(m->vcpus);
    hashtab_free(&m->index);
    free(m->domains);
    hashtab_free(&m->domain_index);
    free(m);
}

uint64_t model_first_tsc(const struct model *m)
{
    return m->first;
}

uint64_t model_last_tsc(const struct model *m)
{
    return m->last;
}

const struct model_stats *model_stats(const struct model *m)
{
    return &m->stats;
}

unsigned int model_nr_pcpus(const struct model *m)
{
    return m->nr_pcpus;
}

void model_pcpu(const struct model *m, unsigned int index,
                struct model_pcpu *out)
{
    const struct pstate *p = &m->pcpus[index];

    *out = (struct model_pcpu){
        .cpu = p->cpu,
        .domvcpu = p->current != NO_INDEX ? m->vcpus[p->current].domvcpu
                                          : MODEL_VCPU_NONE,
        .in_cstate = p->in_cstate, .cstate = p->cstate,
    };
}

/*
 * Names
 */

const char *model_state_name(enum model_state s)
{
    if ( s < XT_NR_RUNSTATES )
        return xt_runstate_name(s);
    return s == MODEL_LOST ? "lost" : s == MODEL_UNKNOWN ? "unknown" : "?";
}

const char *model_domain_state_name(enum model_domain_state s)
{
    static const char *const names[MODEL_DOM_STATES] = {
        [MODEL_DOM_BLOCKED] = "blocked",
        [MODEL_DOM_PARTIAL_RUN] = "partial run",
        [MODEL_DOM_FULL_RUN] = "full run",
        [MODEL_DOM_PARTIAL_CONTENTION] = "partial contention",
        [MODEL_DOM_HAZARD] = "hazard",
        [MODEL_DOM_FULL_CONTENTION] = "full contention",
        [MODEL_DOM_LOST] = "lost",
    };

    return s < MODEL_DOM_STATES ? names[s] : "?";
}

/*
 * By hand, not snprintf(): the dump names a vCPU on most of its lines, and
 * printf was an eighth of its time.
 */
const char *model_vcpu_name(char *buf, unsigned int size, uint32_t domvcpu)
{
    char text[32], *p = text;   /* xt_put_vcpu() writes past its end */
    size_t len;

    if ( !size )
        return buf;
    if ( domvcpu == MODEL_VCPU_NONE )
        *p++ = '?';
    else
        p = xt_put_vcpu(p, domvcpu >> 16, domvcpu & 0xffff);
    len = (size_t)(p - text) < size ? (size_t)(p - text) : size - 1;
    memcpy(buf, text, len);
    buf[len] = '\0';
    return buf;
}

const char *model_domain_name(char *buf, unsigned int size,
                              const struct xt_reader *r, uint32_t domid)
{
    const struct xt_domain_info *d = r ? xt_reader_domain(r, domid) : NULL;

    if ( domid == MODEL_DOMID_IDLE )
        snprintf(buf, size, "idle");
    else if ( d && d->domain.name[0] )
        snprintf(buf, size, "d%u (%s)", domid, d->domain.name);
    else
        snprintf(buf, size, "d%u", domid);
    return buf;
}

/* Xen's EXIT_REASON_* (asm/hvm/vmx/vmx.h), the SDM's basic exit reasons. */
static const char *const vmx_exits[] = {
    [0] = "EXCEPTION_NMI", [1] = "EXTERNAL_INTERRUPT",
    [2] = "TRIPLE_FAULT", [3] = "INIT", [4] = "SIPI", [5] = "IO_SMI",
    [6] = "OTHER_SMI", [7] = "PENDING_VIRT_INTR", [8] = "PENDING_VIRT_NMI",
    [9] = "TASK_SWITCH", [10] = "CPUID", [11] = "GETSEC", [12] = "HLT",
    [13] = "INVD", [14] = "INVLPG", [15] = "RDPMC", [16] = "RDTSC",
    [17] = "RSM", [18] = "VMCALL", [19] = "VMCLEAR", [20] = "VMLAUNCH",
    [21] = "VMPTRLD", [22] = "VMPTRST", [23] = "VMREAD", [24] = "VMRESUME",
    [25] = "VMWRITE", [26] = "VMXOFF", [27] = "VMXON", [28] = "CR_ACCESS",
    [29] = "DR_ACCESS", [30] = "IO_INSTRUCTION", [31] = "MSR_READ",
    [32] = "MSR_WRITE", [33] = "INVALID_GUEST_STATE", [34] = "MSR_LOADING",
    [36] = "MWAIT_INSTRUCTION", [37] = "MONITOR_TRAP_FLAG",
    [39] = "MONITOR_INSTRUCTION", [40] = "PAUSE_INSTRUCTION",
    [41] = "MCE_DURING_VMENTRY", [43] = "TPR_BELOW_THRESHOLD",
    [44] = "APIC_ACCESS", [45] = "EOI_INDUCED", [46] = "ACCESS_GDTR_OR_IDTR",
    [47] = "ACCESS_LDTR_OR_TR", [48] = "EPT_VIOLATION",
    [49] = "EPT_MISCONFIG", [50] = "INVEPT", [51] = "RDTSCP",
    [52] = "VMX_PREEMPTION_TIMER_EXPIRED", [53] = "INVVPID",
    [54] = "WBINVD", [55] = "XSETBV", [56] = "APIC_WRITE", [57] = "RDRAND",
    [58] = "INVPCID", [59] = "VMFUNC", [60] = "ENCLS", [61] = "RDSEED",
    [62] = "PML_FULL", [63] = "XSAVES", [64] = "XRSTORS", [67] = "UMWAIT",
    [68] = "TPAUSE", [74] = "BUS_LOCK", [75] = "NOTIFY",
};

#define SVM_16(what) \
    what "0", what "1", what "2", what "3", what "4", what "5", what "6", \
    what "7", what "8", what "9", what "10", what "11", what "12", \
    what "13", what "14", what "15"
#define SVM_16_HI(what) \
    what "16", what "17", what "18", what "19", what "20", what "21", \
    what "22", what "23", what "24", what "25", what "26", what "27", \
    what "28", what "29", what "30", what "31"

/* Xen's VMEXIT_* (asm/hvm/svm/vmcb.h), the APM's exit codes. */
static const char *const svm_exits[] = {
    SVM_16("CR_READ_"), SVM_16("CR_WRITE_"), SVM_16("DR_READ_"),
    SVM_16("DR_WRITE_"), SVM_16("EXCEPTION_"), SVM_16_HI("EXCEPTION_"),
    [0x60] = "INTR", "NMI", "SMI", "INIT", "VINTR", "CR0_SEL_WRITE",
    "IDTR_READ", "GDTR_READ", "LDTR_READ", "TR_READ", "IDTR_WRITE",
    "GDTR_WRITE", "LDTR_WRITE", "TR_WRITE", "RDTSC", "RDPMC", "PUSHF",
    "POPF", "CPUID", "RSM", "IRET", "SWINT", "INVD", "PAUSE", "HLT",
    "INVLPG", "INVLPGA", "IOIO", "MSR", "TASK_SWITCH", "FERR_FREEZE",
    "SHUTDOWN", "VMRUN", "VMMCALL", "VMLOAD", "VMSAVE", "STGI", "CLGI",
    "SKINIT", "RDTSCP", "ICEBP", "WBINVD", "MONITOR", "MWAIT",
    "MWAIT_CONDITIONAL", "XSETBV", "RDPRU",
};

static const char *const svm_exits_npf[] = {
    "NPF", "AVIC_INCOMPLETE_IPI", "AVIC_NOACCEL",
};

#define NR(a) (sizeof(a) / sizeof((a)[0]))

const char *model_exit_name(uint32_t reason, bool svm)
{
    if ( !svm )
        return reason < NR(vmx_exits) ? vmx_exits[reason] : NULL;
    if ( reason < NR(svm_exits) )
        return svm_exits[reason];
    if ( reason >= 0x400 && reason - 0x400 < NR(svm_exits_npf) )
        return svm_exits_npf[reason - 0x400];
    return NULL;
}

/* __HYPERVISOR_* of Xen's public xen.h. */
static const char *const hypercalls[] = {
    "set_trap_table", "mmu_update", "set_gdt", "stack_switch",
    "set_callbacks", "fpu_taskswitch", "sched_op_compat", "platform_op",
    "set_debugreg", "get_debugreg", "update_descriptor", NULL, "memory_op",
    "multicall", "update_va_mapping", "set_timer_op",
    "event_channel_op_compat", "xen_version", "console_io",
    "physdev_op_compat", "grant_table_op", "vm_assist",
    "update_va_mapping_otherdomain", "iret", "vcpu_op", "set_segment_base",
    "mmuext_op", "xsm_op", "nmi_op", "sched_op", "callback_op",
    "xenoprof_op", "event_channel_op", "physdev_op", "hvm_op", "sysctl",
    "domctl", "kexec_op", "tmem_op", "argo_op", "xenpmu_op", "dm_op",
    "hypfs_op",
};

const char *model_hypercall_name(uint32_t op)
{
    return op < NR(hypercalls) ? hypercalls[op] : NULL;
}

/* @name in @buf, or if NULL, @unnamed made with what follows. */
static const char *__attribute__((format(printf, 4, 5)))
label(char *buf, size_t size, const char *name, const char *unnamed, ...)
{
    va_list ap;

    if ( name )
    {
        snprintf(buf, size, "%s", name);
        return buf;
    }
    va_start(ap, unnamed);
    vsnprintf(buf, size, unnamed, ap);
    va_end(ap);
    return buf;
}

const char *model_exit_label(char *buf, size_t size, uint32_t reason,
                             bool svm)
{
    return label(buf, size, model_exit_name(reason, svm),
                 "exit_0x%" PRIx32, reason);
}

/* The catalogue's names of ESR_EL2.EC (its value lines). */
static const char *const arm_traps[] = XT_TRC_ARM_TRAP_EC_NAMES;

const char *model_trap_name(uint32_t ec)
{
    return ec < NR(arm_traps) ? arm_traps[ec] : NULL;
}

const char *model_trap_label(char *buf, size_t size, uint32_t ec)
{
    return label(buf, size, model_trap_name(ec), "ec_0x%02" PRIx32, ec);
}

const char *model_exit_event_label(char *buf, size_t size,
                                   const struct model_event *ev)
{
    if ( ev->u.exit.arm )
        return model_trap_label(buf, size, ev->u.exit.reason);
    return model_exit_label(buf, size, ev->u.exit.reason, ev->u.exit.svm);
}

const char *model_hypercall_label(char *buf, size_t size, uint32_t op)
{
    return label(buf, size, model_hypercall_name(op), "hypercall_%" PRIu32,
                 op);
}
