/*
 * perfetto: the model's events as Perfetto's native trace.
 *
 * What goes where (docs/reading-traces.md, "Looking at a trace in
 * Perfetto", for users):
 *
 *   scheduling   ftrace's compact sched_switch and sched_waking
 *                (FtraceEventBundle.compact_sched), one bundle per pCPU
 *                at a time: Perfetto's CPU tracks, sched_slice and
 *                thread_state.  Chosen over the generic_kernel task-state
 *                events because it carries wake-ups with their target
 *                pCPU (thread_state's waker), is read by every Perfetto
 *                release since 2020, and is the smallest: packed arrays,
 *                delta timestamps.  vCPUs are threads of their domain's
 *                process (view.h has the numbers).
 *   per vCPU     a thread track (TrackDescriptor with the thread) with
 *                slices for HVM exits, named by reason, with the reason,
 *                RIP and handler records as arguments, and for Arm
 *                traps, named by exception class, with the class, pc
 *                and handler records (the hypercall, the MMIO address);
 *                inside an exit that waited for an interrupt (HLT, WFI),
 *                a slice "halted" for the time its vCPU was blocked;
 *                instants for
 *                hypercalls, PV events and injected interrupts; and a
 *                "lost" slice for the time the model books LOST, but for
 *                the runs the scheduling shows (lost_slice()).
 *                A counter "dXvY to halt (ns)" per HVM vCPU: each
 *                injected interrupt's time from the entry after it to
 *                the halt, from that entry to the halt.
 *   per pCPU     a track "pCPU N" with a slice for every loss, "lost N
 *                records", and the interrupts; counters "pCPU N C-state"
 *                and "pCPU N records/s" (per 10 ms).  During a loss,
 *                and from a running vCPU's last record on, the pCPU runs
 *                its "unknown/N" thread: no vCPU is shown running through
 *                what nobody saw.
 *
 *   dom0's kernel  with dom0's events in the file (xentrace --dom0), on
 *                Perfetto's second machine (TracePacket.machine_id 1):
 *                each dom0 CPU's sched_switch and sched_waking as compact
 *                sched, its tasks as that machine's threads; its IRQ
 *                handlers and softirqs as slices on a track "dom0 CPU N
 *                IRQs", a flow from Xen's wake of d0vN (an instant "woken
 *                by Xen" there) to the first IRQ handler CPU N entered
 *                after; other events as instants on "dom0 CPU N events".
 *
 * Time is nanoseconds of the TSC (the TSC counts from the host's reset,
 * as CLOCK_BOOTTIME from its boot), and a ClockSnapshot ties the
 * capture's start (TRC_XT_START) to the wall clock.
 *
 * The packets are written as they are made (out a megabyte at a time);
 * what is kept in memory is per pCPU (a bundle of at most BUNDLE_MAX
 * scheduling events), per vCPU (its track) and the interned names (at
 * most INTERN_MAX).
 *
 * Field numbers are Perfetto's (protos/perfetto/trace/ in Perfetto's
 * repository); tests decode every export with protoc against them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "hashtab.h"
#include "model.h"
#include "pbwrite.h"
#include "perfetto.h"
#include "tsc.h"

#define BUNDLE_MAX      256         /* scheduling events per bundle */
#define OUT_BYTES       (1u << 20)  /* written at a time */
#define INTERN_MAX      4096        /* names interned; then inline */
#define SEQUENCE_ID     1           /* Xen's; dom0's machine has its own,
                                       whose packets name no interned
                                       data (incremental state is per
                                       machine and sequence) */
#define NAME_MAX_BYTES  64
#define PRIO_NORMAL     120         /* a Linux task's nice 0 */
#define RATE_WINDOWS_PER_S  100     /* the rate counters' resolution */

/* Trace */
#define TRACE_PACKET            1
/* TracePacket */
#define TP_FTRACE_EVENTS        1
#define TP_PROCESS_TREE         2
#define TP_CLOCK_SNAPSHOT       6
#define TP_TIMESTAMP            8
#define TP_SEQUENCE_ID          10
#define TP_TRACK_EVENT          11
#define TP_INTERNED_DATA        12
#define TP_SEQUENCE_FLAGS       13
#define TP_TRACK_DESCRIPTOR     60
#define TP_MACHINE_ID           98
#define DOM0_MACHINE            1
#define SEQ_INCREMENTAL_STATE_CLEARED   1
/* ClockSnapshot, ClockSnapshot.Clock */
#define CS_CLOCKS               1
#define CS_PRIMARY_TRACE_CLOCK  2
#define CLOCK_ID                1
#define CLOCK_TIMESTAMP         2
#define CLOCK_REALTIME          1
#define CLOCK_BOOTTIME          6
/* ProcessTree, .Process, .Thread */
#define PT_THREADS              2
#define THREAD_TID              1
#define THREAD_NAME             2
#define THREAD_TGID             3
/* TrackDescriptor, ProcessDescriptor, ThreadDescriptor, CounterDescriptor */
#define TD_UUID                 1
#define TD_NAME                 2
#define TD_PROCESS              3
#define TD_THREAD               4
#define TD_PARENT_UUID          5
#define TD_COUNTER              8
#define THD_PID                 1
#define THD_TID                 2
#define THD_THREAD_NAME         5
#define PD_PID                  1
#define PD_PROCESS_NAME         6
/* TrackEvent */
#define TE_DEBUG_ANNOTATIONS    4
#define TE_TYPE                 9
#define TE_NAME_IID             10
#define TE_TRACK_UUID           11
#define TE_NAME                 23
#define TE_FLOW_IDS             47
#define TE_TERMINATING_FLOW_IDS 48
#define TE_COUNTER_VALUE        30
#define TYPE_SLICE_BEGIN        1
#define TYPE_SLICE_END          2
#define TYPE_INSTANT            3
#define TYPE_COUNTER            4
/* DebugAnnotation */
#define DA_NAME_IID             1
#define DA_UINT_VALUE           3
#define DA_POINTER_VALUE        7
#define DA_ARRAY_VALUES         12
/* InternedData: EventName and DebugAnnotationName are {iid 1, name 2} */
#define ID_EVENT_NAMES          2
#define ID_ANNOTATION_NAMES     3
#define INTERNED_IID            1
#define INTERNED_NAME           2
/* FtraceEventBundle, .CompactSched */
#define FB_CPU                  1
#define FB_COMPACT_SCHED        4
#define CS_SWITCH_TIMESTAMP     1
#define CS_SWITCH_PREV_STATE    2
#define CS_SWITCH_NEXT_PID      3
#define CS_SWITCH_NEXT_PRIO     4
#define CS_INTERN_TABLE         5
#define CS_SWITCH_NEXT_COMM     6
#define CS_WAKING_TIMESTAMP     7
#define CS_WAKING_PID           8
#define CS_WAKING_TARGET_CPU    9
#define CS_WAKING_PRIO          10
#define CS_WAKING_COMM          11
/* Linux's prev_state, as sched_switch reports it */
#define TASK_RUNNING            0
#define TASK_INTERRUPTIBLE      1
#define TASK_STOPPED            4

/*
 * A bundle's sched_switch or sched_waking events, as CompactSched holds
 * them: a column per field.  @arg is a switch's prev_state (of what ran
 * before), a waking's target pCPU.
 */
struct sched_events {
    unsigned int n;
    uint64_t ns[BUNDLE_MAX];
    uint32_t tid[BUNDLE_MAX];   /* next_pid, or the woken pid */
    uint32_t arg[BUNDLE_MAX];
};

/* Their field numbers in CompactSched. */
struct sched_fields {
    unsigned int timestamp, tid, arg, prio, comm;
};

static const struct sched_fields switch_fields = {
    CS_SWITCH_TIMESTAMP, CS_SWITCH_NEXT_PID, CS_SWITCH_PREV_STATE,
    CS_SWITCH_NEXT_PRIO, CS_SWITCH_NEXT_COMM,
};
static const struct sched_fields waking_fields = {
    CS_WAKING_TIMESTAMP, CS_WAKING_PID, CS_WAKING_TARGET_CPU,
    CS_WAKING_PRIO, CS_WAKING_COMM,
};

struct pcpu {
    uint64_t track, cstate_track, rate_track;   /* uuids; 0: not yet */
    bool unknown_declared, other_declared;
    uint32_t tid;               /* what the exported sched runs here */
    uint32_t domvcpu;           /* the vCPU that is, or MODEL_VCPU_NONE */
    bool running;               /* tid is set */
    uint64_t last_ns;           /* of the last switch: they must not go
                                   back in a bundle */
    uint64_t last_tsc;          /* of its last record in the window */
    struct sched_events *switches;      /* allocated on the pCPU's */
    struct sched_events *wakings;       /* first scheduling event */
    uint64_t rate_start;        /* TSC of the rate window */
    uint64_t rate_count;        /* records in it */
    uint64_t rate_last;         /* the last rate shown */
    bool rate_open, rate_shown;
};

/*
 * A dom0 CPU: its scheduling events with their tasks' names, its tracks,
 * its IRQ and softirq slices open, and Xen's wake of its vCPU that waits
 * for its next IRQ (a flow's id; 0: none).
 */
struct dcpu {
    struct sched_events *switches, *wakings;
    char (*switch_comm)[XT_DOM0_COMM + 1];  /* [BUNDLE_MAX] each */
    char (*waking_comm)[XT_DOM0_COMM + 1];
    uint64_t last_ns;
    uint64_t irq_track, event_track;        /* uuids; 0: not yet */
    unsigned int open;                      /* slices open on irq_track */
    uint64_t flow, flow_tsc;                /* and when Xen woke it */
    uint64_t last_tsc;
};

/* A vCPU: its track, and its last run as the exported scheduling shows it. */
struct vinfo {
    uint64_t uuid;
    uint64_t to_halt_track;     /* its counter's uuid; 0: not yet */
    uint64_t run_in, run_out;   /* TSC; run_out: of the run before, if
                                   running */
    bool ran, running;
};

struct intern {
    char **names;               /* by iid - 1 */
    size_t cap;
    struct hashtab by_name;     /* name -> iid - 1 */
};

struct pf {
    FILE *out;
    uint8_t *out_buf;           /* packets, written OUT_BYTES at a time */
    size_t out_len;
    const struct view_filter *filter;
    const struct xt_reader *reader;     /* the domains' names */
    uint64_t hz;
    struct pb pkt, interned;    /* the packet, and its interned data */
    bool first_done[2];         /* each machine's sequence's first packet
                                   is out */
    uint64_t next_uuid;
    struct pcpu *pcpus;
    unsigned int nr_pcpus;
    struct view_set vcpus;      /* the vCPUs met, and by their index: */
    struct vinfo *vinfo;
    size_t vinfo_cap;
    uint8_t *domains;           /* bitmap: declared */
    bool xen_declared;
    struct intern event_names, annotation_names;
    uint32_t comm_tids[2 * BUNDLE_MAX];     /* a bundle's comm table */
    uint32_t comm_index[2 * BUNDLE_MAX];    /* each event's in it */
    const char *comms[2 * BUNDLE_MAX];      /* dom0's: the names */
    struct dcpu *dcpus;         /* dom0's CPUs (dom0->lanes) */
    const struct xt_dom0_info *dom0;
    uint32_t machine;           /* of the packets written: 0, or dom0's */
    uint64_t next_flow;
    bool failed;                /* a write failed, or memory ran out */
};

static uint64_t ns(const struct pf *pf, uint64_t tsc)
{
    return tsc_ns(tsc, pf->hz);
}

/*
 * Packets
 * =======
 */

/* A write failed: its errno (ENOSPC, EPIPE...) is the caller's to say. */
static void out_failed(struct pf *pf)
{
    pf->failed = true;
    if ( !errno )
        errno = EIO;
}

/* Once a write has failed, nothing more is written: its errno stays. */
static void out_flush(struct pf *pf)
{
    errno = 0;
    if ( !pf->failed && pf->out_len &&
         fwrite(pf->out_buf, pf->out_len, 1, pf->out) != 1 )
        out_failed(pf);
    pf->out_len = 0;
}

static void packet_begin(struct pf *pf)
{
    pb_reset(&pf->pkt);
    pb_reset(&pf->interned);
}

/* The sequence's fields, then the packet into the Trace. */
static void packet_end(struct pf *pf, bool on_sequence)
{
    uint8_t head[11];
    unsigned int n = 0;
    uint64_t len;

    if ( pf->interned.len )
        pb_bytes(&pf->pkt, TP_INTERNED_DATA, pf->interned.buf,
                 pf->interned.len);
    if ( pf->machine )
        pb_varint(&pf->pkt, TP_MACHINE_ID, pf->machine);
    if ( on_sequence )
    {
        pb_varint(&pf->pkt, TP_SEQUENCE_ID, SEQUENCE_ID);
        if ( !pf->first_done[pf->machine] )
            pb_varint(&pf->pkt, TP_SEQUENCE_FLAGS,
                      SEQ_INCREMENTAL_STATE_CLEARED);
        pf->first_done[pf->machine] = true;
    }
    if ( !pb_ok(&pf->pkt) || !pb_ok(&pf->interned) )
    {
        pf->failed = true;
        errno = ENOMEM;
        return;
    }
    head[n++] = TRACE_PACKET << 3 | 2;
    for ( len = pf->pkt.len; len >= 0x80; len >>= 7 )
        head[n++] = (uint8_t)len | 0x80;
    head[n++] = (uint8_t)len;
    if ( pf->out_len + n + pf->pkt.len > OUT_BYTES )
        out_flush(pf);
    if ( pf->failed )
        return;
    if ( n + pf->pkt.len > OUT_BYTES )
    {
        /* Larger than the buffer: straight out. */
        errno = 0;
        if ( fwrite(head, n, 1, pf->out) != 1 ||
             fwrite(pf->pkt.buf, pf->pkt.len, 1, pf->out) != 1 )
            out_failed(pf);
        return;
    }
    memcpy(pf->out_buf + pf->out_len, head, n);
    memcpy(pf->out_buf + pf->out_len + n, pf->pkt.buf, pf->pkt.len);
    pf->out_len += n + pf->pkt.len;
}

/*
 * Interned names: an iid for each name the first INTERN_MAX times, and
 * the name itself after (0 from intern(): write it inline).
 */

static uint64_t interned_hash(const void *names, unsigned int i)
{
    return hashtab_hash_string(((char *const *)names)[i]);
}

static bool interned_is(const void *names, unsigned int i, const void *name)
{
    return !strcmp(((char *const *)names)[i], name);
}

static uint64_t intern(struct pf *pf, struct intern *t, unsigned int field,
                       const char *name)
{
    unsigned int nr = t->by_name.nr, s;

    if ( hashtab_fit(&t->by_name, nr + (nr < INTERN_MAX), t->names,
                     interned_hash) )
    {
        pf->failed = true;
        return 0;
    }
    s = hashtab_probe(&t->by_name, hashtab_hash_string(name), name, t->names,
                      interned_is);
    if ( hashtab_index(&t->by_name, s) )
        return hashtab_index(&t->by_name, s);
    if ( nr == INTERN_MAX )
        return 0;
    if ( array_fit(&t->names, &t->cap, nr + 1, sizeof(*t->names)) )
    {
        pf->failed = true;
        return 0;
    }
    if ( !(t->names[nr] = strdup(name)) )
        return 0;
    hashtab_set(&t->by_name, s, nr);
    pb_begin(&pf->interned, field);
    pb_varint(&pf->interned, INTERNED_IID, nr + 1);
    pb_string(&pf->interned, INTERNED_NAME, name);
    pb_end(&pf->interned);
    return nr + 1;
}

static void intern_free(struct intern *t)
{
    unsigned int i;

    for ( i = 0; i < t->by_name.nr; i++ )
        free(t->names[i]);
    free(t->names);
    hashtab_free(&t->by_name);
}

/*
 * Processes, threads and tracks, declared as they are first met
 * ==============================================================
 */

static const char *comm_of(char *buf, unsigned int size, uint32_t tid,
                           uint32_t pcpu)
{
    if ( tid == 0 )
        snprintf(buf, size, "swapper/%u", pcpu);
    else if ( tid >= VIEW_XEN_PID )
        snprintf(buf, size, "%s/%u", (tid - VIEW_XEN_PID) % 2 ? "unknown"
                 : "other", (tid - VIEW_XEN_PID - 1) / 2);
    else
        snprintf(buf, size, "d%uv%u", (tid >> 16) - 1, tid & 0xffff);
    return buf;
}

/*
 * A process: its track, named in full ("d14 (web-01)").  Not in the
 * process tree: Perfetto names a process there by its command line's
 * first word only ("d14").
 */
static void declare_process(struct pf *pf, uint32_t pid, const char *name)
{
    packet_begin(pf);
    pb_begin(&pf->pkt, TP_TRACK_DESCRIPTOR);
    pb_varint(&pf->pkt, TD_UUID, pf->next_uuid++);
    pb_begin(&pf->pkt, TD_PROCESS);
    pb_varint(&pf->pkt, PD_PID, pid);
    pb_string(&pf->pkt, PD_PROCESS_NAME, name);
    pb_end(&pf->pkt);
    pb_end(&pf->pkt);
    packet_end(pf, true);
}

/* A thread of process @pid, in the process tree: the scheduler's. */
static void declare_thread(struct pf *pf, uint32_t pid, uint32_t tid,
                           const char *name)
{
    packet_begin(pf);
    pb_begin(&pf->pkt, TP_PROCESS_TREE);
    pb_begin(&pf->pkt, PT_THREADS);
    pb_varint(&pf->pkt, THREAD_TID, tid);
    pb_string(&pf->pkt, THREAD_NAME, name);
    pb_varint(&pf->pkt, THREAD_TGID, pid);
    pb_end(&pf->pkt);
    pb_end(&pf->pkt);
    packet_end(pf, false);
}

/* The pseudo-threads of pCPU @cpu, in Xen's process. */
static void declare_pseudo(struct pf *pf, uint32_t cpu, uint32_t tid)
{
    struct pcpu *p = &pf->pcpus[cpu];
    bool *done = tid == view_unknown_tid(cpu) ? &p->unknown_declared
                                              : &p->other_declared;
    char name[NAME_MAX_BYTES];

    if ( *done )
        return;
    if ( !pf->xen_declared )
        declare_process(pf, VIEW_XEN_PID, "xen");
    declare_thread(pf, VIEW_XEN_PID, tid, comm_of(name, sizeof(name), tid, cpu));
    pf->xen_declared = *done = true;
}

/* A track of its own, or under track @parent (0: none). */
static void track_descriptor(struct pf *pf, uint64_t uuid, uint64_t parent,
                             const char *name, bool counter)
{
    packet_begin(pf);
    pb_begin(&pf->pkt, TP_TRACK_DESCRIPTOR);
    pb_varint(&pf->pkt, TD_UUID, uuid);
    if ( parent )
        pb_varint(&pf->pkt, TD_PARENT_UUID, parent);
    pb_string(&pf->pkt, TD_NAME, name);
    if ( counter )
    {
        pb_begin(&pf->pkt, TD_COUNTER);
        pb_end(&pf->pkt);
    }
    pb_end(&pf->pkt);
    packet_end(pf, true);
}

/* A pCPU's track, or one of its counters (@which), declared if new. */
static uint64_t pcpu_track(struct pf *pf, uint32_t cpu, uint64_t *which,
                           const char *what)
{
    char name[NAME_MAX_BYTES];

    if ( !*which )
    {
        *which = pf->next_uuid++;
        snprintf(name, sizeof(name), "pCPU %u%s", cpu, what);
        track_descriptor(pf, *which, 0, name, *what);
    }
    return *which;
}

/* @domvcpu's thread track: the thread, and its process, declared if new. */
static struct vinfo *vcpu_of(struct pf *pf, uint32_t domvcpu)
{
    uint32_t dom = domvcpu >> 16, pid = view_pid(domvcpu);
    uint32_t tid = view_tid(domvcpu);
    char name[NAME_MAX_BYTES], process[MODEL_NAME_MAX];
    struct vinfo *v;
    bool added;
    int32_t i = view_set_add(&pf->vcpus, domvcpu, &added);

    if ( i >= 0 && !added )
        return &pf->vinfo[i];
    if ( i < 0 || array_fit(&pf->vinfo, &pf->vinfo_cap, (size_t)i + 1,
                            sizeof(*pf->vinfo)) )
    {
        pf->failed = true;
        errno = ENOMEM;
        return NULL;
    }
    v = &pf->vinfo[i];
    *v = (struct vinfo){ .uuid = pf->next_uuid++ };
    comm_of(name, sizeof(name), tid, 0);
    if ( !(pf->domains[dom / 8] & 1u << dom % 8) )
        declare_process(pf, pid, model_domain_name(process, sizeof(process),
                                                   pf->reader, dom));
    declare_thread(pf, pid, tid, name);
    pf->domains[dom / 8] |= 1u << dom % 8;

    packet_begin(pf);
    pb_begin(&pf->pkt, TP_TRACK_DESCRIPTOR);
    pb_varint(&pf->pkt, TD_UUID, v->uuid);
    pb_begin(&pf->pkt, TD_THREAD);
    pb_varint(&pf->pkt, THD_PID, pid);
    pb_varint(&pf->pkt, THD_TID, tid);
    pb_string(&pf->pkt, THD_THREAD_NAME, name);
    pb_end(&pf->pkt);
    pb_end(&pf->pkt);
    packet_end(pf, true);
    return v;
}

static uint64_t vcpu_track(struct pf *pf, uint32_t domvcpu)
{
    struct vinfo *v = vcpu_of(pf, domvcpu);

    return v ? v->uuid : 0;
}

/*
 * Track events
 * ============
 */

static void event_begin(struct pf *pf, uint64_t tsc, unsigned int type,
                        uint64_t track)
{
    packet_begin(pf);
    pb_varint(&pf->pkt, TP_TIMESTAMP, ns(pf, tsc));
    pb_begin(&pf->pkt, TP_TRACK_EVENT);
    pb_varint(&pf->pkt, TE_TYPE, type);
    pb_varint(&pf->pkt, TE_TRACK_UUID, track);
}

static void event_name(struct pf *pf, const char *name)
{
    uint64_t iid = pf->machine ? 0 : intern(pf, &pf->event_names,
                                            ID_EVENT_NAMES, name);

    if ( iid )
        pb_varint(&pf->pkt, TE_NAME_IID, iid);
    else
        pb_string(&pf->pkt, TE_NAME, name);
}

static void event_end(struct pf *pf)
{
    pb_end(&pf->pkt);
    packet_end(pf, true);
}

/* An argument: its name interned (or, past INTERN_MAX, left out). */
static bool arg_begin(struct pf *pf, const char *name)
{
    uint64_t iid = intern(pf, &pf->annotation_names, ID_ANNOTATION_NAMES,
                          name);

    if ( !iid )
        return false;
    pb_begin(&pf->pkt, TE_DEBUG_ANNOTATIONS);
    pb_varint(&pf->pkt, DA_NAME_IID, iid);
    return true;
}

static void arg_uint(struct pf *pf, const char *name, unsigned int field,
                     uint64_t v)
{
    if ( !arg_begin(pf, name) )
        return;
    pb_varint(&pf->pkt, field, v);
    pb_end(&pf->pkt);
}

/* A record's words as an argument named by its event. */
static void arg_record(struct pf *pf, const struct xt_record *rec)
{
    const struct xt_event_desc *d = xt_event_find(rec->event);
    char name[NAME_MAX_BYTES];
    unsigned int i;

    if ( !d )
        snprintf(name, sizeof(name), "0x%08" PRIx32, rec->event);
    if ( !arg_begin(pf, d ? d->name : name) )
        return;
    if ( rec->nr_extra == 1 )
        pb_varint(&pf->pkt, DA_UINT_VALUE, rec->extra[0]);
    for ( i = 0; rec->nr_extra > 1 && i < rec->nr_extra; i++ )
    {
        pb_begin(&pf->pkt, DA_ARRAY_VALUES);
        pb_varint(&pf->pkt, DA_UINT_VALUE, rec->extra[i]);
        pb_end(&pf->pkt);
    }
    pb_end(&pf->pkt);
}

/* A slice [start, end) on @track, its arguments on the begin. */
static void slice_end(struct pf *pf, uint64_t tsc, uint64_t track)
{
    event_begin(pf, tsc, TYPE_SLICE_END, track);
    event_end(pf);
}

static void named(struct pf *pf, uint64_t tsc, unsigned int type,
                  uint64_t track, const char *name)
{
    event_begin(pf, tsc, type, track);
    event_name(pf, name);
    event_end(pf);
}

static void counter(struct pf *pf, uint64_t tsc, uint64_t track, int64_t v)
{
    event_begin(pf, tsc, TYPE_COUNTER, track);
    pb_sint(&pf->pkt, TE_COUNTER_VALUE, v);
    event_end(pf);
}

/* The track an event about @domvcpu on @pcpu goes on; 0: none. */
static uint64_t track_of(struct pf *pf, uint32_t domvcpu, uint32_t pcpu)
{
    if ( domvcpu != MODEL_VCPU_NONE && domvcpu >> 16 != MODEL_DOMID_IDLE )
        return vcpu_track(pf, domvcpu);
    if ( pcpu < pf->nr_pcpus )
        return pcpu_track(pf, pcpu, &pf->pcpus[pcpu].track, "");
    return 0;
}

/*
 * Scheduling: compact sched_switch and sched_waking per pCPU
 * ==========================================================
 */

/* The bundle's comm table: the distinct tids, in order of first use. */
static unsigned int comm_index(uint32_t *tids, unsigned int *nr, uint32_t tid)
{
    unsigned int i;

    for ( i = 0; i < *nr; i++ )
        if ( tids[i] == tid )
            return i;
    tids[(*nr)++] = tid;
    return i;
}

static void packed(struct pb *pkt, unsigned int field, const uint32_t *v,
                   unsigned int n)
{
    unsigned int i;

    pb_begin(pkt, field);
    for ( i = 0; i < n; i++ )
        pb_raw(pkt, v[i]);
    pb_end(pkt);
}

/* @e's columns, each event's comm the bundle's table's @comms[i]. */
static void sched_columns(struct pf *pf, const struct sched_events *e,
                          const struct sched_fields *f, const uint32_t *comms)
{
    uint64_t last = 0;
    unsigned int i;

    pb_begin(&pf->pkt, f->timestamp);
    for ( i = 0; i < e->n; i++ )
    {
        pb_raw(&pf->pkt, e->ns[i] - last);      /* deltas */
        last = e->ns[i];
    }
    pb_end(&pf->pkt);
    packed(&pf->pkt, f->tid, e->tid, e->n);
    packed(&pf->pkt, f->arg, e->arg, e->n);
    pb_begin(&pf->pkt, f->prio);
    for ( i = 0; i < e->n; i++ )
        pb_raw(&pf->pkt, PRIO_NORMAL);
    pb_end(&pf->pkt);
    packed(&pf->pkt, f->comm, comms, e->n);
}

/*
 * One FtraceEventBundle of CPU @cpu (of pf->machine): the switches and
 * wakings, and the table of the @nr_comms names their pf->comm_index
 * says, pf->comms.
 */
static void bundle_write(struct pf *pf, uint32_t cpu,
                         const struct sched_events *switches,
                         const struct sched_events *wakings,
                         unsigned int nr_comms)
{
    unsigned int i;

    packet_begin(pf);
    pb_begin(&pf->pkt, TP_FTRACE_EVENTS);
    pb_varint(&pf->pkt, FB_CPU, cpu);
    pb_begin(&pf->pkt, FB_COMPACT_SCHED);
    sched_columns(pf, switches, &switch_fields, pf->comm_index);
    sched_columns(pf, wakings, &waking_fields, pf->comm_index + switches->n);
    for ( i = 0; i < nr_comms; i++ )
        pb_string(&pf->pkt, CS_INTERN_TABLE, pf->comms[i]);
    pb_end(&pf->pkt);
    pb_end(&pf->pkt);
    packet_end(pf, false);
}

static void bundle_flush(struct pf *pf, uint32_t cpu)
{
    struct pcpu *p = &pf->pcpus[cpu];
    char names[2 * BUNDLE_MAX][NAME_MAX_BYTES];
    unsigned int i, n, nr_tids = 0;

    if ( !p->switches || (!p->switches->n && !p->wakings->n) )
        return;
    for ( i = 0, n = p->switches->n; i < n + p->wakings->n; i++ )
        pf->comm_index[i] = comm_index(pf->comm_tids, &nr_tids,
                                       i < n ? p->switches->tid[i]
                                             : p->wakings->tid[i - n]);
    for ( i = 0; i < nr_tids; i++ )
        pf->comms[i] = comm_of(names[i], sizeof(names[i]), pf->comm_tids[i],
                               cpu);
    bundle_write(pf, cpu, p->switches, p->wakings, nr_tids);
    p->switches->n = p->wakings->n = 0;
}

static void add_event(struct sched_events *e, uint64_t t, uint32_t tid,
                      uint32_t arg)
{
    e->ns[e->n] = t;
    e->tid[e->n] = tid;
    e->arg[e->n++] = arg;
}

/* The pCPU's bundle, allocated on its first scheduling event. */
static bool bundle_ready(struct pf *pf, struct pcpu *p)
{
    if ( p->switches )
        return true;
    p->switches = calloc(1, sizeof(*p->switches));
    p->wakings = calloc(1, sizeof(*p->wakings));
    if ( p->switches && p->wakings )
        return true;
    free(p->switches);
    free(p->wakings);
    p->switches = NULL;
    p->wakings = NULL;
    pf->failed = true;
    errno = ENOMEM;
    return false;
}

/*
 * pCPU @cpu switches at @tsc to @tid, vCPU @domvcpu (MODEL_VCPU_NONE for
 * the idle and pseudo-threads); what ran before goes to @prev_state.
 */
static void sched_switch(struct pf *pf, uint32_t cpu, uint64_t tsc,
                         uint32_t prev_state, uint32_t tid, uint32_t domvcpu)
{
    struct pcpu *p = &pf->pcpus[cpu];
    uint64_t t = ns(pf, tsc);
    struct vinfo *v;

    if ( !view_class_wanted(pf->filter, XT_CLASS_SCHED) ||
         (p->running && p->tid == tid) || !bundle_ready(pf, p) )
        return;
    if ( p->running && p->domvcpu != MODEL_VCPU_NONE &&
         (v = vcpu_of(pf, p->domvcpu)) )
    {
        v->running = false;
        v->run_out = tsc;
    }
    if ( domvcpu != MODEL_VCPU_NONE && (v = vcpu_of(pf, domvcpu)) )
    {
        v->ran = v->running = true;
        v->run_in = tsc;
    }
    p->domvcpu = domvcpu;
    if ( tid >= VIEW_XEN_PID )
        declare_pseudo(pf, cpu, tid);
    if ( p->switches->n + 1 >= BUNDLE_MAX )
        bundle_flush(pf, cpu);
    if ( t < p->last_ns )
        t = p->last_ns;
    /*
     * Perfetto takes a pCPU's first compact switch only to learn what runs
     * (it cannot know what ran before: "compact_sched_switch_skipped"), so
     * the first is to the pCPU's "unknown", at the same time.
     */
    if ( !p->running && tid != view_unknown_tid(cpu) )
    {
        declare_pseudo(pf, cpu, view_unknown_tid(cpu));
        add_event(p->switches, t, view_unknown_tid(cpu), TASK_RUNNING);
    }
    add_event(p->switches, t, tid, p->running ? prev_state : TASK_RUNNING);
    p->last_ns = t;
    p->tid = tid;
    p->running = true;
}

/* What a vCPU switched out goes to, as Linux's prev_state says it. */
static uint32_t prev_state_of(enum model_state s)
{
    switch ( s )
    {
    case MODEL_BLOCKED:
        return TASK_INTERRUPTIBLE;
    case MODEL_OFFLINE:
        return TASK_STOPPED;
    default:
        /* Runnable, or not known: still wanting the pCPU for all we know */
        return TASK_RUNNING;
    }
}

static void on_switch(struct pf *pf, const struct model_event *ev)
{
    uint32_t next = ev->u.sw.next;
    uint32_t tid;

    if ( next == MODEL_VCPU_NONE )
        tid = view_unknown_tid(ev->pcpu);
    else if ( !view_domain_wanted(pf->filter, next) )
        tid = view_other_tid(ev->pcpu);
    else
        tid = view_tid(next);
    sched_switch(pf, ev->pcpu, ev->start, prev_state_of(ev->u.sw.prev_state),
                 tid, tid && tid < VIEW_XEN_PID ? next : MODEL_VCPU_NONE);
}

static void dom0_woken(struct pf *pf, uint32_t domvcpu, uint64_t tsc);

static void on_wake(struct pf *pf, const struct model_event *ev)
{
    uint32_t cpu = ev->pcpu < pf->nr_pcpus ? ev->pcpu : ev->u.wake.target_pcpu;
    uint32_t target = ev->u.wake.target_pcpu < pf->nr_pcpus ?
                      ev->u.wake.target_pcpu : cpu;
    struct pcpu *p;

    if ( cpu >= pf->nr_pcpus || ev->domvcpu >> 16 == MODEL_DOMID_IDLE )
        return;
    p = &pf->pcpus[cpu];
    vcpu_track(pf, ev->domvcpu);
    if ( !bundle_ready(pf, p) )
        return;
    if ( p->wakings->n == BUNDLE_MAX )
        bundle_flush(pf, cpu);
    add_event(p->wakings, ns(pf, ev->start), view_tid(ev->domvcpu), target);
    dom0_woken(pf, ev->domvcpu, ev->start);
}

/*
 * The model's events
 * ==================
 */

/*
 * A vCPU's lost time, as far as it does not overlap a run the exported
 * scheduling shows: from its last switch out, and up to its current
 * run.  The scheduling shows a run from its switch record, which proves
 * it, and the model's LOST interval may end only at the runstate change
 * after it; a switch record with no runstate change (a loss took it) is a
 * run there and lost time here.  What such a run cuts off before it is
 * left to the state the scheduling showed before.
 */
static void lost_slice(struct pf *pf, const struct model_event *ev)
{
    uint64_t start = ev->start, end = ev->end;
    struct vinfo *v;

    if ( ev->domvcpu == MODEL_VCPU_NONE ||
         ev->domvcpu >> 16 == MODEL_DOMID_IDLE ||
         !(v = vcpu_of(pf, ev->domvcpu)) )
        return;
    if ( v->ran && v->run_out > start )
        start = v->run_out;
    if ( v->ran && v->running )
    {
        if ( v->run_in > start && v->run_in < end )
            end = v->run_in;
        else if ( v->run_in <= start )
            return;
    }
    if ( end <= start )
        return;
    named(pf, start, TYPE_SLICE_BEGIN, v->uuid, "lost");
    slice_end(pf, end, v->uuid);
}

static void on_runstate(struct pf *pf, const struct model_event *ev)
{
    uint32_t cpu = ev->pcpu;

    if ( ev->u.runstate.state == MODEL_LOST )
        lost_slice(pf, ev);
    /* A running vCPU is known to run up to its pCPU's last record. */
    if ( ev->u.runstate.state == MODEL_RUNNING &&
         ev->u.runstate.end_by == MODEL_END_TRACE && cpu < pf->nr_pcpus &&
         pf->pcpus[cpu].running &&
         pf->pcpus[cpu].tid == view_tid(ev->domvcpu) )
        sched_switch(pf, cpu, ev->end, TASK_RUNNING, view_unknown_tid(cpu),
                     MODEL_VCPU_NONE);
}

/*
 * The end of an exit that waited for an interrupt (HLT, WFI): the time
 * its vCPU was blocked, from the block to the wake that closed the exit,
 * as a slice "halted" inside the exit's.  The exit's slice is the whole
 * exit, as the summary counts it; the part before "halted" is Xen's.
 */
static void halted_slice(struct pf *pf, const struct model_event *ev,
                         uint64_t track)
{
    uint64_t from = ev->u.exit.halted_since > ev->start
                    ? ev->u.exit.halted_since : ev->start;

    if ( !ev->u.exit.halted || from >= ev->end )
        return;
    named(pf, from, TYPE_SLICE_BEGIN, track, "halted");
    slice_end(pf, ev->end, track);
}

/*
 * An HVM exit or an Arm trap: a slice from the exit to the entry, or to
 * the wake, with the time halted in a slice of its own inside it.
 */
static void on_guest_exit(struct pf *pf, const struct model_event *ev)
{
    uint64_t track = track_of(pf, ev->domvcpu, ev->pcpu);
    char name[NAME_MAX_BYTES];
    unsigned int i, kept;

    if ( !track )
        return;
    event_begin(pf, ev->start, TYPE_SLICE_BEGIN, track);
    event_name(pf, model_exit_event_label(name, sizeof(name), ev));
    arg_uint(pf, ev->u.exit.arm ? "ec" : "reason", DA_UINT_VALUE,
             ev->u.exit.reason);
    arg_uint(pf, ev->u.exit.arm ? "pc" : "rip", DA_POINTER_VALUE,
             ev->u.exit.rip);
    kept = ev->u.exit.nr_handlers < MODEL_MAX_HANDLERS ?
           ev->u.exit.nr_handlers : MODEL_MAX_HANDLERS;
    for ( i = 0; i < kept; i++ )
        arg_record(pf, &ev->u.exit.handlers[i]);
    if ( ev->u.exit.nr_handlers > kept )
        arg_uint(pf, "handlers", DA_UINT_VALUE, ev->u.exit.nr_handlers);
    if ( ev->u.exit.entry_pcpu != ev->pcpu )
        arg_uint(pf, "entry_pcpu", DA_UINT_VALUE, ev->u.exit.entry_pcpu);
    event_end(pf);
    halted_slice(pf, ev, track);
    slice_end(pf, ev->end, track);
}

static void on_lost(struct pf *pf, const struct model_event *ev)
{
    uint64_t track = track_of(pf, MODEL_VCPU_NONE, ev->pcpu);
    char name[NAME_MAX_BYTES];

    if ( !track )
        return;
    sched_switch(pf, ev->pcpu, ev->start, TASK_RUNNING,
                 view_unknown_tid(ev->pcpu), MODEL_VCPU_NONE);
    /* Named with its count, so not interned: the names are unbounded. */
    snprintf(name, sizeof(name), "lost %" PRIu64 " records", ev->u.lost.count);
    event_begin(pf, ev->start, TYPE_SLICE_BEGIN, track);
    pb_string(&pf->pkt, TE_NAME, name);
    arg_uint(pf, "count", DA_UINT_VALUE, ev->u.lost.count);
    event_end(pf);
    slice_end(pf, ev->end, track);
}

static void on_irq(struct pf *pf, const struct model_event *ev)
{
    uint64_t track = track_of(pf, MODEL_VCPU_NONE, ev->pcpu);
    char name[NAME_MAX_BYTES];

    if ( !track )
        return;
    view_irq_name(name, sizeof(name), ev->u.irq.vector, ev->u.irq.irq);
    event_begin(pf, ev->start, ev->end > ev->start ? TYPE_SLICE_BEGIN
                                                   : TYPE_INSTANT, track);
    event_name(pf, name);
    if ( ev->u.irq.irq != UINT32_MAX )
        arg_uint(pf, "irq", DA_UINT_VALUE, ev->u.irq.irq);
    event_end(pf);
    if ( ev->end > ev->start )
        slice_end(pf, ev->end, track);
}

static void on_cstate(struct pf *pf, const struct model_event *ev)
{
    struct pcpu *p;

    if ( ev->pcpu >= pf->nr_pcpus )
        return;
    p = &pf->pcpus[ev->pcpu];
    pcpu_track(pf, ev->pcpu, &p->cstate_track, " C-state");
    counter(pf, ev->start, p->cstate_track, ev->u.cstate.cstate);
    counter(pf, ev->end, p->cstate_track, 0);
}

/*
 * An injected interrupt's time to the halt, whole where it ends: the
 * vCPU's counter "dXvY to halt (ns)" at that time from the entry after
 * the injection (xentrace-plot --scatter to-halt's points), back to 0 at
 * the halt.  A counter, not a slice: several may end at one halt; under
 * the vCPU's thread track.
 */
static void on_to_halt(struct pf *pf, const struct model_event *ev)
{
    char name[NAME_MAX_BYTES], who[MODEL_NAME_MAX];
    struct vinfo *v;

    if ( ev->goes_on || ev->domvcpu == MODEL_VCPU_NONE ||
         !(v = vcpu_of(pf, ev->domvcpu)) )
        return;
    if ( !v->to_halt_track )
    {
        v->to_halt_track = pf->next_uuid++;
        snprintf(name, sizeof(name), "%s to halt (ns)",
                 model_vcpu_name(who, sizeof(who), ev->domvcpu));
        track_descriptor(pf, v->to_halt_track, v->uuid, name, true);
    }
    counter(pf, ev->start, v->to_halt_track,
            tsc_ns(ev->end - ev->began, pf->hz));
    counter(pf, ev->end, v->to_halt_track, 0);
}

static void on_point(struct pf *pf, const struct model_event *ev)
{
    uint64_t track = track_of(pf, ev->domvcpu, ev->pcpu);
    char name[NAME_MAX_BYTES];

    if ( !track )
        return;
    view_point_name(name, sizeof(name), ev);
    named(pf, ev->start, TYPE_INSTANT, track, name);
}

static void on_event(void *arg, const struct model_event *ev)
{
    struct pf *pf = arg;

    if ( pf->failed || !view_wants(pf->filter, ev) )
        return;
    if ( ev->pcpu != MODEL_CPU_NONE && ev->pcpu >= pf->nr_pcpus )
        return;
    switch ( ev->type )
    {
    case MODEL_EV_RUNSTATE:
        on_runstate(pf, ev);
        break;
    case MODEL_EV_SWITCH:
        on_switch(pf, ev);
        break;
    case MODEL_EV_WAKE:
        on_wake(pf, ev);
        break;
    case MODEL_EV_EXIT:
        on_guest_exit(pf, ev);
        break;
    case MODEL_EV_LOST:
        on_lost(pf, ev);
        break;
    case MODEL_EV_IRQ:
        on_irq(pf, ev);
        break;
    case MODEL_EV_CSTATE:
        on_cstate(pf, ev);
        break;
    case MODEL_EV_HYPERCALL:
    case MODEL_EV_PV:
    case MODEL_EV_GUEST:
    case MODEL_EV_INJECT:
        on_point(pf, ev);
        break;
    case MODEL_EV_TO_HALT:
        on_to_halt(pf, ev);
        break;
    case MODEL_EV_INJECT_LATENCY:
    case MODEL_EV_DOMAIN:
        break;      /* they span pCPUs and overlap slices: the summary's */
    case MODEL_EV_MEM:
        break;      /* not a class the export offers (VIEW_ALL) */
    }
}

/*
 * A record the model saw run @what->domvcpu on its pCPU, which the
 * exported scheduling shows running no vCPU it can name: the switch was
 * lost, or came before the trace, and a record proved the run.  The run
 * starts where the model books it from (a continuing vCPU: the pCPU's
 * first record), else here; not before the window, nor what the pCPU
 * last showed.
 */
static void proven_run(struct pf *pf, const struct xt_record *rec,
                       const struct model_record *what)
{
    struct pcpu *p = &pf->pcpus[rec->cpu];
    uint32_t domvcpu = what->domvcpu, tid;
    uint64_t since = what->ran_since && what->ran_since < rec->tsc ?
                     what->ran_since : rec->tsc;

    if ( domvcpu == MODEL_VCPU_NONE || !view_cpu_wanted(pf->filter, rec->cpu) ||
         (p->running && p->tid != view_unknown_tid(rec->cpu)) )
        return;
    tid = view_domain_wanted(pf->filter, domvcpu) ? view_tid(domvcpu)
                                                   : view_other_tid(rec->cpu);
    if ( since < pf->filter->from )
        since = pf->filter->from;       /* the window's start */
    sched_switch(pf, rec->cpu, since, TASK_RUNNING, tid,
                 tid && tid < VIEW_XEN_PID ? domvcpu : MODEL_VCPU_NONE);
}

/*
 * Records per second, per pCPU and 10 ms
 * ============================================
 */

/* A rate, if it is not the one the counter already shows. */
static void rate_value(struct pf *pf, uint32_t cpu, uint64_t tsc, uint64_t v)
{
    struct pcpu *p = &pf->pcpus[cpu];

    if ( p->rate_shown && p->rate_last == v )
        return;
    pcpu_track(pf, cpu, &p->rate_track, " records/s");
    counter(pf, tsc, p->rate_track, v);
    p->rate_shown = true;
    p->rate_last = v;
}

static void rate_flush(struct pf *pf, uint32_t cpu, uint64_t upto)
{
    struct pcpu *p = &pf->pcpus[cpu];
    uint64_t window = pf->hz / RATE_WINDOWS_PER_S ? pf->hz / RATE_WINDOWS_PER_S
                                                  : 1;

    if ( !p->rate_open || upto < p->rate_start ||
         upto - p->rate_start < window )
        return;
    rate_value(pf, cpu, p->rate_start, p->rate_count * RATE_WINDOWS_PER_S);
    p->rate_start += window;
    if ( upto - p->rate_start >= window )
    {
        /* Quiet windows: a zero, then the next window with records. */
        rate_value(pf, cpu, p->rate_start, 0);
        p->rate_start += (upto - p->rate_start) / window * window;
    }
    p->rate_count = 0;
}

static void on_record(void *arg, const struct xt_record *rec,
                      const struct model_record *what)
{
    struct pf *pf = arg;
    struct pcpu *p;

    if ( !pf->failed && rec->cpu < pf->nr_pcpus )
    {
        proven_run(pf, rec, what);
        pf->pcpus[rec->cpu].last_tsc = rec->tsc;
    }
    if ( pf->failed || rec->cpu >= pf->nr_pcpus ||
         (rec->event >> 12) == 0x0001f ||     /* metadata, not records */
         !view_record_wanted(pf->filter, rec) )
        return;
    p = &pf->pcpus[rec->cpu];
    if ( !p->rate_open )
    {
        p->rate_open = true;
        p->rate_start = rec->tsc;
    }
    rate_flush(pf, rec->cpu, rec->tsc);
    p->rate_count++;
}

/*
 * dom0's kernel, on Perfetto's second machine
 * ===========================================
 */

/* Dom0's CPU @lane (its lane's index), its bundle made; NULL if none. */
static struct dcpu *dcpu_of(struct pf *pf, uint32_t lane)
{
    struct dcpu *d;

    if ( !pf->dcpus || lane >= pf->dom0->lanes )
        return NULL;
    d = &pf->dcpus[lane];
    if ( d->switches )
        return d;
    d->switches = calloc(1, sizeof(*d->switches));
    d->wakings = calloc(1, sizeof(*d->wakings));
    d->switch_comm = calloc(BUNDLE_MAX, sizeof(*d->switch_comm));
    d->waking_comm = calloc(BUNDLE_MAX, sizeof(*d->waking_comm));
    if ( d->switches && d->wakings && d->switch_comm && d->waking_comm )
        return d;
    pf->failed = true;
    errno = ENOMEM;
    return NULL;
}

/* The bundle's table of names: @name's index, added if new. */
static uint32_t name_index(struct pf *pf, unsigned int *nr, const char *name)
{
    unsigned int i;

    for ( i = 0; i < *nr; i++ )
        if ( !strcmp(pf->comms[i], name) )
            return i;
    pf->comms[*nr] = name;
    return (*nr)++;
}

static void dom0_bundle_flush(struct pf *pf, uint32_t lane)
{
    struct dcpu *d = &pf->dcpus[lane];
    unsigned int i, n, nr = 0;

    if ( !d->switches || (!d->switches->n && !d->wakings->n) )
        return;
    for ( i = 0, n = d->switches->n; i < n + d->wakings->n; i++ )
        pf->comm_index[i] = name_index(pf, &nr, i < n ? d->switch_comm[i]
                                                      : d->waking_comm[i - n]);
    bundle_write(pf, lane, d->switches, d->wakings, nr);
    d->switches->n = d->wakings->n = 0;
}

static void dom0_sched(struct pf *pf, uint32_t lane, uint64_t tsc,
                       const struct xt_dom0_event *e)
{
    struct dcpu *d = dcpu_of(pf, lane);
    bool waking = e->kind == XT_DOM0_WAKING;
    struct sched_events *to;
    uint64_t t = ns(pf, tsc);

    if ( !d || !view_class_wanted(pf->filter, XT_CLASS_SCHED) )
        return;
    to = waking ? d->wakings : d->switches;
    if ( to->n == BUNDLE_MAX )
        dom0_bundle_flush(pf, lane);
    if ( !waking && t < d->last_ns )
        t = d->last_ns;
    strcpy(waking ? d->waking_comm[to->n] : d->switch_comm[to->n], e->text);
    add_event(to, t, waking ? e->v[0] : e->v[1], e->arg);
    if ( !waking )
        d->last_ns = t;
}

/* A track of dom0's CPU @lane, declared if new. */
static uint64_t dom0_track(struct pf *pf, uint32_t lane, uint64_t *which,
                           const char *what)
{
    char name[NAME_MAX_BYTES];

    if ( !*which )
    {
        *which = pf->next_uuid++;
        snprintf(name, sizeof(name), "dom0 CPU %u %s", lane, what);
        track_descriptor(pf, *which, 0, name, false);
    }
    return *which;
}

/*
 * An IRQ handler or softirq begins on dom0's CPU @lane: the first IRQ
 * after Xen woke that CPU's vCPU ends the wake's flow, which begins at an
 * instant "woken by Xen" on the same track, at the wake, written now.
 * Perfetto joins a flow's ends on one machine only (trace_processor
 * v58), so the wake is told on dom0's; Xen's own is d0vN's waking in the
 * host's scheduling.
 */
static void dom0_slice(struct pf *pf, uint32_t lane, uint64_t tsc,
                       const char *name, bool irq)
{
    struct dcpu *d = dcpu_of(pf, lane);
    uint64_t track;

    if ( !d )
        return;
    track = dom0_track(pf, lane, &d->irq_track, "IRQs");
    if ( irq && d->flow )
    {
        event_begin(pf, d->flow_tsc, TYPE_INSTANT, track);
        event_name(pf, "woken by Xen");
        pb_fixed64(&pf->pkt, TE_FLOW_IDS, d->flow);
        event_end(pf);
    }
    event_begin(pf, tsc, TYPE_SLICE_BEGIN, track);
    event_name(pf, name);
    if ( irq && d->flow )
        pb_fixed64(&pf->pkt, TE_TERMINATING_FLOW_IDS, d->flow);
    event_end(pf);
    if ( irq )
        d->flow = 0;
    d->open++;
}

static void dom0_slice_end(struct pf *pf, uint32_t lane, uint64_t tsc)
{
    struct dcpu *d = dcpu_of(pf, lane);

    if ( !d || !d->open )
        return;                 /* it began before the trace */
    slice_end(pf, tsc, d->irq_track);
    d->open--;
}

/* Xen woke dom0's vCPU @lane at @tsc: a flow to its next IRQ. */
static void dom0_woken(struct pf *pf, uint32_t domvcpu, uint64_t tsc)
{
    struct dcpu *d;

    if ( domvcpu >> 16 || !pf->dom0 || !(d = dcpu_of(pf, domvcpu & 0xffff)) )
        return;
    d->flow = ++pf->next_flow;
    d->flow_tsc = tsc;
}

static void on_dom0(void *arg, const struct xt_record *rec)
{
    struct pf *pf = arg;
    uint32_t lane = rec->cpu - pf->dom0->first_lane;
    char name[XT_RECORD_FORMAT_MAX];
    struct xt_dom0_event e;

    if ( pf->failed || xt_dom0_event_get(rec->extra, rec->nr_extra, &e) ||
         rec->event != TRC_XT_DOM0_EVENT )
        return;
    pf->machine = DOM0_MACHINE;
    if ( dcpu_of(pf, lane) )
        pf->dcpus[lane].last_tsc = rec->tsc;
    switch ( e.kind )
    {
    case XT_DOM0_SWITCH:
    case XT_DOM0_WAKING:
        dom0_sched(pf, lane, rec->tsc, &e);
        break;
    case XT_DOM0_IRQ_ENTRY:
        snprintf(name, sizeof(name), "irq %" PRIu32 " %s", e.v[0], e.text);
        dom0_slice(pf, lane, rec->tsc, name, true);
        break;
    case XT_DOM0_SOFTIRQ_ENTRY:
        xt_dom0_text(&e, NULL, name, sizeof(name));
        dom0_slice(pf, lane, rec->tsc, name, false);
        break;
    case XT_DOM0_IRQ_EXIT:
    case XT_DOM0_SOFTIRQ_EXIT:
        dom0_slice_end(pf, lane, rec->tsc);
        break;
    default:
        if ( !dcpu_of(pf, lane) )
            break;
        xt_dom0_text(&e, e.kind == XT_DOM0_EVENT ?
                         xt_reader_dom0_type(pf->reader, e.arg) : NULL,
                     name, sizeof(name));
        named(pf, rec->tsc, TYPE_INSTANT,
              dom0_track(pf, lane, &pf->dcpus[lane].event_track, "events"),
              name);
    }
    pf->machine = 0;
}

/* The end: dom0's bundles out, its slices still open ended. */
static void dom0_finish(struct pf *pf)
{
    unsigned int lane;

    pf->machine = DOM0_MACHINE;
    for ( lane = 0; pf->dcpus && lane < pf->dom0->lanes; lane++ )
    {
        dom0_bundle_flush(pf, lane);
        while ( pf->dcpus[lane].open )
            dom0_slice_end(pf, lane, pf->dcpus[lane].last_tsc);
    }
    pf->machine = 0;
}

static void dom0_free(struct pf *pf)
{
    unsigned int lane;

    for ( lane = 0; pf->dcpus && lane < pf->dom0->lanes; lane++ )
    {
        free(pf->dcpus[lane].switches);
        free(pf->dcpus[lane].wakings);
        free(pf->dcpus[lane].switch_comm);
        free(pf->dcpus[lane].waking_comm);
    }
    free(pf->dcpus);
}

/*
 * The whole trace
 * ===============
 */

static void clock_snapshot(struct pf *pf, const struct xt_reader_info *info)
{
    uint64_t wall = (uint64_t)info->meta.start_sec * 1000000000u +
                    info->meta.start_nsec;

    packet_begin(pf);
    pb_begin(&pf->pkt, TP_CLOCK_SNAPSHOT);
    pb_begin(&pf->pkt, CS_CLOCKS);
    pb_varint(&pf->pkt, CLOCK_ID, CLOCK_BOOTTIME);
    pb_varint(&pf->pkt, CLOCK_TIMESTAMP, ns(pf, info->meta.start_tsc));
    pb_end(&pf->pkt);
    pb_begin(&pf->pkt, CS_CLOCKS);
    pb_varint(&pf->pkt, CLOCK_ID, CLOCK_REALTIME);
    pb_varint(&pf->pkt, CLOCK_TIMESTAMP, wall);
    pb_end(&pf->pkt);
    pb_varint(&pf->pkt, CS_PRIMARY_TRACE_CLOCK, CLOCK_BOOTTIME);
    pb_end(&pf->pkt);
    packet_end(pf, true);
}

/* What is still held per pCPU: its bundle, its last rate window. */
/* The TSCs of the trace's first and last records: false if none. */
static bool trace_span(const struct xt_reader *r, uint64_t *first,
                       uint64_t *last)
{
    unsigned int i;

    *first = UINT64_MAX;
    *last = 0;
    for ( i = 0; i < xt_reader_info(r)->nr_cpus; i++ )
    {
        const struct xt_cpu_info *c = xt_reader_cpu(r, i);

        if ( !c->has_tsc )
            continue;
        *first = c->first_tsc < *first ? c->first_tsc : *first;
        *last = c->last_tsc > *last ? c->last_tsc : *last;
    }
    return *first < *last;
}

/*
 * The masks in force (xtfile.h, "Masks"): a slice per period on a track
 * of its own, named by its classes and CPUs, within the window, so that
 * a rate that drops at a slice's edge is seen to be a mask's doing.
 */
static void mask_slices(struct pf *pf)
{
    unsigned int i, n = xt_reader_nr_mask_periods(pf->reader);
    uint64_t first, last, from, to, uuid;
    char name[256];

    if ( !n || !trace_span(pf->reader, &first, &last) )
        return;
    if ( pf->filter->from > first )
        first = pf->filter->from;
    if ( pf->filter->to && pf->filter->to < last )
        last = pf->filter->to;
    uuid = pf->next_uuid++;
    track_descriptor(pf, uuid, 0, "xentrace masks", false);
    for ( i = 0; i < n; i++ )
    {
        const struct xt_mask_period *p = xt_reader_mask_period(pf->reader, i);

        from = p->tsc > first ? p->tsc : first;
        to = i + 1 < n ? xt_reader_mask_period(pf->reader, i + 1)->tsc : last;
        to = to < last ? to : last;
        if ( to <= from )
            continue;
        named(pf, from, TYPE_SLICE_BEGIN, uuid,
              xt_mask_period_text(p, name, sizeof(name)));
        slice_end(pf, to, uuid);
    }
}

/*
 * The end: a run still shown ends at its pCPU's last record, as the
 * model knows it (one that continued on that record left the model no
 * interval to end), or at @last, the window's; what is kept goes out.
 */
static void finish(struct pf *pf, uint64_t last)
{
    uint64_t window = pf->hz / RATE_WINDOWS_PER_S ? pf->hz / RATE_WINDOWS_PER_S
                                                  : 1;
    unsigned int cpu;

    for ( cpu = 0; cpu < pf->nr_pcpus; cpu++ )
    {
        struct pcpu *p = &pf->pcpus[cpu];

        if ( p->running && p->tid != view_unknown_tid(cpu) )
            sched_switch(pf, cpu, p->last_tsc && p->last_tsc < last ?
                         p->last_tsc : last, TASK_RUNNING,
                         view_unknown_tid(cpu), MODEL_VCPU_NONE);
        bundle_flush(pf, cpu);
        rate_flush(pf, cpu, pf->pcpus[cpu].rate_start + window);
    }
    dom0_finish(pf);
    mask_slices(pf);
}

int perfetto_export(struct xt_reader *r, FILE *out,
                    const struct view_filter *f, uint64_t hz)
{
    const struct xt_reader_info *info = xt_reader_info(r);
    const struct model_ops ops = { .event = on_event, .record = on_record,
                                   .dom0 = on_dom0 };
    const struct model_options mo = { .from = f->from, .to = f->to };
    struct pf pf = { .out = out, .filter = f, .reader = r, .hz = hz,
                     .next_uuid = 1 };
    struct model *m = NULL;
    int ret = -1, saved;
    unsigned int i;

    pb_init(&pf.pkt);
    pb_init(&pf.interned);
    pf.nr_pcpus = info->nr_cpus ? info->max_cpu + 1 : 0;
    pf.pcpus = calloc(pf.nr_pcpus ? pf.nr_pcpus : 1, sizeof(*pf.pcpus));
    pf.domains = calloc(0x10000 / 8, 1);
    pf.out_buf = malloc(OUT_BYTES);
    pf.dom0 = xt_reader_dom0(r);
    if ( pf.dom0->lanes )
        pf.dcpus = calloc(pf.dom0->lanes, sizeof(*pf.dcpus));
    if ( pf.pcpus && pf.domains && pf.out_buf &&
         (pf.dcpus || !pf.dom0->lanes) )
        m = model_new(r, &mo, &ops, &pf);
    if ( !m )
    {
        errno = ENOMEM;
        goto out;
    }
    if ( info->has_start )
        clock_snapshot(&pf, info);
    if ( model_run(m) )
        pf.failed = true;               /* errno is ENOMEM */
    else if ( !pf.failed )
        finish(&pf, model_last_tsc(m));
    if ( !pf.failed )
    {
        out_flush(&pf);
        errno = 0;
        if ( !pf.failed && fflush(out) )
            out_failed(&pf);
    }
    ret = pf.failed || ferror(out) ? -1 : 0;
    if ( ret && !errno )
        errno = EIO;
out:
    saved = errno;
    model_free(m);
    pb_free(&pf.pkt);
    pb_free(&pf.interned);
    intern_free(&pf.event_names);
    intern_free(&pf.annotation_names);
    for ( i = 0; pf.pcpus && i < pf.nr_pcpus; i++ )
    {
        free(pf.pcpus[i].switches);
        free(pf.pcpus[i].wakings);
    }
    free(pf.pcpus);
    dom0_free(&pf);
    view_set_free(&pf.vcpus);
    free(pf.vinfo);
    free(pf.domains);
    free(pf.out_buf);
    errno = saved;
    return ret;
}
