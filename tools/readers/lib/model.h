/*
 * model: the machine a trace describes, rebuilt record by record, for
 * every reader that asks more of a trace than its records (the summary,
 * the dump, the exports).  docs/reading-traces.md, "The model", says the
 * same for users.
 *
 * The model takes the records of every pCPU merged by TSC (XT_ORDER_TSC)
 * and keeps:
 *
 *   per pCPU   the vCPU it runs.  HVM and PV records carry no vCPU: it is
 *              the one the scheduler's records last put there
 *              (TRC_SCHED_SWITCH next, or a runstate change to running
 *              recorded on that pCPU), as xenalyze does it; none is known
 *              before such a record, nor after a loss on that pCPU until
 *              the next one.  Its C-state, from TRC_PM_IDLE_ENTRY to
 *              TRC_PM_IDLE_EXIT.
 *
 *   per vCPU   its runstate.  RUNNING, RUNNABLE, BLOCKED and OFFLINE are
 *              Xen's (TRC_SCHED_RUNSTATE_CHANGE carries old and new in its
 *              event); then
 *                UNKNOWN  from the start of the trace until the first
 *                         record that proves its state (a trace that
 *                         starts mid-run, or covers only some pCPUs);
 *                LOST     from the first lost record of a loss until the
 *                         next record that proves its state: a loss on
 *                         pCPU p hides whatever p did, so every vCPU not
 *                         proven running elsewhere (the one p ran, and
 *                         every one not running) may have changed state
 *                         in the gap.  It starts at the loss's first lost
 *                         TSC, or where the vCPU's last interval ended if
 *                         that is later.  A runstate change whose old
 *                         state is not the one the model holds also
 *                         proves records missing: the time since the last
 *                         change is booked LOST.
 *              Nothing is guessed: the states a vCPU goes through cover
 *              the whole trace (or the --from/--to window), so per vCPU
 *              they sum to the span.
 *              Its current HVM exit: opened by TRC_HVM_VMEXIT{,64}, or
 *              Xen 4.19's TRC_HVM_SVM_EXIT{,64} (reason, RIP), on the
 *              pCPU running it, with the handler records
 *              (TRC_HVM_* of the handler class, 0x00082000) that follow on
 *              that pCPU, closed by TRC_HVM_VMENTRY on whichever pCPU runs
 *              it then, or as the vCPU becomes runnable (woken or
 *              preempted) if that is earlier: an exit that blocks, HLT,
 *              costs the time blocked, not the wait for a pCPU after the
 *              wake, as in xenalyze, and says how much of it was blocked
 *              (halted), which is none of Xen's time.  An exit open when
 *              its vCPU is lost is dropped, and counted; one open at the
 *              end is not emitted.  An Arm guest's trap (xen/patches/arm)
 *              is an exit of the same kind: opened by TRC_ARM_TRAP (exception
 *              class, pc), with TRC_ARM_TRAP_HVC and TRC_ARM_TRAP_MMIO
 *              as its handler records, closed by TRC_ARM_RETURN.
 *              The virtual interrupt made pending for it
 *              (TRC_ARM_VIRQ_INJECT) while its pCPU handled a physical
 *              IRQ (from TRC_ARM_IRQ to that pCPU's next
 *              TRC_ARM_RETURN), until the vCPU next enters the guest:
 *              the injection's latency, from the last physical IRQ
 *              taken there.
 *
 * and says what it learns as an event stream: a consumer gets, through
 * one callback, typed events in the order of the records that produce
 * them; an interval is emitted when the record that closes it is read,
 * with start <= end <= that record's TSC (a loss closes intervals at its
 * first lost TSC, earlier than the marker).  model_run() takes the
 * records in TSC order, or with model_options.by_cpu the scheduler's
 * records, losses and Arm records in TSC order across pCPUs, and each
 * pCPU's other records in that pCPU's order between them (merge.h): the
 * state is what full TSC order gives, but events of different pCPUs may
 * come out of TSC order by up to the time between two scheduler records
 * of a pCPU;
 * sort by @start if that matters.  model_feed() takes records
 * in whatever order the caller gives (xentrace-dump: full TSC order).  Runstate intervals
 * still open at the end of the trace are closed with MODEL_END_TRACE: a
 * running vCPU's at its pCPU's last record (after which nothing proves
 * it runs: UNKNOWN to the end), every other at the trace's last TSC.
 * model_cut() gives, between records, the pieces of the open runstate
 * intervals up to a TSC without closing them, for a reader that reports
 * on intervals of the trace as they end (analysis_cut()).  A second
 * callback gets every record, after the model
 * has taken it, with what the model knows about it (struct model_record):
 * the dump prints from it.
 *
 * Memory is bounded by the number of pCPUs and vCPUs, never by the
 * trace's length.  TSCs are the trace's; tsc.h converts.
 */
#ifndef MODEL_H
#define MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xtread.h"

#define MODEL_DOMID_IDLE    XT_DOMID_IDLE   /* Xen's idle domain */
#define MODEL_VCPU_NONE     UINT32_MAX  /* no vCPU, or none known */
#define MODEL_CPU_NONE      UINT32_MAX  /* no pCPU, or none known */
#define MODEL_MAX_HANDLERS  4           /* handler records kept per exit */

/* A vCPU as domain << 16 | vcpu, as TRC_SCHED_RUNSTATE_CHANGE names it. */
static inline uint32_t model_domvcpu(unsigned int dom, unsigned int vcpu)
{
    return (dom & 0xffffu) << 16 | (vcpu & 0xffffu);
}

enum model_state {
    MODEL_RUNNING = XT_RUNSTATE_RUNNING,    /* Xen's runstates ... */
    MODEL_RUNNABLE = XT_RUNSTATE_RUNNABLE,
    MODEL_BLOCKED = XT_RUNSTATE_BLOCKED,
    MODEL_OFFLINE = XT_RUNSTATE_OFFLINE,    /* ... as the event says them */
    MODEL_LOST = XT_NR_RUNSTATES,                 /* records that would say are missing */
    MODEL_UNKNOWN,              /* nothing has proven it yet */
    MODEL_STATES
};

/*
 * A domain's concurrency: how its vCPUs' runstates stand together, as
 * xenalyze's domain "Runstates" classify them, the vCPUs not yet proven
 * in any state left out.  HAZARD: some run while others wait for a pCPU
 * (a lock holder's sibling spins, or is preempted while the others
 * wait); CONTENTION: none runs and some wait.  docs/reading-traces.md,
 * "Domains' concurrency".
 */
enum model_domain_state {
    MODEL_DOM_BLOCKED,          /* none runs or waits: blocked, offline */
    MODEL_DOM_PARTIAL_RUN,      /* some run, none waits, some blocked */
    MODEL_DOM_FULL_RUN,         /* all run */
    MODEL_DOM_PARTIAL_CONTENTION,   /* none runs, some wait, some blocked */
    MODEL_DOM_HAZARD,           /* some run and some wait */
    MODEL_DOM_FULL_CONTENTION,  /* all wait */
    MODEL_DOM_LOST,             /* all lost */
    MODEL_DOM_STATES
};

/* How a vCPU became runnable (MODEL_RUNNABLE intervals only). */
enum model_cause {
    MODEL_CAUSE_NONE,           /* not a runnable interval, or not known */
    MODEL_CAUSE_WOKEN,          /* it was blocked or offline */
    MODEL_CAUSE_PREEMPTED,      /* it was running */
};

/* What closed an interval. */
enum model_end {
    MODEL_END_RECORD,           /* a record that proves the next state */
    MODEL_END_LOSS,             /* a loss: the next interval is LOST */
    MODEL_END_TRACE,            /* the end of the trace (or the window) */
    MODEL_END_CUT,              /* not closed: model_cut()'s piece of an
                                   interval still open */
};

enum model_event_type {
    MODEL_EV_RUNSTATE,          /* a vCPU's runstate interval closed */
    MODEL_EV_SWITCH,            /* a pCPU switched from one vCPU to another */
    MODEL_EV_WAKE,              /* a vCPU was woken */
    MODEL_EV_EXIT,              /* an HVM exit closed (VMENTRY) */
    MODEL_EV_HYPERCALL,         /* a PV hypercall, or an HVM VMCALL's */
    MODEL_EV_PV,                /* a PV trap, page fault, emulated op... */
    MODEL_EV_GUEST,             /* a record a guest wrote (TRC_GUEST) */
    MODEL_EV_IRQ,               /* an interrupt on a pCPU */
    MODEL_EV_INJECT,            /* an interrupt injected into a vCPU */
    MODEL_EV_INJECT_LATENCY,    /* from a physical IRQ to the entry into
                                   the guest it made an interrupt pending
                                   for (Arm) */
    MODEL_EV_CSTATE,            /* a C-state residency closed */
    MODEL_EV_LOST,              /* records lost on a pCPU */
    MODEL_EV_DOMAIN,            /* a domain's concurrency changed, or one
                                   of its vCPUs' runstates did */
    MODEL_EV_MEM,               /* a memory operation (TRC_MEM): a grant
                                   map, a PoD populate... */
    MODEL_EV_TO_HALT,           /* from an interrupt's injection to its
                                   vCPU's next halt (HVM) */
};

/*
 * One event.  @pcpu is where it happened (MODEL_CPU_NONE: not known),
 * @domvcpu the vCPU it is about (MODEL_VCPU_NONE: none, or not known:
 * e.g. an HVM record on a pCPU whose running vCPU is not known).  For
 * intervals [@start, @end) in TSC, clipped to the window, @began where
 * the interval began before that (or the trace's first TSC), and @goes_on if it ends at or past the
 * window's end (or is model_cut()'s piece): its end is not in the window;
 * for points @start == @end.
 */
struct model_event {
    enum model_event_type type;
    uint32_t pcpu;
    uint32_t domvcpu;
    uint64_t start, end;
    uint64_t began;
    bool goes_on;
    union {
        struct {
            enum model_state state;
            enum model_cause cause;     /* RUNNABLE: how it got there */
            enum model_end end_by;
            enum model_state next;      /* END_RECORD: the state entered
                                           at @end (RUNNING again for a
                                           new time slice) */
        } runstate;                     /* @pcpu: where it ran (RUNNING) */
        struct {
            uint32_t prev, next;        /* vCPUs; MODEL_VCPU_NONE: unknown */
            enum model_state prev_state;    /* what prev went to */
        } sw;                           /* emitted once prev's runstate
                                           change (Xen writes it after the
                                           switch) says where it went */
        struct {
            uint32_t target_pcpu;       /* the pCPU it last ran on */
        } wake;                         /* @pcpu: the one that woke it */
        struct {
            uint32_t reason;            /* VMX or SVM exit code */
            bool svm;                   /* written as an SVM exit (Xen
                                           4.19 on): @reason is SVM's */
            bool arm;                   /* an Arm trap: @reason is the
                                           ESR's exception class, @rip
                                           the guest's pc */
            uint64_t rip;
            unsigned int nr_handlers;   /* handler records (all of them) */
            const struct xt_record *handlers;   /* the first ones, up to
                                                   MODEL_MAX_HANDLERS; valid
                                                   during the callback */
            uint32_t entry_pcpu;        /* where VMENTRY was (@pcpu: exit) */
            uint64_t halted;            /* of [start, end), the ticks the
                                           vCPU was blocked: an exit that
                                           waits for an interrupt (HLT,
                                           WFI) closes at the wake, and
                                           that wait is none of Xen's */
            uint64_t halted_since;      /* where that wait began: the
                                           block (before any clipping) */
        } exit;
        struct {
            uint32_t op;                /* hypercall number */
            bool hvm;                   /* TRC_HVM_VMMCALL, in a VMCALL exit */
            bool subcall;               /* a multicall's entry */
        } hypercall;
        struct {
            uint32_t event;             /* the TRC_PV_* record's event */
        } pv;
        struct {
            uint32_t event;             /* the guest's own, 12 bits */
        } guest;
        struct {
            uint32_t vector;
            uint32_t irq;               /* UINT32_MAX where not recorded */
        } irq;                          /* [start, end): its handling, when
                                           the record gives it */
        struct {
            uint32_t vector;            /* TRC_HVM_INJ_VIRQ's, or
                                           TRC_ARM_VIRQ_INJECT's virq */
            bool arm;                   /* the latter */
        } inject;                       /* and MODEL_EV_INJECT_LATENCY:
                                           [IRQ taken, guest entered) */
        struct {
            uint32_t cstate;
        } cstate;
        struct {
            uint64_t count;             /* records lost */
        } lost;                         /* [first lost TSC, marker TSC) */
        struct {
            uint32_t event;             /* the catalogue's, TRC_MEM_* */
            uint32_t dom;               /* the domain it is for, as the
                                           record names it; UINT32_MAX */
            uint32_t order;             /* its pages' order; UINT32_MAX */
        } mem;                          /* @domvcpu: the vCPU that did it,
                                           the one its pCPU runs */
        struct {
            uint32_t vector;            /* injected (below 256) */
            bool wake;                  /* the first injected after the
                                           vCPU was woken: the wake's */
            bool alone;                 /* the only one before the halt */
        } to_halt;                      /* [the entry after the injection,
                                           the block), as xenalyze's "wake
                                           to halt" and "intr to halt" */
        struct {
            enum model_domain_state state;
        } domain;                       /* @domvcpu: the domain's, vcpu
                                           0xffff; from one of its vCPUs'
                                           runstate changes to the next,
                                           as xenalyze books them */
    } u;
};

/*
 * An interval event is counted whole where it ends (not @goes_on): its
 * length is @end - @began, what the window cut off included.
 */

/* An exit's time in Xen, whole: all of it but the time halted. */
static inline uint64_t model_exit_in_xen(const struct model_event *ev)
{
    uint64_t ticks = ev->end - ev->began;

    return ev->u.exit.halted < ticks ? ticks - ev->u.exit.halted : 0;
}

/*
 * The vector of an external-interrupt exit, from its TRC_HVM_INTR handler
 * record, into *@vector; false for any other exit (or if that record was
 * not among the first MODEL_MAX_HANDLERS).
 */
static inline bool model_exit_vector(const struct model_event *ev,
                                     uint32_t *vector)
{
    unsigned int i, n = ev->u.exit.nr_handlers;

    for ( i = 0; i < n && i < MODEL_MAX_HANDLERS; i++ )
    {
        const struct xt_record *h = &ev->u.exit.handlers[i];

        if ( (h->event & ~TRC_HVM_NESTEDFLAG) == TRC_HVM_INTR &&
             h->nr_extra )
        {
            *vector = h->extra[0];
            return true;
        }
    }
    return false;
}

/*
 * A wait for a pCPU: a runnable interval that a record ended (not the
 * trace's end, a loss or a cut), whole.
 */
static inline bool model_is_wait(const struct model_event *ev)
{
    return ev->type == MODEL_EV_RUNSTATE && !ev->goes_on &&
           ev->u.runstate.state == MODEL_RUNNABLE &&
           ev->u.runstate.end_by == MODEL_END_RECORD;
}

/* What the model knows about a record, after taking it. */
struct model_record {
    uint32_t domvcpu;           /* running on its pCPU; MODEL_VCPU_NONE */
    uint64_t ran_since;         /* where the model books @domvcpu running
                                   there from: its running interval's
                                   start, or that of the one the record
                                   ended; 0: it is not known to run */
    bool closes;                /* it closed an interval (a runstate, not
                                   lost or unknown; an exit; a C-state): */
    uint64_t ticks;             /* that interval's length */
};

struct model_ops {
    void (*event)(void *arg, const struct model_event *ev);
    void (*record)(void *arg, const struct xt_record *rec,
                   const struct model_record *what);    /* may be NULL */
    /* dom0's own events (xentrace --dom0), which the model does not take,
       in the window, in order with the rest; may be NULL */
    void (*dom0)(void *arg, const struct xt_record *rec);
};

struct model_options {
    uint64_t from, to;          /* TSC window [from, to); 0, 0: all.
                                   Records outside it still build the
                                   state; events are clipped to it */
    bool by_cpu;                /* model_run() takes each pCPU's records
                                   other than the scheduler's and losses
                                   in that pCPU's order (merge.h), which
                                   costs less than full TSC order */
    /* model_run(): every record it reads, before the model takes it,
       inside the window or not, with @each_arg; non-zero stops the run
       (ENOMEM); NULL: none */
    int (*each)(void *each_arg, const struct xt_record *rec);
    void *each_arg;
    /* model_run(): 2 or more reads a file on a thread of its own, and
       calls @each there (relay.h); 0 or 1: the caller's thread alone */
    unsigned int threads;
};

struct model;

/*
 * A model of @r's machine, calling @ops with @arg.  NULL with ENOMEM.
 * model_run() is the usual way: it iterates @r in TSC order, feeds every
 * record and finishes.  model_feed() and model_finish() are for those who
 * iterate themselves.
 */
struct model *model_new(struct xt_reader *r, const struct model_options *o,
                        const struct model_ops *ops, void *arg);
int model_feed(struct model *m, const struct xt_record *rec);
int model_finish(struct model *m);     /* close what is open at the end */
int model_run(struct model *m);        /* 0, or -1 with errno */
void model_free(struct model *m);

/*
 * The runstate intervals open at @tsc, up to @tsc, as events
 * (MODEL_END_CUT, @goes_on), clipped to the window, without closing them:
 * a running vCPU's up to its pCPU's last record, as model_finish() would
 * end it, then UNKNOWN.  For those who report on [a cut, the next), as
 * xentrace-summary --interval does; call it between records, in TSC order,
 * before the first record at or past @tsc.
 */
void model_cut(struct model *m, uint64_t tsc);

/* Whether the window ends before the trace does ([from, to) is open). */
bool model_window_open(const struct model *m);

/* The span events cover: the trace's (or the window's) first, last TSC. */
uint64_t model_first_tsc(const struct model *m);
uint64_t model_last_tsc(const struct model *m);

/*
 * Queries of the current state (between records, or in a callback)
 */

/* Counts of what the model could not place, for the summary. */
struct model_stats {
    uint64_t records;           /* fed */
    uint64_t orphan_hvm;        /* HVM (or Arm trap) records on a pCPU
                                   with no known vCPU */
    uint64_t exits_dropped;     /* exits open when their vCPU was lost */
    uint64_t mismatches;        /* runstate changes from a state not held */
    uint64_t arm_records;       /* of TRC_HW_ARM, xen/patches/arm's */
};

const struct model_stats *model_stats(const struct model *m);

/* What a pCPU does now. */
struct model_pcpu {
    uint32_t cpu;
    uint32_t domvcpu;           /* the vCPU it runs (an idle one when
                                   idle); MODEL_VCPU_NONE: not known, as
                                   before its first scheduling record or
                                   after a loss */
    bool in_cstate;             /* idle, in C-state @cstate */
    uint32_t cstate;
};

/*
 * The pCPUs the model knows (a file's, or those a stream has shown so
 * far), by @index from 0, in ascending CPU number; dom0's lanes among
 * them run nothing.
 */
unsigned int model_nr_pcpus(const struct model *m);
void model_pcpu(const struct model *m, unsigned int index,
                struct model_pcpu *out);

/*
 * Names
 */

/* "running" ... "unknown". */
const char *model_state_name(enum model_state s);
/* "blocked", "partial run", ... as xenalyze names them (but "hazard"). */
const char *model_domain_state_name(enum model_domain_state s);

/* "d1v0"; "idle" for the idle domain: "idle-v3"; "?" for NONE. */
const char *model_vcpu_name(char *buf, unsigned int size, uint32_t domvcpu);

/*
 * "d14 (web-01)" if @r's file names domain @domid (xtfile.h, "Domains";
 * @r may be NULL), else "d14"; "idle" for the idle domain.  At most
 * MODEL_NAME_MAX bytes with the NUL.
 */
#define MODEL_NAME_MAX (sizeof("d65535 ()") + XT_DOMAIN_NAME_MAX)
const char *model_domain_name(char *buf, unsigned int size,
                              const struct xt_reader *r, uint32_t domid);

/*
 * An exit reason's name: VMX's basic reasons (Intel SDM vol. 3 app. C)
 * unless @svm, then SVM's exit codes (AMD APM vol. 2 app. C); NULL if not
 * known.
 */
const char *model_exit_name(uint32_t reason, bool svm);

/* A hypercall's name (Xen's public xen.h, __HYPERVISOR_*), or NULL. */
const char *model_hypercall_name(uint32_t op);

/*
 * The names every reader shows, in @buf (which they return) when the
 * tables above have none: "EPT_VIOLATION" or "exit_0x1f"; "memory_op" or
 * "hypercall_41".  One word each, so that a column of them splits.
 */
const char *model_exit_label(char *buf, size_t size, uint32_t reason,
                             bool svm);
const char *model_hypercall_label(char *buf, size_t size, uint32_t op);

/*
 * An Arm trap's exception class (ESR_EL2.EC): the catalogue's name
 * ("DABT"), or NULL; as a label, "DABT" or "ec_0x2a".  An exit's label,
 * VMX's, SVM's or Arm's, as its event says.
 */
const char *model_trap_name(uint32_t ec);
const char *model_trap_label(char *buf, size_t size, uint32_t ec);
const char *model_exit_event_label(char *buf, size_t size,
                                   const struct model_event *ev);

#endif /* MODEL_H */
