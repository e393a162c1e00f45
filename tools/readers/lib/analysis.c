/*
 * analysis: xentrace-summary's figures from the model's events
 * (analysis.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "crossing.h"
#include "array.h"
#include "hashtab.h"
#include "longest.h"
#include "sketch.h"
#include "tsc.h"

#define TABLE_MAX       4096    /* distinct keys per table; then "other" */
#define TABLE_DIRECT    256     /* keys below: found by index, no hash */
#define NR_CAUSES       3
#define NR_SPANS        3       /* running, blocked, offline: span_of() */
#define MMIO_ROWS       16      /* Arm MMIO addresses shown without --top */

#define KEY_SVM             ((uint64_t)1 << 32) /* of an exit's key */
#define KEY_ARM             ((uint64_t)1 << 33) /* of a longest exit's:
                                                   an Arm trap's class */
#define KEY_WRITE           ((uint64_t)1 << 63) /* of an I/O or MMIO key */

/*
 * The legacy VGA window, [0xa0000, 0xc0000): a guest drawing on an
 * emulated VGA touches thousands of its addresses, one row each, and
 * would fill the MMIO table.  Its accesses are one row, keyed by its
 * start; xenalyze leaves them out of its table instead (by default).
 */
#define MMIO_VGA_START      0xa0000u
#define MMIO_VGA_END        0xc0000u

/* How a vCPU became runnable (model.h's enum model_cause), by name. */
static const char *const cause_names[NR_CAUSES] = {
    "other", "woken", "preempted",
};

/* xenalyze's cases of an injected vector's time to the halt. */
enum { TO_HALT_WAKE_ALONE = 1, TO_HALT_WAKE_ANY, TO_HALT_INTR };

struct stat {
    uint64_t count, ticks;
    uint64_t halted;            /* of ticks: an exit's time blocked (HLT,
                                   WFI), which is not Xen's; else 0 */
};

/* The time of @s that Xen spent: all of it but an exit's time blocked. */
static uint64_t in_xen(const struct stat *s)
{
    return s->ticks - s->halted;
}

/* A count and time per key (a reason, port, vector...), in bounded room. */
struct entry {
    uint64_t key;
    struct stat s;
    struct sketch *sk;          /* with_sketch tables */
};

struct table {
    struct entry *e;
    unsigned int n;
    size_t cap;
    struct hashtab index;       /* key -> index in e */
    uint16_t *direct;           /* key < TABLE_DIRECT -> index + 1 in e;
                                   made with the first such key */
    struct stat other;          /* what did not fit in TABLE_MAX keys */
    bool with_sketch;
};

/* Runstate totals, the runnable ones also by how they became runnable. */
struct runstates {
    struct stat st[MODEL_STATES];
    struct stat cause[NR_CAUSES];
};

struct avcpu {
    uint32_t domvcpu;
    struct runstates all;
    struct runstates head;      /* before its first running interval */
    struct runstates tail;      /* closed by the end of the trace */
    bool ran;
    struct sketch latency[NR_CAUSES];
    struct sketch spans[NR_SPANS];  /* whole intervals of the other states */
    struct table pcpus;         /* cpu -> running intervals, ticks */
    uint32_t last_pcpu;
    uint64_t migrations;
    struct table exits;         /* reason -> count, ticks, sketch */
    struct table vmcalls;       /* hypercall -> exits, ticks */
    struct table io;            /* port | KEY_WRITE -> exits, ticks */
    struct table mmio;          /* address | KEY_WRITE -> exits, ticks */
    struct table injected;      /* HVM: vector -> count */
    struct table cr_writes;     /* HVM: CR -> the exits that wrote it */
    struct table exceptions;    /* HVM: vector -> the exits it caused */
    struct table extints;       /* HVM: vector -> external interrupt
                                   exits (TRC_HVM_INTR) */
    struct table interrupt_rips;    /* HVM: RIP -> those exits of
                                       --interrupt-rips' vector */
    struct table to_halt;       /* HVM: vector << 2 | TO_HALT_* -> count,
                                   ticks, from injection to halt */
    struct table arm_injected;  /* Arm: virtual IRQ -> count */
    struct table hypercalls;    /* PV: op -> count */
    struct table subcalls;      /* PV multicall entries: op -> count */
    struct table pv;            /* PV event (without TRC_64_FLAG) -> count */
    struct table guest;         /* a guest's own event (TRC_GUEST) -> count */
    struct table mem;           /* TRC_MEM event it did -> count */
    struct table pod;           /* PoD event << 8 | order -> count */
    struct table mem_for;       /* a domain's row: TRC_MEM event done for
                                   it -> count (from analysis.mem_for) */
    struct table traps;         /* Arm: exception class -> count, ticks,
                                   sketch */
    struct table hvcs;          /* Arm: hypercall -> traps, ticks */
    struct table arm_mmio;      /* Arm: address | KEY_WRITE -> traps, ticks */
    struct sketch inject;       /* Arm: physical IRQ to the guest's entry */
};

/* How the tables below name their keys (the printing section's). */
typedef const char *key_namer(char *buf, size_t size, uint64_t key);
static key_namer hypercall_name, cr_name, vector_name, rip_name, port_name,
                 mmio_name, to_halt_name, pv_name, guest_name, pod_name;

/*
 * The tables of a vCPU (and of a domain's row, its vCPUs' merged) that
 * are printed alike, a count per key and, where @timed, the time: as
 * text under the vCPU's name, and as the JSON's members, in this order.
 * The exits, the placement and Arm's have their own ways.
 */
static const struct keyed {
    size_t table;               /* offsetof(struct avcpu, the table) */
    const char *member;         /* in the JSON */
    key_namer *name;
    bool timed;
    bool domain_only;           /* not a vCPU's */
    const char *title;          /* the text's, after the vCPU's name */
} keyed_tables[] = {
    { offsetof(struct avcpu, vmcalls), "vmcalls", hypercall_name, true,
      false, "VMCALL exits by hypercall" },
    { offsetof(struct avcpu, cr_writes), "cr_writes", cr_name, true, false,
      "CR_ACCESS exits by control register written" },
    { offsetof(struct avcpu, exceptions), "exceptions", vector_name, true,
      false, "EXCEPTION_NMI exits by exception vector" },
    { offsetof(struct avcpu, extints), "extints", vector_name, false, false,
      "EXTERNAL_INTERRUPT exits by vector" },
    { offsetof(struct avcpu, interrupt_rips), "interrupt_rips", rip_name,
      false, false, "EXTERNAL_INTERRUPT exits by guest RIP "
      "(--interrupt-rips' vector)" },
    { offsetof(struct avcpu, io), "io", port_name, true, false,
      "I/O ports" },
    { offsetof(struct avcpu, mmio), "mmio", mmio_name, true, false,
      "MMIO" },
    { offsetof(struct avcpu, injected), "injected", vector_name, false,
      false, "interrupts injected" },
    { offsetof(struct avcpu, to_halt), "to_halt", to_halt_name, true, false,
      "interrupts injected, from the entry to the next halt" },
    { offsetof(struct avcpu, hypercalls), "hypercalls", hypercall_name,
      false, false, "PV hypercalls" },
    { offsetof(struct avcpu, subcalls), "subcalls", hypercall_name, false,
      false, "PV multicall entries" },
    { offsetof(struct avcpu, pv), "pv", pv_name, false, false,
      "PV events" },
    { offsetof(struct avcpu, guest), "guest", guest_name, false, false,
      "records of the guest's own (TRC_GUEST)" },
    { offsetof(struct avcpu, mem), "mem", pv_name, false, false,
      "memory operations it did (TRC_MEM)" },
    { offsetof(struct avcpu, mem_for), "mem_for", pv_name, false, true,
      "memory operations done for it (TRC_MEM)" },
    { offsetof(struct avcpu, pod), "pod", pod_name, false, false,
      "populate-on-demand by order" },
};

#define NR_KEYED    (sizeof(keyed_tables) / sizeof(keyed_tables[0]))

static struct table *keyed_table(struct avcpu *v, const struct keyed *k)
{
    return (struct table *)((char *)v + k->table);
}

static const struct table *keyed_of(const struct avcpu *v,
                                    const struct keyed *k)
{
    return (const struct table *)((const char *)v + k->table);
}

struct apcpu {
    uint32_t cpu;
    struct stat ran[2];         /* running a guest's vCPU [0], its idle
                                   vCPU [1]: time, intervals ended */
    uint64_t switches[2];       /* context switches from a guest's vCPU
                                   [0], from the idle vCPU [1] */
    struct table vectors;       /* vector -> count */
    struct table irqs;          /* irq -> count (TRC_HW_IRQ_HANDLED) */
    struct table cstates;       /* C-state -> count, ticks */
    struct stat lost;           /* markers, ticks */
    uint64_t lost_records;
};

struct analysis {
    struct analysis_options o;
    struct model *model;
    uint64_t first, last;
    bool window_open;           /* model_window_open(): @last is not in it */
    struct model_stats stats;
    uint64_t records;           /* an interval's, as the summary counts
                                   them (no metadata), in the window */
    bool windowed;              /* model_options from or to */

    /* analysis_new()'s, for analysis_cut(); NULL for analysis_run()'s: */
    struct analysis *cur;       /* the interval being filled */
    struct analysis *out;       /* the last one handed out */
    struct model_stats cut_stats;   /* the model's at the last cut */
    bool cut;                   /* since the start */
    bool finished;
    struct xt_reader *reader;
    bool learning;              /* a stream's first TSC is not known yet */

    unsigned int nr_pcpus;
    size_t pcpus_cap;
    struct apcpu *pcpus;

    unsigned int nr_vcpus;
    size_t vcpus_cap;
    struct avcpu **vcpus;
    struct avcpu *last_vcpu;    /* the last ones found, found again */
    struct apcpu *last_pcpu;
    struct table vcpu_index;    /* domvcpu -> index in vcpus, as .s.ticks
                                   (.s.count 1 once set) */

    struct table concurrency;   /* domain << 4 | model_domain_state ->
                                   count, ticks */
    struct table mem_for;       /* domain << 32 | TRC_MEM event done for
                                   it -> count */

    /* --longest: the whole trace's, never an interval's (NULL). */
    struct longest *longest;    /* [NR_LONGEST] */
    /* With dom0's events: the whole trace's latencies across (NULL). */
    struct crossing *crossing;

    bool failed;                /* ENOMEM in a callback */
};

/* The kinds of interval --longest lists. */
enum { LONGEST_EXITS, LONGEST_WAITS, LONGEST_HYPERCALLS, NR_LONGEST };

/*
 * Tables
 */

static uint64_t entry_key(const void *entries, unsigned int i)
{
    return ((const struct entry *)entries)[i].key;
}

static struct entry *table_find(struct analysis *a, struct table *t,
                                uint64_t key);

/*
 * @key's entry, added if new; NULL when the table is full (or ENOMEM).
 * Reasons, vectors, C-states, hypercalls and pCPUs are small numbers,
 * found in an array without a hash.
 */
static inline struct entry *table_get(struct analysis *a, struct table *t,
                                      uint64_t key)
{
    struct entry *e;

    if ( key >= TABLE_DIRECT )
        return table_find(a, t, key);
    if ( t->direct && t->direct[key] )
        return &t->e[t->direct[key] - 1];
    if ( !t->direct && !(t->direct = calloc(TABLE_DIRECT,
                                            sizeof(*t->direct))) )
    {
        a->failed = true;
        return NULL;
    }
    if ( (e = table_find(a, t, key)) )
        t->direct[key] = e - t->e + 1;
    return e;
}

static uint64_t entry_hash(const void *entries, unsigned int i)
{
    return hashtab_hash(entry_key(entries, i));
}

/* table_get() by the hash. */
static struct entry *table_find(struct analysis *a, struct table *t,
                                uint64_t key)
{
    unsigned int s = hashtab_get(&t->index, key, t->e, entry_key);

    if ( s )
        return &t->e[s - 1];
    if ( t->n == TABLE_MAX )
        return NULL;
    if ( hashtab_fit(&t->index, t->n + 1, t->e, entry_hash) ||
         array_fit(&t->e, &t->cap, t->n + 1, sizeof(*t->e)) )
        goto nomem;
    s = hashtab_find(&t->index, key, t->e, entry_key);
    t->e[t->n] = (struct entry){ .key = key };
    if ( t->with_sketch && !(t->e[t->n].sk = calloc(1, sizeof(struct sketch))) )
        goto nomem;
    hashtab_set(&t->index, s, t->n);
    return &t->e[t->n++];

nomem:
    a->failed = true;
    return NULL;
}

/* One more of @key: @ticks long, @halted of them blocked; its sketch
   takes the rest, Xen's time. */
static void table_add_halted(struct analysis *a, struct table *t,
                             uint64_t key, uint64_t ticks, uint64_t halted)
{
    struct entry *e = table_get(a, t, key);
    struct stat *s = e ? &e->s : &t->other;

    s->count++;
    s->ticks += ticks;
    s->halted += halted;
    if ( e && e->sk && sketch_add(e->sk, ticks - halted) )
        a->failed = true;
}

static void table_add(struct analysis *a, struct table *t, uint64_t key,
                      uint64_t ticks)
{
    table_add_halted(a, t, key, ticks, 0);
}

static void table_merge(struct analysis *a, struct table *into,
                        const struct table *from)
{
    unsigned int i;

    into->other.count += from->other.count;
    into->other.ticks += from->other.ticks;
    into->other.halted += from->other.halted;
    for ( i = 0; i < from->n; i++ )
    {
        struct entry *e = table_get(a, into, from->e[i].key);
        struct stat *s = e ? &e->s : &into->other;

        s->count += from->e[i].s.count;
        s->ticks += from->e[i].s.ticks;
        s->halted += from->e[i].s.halted;
        if ( e && e->sk && from->e[i].sk && sketch_merge(e->sk, from->e[i].sk) )
            a->failed = true;
    }
}

static void table_free(struct table *t)
{
    unsigned int i;

    for ( i = 0; i < t->n; i++ )
        if ( t->e[i].sk )
        {
            sketch_free(t->e[i].sk);
            free(t->e[i].sk);
        }
    free(t->e);
    hashtab_free(&t->index);
    free(t->direct);
    memset(t, 0, sizeof(*t));
}

/* Entries most costly first: by Xen's time, then count, then key. */
static int by_cost(const void *pa, const void *pb)
{
    const struct entry *x = *(const struct entry *const *)pa;
    const struct entry *y = *(const struct entry *const *)pb;

    if ( in_xen(&x->s) != in_xen(&y->s) )
        return in_xen(&x->s) < in_xen(&y->s) ? 1 : -1;
    if ( x->s.count != y->s.count )
        return x->s.count < y->s.count ? 1 : -1;
    return x->key < y->key ? -1 : x->key > y->key;
}

static int by_key(const void *pa, const void *pb)
{
    const struct entry *x = *(const struct entry *const *)pa;
    const struct entry *y = *(const struct entry *const *)pb;

    return x->key < y->key ? -1 : x->key > y->key;
}

/* @t's entries in an array of pointers, sorted; NULL if none or ENOMEM. */
static const struct entry **table_sorted(const struct table *t, bool cost,
                                         unsigned int *n)
{
    const struct entry **v;
    unsigned int i;

    *n = 0;
    if ( !t->n || !(v = malloc(t->n * sizeof(*v))) )
        return NULL;
    for ( i = 0; i < t->n; i++ )
        v[i] = &t->e[i];
    qsort(v, t->n, sizeof(*v), cost ? by_cost : by_key);
    *n = t->n;
    return v;
}

/*
 * Taking the model's events
 */

static struct avcpu *vcpu_of(struct analysis *a, uint32_t domvcpu)
{
    struct entry *e;
    struct avcpu *v;

    if ( a->last_vcpu && a->last_vcpu->domvcpu == domvcpu )
        return a->last_vcpu;
    if ( domvcpu == MODEL_VCPU_NONE ||
         !(e = table_get(a, &a->vcpu_index, domvcpu)) )
        return NULL;
    if ( e->s.count )
        return a->last_vcpu = a->vcpus[e->s.ticks];
    if ( array_fit(&a->vcpus, &a->vcpus_cap, a->nr_vcpus + 1,
                   sizeof(*a->vcpus)) )
        goto nomem;
    if ( !(v = calloc(1, sizeof(*v))) )
        goto nomem;
    v->domvcpu = domvcpu;
    v->last_pcpu = MODEL_CPU_NONE;
    v->exits.with_sketch = true;
    v->traps.with_sketch = true;
    e->s.count = 1;
    e->s.ticks = a->nr_vcpus;
    a->vcpus[a->nr_vcpus++] = v;
    return v;

nomem:
    a->failed = true;
    return NULL;
}

/*
 * @cpu's counts, by number.  A file's pCPUs are all there from the start;
 * a stream's are added as they come (NULL, and failed, with ENOMEM).
 */
static struct apcpu *pcpu_of(struct analysis *a, uint32_t cpu)
{
    unsigned int lo = 0, hi = a->nr_pcpus;

    if ( a->last_pcpu && a->last_pcpu->cpu == cpu )
        return a->last_pcpu;
    while ( lo < hi )
    {
        unsigned int mid = lo + (hi - lo) / 2;

        if ( a->pcpus[mid].cpu == cpu )
            return a->last_pcpu = &a->pcpus[mid];
        if ( a->pcpus[mid].cpu < cpu )
            lo = mid + 1;
        else
            hi = mid;
    }
    if ( array_fit(&a->pcpus, &a->pcpus_cap, a->nr_pcpus + 1,
                   sizeof(*a->pcpus)) )
    {
        a->failed = true;
        return NULL;
    }
    memmove(&a->pcpus[lo + 1], &a->pcpus[lo],
            (a->nr_pcpus++ - lo) * sizeof(*a->pcpus));
    a->pcpus[lo] = (struct apcpu){ .cpu = cpu };
    return a->last_pcpu = &a->pcpus[lo];
}

static void add_stat(struct stat *s, uint64_t ticks)
{
    s->count++;
    s->ticks += ticks;
}

/* @ticks of an interval, and one interval if it @ends here. */
static void add_piece(struct stat *s, uint64_t ticks, bool ends)
{
    s->count += ends;
    s->ticks += ticks;
}

static void add_runstate(struct runstates *r, const struct model_event *ev,
                         uint64_t ticks, bool ends)
{
    add_piece(&r->st[ev->u.runstate.state], ticks, ends);
    if ( ev->u.runstate.state == MODEL_RUNNABLE )
        add_piece(&r->cause[ev->u.runstate.cause], ticks, ends);
}

/*
 * Where the lengths of @state's intervals go in an avcpu's spans[], or
 * -1: runnable ones are the waits, by cause, in latency[].
 */
static int span_of(enum model_state state)
{
    switch ( state )
    {
    case MODEL_RUNNING: return 0;
    case MODEL_BLOCKED: return 1;
    case MODEL_OFFLINE: return 2;
    default:            return -1;
    }
}

static const char *const span_names[NR_SPANS] = {
    "running", "blocked", "offline",
};

/* An interval of @ev, @ticks long, for --longest's list @kind. */
static void note_longest(struct analysis *a, unsigned int kind,
                         const struct model_event *ev, uint64_t ticks,
                         uint64_t what)
{
    bool exit = ev->type == MODEL_EV_EXIT;
    const struct longest_item it = {
        .ticks = ticks, .start = ev->began, .domvcpu = ev->domvcpu,
        .pcpu = ev->pcpu, .rip = exit ? ev->u.exit.rip : 0, .what = what,
    };

    if ( a->longest )
        longest_add(&a->longest[kind], &it);
}

/*
 * A runstate interval's time in @a's span (what the window or an
 * interval's start, a->first, leaves of it), counted as an interval where
 * it ends: cut into intervals, the time and counts add up.
 */
static void take_runstate(struct analysis *a, const struct model_event *ev)
{
    uint64_t start = ev->start > a->first ? ev->start : a->first;
    uint64_t ticks = ev->end > start ? ev->end - start : 0;
    bool ends = !ev->goes_on;
    int span = span_of(ev->u.runstate.state);
    struct avcpu *v;
    struct apcpu *p;
    struct entry *e;

    if ( !ticks && !ends )
        return;
    /*
     * A pCPU's time: what it ran, whichever vCPUs the options show; and
     * a switch away from it where a record ends its running for another
     * state (not for a new time slice), as its interval is counted:
     * where it ends, in a window or an interval alike.
     */
    if ( ev->u.runstate.state == MODEL_RUNNING &&
         ev->pcpu != MODEL_CPU_NONE && (p = pcpu_of(a, ev->pcpu)) )
    {
        bool idle = ev->domvcpu >> 16 == MODEL_DOMID_IDLE;

        add_piece(&p->ran[idle], ticks, ends);
        if ( ends && ev->u.runstate.end_by == MODEL_END_RECORD &&
             ev->u.runstate.next != MODEL_RUNNING )
            p->switches[idle]++;
    }
    if ( !(v = vcpu_of(a, ev->domvcpu)) )
        return;
    add_runstate(&v->all, ev, ticks, ends);
    /* An interval's length, whole, where a record ends it, as a wait's. */
    if ( span >= 0 && ev->u.runstate.end_by == MODEL_END_RECORD && ends &&
         sketch_add(&v->spans[span], ev->end - ev->began) )
        a->failed = true;
    if ( !v->ran && ev->u.runstate.state != MODEL_RUNNING )
        add_runstate(&v->head, ev, ticks, ends);
    if ( ev->u.runstate.end_by == MODEL_END_TRACE && ends )
        add_runstate(&v->tail, ev, ticks, ends);
    switch ( ev->u.runstate.state )
    {
    case MODEL_RUNNING:
        v->ran = true;
        if ( ev->pcpu == MODEL_CPU_NONE )
            break;
        e = table_get(a, &v->pcpus, ev->pcpu);
        add_piece(e ? &e->s : &v->pcpus.other, ticks, ends);
        if ( v->last_pcpu != MODEL_CPU_NONE && v->last_pcpu != ev->pcpu )
            v->migrations++;
        v->last_pcpu = ev->pcpu;
        break;
    case MODEL_RUNNABLE:
        if ( !model_is_wait(ev) )
            break;
        if ( sketch_add(&v->latency[ev->u.runstate.cause],
                        ev->end - ev->began) )
            a->failed = true;
        /* An idle vCPU's "wait" is a pCPU busy with guests: not one. */
        if ( ev->domvcpu >> 16 != MODEL_DOMID_IDLE )
            note_longest(a, LONGEST_WAITS, ev, ev->end - ev->began,
                         ev->u.runstate.cause);
        break;
    default:
        break;
    }
}

/* The MMIO table's key of an access to @gpa: the VGA window is one. */
static uint64_t mmio_key(uint64_t gpa, bool write)
{
    if ( gpa >= MMIO_VGA_START && gpa < MMIO_VGA_END )
        gpa = MMIO_VGA_START;
    return gpa | (write ? KEY_WRITE : 0);
}

/* What an exit's handler records say it did: its port, address, call. */
static void take_handlers(struct analysis *a, struct avcpu *v,
                          const struct model_event *ev, uint64_t ticks)
{
    unsigned int i, n = ev->u.exit.nr_handlers;

    if ( n > MODEL_MAX_HANDLERS )
        n = MODEL_MAX_HANDLERS;
    for ( i = 0; i < n; i++ )
    {
        const struct xt_record *h = &ev->u.exit.handlers[i];
        uint32_t id = h->event & ~TRC_HVM_NESTEDFLAG;

        if ( !h->nr_extra )
            continue;
        switch ( id )
        {
        case TRC_HVM_IO_READ: case TRC_HVM_IOPORT_READ:
            table_add(a, &v->io, h->extra[0], ticks);
            break;
        case TRC_HVM_IO_WRITE: case TRC_HVM_IOPORT_WRITE:
            table_add(a, &v->io, h->extra[0] | KEY_WRITE, ticks);
            break;
        case TRC_HVM_IOMEM_READ: case TRC_HVM_IOMEM_WRITE:
            table_add(a, &v->mmio,
                      mmio_key(h->extra[0], id == TRC_HVM_IOMEM_WRITE), ticks);
            break;
        case TRC_HVM_IOMEM_READ64: case TRC_HVM_IOMEM_WRITE64:
            if ( h->nr_extra >= 2 )
                table_add(a, &v->mmio,
                          mmio_key(h->extra[0] | (uint64_t)h->extra[1] << 32,
                                   id == TRC_HVM_IOMEM_WRITE64), ticks);
            break;
        case TRC_HVM_CR_WRITE: case TRC_HVM_CR_WRITE64:
            table_add(a, &v->cr_writes, h->extra[0], ticks);
            break;
        case TRC_HVM_TRAP:
            table_add(a, &v->exceptions, h->extra[0], ticks);
            break;
        case TRC_HVM_INTR:
            table_add(a, &v->extints, h->extra[0], 0);
            if ( a->o.has_rips_vector && h->extra[0] == a->o.rips_vector )
                table_add(a, &v->interrupt_rips, ev->u.exit.rip, 0);
            break;
        case TRC_HVM_VMMCALL:
            table_add(a, &v->vmcalls, h->extra[0], ticks);
            note_longest(a, LONGEST_HYPERCALLS, ev, ticks, h->extra[0]);
            break;
        case TRC_ARM_TRAP_HVC:
            table_add(a, &v->hvcs, h->extra[0], ticks);
            note_longest(a, LONGEST_HYPERCALLS, ev, ticks, h->extra[0]);
            break;
        case TRC_ARM_TRAP_MMIO:     /* gpa lo, hi, write, size */
            if ( h->nr_extra >= 3 )
                table_add(a, &v->arm_mmio,
                          (h->extra[0] | (uint64_t)h->extra[1] << 32) |
                          (h->extra[2] ? KEY_WRITE : 0), ticks);
            break;
        }
    }
}

/* An exit, whole, where it ends (as a C-state, a loss, an injection). */
static void take_exit(struct analysis *a, const struct model_event *ev)
{
    uint64_t ticks = ev->end - ev->began, in_xen = model_exit_in_xen(ev);
    uint64_t key = ev->u.exit.reason | (ev->u.exit.svm ? KEY_SVM : 0);
    struct avcpu *v;

    if ( ev->goes_on || !(v = vcpu_of(a, ev->domvcpu)) )
        return;
    if ( ev->u.exit.arm )
        table_add_halted(a, &v->traps, key, ticks, ticks - in_xen);
    else
        table_add_halted(a, &v->exits, key, ticks, ticks - in_xen);
    note_longest(a, LONGEST_EXITS, ev, in_xen,
                 key | (ev->u.exit.arm ? KEY_ARM : 0));
    take_handlers(a, v, ev, ticks);
}

static void take_pv(struct analysis *a, const struct model_event *ev)
{
    struct avcpu *v = vcpu_of(a, ev->domvcpu);

    if ( !v )
        return;
    if ( ev->type == MODEL_EV_PV )
        table_add(a, &v->pv, ev->u.pv.event & ~TRC_64_FLAG, 0);
    else if ( ev->type == MODEL_EV_GUEST )
        table_add(a, &v->guest, ev->u.guest.event, 0);
    else if ( !ev->u.hypercall.hvm )    /* VMCALLs: from their exits */
        table_add(a, ev->u.hypercall.subcall ? &v->subcalls : &v->hypercalls,
                  ev->u.hypercall.op, 0);
}

/*
 * A memory operation: done by the vCPU that ran, and for the domain its
 * record names (xenalyze's "Grant table ops", done by and done for);
 * PoD's by its order (xenalyze's "Populate-on-demand").
 */
static void take_mem(struct analysis *a, const struct model_event *ev)
{
    uint32_t event = ev->u.mem.event;
    struct avcpu *v = vcpu_of(a, ev->domvcpu);

    if ( v )
    {
        table_add(a, &v->mem, event, 0);
        if ( (event == TRC_MEM_POD_POPULATE ||
              event == TRC_MEM_POD_ZERO_RECLAIM) &&
             ev->u.mem.order <= 0xff )
            table_add(a, &v->pod, event << 8 | ev->u.mem.order, 0);
    }
    if ( ev->u.mem.dom != UINT32_MAX &&
         (!a->o.has_domain || ev->u.mem.dom == a->o.domain) )
        table_add(a, &a->mem_for, (uint64_t)ev->u.mem.dom << 32 | event, 0);
}

/*
 * An injected vector's time to the halt, whole where it ends, booked as
 * xenalyze books it: the wake's vector as "wake to halt any", and also
 * "alone" if no other was injected; any other as "intr to halt".
 */
static void take_to_halt(struct analysis *a, struct avcpu *v,
                         const struct model_event *ev)
{
    uint64_t key = (uint64_t)ev->u.to_halt.vector << 2;
    uint64_t ticks = ev->end - ev->began;

    if ( !ev->u.to_halt.wake )
    {
        table_add(a, &v->to_halt, key | TO_HALT_INTR, ticks);
        return;
    }
    table_add(a, &v->to_halt, key | TO_HALT_WAKE_ANY, ticks);
    if ( ev->u.to_halt.alone )
        table_add(a, &v->to_halt, key | TO_HALT_WAKE_ALONE, ticks);
}

/*
 * A point at the end of a window [from, to) is not in it (an interval
 * ending there goes on).
 */
static bool past(const struct analysis *a, const struct model_event *ev)
{
    return a->window_open && ev->start == a->last;
}

static void take(struct analysis *a, const struct model_event *ev)
{
    struct apcpu *p;
    struct avcpu *v;

    switch ( ev->type )
    {
    case MODEL_EV_RUNSTATE:
        take_runstate(a, ev);
        break;
    case MODEL_EV_EXIT:
        take_exit(a, ev);
        break;
    case MODEL_EV_HYPERCALL:
    case MODEL_EV_PV:
    case MODEL_EV_GUEST:
        if ( !past(a, ev) )
            take_pv(a, ev);
        break;
    case MODEL_EV_INJECT:
        if ( !past(a, ev) && (v = vcpu_of(a, ev->domvcpu)) )
            table_add(a, ev->u.inject.arm ? &v->arm_injected : &v->injected,
                      ev->u.inject.vector, 0);
        break;
    case MODEL_EV_INJECT_LATENCY:
        if ( !ev->goes_on && (v = vcpu_of(a, ev->domvcpu)) &&
             sketch_add(&v->inject, ev->end - ev->began) )
            a->failed = true;
        break;
    case MODEL_EV_IRQ:
        if ( past(a, ev) || !(p = pcpu_of(a, ev->pcpu)) )
            break;
        if ( ev->u.irq.vector != UINT32_MAX )
            table_add(a, &p->vectors, ev->u.irq.vector, 0);
        if ( ev->u.irq.irq != UINT32_MAX )
            table_add(a, &p->irqs, ev->u.irq.irq, 0);
        break;
    case MODEL_EV_CSTATE:
        if ( !ev->goes_on && (p = pcpu_of(a, ev->pcpu)) )
            table_add(a, &p->cstates, ev->u.cstate.cstate,
                      ev->end - ev->began);
        break;
    case MODEL_EV_LOST:
        if ( !ev->goes_on && (p = pcpu_of(a, ev->pcpu)) )
        {
            add_stat(&p->lost, ev->end - ev->began);
            p->lost_records += ev->u.lost.count;
        }
        break;
    case MODEL_EV_MEM:
        if ( !past(a, ev) )
            take_mem(a, ev);
        break;
    case MODEL_EV_TO_HALT:
        if ( !ev->goes_on && (v = vcpu_of(a, ev->domvcpu)) )
            take_to_halt(a, v, ev);
        break;
    case MODEL_EV_DOMAIN:
        /* Whole where it ends, as an exit. */
        if ( !ev->goes_on && (!a->o.has_domain ||
                              ev->domvcpu >> 16 == a->o.domain) )
            table_add(a, &a->concurrency,
                      (uint64_t)(ev->domvcpu >> 16) << 4 |
                      ev->u.domain.state, ev->end - ev->began);
        break;
    case MODEL_EV_SWITCH:
    case MODEL_EV_WAKE:
        break;
    }
}

/* analysis_run()'s: the whole trace's. */
/*
 * The whole trace's crossing (crossing.h), made once the reader knows the
 * file has dom0's lanes: a stream's first batch tells it.
 */
static struct crossing *crossing_of(struct analysis *a)
{
    if ( !a->crossing && xt_reader_dom0(a->reader)->lanes &&
         !(a->crossing = crossing_new(a->reader)) )
        a->failed = true;
    return a->crossing;
}

static void cross(struct analysis *a, const struct model_event *ev)
{
    if ( ev->type == MODEL_EV_RUNSTATE && crossing_of(a) &&
         crossing_event(a->crossing, ev) )
        a->failed = true;
}

/* dom0's own events, which only the crossing takes. */
static void take_dom0(void *arg, const struct xt_record *rec)
{
    struct analysis *a = arg;

    if ( crossing_of(a) && crossing_dom0(a->crossing, rec) )
        a->failed = true;
}

static void take_event(void *arg, const struct model_event *ev)
{
    take(arg, ev);
    cross(arg, ev);
}

/* analysis_new()'s: the whole trace's and the interval's. */
static void take_event_cut(void *arg, const struct model_event *ev)
{
    struct analysis *a = arg;

    /* model_cut()'s pieces are the interval's alone. */
    if ( ev->type != MODEL_EV_RUNSTATE ||
         ev->u.runstate.end_by != MODEL_END_CUT )
    {
        take(a, ev);
        cross(a, ev);
    }
    take(a->cur, ev);
}

/* An analysis of @nr_pcpus pCPUs (@cpus' numbers), without a model. */
static struct analysis *analysis_alloc(const struct analysis_options *o,
                                       unsigned int nr_pcpus,
                                       const struct apcpu *cpus,
                                       struct xt_reader *r)
{
    struct analysis *a = calloc(1, sizeof(*a));
    unsigned int i;

    if ( !a )
        return NULL;
    a->o = *o;
    a->nr_pcpus = a->pcpus_cap = nr_pcpus;
    if ( !(a->pcpus = calloc(nr_pcpus ? nr_pcpus : 1, sizeof(*a->pcpus))) )
    {
        free(a);
        return NULL;
    }
    /* dom0's lanes are none of them. */
    for ( i = a->nr_pcpus = 0; i < nr_pcpus; i++ )
    {
        uint32_t cpu = cpus ? cpus[i].cpu : xt_reader_cpu(r, i)->cpu;

        if ( !r || !xt_reader_is_dom0_lane(r, cpu) )
            a->pcpus[a->nr_pcpus++].cpu = cpu;
    }
    return a;
}

/* @a's next interval, from @tsc. */
static struct analysis *interval_new(const struct analysis *a, uint64_t tsc)
{
    struct analysis *i = analysis_alloc(&a->o, a->nr_pcpus, a->pcpus, NULL);

    if ( !i )
        return NULL;
    i->reader = a->reader;              /* the domains' names */
    i->first = tsc;
    i->last = a->last;
    i->window_open = a->window_open;
    return i;
}

/* --longest's lists; -1 with ENOMEM. */
static int longest_new(struct analysis *a)
{
    unsigned int k;

    if ( !(a->longest = calloc(NR_LONGEST, sizeof(*a->longest))) )
        return -1;
    for ( k = 0; k < NR_LONGEST; k++ )
        if ( longest_init(&a->longest[k], a->o.longest) )
            return -1;
    return 0;
}

static struct analysis *analysis_make(struct xt_reader *r,
                                      const struct model_options *mo,
                                      const struct analysis_options *o,
                                      bool cuts)
{
    static const struct model_ops whole = { .event = take_event,
                                            .dom0 = take_dom0 };
    static const struct model_ops cut = { .event = take_event_cut,
                                          .dom0 = take_dom0 };
    struct analysis *a = analysis_alloc(o, xt_reader_info(r)->nr_cpus, NULL,
                                        r);

    if ( !a )
        return NULL;
    if ( !(a->model = model_new(r, mo, cuts ? &cut : &whole, a)) ||
         (o->longest && longest_new(a)) )
        goto fail;
    a->reader = r;
    a->learning = xt_reader_info(r)->streamed;
    a->first = model_first_tsc(a->model);
    a->last = model_last_tsc(a->model);
    a->window_open = model_window_open(a->model);
    a->windowed = mo && (mo->from || mo->to);
    if ( cuts && !(a->cur = interval_new(a, a->first)) )
        goto fail;
    return a;

fail:
    analysis_free(a);
    errno = ENOMEM;
    return NULL;
}

struct analysis *analysis_new(struct xt_reader *r,
                              const struct model_options *mo,
                              const struct analysis_options *o)
{
    return analysis_make(r, mo, o, true);
}

static bool any_failed(const struct analysis *a)
{
    return a->failed || (a->cur && a->cur->failed);
}

int analysis_feed(struct analysis *a, const struct xt_record *rec)
{
    if ( model_feed(a->model, rec) || any_failed(a) )
    {
        errno = ENOMEM;
        return -1;
    }
    /* A stream's span starts at its first TSC, which the model now has. */
    if ( a->learning && rec->has_tsc )
    {
        a->learning = false;
        a->first = model_first_tsc(a->model);
        if ( !a->cut )
            a->cur->first = a->first;
    }
    if ( a->cur && !xt_is_metadata(rec->event) &&
         (!a->windowed ||
          (rec->tsc >= a->first && (rec->tsc < a->last ||
                                    (rec->tsc == a->last && !a->window_open)))) )
        a->cur->records++;
    return 0;
}

/*
 * Every pCPU @r knows of in @a, those without events too (a stream's);
 * not dom0's lanes.
 */
static void all_pcpus(struct analysis *a, struct xt_reader *r)
{
    const struct xt_reader_info *info = xt_reader_info(r);
    unsigned int i;

    for ( i = 0; i < info->nr_cpus; i++ )
        if ( !xt_reader_is_dom0_lane(r, xt_reader_cpu(r, i)->cpu) )
            pcpu_of(a, xt_reader_cpu(r, i)->cpu);
}

/*
 * The end of the records: the span as the model has it now (a stream's
 * end is known only now), and a stream's pCPUs.
 */
static int ended(struct analysis *a)
{
    a->first = model_first_tsc(a->model);
    a->last = model_last_tsc(a->model);
    a->window_open = model_window_open(a->model);
    a->stats = *model_stats(a->model);
    all_pcpus(a, a->reader);
    if ( a->failed )
    {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

int analysis_finish(struct analysis *a)
{
    if ( a->finished )
        return 0;
    a->finished = true;
    if ( model_finish(a->model) || any_failed(a) )
    {
        errno = ENOMEM;
        return -1;
    }
    if ( ended(a) )
        return -1;
    if ( !a->cut )
        a->cur->first = a->first;
    a->cur->last = a->last;
    a->cur->window_open = a->window_open;
    return 0;
}

/* What the model could not place since the last cut. */
static void interval_stats(struct analysis *a, struct analysis *i)
{
    const struct model_stats *now = model_stats(a->model);
    const struct model_stats *then = &a->cut_stats;

    i->stats.records = now->records - then->records;
    i->stats.orphan_hvm = now->orphan_hvm - then->orphan_hvm;
    i->stats.exits_dropped = now->exits_dropped - then->exits_dropped;
    i->stats.mismatches = now->mismatches - then->mismatches;
    /* Whether to show the Arm tables: the trace so far has Arm records. */
    i->stats.arm_records = now->arm_records;
    a->cut_stats = *now;
}

int analysis_cut(struct analysis *a, uint64_t tsc, struct analysis **interval)
{
    struct analysis *next;

    *interval = NULL;
    if ( !a->cur )
    {
        errno = EINVAL;
        return -1;
    }
    if ( tsc > a->last )
        tsc = a->last;
    if ( tsc < a->cur->first )
        tsc = a->cur->first;
    if ( !(next = interval_new(a, tsc)) )
    {
        errno = ENOMEM;
        return -1;
    }
    if ( !a->finished )
        model_cut(a->model, tsc);
    a->cut = true;
    a->cur->last = tsc;
    interval_stats(a, a->cur);
    all_pcpus(a->cur, a->reader);
    analysis_free(a->out);
    a->out = a->cur;
    a->cur = next;
    if ( a->out->failed )
    {
        errno = ENOMEM;
        return -1;
    }
    *interval = a->out;
    return 0;
}

/* The usual way: by_cpu order if @mo says so, and no intervals. */
struct analysis *analysis_run(struct xt_reader *r,
                              const struct model_options *mo,
                              const struct analysis_options *o)
{
    struct analysis *a = analysis_make(r, mo, o, false);

    if ( !a )
        return NULL;
    a->finished = true;
    if ( model_run(a->model) || ended(a) )
    {
        analysis_free(a);
        errno = ENOMEM;
        return NULL;
    }
    model_free(a->model);
    a->model = NULL;
    return a;
}

static void vcpu_free(struct avcpu *v)
{
    unsigned int c;

    for ( c = 0; c < NR_CAUSES; c++ )
        sketch_free(&v->latency[c]);
    for ( c = 0; c < NR_SPANS; c++ )
        sketch_free(&v->spans[c]);
    table_free(&v->pcpus);
    table_free(&v->exits);
    for ( c = 0; c < NR_KEYED; c++ )
        table_free(keyed_table(v, &keyed_tables[c]));
    table_free(&v->arm_injected);
    table_free(&v->traps);
    table_free(&v->hvcs);
    table_free(&v->arm_mmio);
    sketch_free(&v->inject);
    free(v);
}

void analysis_free(struct analysis *a)
{
    unsigned int i;

    if ( !a )
        return;
    analysis_free(a->cur);
    analysis_free(a->out);
    model_free(a->model);
    for ( i = 0; i < a->nr_vcpus; i++ )
        vcpu_free(a->vcpus[i]);
    for ( i = 0; a->pcpus && i < a->nr_pcpus; i++ )
    {
        table_free(&a->pcpus[i].vectors);
        table_free(&a->pcpus[i].irqs);
        table_free(&a->pcpus[i].cstates);
    }
    free(a->pcpus);
    free(a->vcpus);
    table_free(&a->vcpu_index);
    table_free(&a->concurrency);
    table_free(&a->mem_for);
    for ( i = 0; a->longest && i < NR_LONGEST; i++ )
        longest_free(&a->longest[i]);
    free(a->longest);
    crossing_free(a->crossing);
    free(a);
}

uint64_t analysis_span(const struct analysis *a)
{
    return a->last - a->first;
}

uint64_t analysis_first_tsc(const struct analysis *a)
{
    return a->first;
}

uint64_t analysis_last_tsc(const struct analysis *a)
{
    return a->last;
}

uint64_t analysis_records(const struct analysis *a)
{
    return a->records;
}

/*
 * Domains: their vCPUs' figures added up, for printing
 */

static void runstates_merge(struct runstates *into, const struct runstates *from)
{
    unsigned int s;

    for ( s = 0; s < MODEL_STATES; s++ )
    {
        into->st[s].count += from->st[s].count;
        into->st[s].ticks += from->st[s].ticks;
    }
    for ( s = 0; s < NR_CAUSES; s++ )
    {
        into->cause[s].count += from->cause[s].count;
        into->cause[s].ticks += from->cause[s].ticks;
    }
}

static bool vcpu_shown(const struct analysis *a, const struct avcpu *v)
{
    unsigned int i;

    if ( a->o.has_domain && v->domvcpu >> 16 != a->o.domain )
        return false;
    if ( !a->o.has_cpu )
        return true;
    for ( i = 0; i < v->pcpus.n; i++ )
        if ( v->pcpus.e[i].key == a->o.cpu )
            return true;
    return false;
}

/* A domain's vCPUs' figures summed into one struct avcpu (vcpu 0xffff). */
static struct avcpu *domain_sum(struct analysis *a, uint32_t dom,
                                unsigned int *nr_vcpus)
{
    struct avcpu *d = calloc(1, sizeof(*d));
    unsigned int i, c;

    if ( !d )
        return NULL;
    d->domvcpu = dom << 16 | 0xffff;
    d->exits.with_sketch = true;
    d->traps.with_sketch = true;
    *nr_vcpus = 0;
    for ( i = 0; i < a->nr_vcpus; i++ )
    {
        const struct avcpu *v = a->vcpus[i];

        if ( v->domvcpu >> 16 != dom || !vcpu_shown(a, v) )
            continue;
        ++*nr_vcpus;
        runstates_merge(&d->all, &v->all);
        for ( c = 0; c < NR_CAUSES; c++ )
            if ( sketch_merge(&d->latency[c], &v->latency[c]) )
                a->failed = true;
        for ( c = 0; c < NR_SPANS; c++ )
            if ( sketch_merge(&d->spans[c], &v->spans[c]) )
                a->failed = true;
        d->migrations += v->migrations;
        table_merge(a, &d->pcpus, &v->pcpus);
        table_merge(a, &d->exits, &v->exits);
        for ( c = 0; c < NR_KEYED; c++ )
            table_merge(a, keyed_table(d, &keyed_tables[c]),
                        keyed_of(v, &keyed_tables[c]));
        table_merge(a, &d->arm_injected, &v->arm_injected);
        table_merge(a, &d->traps, &v->traps);
        table_merge(a, &d->hvcs, &v->hvcs);
        table_merge(a, &d->arm_mmio, &v->arm_mmio);
        if ( sketch_merge(&d->inject, &v->inject) )
            a->failed = true;
    }
    for ( i = 0; i < a->mem_for.n; i++ )
    {
        const struct entry *e = &a->mem_for.e[i];
        struct entry *into;

        if ( e->key >> 32 != dom )
            continue;
        into = table_get(a, &d->mem_for, (uint32_t)e->key);
        (into ? &into->s : &d->mem_for.other)->count += e->s.count;
    }
    return d;
}

/* vCPUs (or domains), most running time first; idle last. */
static int by_running(const void *pa, const void *pb)
{
    const struct avcpu *x = *(const struct avcpu *const *)pa;
    const struct avcpu *y = *(const struct avcpu *const *)pb;
    bool xi = x->domvcpu >> 16 == MODEL_DOMID_IDLE;
    bool yi = y->domvcpu >> 16 == MODEL_DOMID_IDLE;

    if ( xi != yi )
        return xi ? 1 : -1;
    if ( x->all.st[MODEL_RUNNING].ticks != y->all.st[MODEL_RUNNING].ticks )
        return x->all.st[MODEL_RUNNING].ticks <
               y->all.st[MODEL_RUNNING].ticks ? 1 : -1;
    return x->domvcpu < y->domvcpu ? -1 : x->domvcpu > y->domvcpu;
}

/* The vCPUs shown, then one summed struct per domain; sorted by cost. */
struct view {
    struct avcpu **vcpus;
    unsigned int nr_vcpus;
    struct avcpu **domains;
    unsigned int *domain_vcpus;
    unsigned int nr_domains;
};

static int view_make(struct analysis *a, struct view *w)
{
    unsigned int i, j;

    memset(w, 0, sizeof(*w));
    w->vcpus = calloc(a->nr_vcpus + 1, sizeof(*w->vcpus));
    w->domains = calloc(a->nr_vcpus + 1, sizeof(*w->domains));
    w->domain_vcpus = calloc(a->nr_vcpus + 1, sizeof(*w->domain_vcpus));
    if ( !w->vcpus || !w->domains || !w->domain_vcpus )
        return -1;
    for ( i = 0; i < a->nr_vcpus; i++ )
    {
        struct avcpu *v = a->vcpus[i];
        uint32_t dom = v->domvcpu >> 16;

        if ( !vcpu_shown(a, v) )
            continue;
        w->vcpus[w->nr_vcpus++] = v;
        for ( j = 0; j < w->nr_domains &&
                     w->domains[j]->domvcpu >> 16 != dom; j++ )
            continue;
        if ( j < w->nr_domains )
            continue;
        w->domains[j] = domain_sum(a, dom, &w->domain_vcpus[j]);
        if ( !w->domains[j] )
            return -1;
        w->nr_domains++;
    }
    qsort(w->vcpus, w->nr_vcpus, sizeof(*w->vcpus), by_running);
    /* Sorting domains moves their vCPU counts: sort pairs by hand. */
    for ( i = 1; i < w->nr_domains; i++ )
        for ( j = i; j > 0 && by_running(&w->domains[j - 1],
                                         &w->domains[j]) > 0; j-- )
        {
            struct avcpu *t = w->domains[j];
            unsigned int n = w->domain_vcpus[j];

            w->domains[j] = w->domains[j - 1];
            w->domain_vcpus[j] = w->domain_vcpus[j - 1];
            w->domains[j - 1] = t;
            w->domain_vcpus[j - 1] = n;
        }
    return a->failed ? -1 : 0;
}

static void view_free(struct view *w)
{
    unsigned int i;

    for ( i = 0; i < w->nr_domains; i++ )
        if ( w->domains[i] )
            vcpu_free(w->domains[i]);
    free(w->vcpus);
    free(w->domains);
    free(w->domain_vcpus);
}

/*
 * Names
 */

/* A domain's row: "d14 (web-01)" where the file names it; a vCPU's "d14v0". */
static const char *who_name(const struct analysis *a, char *buf, size_t size,
                            const struct avcpu *v)
{
    if ( (v->domvcpu & 0xffff) == 0xffff )
        return model_domain_name(buf, size, a->reader, v->domvcpu >> 16);
    return model_vcpu_name(buf, size, v->domvcpu);
}

/* The width of the column of @n rows' names: at least 10. */
static int who_width(const struct analysis *a, struct avcpu *const *who,
                     unsigned int n)
{
    char name[MODEL_NAME_MAX];
    size_t width = 10, i;

    for ( i = 0; i < n; i++ )
        if ( strlen(who_name(a, name, sizeof(name), who[i])) > width )
            width = strlen(name);
    return (int)width;
}

/* An exit's key: its reason, with KEY_SVM if Xen said it is SVM's. */
static const char *exit_name(const struct analysis *a, char *buf,
                             size_t size, uint64_t key)
{
    return model_exit_label(buf, size, key, a->o.svm || (key & KEY_SVM));
}

static const char *trap_name(const struct analysis *a, char *buf,
                             size_t size, uint64_t ec)
{
    (void)a;
    return model_trap_label(buf, size, ec);
}

/*
 * HVM exits and Arm traps are tables of one kind: a guest's time in Xen
 * by why it left, with the distribution of each reason's cost.
 */
struct exit_kind {
    const char *what;           /* the table's, and its JSON member */
    const char *column;         /* the reason's, and its JSON key */
    const char *(*name)(const struct analysis *a, char *buf, size_t size,
                        uint64_t key);
    bool max;                   /* with a column of the longest */
};

static const struct exit_kind hvm_exits = {
    "exits", "reason", exit_name, false,
};
static const struct exit_kind arm_traps = {
    "traps", "class", trap_name, true,
};

static const char *hypercall_name(char *buf, size_t size, uint64_t op)
{
    return model_hypercall_label(buf, size, op);
}

static const char *pv_name(char *buf, size_t size, uint64_t event)
{
    const struct xt_event_desc *d = xt_event_find(event);

    if ( d )
        return d->name;
    snprintf(buf, size, "0x%08" PRIx64, event);
    return buf;
}

/* A guest's own event, as the dump names it (xt_record_format()). */
static const char *guest_name(char *buf, size_t size, uint64_t event)
{
    snprintf(buf, size, XT_GUEST_EVENT_NAME, (unsigned int)event);
    return buf;
}

static double secs(const struct analysis *a, uint64_t ticks)
{
    return tsc_seconds(ticks, a->o.hz);
}

static double usecs(const struct analysis *a, uint64_t ticks)
{
    return tsc_seconds(ticks, a->o.hz) * 1e6;
}

static unsigned int shown(const struct analysis *a, unsigned int n)
{
    return a->o.top && a->o.top < n ? a->o.top : n;
}

static uint64_t running_ticks(const struct avcpu *v)
{
    return v->all.st[MODEL_RUNNING].ticks;
}

/*
 * Text
 */

static void text_runstates(FILE *f, const struct analysis *a,
                           struct avcpu *const *who, unsigned int n,
                           const unsigned int *nr_vcpus, const char *title)
{
    unsigned int i, s;
    char name[MODEL_NAME_MAX];
    int width = who_width(a, who, n);

    fprintf(f, "\n%s runstates (seconds, and intervals)\n%-*s", title,
            width, title);
    if ( nr_vcpus )
        fprintf(f, " %5s", "vcpus");
    for ( s = 0; s < MODEL_STATES; s++ )
        fprintf(f, " %11s %7s", model_state_name(s), "n");
    fprintf(f, " %6s\n", "migr");
    for ( i = 0; i < n; i++ )
    {
        fprintf(f, "%-*s", width, who_name(a, name, sizeof(name), who[i]));
        if ( nr_vcpus )
            fprintf(f, " %5u", nr_vcpus[i]);
        for ( s = 0; s < MODEL_STATES; s++ )
            fprintf(f, " %11.6f %7" PRIu64, secs(a, who[i]->all.st[s].ticks),
                    who[i]->all.st[s].count);
        fprintf(f, " %6" PRIu64 "\n", who[i]->migrations);
    }
}

/* @key's count and ticks in @t; zeros where it has none. */
static struct stat table_stat(const struct table *t, uint64_t key)
{
    unsigned int s = hashtab_get(&t->index, key, t->e, entry_key);

    return s ? t->e[s - 1].s : (struct stat){ 0 };
}

/* A domain's time in concurrency state @state (model.h). */
static struct stat concurrency_of(const struct analysis *a,
                                  const struct avcpu *d, unsigned int state)
{
    return table_stat(&a->concurrency,
                      (uint64_t)(d->domvcpu >> 16) << 4 | state);
}

/* Each domain's concurrency, as xenalyze's domain "Runstates". */
static void text_concurrency(FILE *f, const struct analysis *a,
                             struct avcpu *const *who, unsigned int n)
{
    unsigned int i, s;
    char name[MODEL_NAME_MAX];
    int width = who_width(a, who, n);

    fprintf(f, "\ndomain concurrency (seconds, and intervals)\n%-*s", width,
            "domain");
    for ( s = 0; s < MODEL_DOM_STATES; s++ )
        fprintf(f, " %18s %7s", model_domain_state_name(s), "n");
    fprintf(f, "\n");
    for ( i = 0; i < n; i++ )
    {
        if ( who[i]->domvcpu >> 16 == MODEL_DOMID_IDLE )
            continue;
        fprintf(f, "%-*s", width, who_name(a, name, sizeof(name), who[i]));
        for ( s = 0; s < MODEL_DOM_STATES; s++ )
        {
            struct stat st = concurrency_of(a, who[i], s);

            fprintf(f, " %18.6f %7" PRIu64, secs(a, st.ticks), st.count);
        }
        fprintf(f, "\n");
    }
}

/*
 * A table of distributions in microseconds: its head, rows of @who
 * ("domain", "vcpu"), then its rows.
 */
static void text_sketch_head(FILE *f, const char *title, const char *who,
                             int width, const char *column)
{
    fprintf(f, "\n%s (us)\n%-*s %-9s %8s %10s %10s %10s %10s %10s\n", title,
            width, who, column, "count", "mean", "p50", "p90", "p99", "max");
}

static void text_sketch_row(FILE *f, const struct analysis *a,
                            const struct avcpu *v, int width,
                            const char *label, const struct sketch *s)
{
    char name[MODEL_NAME_MAX];

    if ( !s->count )
        return;
    fprintf(f, "%-*s %-9s %8" PRIu64 " %10.1f %10.1f %10.1f %10.1f "
            "%10.1f\n", width, who_name(a, name, sizeof(name), v), label,
            s->count,
            usecs(a, s->sum) / s->count, usecs(a, sketch_quantile(s, 0.5)),
            usecs(a, sketch_quantile(s, 0.9)),
            usecs(a, sketch_quantile(s, 0.99)), usecs(a, s->max));
}

/* The waits of @n domains or vCPUs (@title: "domain", "vcpu"). */
static void text_latency(FILE *f, const struct analysis *a,
                         struct avcpu *const *who, unsigned int n,
                         const char *title)
{
    char head[48];
    unsigned int i, c;
    int width = who_width(a, who, n);

    snprintf(head, sizeof(head), "%s runnable to running", title);
    text_sketch_head(f, head, title, width, "cause");
    for ( i = 0; i < n; i++ )
        for ( c = MODEL_CAUSE_WOKEN; c < NR_CAUSES; c++ )
            text_sketch_row(f, a, who[i], width, cause_names[c],
                            &who[i]->latency[c]);
}

/* The lengths of @n domains' or vCPUs' running, blocked, offline. */
static void text_spans(FILE *f, const struct analysis *a,
                       struct avcpu *const *who, unsigned int n,
                       const char *title)
{
    char head[48];
    unsigned int i, c;
    int width = who_width(a, who, n);

    snprintf(head, sizeof(head), "%s runstate intervals", title);
    text_sketch_head(f, head, title, width, "runstate");
    for ( i = 0; i < n; i++ )
        for ( c = 0; c < NR_SPANS; c++ )
            text_sketch_row(f, a, who[i], width, span_names[c],
                            &who[i]->spans[c]);
}

static void text_placement(FILE *f, const struct analysis *a,
                           struct avcpu *const *who, unsigned int n)
{
    unsigned int i, k, m;
    char name[MODEL_NAME_MAX];

    fprintf(f, "\nwhere each vCPU ran (pCPU: seconds)\n");
    for ( i = 0; i < n; i++ )
    {
        const struct entry **e = table_sorted(&who[i]->pcpus, true, &m);

        if ( !m )
            continue;
        fprintf(f, "%-10s migrations %" PRIu64 ":",
                who_name(a, name, sizeof(name), who[i]), who[i]->migrations);
        for ( k = 0; k < shown(a, m); k++ )
            fprintf(f, " p%" PRIu64 " %.6f", e[k]->key,
                    secs(a, e[k]->s.ticks));
        fprintf(f, "\n");
        free(e);
    }
}

static void text_exits(FILE *f, const struct analysis *a,
                       const struct avcpu *v, const struct table *t,
                       const struct exit_kind *kind, const char *who)
{
    unsigned int k, m;
    const struct entry **e = table_sorted(t, true, &m);
    char buf[32];

    if ( !m )
        return;
    fprintf(f, "%s %s:\n  %-28s %9s %11s %11s %7s %7s %10s %10s %10s %10s",
            who, kind->what, kind->column, "count", "in-xen-s", "halted-s",
            "%run", "%span", "mean-cyc", "p50-cyc", "p90-cyc", "p99-cyc");
    fprintf(f, kind->max ? " %10s\n" : "\n", "max-cyc");
    for ( k = 0; k < shown(a, m); k++ )
    {
        uint64_t xen = in_xen(&e[k]->s);

        fprintf(f, "  %-28s %9" PRIu64 " %11.6f %11.6f %7.2f %7.2f %10" PRIu64
                " %10" PRIu64 " %10" PRIu64 " %10" PRIu64,
                kind->name(a, buf, sizeof(buf), e[k]->key), e[k]->s.count,
                secs(a, xen), secs(a, e[k]->s.halted),
                running_ticks(v) ? 100.0 * xen / running_ticks(v) : 0,
                analysis_span(a) ? 100.0 * xen / analysis_span(a) : 0,
                xen / e[k]->s.count,
                sketch_quantile(e[k]->sk, 0.5), sketch_quantile(e[k]->sk, 0.9),
                sketch_quantile(e[k]->sk, 0.99));
        if ( kind->max )
            fprintf(f, " %10" PRIu64, e[k]->sk->max);
        fprintf(f, "\n");
    }
    free(e);
}

/* A table of keys with counts (and seconds, if @timed), under a title. */
static void __attribute__((format(printf, 6, 7)))
text_keyed(FILE *f, const struct analysis *a, const struct table *t,
           const char *(*name)(char *, size_t, uint64_t), bool timed,
           const char *title, ...)
{
    unsigned int k, m;
    const struct entry **e = table_sorted(t, true, &m);
    char buf[48];
    va_list ap;

    if ( !m )
        return;
    va_start(ap, title);
    vfprintf(f, title, ap);
    va_end(ap);
    fprintf(f, "\n");
    for ( k = 0; k < shown(a, m); k++ )
    {
        fprintf(f, "  %-28s %9" PRIu64, name(buf, sizeof(buf), e[k]->key),
                e[k]->s.count);
        if ( timed )
            fprintf(f, " %11.6f", secs(a, e[k]->s.ticks));
        fprintf(f, "\n");
    }
    if ( t->other.count )
        fprintf(f, "  %-28s %9" PRIu64 "\n", "(others)", t->other.count);
    free(e);
}

/* A PoD row's: "populate order 9", "zero reclaim order 0". */
static const char *pod_name(char *buf, size_t size, uint64_t key)
{
    snprintf(buf, size, "%s order %u", key >> 8 == TRC_MEM_POD_POPULATE ?
             "populate" : "zero reclaim", (unsigned int)(key & 0xff));
    return buf;
}

static const char *port_name(char *buf, size_t size, uint64_t key)
{
    snprintf(buf, size, "0x%04" PRIx64 " %s", key & ~KEY_WRITE,
             key & KEY_WRITE ? "write" : "read");
    return buf;
}

/* "0xf2020008 read", "0xa0000-0xbffff VGA write" */
static const char *mmio_name(char *buf, size_t size, uint64_t key)
{
    if ( (key & ~KEY_WRITE) != MMIO_VGA_START )
        return port_name(buf, size, key);
    snprintf(buf, size, "%#x-%#x VGA %s", MMIO_VGA_START, MMIO_VGA_END - 1,
             key & KEY_WRITE ? "write" : "read");
    return buf;
}

static const char *vector_name(char *buf, size_t size, uint64_t v)
{
    snprintf(buf, size, "0x%02" PRIx64, v);
    return buf;
}

static const char *rip_name(char *buf, size_t size, uint64_t rip)
{
    snprintf(buf, size, "%#" PRIx64, rip);
    return buf;
}

/* "0xec wake to halt alone" */
static const char *to_halt_name(char *buf, size_t size, uint64_t key)
{
    static const char *const cases[] = {
        [TO_HALT_WAKE_ALONE] = "wake to halt alone",
        [TO_HALT_WAKE_ANY] = "wake to halt any",
        [TO_HALT_INTR] = "intr to halt",
    };

    snprintf(buf, size, "0x%02" PRIx64 " %s", key >> 2,
             (key & 3) ? cases[key & 3] : "?");
    return buf;
}

static const char *cr_name(char *buf, size_t size, uint64_t cr)
{
    snprintf(buf, size, "cr%" PRIu64, cr);
    return buf;
}

static const char *number_name(char *buf, size_t size, uint64_t n)
{
    snprintf(buf, size, "%" PRIu64, n);
    return buf;
}

static void text_guest(FILE *f, const struct analysis *a,
                       const struct avcpu *v)
{
    char who[MODEL_NAME_MAX];
    unsigned int i;

    who_name(a, who, sizeof(who), v);
    text_exits(f, a, v, &v->exits, &hvm_exits, who);
    for ( i = 0; i < NR_KEYED; i++ )
        text_keyed(f, a, keyed_of(v, &keyed_tables[i]),
                   keyed_tables[i].name, keyed_tables[i].timed, "%s %s:",
                   who, keyed_tables[i].title);
}

static const char *gpa_name(char *buf, size_t size, uint64_t key)
{
    snprintf(buf, size, "0x%09" PRIx64 " %s", key & ~KEY_WRITE,
             key & KEY_WRITE ? "write" : "read");
    return buf;
}

static void text_mmio_row(FILE *f, const struct analysis *a, const char *what,
                          const struct stat *s)
{
    fprintf(f, "  %-28s %9" PRIu64 " %11.6f %14" PRIu64 " %10" PRIu64 "\n",
            what, s->count, secs(a, s->ticks), s->ticks, s->ticks / s->count);
}

/*
 * Arm MMIO by guest-physical address, most costly first: the top
 * (--top, or MMIO_ROWS), then the rest summed.
 */
static void text_arm_mmio(FILE *f, const struct analysis *a,
                          const struct table *t, const char *who)
{
    unsigned int k, m, rows = a->o.top ? a->o.top : MMIO_ROWS;
    const struct entry **e = table_sorted(t, true, &m);
    struct stat rest = t->other;
    char buf[48];

    if ( !m )
        return;
    fprintf(f, "%s MMIO by address:\n  %-28s %9s %11s %14s %10s\n", who,
            "address", "count", "seconds", "cycles", "mean-cyc");
    for ( k = 0; k < m; k++ )
        if ( k < rows )
            text_mmio_row(f, a, gpa_name(buf, sizeof(buf), e[k]->key),
                          &e[k]->s);
        else
        {
            rest.count += e[k]->s.count;
            rest.ticks += e[k]->s.ticks;
        }
    if ( rest.count )
        text_mmio_row(f, a, "(others)", &rest);
    free(e);
}

static void text_arm_guest(FILE *f, const struct analysis *a,
                           const struct avcpu *v)
{
    char who[MODEL_NAME_MAX];

    who_name(a, who, sizeof(who), v);
    text_exits(f, a, v, &v->traps, &arm_traps, who);
    text_keyed(f, a, &v->hvcs, hypercall_name, true,
               "%s HVC traps by hypercall:", who);
    text_arm_mmio(f, a, &v->arm_mmio, who);
    text_keyed(f, a, &v->arm_injected, number_name, false,
               "%s virtual IRQs injected:", who);
}

/* Only for a trace with Arm records: an x86 summary stays as it was. */
static void text_arm(FILE *f, const struct analysis *a, const struct view *w)
{
    unsigned int i;
    int width = who_width(a, w->domains, shown(a, w->nr_domains));

    fprintf(f, "\nArm guest traps, per domain then per vCPU, most costly "
            "first\n");
    for ( i = 0; i < shown(a, w->nr_domains); i++ )
        text_arm_guest(f, a, w->domains[i]);
    for ( i = 0; i < shown(a, w->nr_vcpus); i++ )
        text_arm_guest(f, a, w->vcpus[i]);
    text_sketch_head(f, "interrupt injection, physical IRQ to guest entry",
                     "vcpu", width, "from-to");
    for ( i = 0; i < shown(a, w->nr_domains); i++ )
        text_sketch_row(f, a, w->domains[i], width, "irq-entry",
                        &w->domains[i]->inject);
    for ( i = 0; i < shown(a, w->nr_vcpus); i++ )
        text_sketch_row(f, a, w->vcpus[i], width, "irq-entry",
                        &w->vcpus[i]->inject);
}

static void text_pcpus(FILE *f, const struct analysis *a)
{
    unsigned int i;

    fprintf(f, "\npCPUs (seconds, and switches from)\n%-6s %12s %8s %12s %8s "
            "%12s %7s\n", "pcpu", "running", "n", "idle", "n", "lost",
            "busy%");
    for ( i = 0; i < a->nr_pcpus; i++ )
    {
        const struct apcpu *p = &a->pcpus[i];
        uint64_t known = p->ran[0].ticks + p->ran[1].ticks;

        if ( a->o.has_cpu && p->cpu != a->o.cpu )
            continue;
        fprintf(f, "p%-5u %12.6f %8" PRIu64 " %12.6f %8" PRIu64 " %12.6f "
                "%7.1f\n", p->cpu, secs(a, p->ran[0].ticks), p->switches[0],
                secs(a, p->ran[1].ticks), p->switches[1],
                secs(a, p->lost.ticks),
                known ? 100.0 * p->ran[0].ticks / known : 0.0);
    }
    for ( i = 0; i < a->nr_pcpus; i++ )
    {
        const struct apcpu *p = &a->pcpus[i];

        if ( a->o.has_cpu && p->cpu != a->o.cpu )
            continue;
        if ( p->lost.count )
            fprintf(f, "p%u lost %" PRIu64 " records in %" PRIu64
                    " gaps, %.6f s\n", p->cpu, p->lost_records, p->lost.count,
                    secs(a, p->lost.ticks));
        text_keyed(f, a, &p->vectors, vector_name, false,
                   "p%u interrupts by vector:", p->cpu);
        text_keyed(f, a, &p->irqs, number_name, false,
                   "p%u interrupts by irq:", p->cpu);
        text_keyed(f, a, &p->cstates, number_name, true,
                   "p%u C-state residency:", p->cpu);
    }
}

/*
 * --longest: what a longest item was, by the name the tables give it (an
 * exit's reason, a hypercall, a wait's cause), into @buf.
 */
static const char *longest_name(const struct analysis *a, unsigned int kind,
                                const struct longest_item *it, char *buf,
                                size_t size)
{
    if ( kind == LONGEST_HYPERCALLS )
        return hypercall_name(buf, size, it->what);
    if ( kind == LONGEST_WAITS )
        return it->what < NR_CAUSES ? cause_names[it->what] : "?";
    if ( it->what & KEY_ARM )
        return trap_name(a, buf, size, it->what & ~KEY_ARM);
    return exit_name(a, buf, size, it->what);
}

static const char *const longest_titles[NR_LONGEST] = {
    [LONGEST_EXITS] = "exits, in Xen",
    [LONGEST_WAITS] = "waits to run, runnable to running",
    [LONGEST_HYPERCALLS] = "hypercalls, their VMCALL or HVC exits in Xen",
};

static const char *const longest_columns[NR_LONGEST] = {
    [LONGEST_EXITS] = "reason", [LONGEST_WAITS] = "cause",
    [LONGEST_HYPERCALLS] = "hypercall",
};

static void text_longest(FILE *f, const struct analysis *a)
{
    unsigned int k, i, n;
    char who[32], name[64];

    for ( k = 0; k < NR_LONGEST; k++ )
    {
        const struct longest_item *it = longest_sorted(&a->longest[k], &n);

        fprintf(f, "\nlongest %s (us)\n%12s  %-10s %6s %14s  ",
                longest_titles[k], "us", "vcpu", "pcpu", "at-s");
        if ( k == LONGEST_WAITS )
            fprintf(f, "%s\n", longest_columns[k]);
        else
            fprintf(f, "%-22s rip\n", longest_columns[k]);
        for ( i = 0; i < n; i++, it++ )
        {
            fprintf(f, "%12.3f  %-10s ", usecs(a, it->ticks),
                    model_vcpu_name(who, sizeof(who), it->domvcpu));
            if ( it->pcpu == MODEL_CPU_NONE )
                fprintf(f, "%6s", "-");
            else
                fprintf(f, "%6" PRIu32, it->pcpu);
            fprintf(f, " %14.6f  ", tsc_seconds_from(it->start, a->o.origin,
                                                     a->o.hz));
            if ( k == LONGEST_WAITS )
                fprintf(f, "%s\n", longest_name(a, k, it, name, sizeof(name)));
            else
                fprintf(f, "%-22s 0x%016" PRIx64 "\n",
                        longest_name(a, k, it, name, sizeof(name)), it->rip);
        }
    }
}

void analysis_text(FILE *f, const struct analysis *a)
{
    struct view w;
    unsigned int i;

    if ( view_make((struct analysis *)a, &w) )
    {
        view_free(&w);
        fprintf(f, "\n(out of memory for the analysis)\n");
        return;
    }
    text_runstates(f, a, w.domains, shown(a, w.nr_domains), w.domain_vcpus,
                   "domain");
    text_runstates(f, a, w.vcpus, shown(a, w.nr_vcpus), NULL, "vcpu");
    text_concurrency(f, a, w.domains, shown(a, w.nr_domains));
    text_latency(f, a, w.domains, shown(a, w.nr_domains), "domain");
    text_latency(f, a, w.vcpus, shown(a, w.nr_vcpus), "vcpu");
    text_spans(f, a, w.domains, shown(a, w.nr_domains), "domain");
    text_spans(f, a, w.vcpus, shown(a, w.nr_vcpus), "vcpu");
    text_placement(f, a, w.vcpus, shown(a, w.nr_vcpus));
    fprintf(f, "\nguests, per domain then per vCPU, most costly first\n");
    for ( i = 0; i < shown(a, w.nr_domains); i++ )
        text_guest(f, a, w.domains[i]);
    for ( i = 0; i < shown(a, w.nr_vcpus); i++ )
        text_guest(f, a, w.vcpus[i]);
    if ( a->stats.arm_records )
        text_arm(f, a, &w);
    text_pcpus(f, a);
    crossing_text(f, a->crossing, a->o.hz);
    if ( a->longest )
        text_longest(f, a);
    if ( a->stats.orphan_hvm || a->stats.exits_dropped || a->stats.mismatches )
        fprintf(f, "\nnot placed: %" PRIu64 " HVM records on a pCPU running "
                "no known vCPU, %" PRIu64 " exits cut by a loss, %" PRIu64
                " runstate changes from a state not held\n",
                a->stats.orphan_hvm, a->stats.exits_dropped,
                a->stats.mismatches);
    view_free(&w);
}

/*
 * JSON
 */

static void json_stat(FILE *f, const struct analysis *a, const char *name,
                      const struct stat *s)
{
    fprintf(f, "\"%s\":{\"count\":%" PRIu64 ",\"cycles\":%" PRIu64
            ",\"seconds\":%.9f}", name, s->count, s->ticks, secs(a, s->ticks));
}

static void json_runstates(FILE *f, const struct analysis *a,
                           const struct runstates *r)
{
    unsigned int s;

    fprintf(f, "{");
    for ( s = 0; s < MODEL_STATES; s++ )
    {
        json_stat(f, a, model_state_name(s), &r->st[s]);
        fprintf(f, ",");
    }
    json_stat(f, a, "woken", &r->cause[MODEL_CAUSE_WOKEN]);
    fprintf(f, ",");
    json_stat(f, a, "preempted", &r->cause[MODEL_CAUSE_PREEMPTED]);
    fprintf(f, "}");
}

static void json_sketch(FILE *f, const struct analysis *a, const char *name,
                        const struct sketch *s)
{
    fprintf(f, "\"%s\":{\"count\":%" PRIu64 ",\"mean_us\":%.3f,\"p50_us\":%.3f"
            ",\"p90_us\":%.3f,\"p99_us\":%.3f,\"max_us\":%.3f}", name, s->count,
            s->count ? usecs(a, s->sum) / s->count : 0,
            usecs(a, sketch_quantile(s, 0.5)), usecs(a, sketch_quantile(s, 0.9)),
            usecs(a, sketch_quantile(s, 0.99)), usecs(a, s->max));
}

/* "name":[{"key":..,"name":..,"count":..,"cycles":..},...] */
static void json_keyed(FILE *f, const struct analysis *a, const char *member,
                       const struct table *t,
                       const char *(*name)(char *, size_t, uint64_t))
{
    unsigned int k, m;
    const struct entry **e = table_sorted(t, true, &m);
    char buf[48];

    fprintf(f, ",\"%s\":[", member);
    for ( k = 0; k < shown(a, m); k++ )
    {
        fprintf(f, "%s{\"key\":%" PRIu64, k ? "," : "", e[k]->key);
        if ( name )
        {
            fprintf(f, ",\"name\":\"%s\"", name(buf, sizeof(buf), e[k]->key));
        }
        fprintf(f, ",\"count\":%" PRIu64 ",\"cycles\":%" PRIu64
                ",\"seconds\":%.9f}", e[k]->s.count, e[k]->s.ticks,
                secs(a, e[k]->s.ticks));
    }
    fprintf(f, "]");
    /* Past TABLE_MAX keys, the rest in one: the text's "(others)". */
    if ( t->other.count )
        fprintf(f, ",\"%s_others\":{\"count\":%" PRIu64 ",\"cycles\":%"
                PRIu64 ",\"seconds\":%.9f}", member, t->other.count,
                t->other.ticks, secs(a, t->other.ticks));
    free(e);
}

static void json_exits(FILE *f, const struct analysis *a,
                       const struct avcpu *v, const struct table *t,
                       const struct exit_kind *kind)
{
    unsigned int k, m;
    const struct entry **e = table_sorted(t, true, &m);
    char buf[32];

    fprintf(f, ",\"%s\":[", kind->what);
    for ( k = 0; k < shown(a, m); k++ )
    {
        uint64_t xen = in_xen(&e[k]->s);

        fprintf(f, "%s{\"%s\":%" PRIu64 ",\"name\":\"%s\",\"count\":%"
                PRIu64 ",\"cycles\":%" PRIu64 ",\"seconds\":%.9f"
                ",\"halted_cycles\":%" PRIu64 ",\"in_xen_seconds\":%.9f"
                ",\"share_running\":%.6f,\"share_span\":%.6f"
                ",\"mean_cycles\":%" PRIu64 ",\"p50_cycles\":%" PRIu64
                ",\"p90_cycles\":%" PRIu64 ",\"p99_cycles\":%" PRIu64,
                k ? "," : "", kind->column, e[k]->key & ~KEY_SVM,
                kind->name(a, buf, sizeof(buf), e[k]->key), e[k]->s.count,
                e[k]->s.ticks, secs(a, e[k]->s.ticks), e[k]->s.halted,
                secs(a, xen),
                running_ticks(v) ? (double)xen / running_ticks(v) : 0,
                analysis_span(a) ? (double)xen / analysis_span(a) : 0,
                xen / e[k]->s.count, sketch_quantile(e[k]->sk, 0.5),
                sketch_quantile(e[k]->sk, 0.9),
                sketch_quantile(e[k]->sk, 0.99));
        if ( kind->max )
            fprintf(f, ",\"max_cycles\":%" PRIu64, e[k]->sk->max);
        fprintf(f, "}");
    }
    fprintf(f, "]");
    free(e);
}

/* "mmio":{"addresses":[{"gpa":..,"write":..,...}],"others":{...}} */
static void json_arm_mmio(FILE *f, const struct analysis *a,
                          const struct table *t)
{
    unsigned int k, m, rows = a->o.top ? a->o.top : MMIO_ROWS;
    const struct entry **e = table_sorted(t, true, &m);
    struct stat rest = t->other;

    fprintf(f, ",\"mmio\":{\"addresses\":[");
    for ( k = 0; k < m; k++ )
        if ( k < rows )
            fprintf(f, "%s{\"gpa\":%" PRIu64 ",\"write\":%s,\"count\":%"
                    PRIu64 ",\"cycles\":%" PRIu64 ",\"mean_cycles\":%"
                    PRIu64 "}", k ? "," : "", e[k]->key & ~KEY_WRITE,
                    e[k]->key & KEY_WRITE ? "true" : "false", e[k]->s.count,
                    e[k]->s.ticks, e[k]->s.ticks / e[k]->s.count);
        else
        {
            rest.count += e[k]->s.count;
            rest.ticks += e[k]->s.ticks;
        }
    fprintf(f, "],\"others\":{\"count\":%" PRIu64 ",\"cycles\":%" PRIu64
            "}}", rest.count, rest.ticks);
    free(e);
}

/* ,"arm":{...}: only for a trace with Arm records (see text_arm()). */
static void json_arm(FILE *f, const struct analysis *a,
                     const struct avcpu *v)
{
    if ( !a->stats.arm_records )
        return;
    fprintf(f, ",\"arm\":{");
    json_sketch(f, a, "inject_latency", &v->inject);
    json_exits(f, a, v, &v->traps, &arm_traps);
    json_keyed(f, a, "hvcs", &v->hvcs, hypercall_name);
    json_arm_mmio(f, a, &v->arm_mmio);
    json_keyed(f, a, "injected", &v->arm_injected, NULL);
    fprintf(f, "}");
}

/* A domain's concurrency: "concurrency":{"blocked":{...},...}. */
static void json_concurrency(FILE *f, const struct analysis *a,
                             const struct avcpu *d)
{
    static const char *const keys[MODEL_DOM_STATES] = {
        "blocked", "partial_run", "full_run", "partial_contention",
        "hazard", "full_contention", "lost",
    };
    unsigned int s;

    fprintf(f, ",\"concurrency\":{");
    for ( s = 0; s < MODEL_DOM_STATES; s++ )
    {
        struct stat st = concurrency_of(a, d, s);

        fprintf(f, "%s", s ? "," : "");
        json_stat(f, a, keys[s], &st);
    }
    fprintf(f, "}");
}

static void json_who(FILE *f, const struct analysis *a,
                     const struct avcpu *v, bool vcpu)
{
    char name[MODEL_NAME_MAX];
    unsigned int c;

    fprintf(f, "{\"domain\":%u,", v->domvcpu >> 16);
    if ( vcpu )
        fprintf(f, "\"vcpu\":%u,", v->domvcpu & 0xffff);
    fprintf(f, "\"name\":\"%s\",\"runstates\":",
            who_name(a, name, sizeof(name), v));
    json_runstates(f, a, &v->all);
    if ( vcpu )
    {
        /* What xenalyze leaves out: see docs/reading-traces.md. */
        fprintf(f, ",\"before_first_run\":");
        json_runstates(f, a, &v->head);
        fprintf(f, ",\"at_end\":");
        json_runstates(f, a, &v->tail);
    }
    fprintf(f, ",\"latency\":{");
    json_sketch(f, a, "woken", &v->latency[MODEL_CAUSE_WOKEN]);
    fprintf(f, ",");
    json_sketch(f, a, "preempted", &v->latency[MODEL_CAUSE_PREEMPTED]);
    fprintf(f, "},\"intervals\":{");
    for ( c = 0; c < NR_SPANS; c++ )
    {
        fprintf(f, "%s", c ? "," : "");
        json_sketch(f, a, span_names[c], &v->spans[c]);
    }
    fprintf(f, "},\"migrations\":%" PRIu64, v->migrations);
    if ( !vcpu )
        json_concurrency(f, a, v);
    json_keyed(f, a, "pcpus", &v->pcpus, NULL);
    json_exits(f, a, v, &v->exits, &hvm_exits);
    for ( c = 0; c < NR_KEYED; c++ )
        if ( !vcpu || !keyed_tables[c].domain_only )
            json_keyed(f, a, keyed_tables[c].member,
                       keyed_of(v, &keyed_tables[c]), keyed_tables[c].name);
    json_arm(f, a, v);
    fprintf(f, "}");
}

/* --longest as "longest":{"exits":[...],"waits":[...],"hypercalls":[...]}. */
static void json_longest(FILE *f, const struct analysis *a)
{
    static const char *const members[NR_LONGEST] = {
        [LONGEST_EXITS] = "exits", [LONGEST_WAITS] = "waits",
        [LONGEST_HYPERCALLS] = "hypercalls",
    };
    unsigned int k, i, n;
    char who[32], name[64];

    fprintf(f, ",\"longest\":{");
    for ( k = 0; k < NR_LONGEST; k++ )
    {
        const struct longest_item *it = longest_sorted(&a->longest[k], &n);

        fprintf(f, "%s\"%s\":[", k ? "," : "", members[k]);
        for ( i = 0; i < n; i++, it++ )
        {
            fprintf(f, "%s{\"us\":%.3f,\"vcpu\":\"%s\",\"pcpu\":", i ? "," : "",
                    usecs(a, it->ticks),
                    model_vcpu_name(who, sizeof(who), it->domvcpu));
            if ( it->pcpu == MODEL_CPU_NONE )
                fprintf(f, "null");
            else
                fprintf(f, "%" PRIu32, it->pcpu);
            /* The names are the catalogue's and the tables': no quotes. */
            fprintf(f, ",\"tsc\":%" PRIu64 ",\"at_seconds\":%.9f,\"%s\":"
                    "\"%s\"", it->start, tsc_seconds_from(it->start,
                    a->o.origin, a->o.hz), longest_columns[k],
                    longest_name(a, k, it, name, sizeof(name)));
            if ( k != LONGEST_WAITS )
                fprintf(f, ",\"rip\":\"0x%016" PRIx64 "\"", it->rip);
            fprintf(f, "}");
        }
        fprintf(f, "]");
    }
    fprintf(f, "}");
}

void analysis_json(FILE *f, const struct analysis *a)
{
    const char *sep = "";
    struct view w;
    unsigned int i;

    if ( view_make((struct analysis *)a, &w) )
    {
        view_free(&w);
        fprintf(f, "\"analysis\":null");
        return;
    }
    fprintf(f, "\"span_cycles\":%" PRIu64 ",\"domains\":[", analysis_span(a));
    for ( i = 0; i < shown(a, w.nr_domains); i++ )
    {
        fprintf(f, i ? "," : "");
        json_who(f, a, w.domains[i], false);
    }
    fprintf(f, "],\"vcpus\":[");
    for ( i = 0; i < shown(a, w.nr_vcpus); i++ )
    {
        fprintf(f, i ? "," : "");
        json_who(f, a, w.vcpus[i], true);
    }
    fprintf(f, "],\"pcpus\":[");
    for ( i = 0; i < a->nr_pcpus; i++ )
    {
        const struct apcpu *p = &a->pcpus[i];

        if ( a->o.has_cpu && p->cpu != a->o.cpu )
            continue;
        fprintf(f, "%s{\"cpu\":%u,\"lost\":{\"gaps\":%" PRIu64 ",\"records\":%"
                PRIu64 ",\"seconds\":%.9f}", sep, p->cpu,
                p->lost.count, p->lost_records, secs(a, p->lost.ticks));
        fprintf(f, ",");
        json_stat(f, a, "running", &p->ran[0]);
        fprintf(f, ",");
        json_stat(f, a, "idle", &p->ran[1]);
        fprintf(f, ",\"switches_from_running\":%" PRIu64
                ",\"switches_from_idle\":%" PRIu64, p->switches[0],
                p->switches[1]);
        json_keyed(f, a, "vectors", &p->vectors, NULL);
        json_keyed(f, a, "irqs", &p->irqs, NULL);
        json_keyed(f, a, "cstates", &p->cstates, NULL);
        fprintf(f, "}");
        sep = ",";
    }
    fprintf(f, "]");
    if ( a->longest )
        json_longest(f, a);
    crossing_json(f, a->crossing, a->o.hz);
    fprintf(f, ",\"unplaced\":{\"orphan_hvm\":%" PRIu64 ",\"exits_dropped\":%"
            PRIu64 ",\"mismatches\":%" PRIu64 "}", a->stats.orphan_hvm,
            a->stats.exits_dropped, a->stats.mismatches);
    view_free(&w);
}

/*
 * CSV: a row per vCPU, for spreadsheets
 */

/* A table's count and ticks, its keys' and others' together. */
static struct stat table_total(const struct table *t)
{
    struct stat n = t->other;
    unsigned int i;

    for ( i = 0; i < t->n; i++ )
    {
        n.count += t->e[i].s.count;
        n.ticks += t->e[i].s.ticks;
        n.halted += t->e[i].s.halted;
    }
    return n;
}

void analysis_csv_header(FILE *f)
{
    unsigned int s;

    fprintf(f, "domain,vcpu");
    for ( s = 0; s < MODEL_STATES; s++ )
        fprintf(f, ",%s_seconds", model_state_name(s));
    fprintf(f, ",waits,wait_p50_us,wait_p99_us,migrations,exits,"
            "exit_seconds,vmcalls,hypercalls,injected,traps,trap_seconds\n");
}

static void csv_vcpu(FILE *f, const struct analysis *a, const struct avcpu *v,
                     const char *head)
{
    struct stat exits = table_total(&v->exits), traps = table_total(&v->traps);
    struct sketch wait = { 0 };
    unsigned int s;

    fprintf(f, "%s,%u,%u", head, v->domvcpu >> 16, v->domvcpu & 0xffff);
    for ( s = 0; s < MODEL_STATES; s++ )
        fprintf(f, ",%.9f", secs(a, v->all.st[s].ticks));
    if ( sketch_merge(&wait, &v->latency[MODEL_CAUSE_WOKEN]) ||
         sketch_merge(&wait, &v->latency[MODEL_CAUSE_PREEMPTED]) )
        fprintf(f, ",,,");
    else
        fprintf(f, ",%" PRIu64 ",%.3f,%.3f", wait.count,
                usecs(a, sketch_quantile(&wait, 0.5)),
                usecs(a, sketch_quantile(&wait, 0.99)));
    sketch_free(&wait);
    fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%.9f,%" PRIu64 ",%" PRIu64 ",%"
            PRIu64 ",%" PRIu64 ",%.9f\n", v->migrations, exits.count,
            secs(a, exits.ticks), table_total(&v->vmcalls).count,
            table_total(&v->hypercalls).count,
            table_total(&v->injected).count +
            table_total(&v->arm_injected).count, traps.count,
            secs(a, traps.ticks));
}

static int by_domvcpu(const void *pa, const void *pb)
{
    const struct avcpu *x = *(const struct avcpu *const *)pa;
    const struct avcpu *y = *(const struct avcpu *const *)pb;

    return x->domvcpu < y->domvcpu ? -1 : x->domvcpu > y->domvcpu;
}

void analysis_csv(FILE *f, const struct analysis *a, const char *head)
{
    struct avcpu **v = malloc((a->nr_vcpus + 1) * sizeof(*v));
    unsigned int i, n = 0;

    if ( !v )
    {
        fprintf(f, "%s,(out of memory for the analysis)\n", head);
        return;
    }
    for ( i = 0; i < a->nr_vcpus; i++ )
        if ( vcpu_shown(a, a->vcpus[i]) )
            v[n++] = a->vcpus[i];
    qsort(v, n, sizeof(*v), by_domvcpu);
    for ( i = 0; i < n; i++ )
        csv_vcpu(f, a, v[i], head);
    free(v);
}

/*
 * Reading the figures (analysis.h): the rows of the view, one figure at a
 * time.  struct analysis_row is struct avcpu, a vCPU's or a domain's sum.
 */

static const struct avcpu *row_vcpu(const struct analysis_row *r)
{
    return (const struct avcpu *)r;
}

int analysis_rows(struct analysis *a, struct analysis_rows *rows)
{
    struct view *w = calloc(1, sizeof(*w));

    memset(rows, 0, sizeof(*rows));
    if ( !w )
        return -1;
    rows->priv = w;
    if ( view_make(a, w) )
        return -1;
    rows->domains = (const struct analysis_row **)w->domains;
    rows->domain_vcpus = w->domain_vcpus;
    rows->nr_domains = w->nr_domains;
    rows->vcpus = (const struct analysis_row **)w->vcpus;
    rows->nr_vcpus = w->nr_vcpus;
    return 0;
}

void analysis_rows_free(struct analysis_rows *rows)
{
    if ( rows->priv )
        view_free(rows->priv);
    free(rows->priv);
    memset(rows, 0, sizeof(*rows));
}

uint32_t analysis_row_domvcpu(const struct analysis_row *r)
{
    return row_vcpu(r)->domvcpu;
}

const struct xt_domain_info *analysis_domain(const struct analysis *a,
                                             uint32_t domid)
{
    return a->reader ? xt_reader_domain(a->reader, domid) : NULL;
}

const char *analysis_row_name(const struct analysis *a,
                              const struct analysis_row *r, char *buf,
                              size_t size)
{
    return who_name(a, buf, size, row_vcpu(r));
}

uint64_t analysis_row_state(const struct analysis_row *r, enum model_state s)
{
    return row_vcpu(r)->all.st[s].ticks;
}

int analysis_row_wait(const struct analysis_row *r, struct analysis_dist *d)
{
    const struct avcpu *v = row_vcpu(r);
    struct sketch all = { 0 };
    int ret = 0;

    if ( sketch_merge(&all, &v->latency[MODEL_CAUSE_WOKEN]) ||
         sketch_merge(&all, &v->latency[MODEL_CAUSE_PREEMPTED]) )
        ret = -1;
    *d = (struct analysis_dist){
        .count = all.count, .mean = all.count ? all.sum / all.count : 0,
        .p50 = sketch_quantile(&all, 0.5), .p99 = sketch_quantile(&all, 0.99),
        .max = all.max,
    };
    sketch_free(&all);
    return ret;
}

/* Exits most costly first: by Xen's time, then count, then key. */
static int count_by_ticks(const void *pa, const void *pb)
{
    const struct analysis_count *x = pa, *y = pb;
    uint64_t xt = analysis_count_in_xen(x), yt = analysis_count_in_xen(y);

    if ( xt != yt )
        return xt < yt ? 1 : -1;
    if ( x->count != y->count )
        return x->count < y->count ? 1 : -1;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* Other entries most counted first. */
static int count_by_count(const void *pa, const void *pb)
{
    const struct analysis_count *x = pa, *y = pb;

    if ( x->count != y->count )
        return x->count < y->count ? 1 : -1;
    return x->key < y->key ? -1 : x->key > y->key;
}

/*
 * One source of an analysis_row_table(): a table and how its keys are
 * named (exit_name() and trap_name() take the analysis for --svm).
 */
struct row_source {
    const struct table *t;
    const char *(*name)(char *, size_t, uint64_t);
    const char *(*exit_name)(const struct analysis *, char *, size_t,
                             uint64_t);
};

/* The two tables that make @r's table @t, with how each names its keys. */
static void row_sources(const struct analysis_row *r, enum analysis_table t,
                        struct row_source src[2])
{
    const struct avcpu *v = row_vcpu(r);

    switch ( t )
    {
    case ANALYSIS_EXITS:
        src[0] = (struct row_source){ &v->exits, NULL, exit_name };
        src[1] = (struct row_source){ &v->traps, NULL, trap_name };
        break;
    case ANALYSIS_HYPERCALLS:
        src[0] = (struct row_source){ &v->hypercalls, hypercall_name, NULL };
        src[1] = (struct row_source){ &v->vmcalls, hypercall_name, NULL };
        break;
    case ANALYSIS_INJECTED:
        src[0] = (struct row_source){ &v->injected, vector_name, NULL };
        src[1] = (struct row_source){ &v->arm_injected, number_name, NULL };
        break;
    }
}

unsigned int analysis_row_table_size(const struct analysis_row *r,
                                     enum analysis_table t)
{
    struct row_source src[2] = { { 0 } };

    row_sources(r, t, src);
    return src[0].t->n + src[1].t->n;
}

/* Entry @e of @src's table, as an analysis_count. */
static struct analysis_count row_count(const struct analysis *a,
                                       const struct row_source *src,
                                       const struct entry *e)
{
    struct analysis_count c = {
        .key = e->key & ~KEY_SVM, .count = e->s.count, .ticks = e->s.ticks,
        .halted = e->s.halted,
    };

    if ( e->sk )
    {
        c.max = e->sk->max;
        c.p50 = sketch_quantile(e->sk, 0.5);
        c.p99 = sketch_quantile(e->sk, 0.99);
    }
    if ( src->exit_name )
        src->exit_name(a, c.name, sizeof(c.name), e->key);
    else
        src->name(c.name, sizeof(c.name), e->key);
    return c;
}

unsigned int analysis_row_table(const struct analysis *a,
                                const struct analysis_row *r,
                                enum analysis_table t,
                                struct analysis_count *out, unsigned int max,
                                uint64_t *total)
{
    struct row_source src[2] = { { 0 } };
    struct analysis_count *all;
    unsigned int size = analysis_row_table_size(r, t), n = 0, i, k;
    uint64_t sum = 0;

    row_sources(r, t, src);
    for ( i = 0; i < 2; i++ )
        sum += table_total(src[i].t).count;
    if ( total )
        *total = sum;
    all = malloc((size ? size : 1) * sizeof(*all));
    if ( !all )
        return 0;
    for ( i = 0; i < 2; i++ )
        for ( k = 0; k < src[i].t->n; k++ )
            all[n++] = row_count(a, &src[i], &src[i].t->e[k]);
    qsort(all, n, sizeof(*all), t == ANALYSIS_EXITS ? count_by_ticks
                                                    : count_by_count);
    if ( n > max )
        n = max;
    if ( n )
        memcpy(out, all, n * sizeof(*out));
    free(all);
    return n;
}

unsigned int analysis_nr_pcpus(const struct analysis *a)
{
    return a->nr_pcpus;
}

void analysis_pcpu_lost(const struct analysis *a, unsigned int i,
                        struct analysis_lost *l)
{
    const struct apcpu *p = &a->pcpus[i];

    *l = (struct analysis_lost){
        .cpu = p->cpu, .records = p->lost_records, .gaps = p->lost.count,
        .ticks = p->lost.ticks,
    };
}
