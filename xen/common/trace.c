/******************************************************************************
 * common/trace.c
 *
 * Per-CPU trace buffers, shared with dom0.
 *
 * Design
 * ======
 *
 * Each physical CPU writes records into a buffer of its own, and only that
 * CPU writes there: a trace point takes its CPU's t_lock with interrupts
 * off, so that an interrupt's trace point cannot interleave with the one it
 * interrupted, and no other CPU ever contends for the lock on the record
 * path.  dom0 (xentrace) maps every buffer and copies records out.
 *
 *   t_info (read-only to dom0)          per-CPU buffer (read-write to dom0)
 *   +-----------------------+           page 0              page 1
 *   | tbuf_size = P pages   |           +--------+------+   +-------------+
 *   | mfn_offset[0]  ----------+        |cons    |rec   |   |rec|rec|pad  |
 *   | mfn_offset[1]  ---+   |  |        |prod    |rec|re|   |c  |   |     |
 *   | ...  [NR_CPUS]    |   |  |        +--------+------+   +-------------+
 *   |  cpu 0: mfn, mfn, ... <--+          ^ mfn                 ^ mfn
 *   |  cpu 1: mfn, mfn, ... <--+          |                     |
 *   +-----------------------+  `----------+---------------------'
 *
 * Indices.  A buffer is a struct t_buf {cons, prod} followed by a data
 * area of data_size = P * PAGE_SIZE - 8 bytes.  Xen advances prod; dom0
 * owns cons.  Both count bytes modulo 2 * data_size: prod == cons is empty
 * and prod - cons == data_size is full, and the record at index i lives at
 * data offset i % data_size.  Records are 4 to 40 bytes and never straddle
 * the end of the data area: a record that would is preceded by one
 * TRC_TRACE_WRAP_BUFFER record that pads to the end (4 to 36 bytes).  The
 * pages need not be contiguous, so a record may straddle a page boundary;
 * Xen addresses the pages through its own MFN list in t_info.
 *
 * Trust.  dom0 can write anything to cons, prod and the data area.  Xen
 * never reads the data area or prod back: it keeps its own copy of prod.
 * It reads cons once per record, and checks it whenever it differs from
 * the value checked last (aligned, in range, not ahead of prod).  A bad
 * cons resets that one buffer to empty, is counted, and is logged the first
 * time; tracing goes on for that CPU and every other.
 *
 * Entry points.  Every record comes through trace() (Xen 4.19's API, which
 * takes the TSC flag in the event's bit 31 and only whole-word payloads),
 * which has a copy of the record path, put_trace(), for each payload size.
 * In trees older than 4.19, __trace_var() (4.17's) pads a partial word
 * into a copy of its own and calls trace().
 *
 * Speed.  A record normally takes the fast path: it is written in place
 * under one limit that folds together every reason for doing more (a page
 * boundary, a pending lost count, the high-water mark, a full buffer), as
 * long as dom0's cons has not moved; see "Writing records".  It reads the
 * TSC before taking the lock; see "Time" there.
 *
 * Loss.  A record that does not fit is counted in lost_records, never
 * written in part.  Before the next record that fits, Xen writes one
 * TRC_LOST_RECORDS record: {count, domain, vcpu, TSC of the first loss}.
 * A buffer always keeps LOST_RESERVE bytes free for that marker, so that
 * disabling tracing can flush a pending count even when dom0 has not made
 * room: every record that passed the masks is either in the buffer or
 * counted in a marker.
 *
 * Filtering.  A record must pass the event mask (or be switched on) and the
 * CPU mask, checked before anything else, and not be switched off, and
 * pass the domain filter when it is on; see "Filtering" below.  A record
 * that does not pass is not written and not lost: it was never wanted.
 *
 * Disabling.  tb_control(disable) returns only once no CPU is writing, and
 * writes each CPU's pending lost count: a consumer that sweeps every buffer
 * afterwards has everything.
 *
 * Resizing.  set_size is one shot, as in Xen.  Our resize command replaces
 * the buffers, but only with tracing off and when no domain maps a page of
 * them, which their pages' reference counts tell; see "Resizing" below.
 *
 * Notification.  When a record takes the unconsumed bytes from below
 * t_buf_highwater (half the data area) to at or above it, Xen sends
 * VIRQ_TBUF, once per crossing.  Trace points run inside the scheduler, so
 * the virq is sent from a softirq tasklet, not from the trace point.
 *
 * Ordering, with the labels of public/trace.h: Xen loads cons (A) before it
 * stores records, and stores the records before prod (B, smp_wmb()).
 *
 * Locks.  t_lock (per CPU) covers that CPU's struct t_cpu and buffer;
 * tb_control_lock serialises control operations and buffer allocation.
 * Order: tb_control_lock, then t_lock.
 */

#include <asm/io.h>
#include <xen/lib.h>
#include <xen/param.h>
#include <xen/sched.h>
#include <xen/smp.h>
#include <xen/trace.h>
#include <xen/trace-events.h>
#include <xen/errno.h>
#include <xen/event.h>
#include <xen/tasklet.h>
#include <xen/init.h>
#include <xen/mm.h>
#include <xen/percpu.h>
#include <xen/pfn.h>
#include <xen/cpu.h>
#include <xen/bitops.h>
#include <asm/atomic.h>
#include <public/sysctl.h>

#ifdef CONFIG_COMPAT
#include <compat/trace.h>
#define xen_t_buf t_buf
CHECK_t_buf;
#undef xen_t_buf
#endif

/* Boot parameters: pages per CPU, and an event mask that enables tracing. */
static unsigned int opt_tbuf_size;
static unsigned int opt_tevt_mask;
integer_param("tbuf_size", opt_tbuf_size);
integer_param("tevt_mask", opt_tevt_mask);

/* Header, TSC and payload (the catalogue's layout, xen/trace-events.h). */
#define LOST_REC_SIZE   (4 + 8 + 4 * XT_LOST_RECORDS_WORDS)
#define WRAP_PAD_MAX    36               /* a 40-byte record, 4 bytes short */
#define LOST_RESERVE    (WRAP_PAD_MAX + LOST_REC_SIZE)

static struct t_info *t_info;            /* the directory, read-only to dom0 */
static unsigned int t_info_pages;
static unsigned int t_buf_pages;         /* per CPU; 0 until allocated */
static uint32_t data_size __read_mostly; /* record bytes per CPU */
static uint32_t t_buf_highwater __read_mostly;

/*
 * One CPU's tracing state.  t_lock: see "Locks" above.  room, next and
 * cons are the fast path's: see "Writing records" below.
 */
struct t_cpu {
    spinlock_t t_lock;
    uint32_t room;                /* records shorter than this go at next */
    uint32_t *next;               /* where the record at prod goes */
    uint32_t cons;                /* dom0's cons when room was worked out */
    uint32_t prod;                /* Xen's copy of buf->prod */
    struct t_buf *buf;            /* NULL: this CPU has no buffer */
    const uint32_t *mfns;         /* its pages, from t_info */
    unsigned long lost_records;   /* lost, not yet reported */
    uint64_t lost_records_first_tsc;
    uint64_t lost_records_last_tsc;
    struct trace_cpu_stats stats;
    uint32_t split[1 + 2 + TRACE_EXTRA_MAX]; /* a record that crosses pages */
};
static DEFINE_PER_CPU(struct t_cpu, t_cpu);

bool tb_init_done __read_mostly;

static cpumask_t tb_cpu_mask;            /* CPUs that may trace */
static uint32_t tb_event_mask = TRC_ALL; /* classes that may trace */
static uint32_t tb_pass_mask = TRC_ALL;  /* those, and switched-on events' */

/* Serialises tb_control() and buffer allocation; taken before t_lock. */
static DEFINE_SPINLOCK(tb_control_lock);

static void cf_check trace_notify_dom0(void *unused)
{
    send_global_virq(VIRQ_TBUF);
}
static DECLARE_SOFTIRQ_TASKLET(trace_notify_dom0_tasklet,
                               trace_notify_dom0, NULL);

/*
 * Buffer set-up
 * =============
 */

/* Words of t_info before the first MFN list: tbuf_size and mfn_offset[]. */
static unsigned int t_info_first_offset(void)
{
    return DIV_ROUND_UP(offsetof(struct t_info, mfn_offset[NR_CPUS]),
                        sizeof(uint32_t));
}

/*
 * The most pages per CPU that t_info can describe.  tbuf_size is 16 bits,
 * and so is mfn_offset[], which for the highest CPU is
 * first + (nr_cpu_ids - 1) * pages.  A buffer's indices must also fit in
 * 32 bits.  So the total over all CPUs is capped near 2^16 pages.
 */
static unsigned int max_tbuf_pages(unsigned int first)
{
    unsigned int pages = min_t(unsigned int, UINT16_MAX,
                               UINT32_MAX / (2 * PAGE_SIZE));

    if ( nr_cpu_ids > 1 )
        pages = min(pages, (UINT16_MAX - first) / (nr_cpu_ids - 1));

    return pages;
}

static void free_cpu_pages(uint32_t *mfns, unsigned int pages)
{
    unsigned int i;

    for ( i = 0; i < pages && mfns[i]; i++ )
        free_xenheap_pages(mfn_to_virt(mfns[i]), 0);
}

/*
 * Allocate the pages of @cpu's buffer and list them in t_info, but do not
 * publish them yet.  The MFNs must fit the u32 list.
 */
static int alloc_cpu_pages(unsigned int cpu)
{
    uint32_t *mfns = (uint32_t *)t_info + t_info_first_offset() +
                     cpu * t_buf_pages;
    unsigned int i;

    for ( i = 0; i < t_buf_pages; i++ )
    {
        void *p = alloc_xenheap_pages(0, MEMF_bits(32 + PAGE_SHIFT));

        if ( !p )
        {
            free_cpu_pages(mfns, i);
            memset(mfns, 0, t_buf_pages * sizeof(*mfns));
            return -ENOMEM;
        }
        clear_page(p);     /* dom0 sees only records, never old memory */
        mfns[i] = virt_to_mfn(p);
    }

    return 0;
}

/* Share @cpu's allocated pages with dom0 and start using them. */
static void publish_cpu_buffer(unsigned int cpu)
{
    struct t_cpu *tc = &per_cpu(t_cpu, cpu);
    unsigned int offset = t_info_first_offset() + cpu * t_buf_pages;
    const uint32_t *mfns = (uint32_t *)t_info + offset;
    unsigned long flags;
    unsigned int i;

    for ( i = 0; i < t_buf_pages; i++ )
        share_xen_page_with_privileged_guests(mfn_to_page(_mfn(mfns[i])),
                                              SHARE_rw);

    spin_lock_irqsave(&tc->t_lock, flags);
    tc->buf = mfn_to_virt(mfns[0]);
    tc->mfns = mfns;
    tc->prod = 0;
    tc->room = 0;        /* the first record works out the room */
    spin_unlock_irqrestore(&tc->t_lock, flags);

    /* A consumer reading t_info sees the list before the offset to it. */
    smp_wmb();
    t_info->mfn_offset[cpu] = offset;
}

/*
 * Allocate a buffer of @pages pages for every online CPU and publish them,
 * tracing left as it is.  Buffers are freed only by tb_resize(), which
 * knows that dom0 has none of them mapped.  Caller holds tb_control_lock.
 */
static int alloc_trace_bufs(unsigned int pages)
{
    unsigned int first = t_info_first_offset();
    unsigned int max_pages = max_tbuf_pages(first);
    unsigned int cpu, i;
    int rc = 0;

    if ( pages > max_pages )
    {
        printk(XENLOG_INFO "xentrace: requested number of %u pages "
               "reduced to %u\n", pages, max_pages);
        pages = max_pages;
    }

    t_info_pages = PFN_UP((first + nr_cpu_ids * pages) * sizeof(uint32_t));
    t_info = alloc_xenheap_pages(get_order_from_pages(t_info_pages), 0);
    if ( !t_info )
        goto nomem;
    memset(t_info, 0, t_info_pages * PAGE_SIZE);
    t_info->tbuf_size = pages;
    t_buf_pages = pages;

    for_each_online_cpu ( cpu )
    {
        rc = alloc_cpu_pages(cpu);
        if ( rc )
            goto free;
    }

    data_size = pages * PAGE_SIZE - sizeof(struct t_buf);
    t_buf_highwater = data_size / 2;

    for_each_online_cpu ( cpu )
        publish_cpu_buffer(cpu);
    for ( i = 0; i < t_info_pages; i++ )
        share_xen_page_with_privileged_guests(virt_to_page(t_info) + i,
                                              SHARE_ro);

    printk(XENLOG_INFO "xentrace: %u pages per CPU, t_info at mfn %#lx\n",
           pages, virt_to_mfn(t_info));
    return 0;

 free:
    for_each_online_cpu ( cpu )
        free_cpu_pages((uint32_t *)t_info + first + cpu * pages, pages);
    free_xenheap_pages(t_info, get_order_from_pages(t_info_pages));
 nomem:
    t_info = NULL;
    t_info_pages = 0;
    t_buf_pages = 0;
    printk(XENLOG_WARNING "xentrace: allocation of %u pages per CPU failed\n",
           pages);
    return -ENOMEM;
}

/* Tracing on, the buffers in place first; ordered for every CPU. */
static void enable_tracing(void)
{
    smp_wmb();
    tb_init_done = true;
}

/*
 * set_size: one shot, as in Xen 4.17, and it turns tracing on (callers
 * rely on it).  Changing the size is XEN_SYSCTL_TBUFOP_resize's, so that
 * upstream's xentrace, which always asks for its default size, keeps the
 * buffers that tbuf_size= made.
 */
static int tb_set_size(unsigned int pages)
{
    int rc;

    if ( t_buf_pages && pages != t_buf_pages )
    {
        printk(XENLOG_INFO "xentrace: tb_set_size from %u to %u "
               "refused: buffers exist (resize changes them)\n",
               t_buf_pages, pages);
        return -EINVAL;
    }
    if ( t_buf_pages )
        return -EBUSY;
    if ( !pages )
        return -EINVAL;

    rc = alloc_trace_bufs(pages);
    if ( !rc )
        enable_tracing();
    return rc;
}

/*
 * Resizing
 * ========
 *
 * Buffers can be freed only when no domain holds a page of them.  Sharing
 * a page holds one reference to it (with PGC_allocated), and every mapping
 * of it another, so a page whose sharing holds the only reference is
 * unmapped.  Each page is taken back as Xen takes back a domain's grant
 * status frames: drop the sharing's reference, and if any remains (a
 * mapping raced in, or was there), take it again and share the page as
 * before.  Once its count is 0 no mapping can take a reference, so a page
 * taken back stays so.
 */

/* A set of buffers: t_info, and the pages each CPU's MFN list names. */
struct trace_bufs {
    struct t_info *t_info;
    unsigned int t_info_pages;
    unsigned int pages;                 /* per CPU */
};

static const uint32_t *cpu_mfns(const struct trace_bufs *b, unsigned int cpu)
{
    return (const uint32_t *)b->t_info + b->t_info->mfn_offset[cpu];
}

/* Stop sharing @pg, unless a mapping holds it: then as it was, false. */
static bool take_back_page(struct page_info *pg)
{
    put_page_alloc_ref(pg);
    if ( (pg->count_info & ~PGC_xen_heap) && get_page(pg, dom_xen) )
    {
        set_bit(_PGC_allocated, &pg->count_info);
        return false;
    }
    page_set_owner(pg, NULL);
    return true;
}

/*
 * Visit @b's shared pages in one order: t_info's, then each CPU's.  With
 * @take, take each back until one is mapped, and return how many were;
 * without, share the first @n again.
 */
static unsigned int visit_pages(const struct trace_bufs *b, bool take,
                                unsigned int n)
{
    unsigned int cpu, i, done = 0;

    for ( i = 0; i < b->t_info_pages && (take || done < n); i++, done++ )
    {
        struct page_info *pg = virt_to_page(b->t_info) + i;

        if ( !take )
            share_xen_page_with_privileged_guests(pg, SHARE_ro);
        else if ( !take_back_page(pg) )
            return done;
    }
    for ( cpu = 0; cpu < nr_cpu_ids; cpu++ )
        for ( i = 0; b->t_info->mfn_offset[cpu] && i < b->pages &&
                     (take || done < n); i++, done++ )
        {
            struct page_info *pg = mfn_to_page(_mfn(cpu_mfns(b, cpu)[i]));

            if ( !take )
                share_xen_page_with_privileged_guests(pg, SHARE_rw);
            else if ( !take_back_page(pg) )
                return done;
        }
    return done;
}

/* Every page of @b taken back, or none and -EBUSY. */
static int take_back_bufs(const struct trace_bufs *b)
{
    unsigned int taken = visit_pages(b, true, 0);
    unsigned int cpu, shared = b->t_info_pages;

    for ( cpu = 0; cpu < nr_cpu_ids; cpu++ )
        if ( b->t_info->mfn_offset[cpu] )
            shared += b->pages;
    if ( taken == shared )
        return 0;
    visit_pages(b, false, taken);
    return -EBUSY;
}

static void free_bufs(const struct trace_bufs *b)
{
    unsigned int cpu;

    for ( cpu = 0; cpu < nr_cpu_ids; cpu++ )
        if ( b->t_info->mfn_offset[cpu] )
            free_cpu_pages((uint32_t *)cpu_mfns(b, cpu), b->pages);
    free_xenheap_pages(b->t_info, get_order_from_pages(b->t_info_pages));
}

/*
 * XEN_SYSCTL_TBUFOP_resize: buffers of @pages pages in place of the old,
 * with tracing off and no page of the old mapped; see public/trace.h.
 * The old are taken back first, and shared again if the new cannot be
 * made.  A CPU offline now loses its old buffer, and gets a new one when
 * it comes up.
 */
static int tb_resize(unsigned int pages)
{
    struct trace_bufs old = { t_info, t_info_pages, t_buf_pages };
    unsigned int cpu;
    int rc;

    if ( !pages )
        return -EINVAL;
    if ( !t_buf_pages )
        return alloc_trace_bufs(pages);
    if ( tb_init_done )
        return -EBUSY;
    rc = take_back_bufs(&old);
    if ( rc )
        return rc;

    rc = alloc_trace_bufs(pages);
    if ( rc )
    {
        t_info = old.t_info;
        t_info_pages = old.t_info_pages;
        t_buf_pages = old.pages;
        visit_pages(&old, false, ~0U);
        return rc;
    }

    /* No CPU writes (tracing is off), and none will find the old. */
    for ( cpu = 0; cpu < nr_cpu_ids; cpu++ )
    {
        struct t_cpu *tc = &per_cpu(t_cpu, cpu);
        unsigned long flags;

        if ( !old.t_info->mfn_offset[cpu] || t_info->mfn_offset[cpu] )
            continue;
        spin_lock_irqsave(&tc->t_lock, flags);
        tc->buf = NULL;
        tc->mfns = NULL;
        spin_unlock_irqrestore(&tc->t_lock, flags);
    }
    free_bufs(&old);
    printk(XENLOG_INFO "xentrace: resized from %u to %u pages per CPU\n",
           old.pages, t_buf_pages);
    return 0;
}

/*
 * A CPU that comes up after the buffers were made gets one of its own;
 * t_info always has room for the MFN lists of all nr_cpu_ids CPUs.  If
 * that allocation fails, its records are counted as unbuffered.
 */
static int cf_check cpu_callback(struct notifier_block *nfb,
                                 unsigned long action, void *hcpu)
{
    unsigned int cpu = (unsigned long)hcpu;
    struct t_cpu *tc = &per_cpu(t_cpu, cpu);

    if ( action != CPU_UP_PREPARE )
        return NOTIFY_DONE;

    spin_lock_init(&tc->t_lock);

    spin_lock(&tb_control_lock);
    if ( t_buf_pages && !tc->buf )
    {
        if ( alloc_cpu_pages(cpu) )
            printk(XENLOG_WARNING "trc#%u: no memory for a trace buffer\n",
                   cpu);
        else
            publish_cpu_buffer(cpu);
    }
    spin_unlock(&tb_control_lock);

    return NOTIFY_DONE;
}

static struct notifier_block cpu_nfb = {
    .notifier_call = cpu_callback,
};

/*
 * Xen 4.21 runs this as a constructor, from init_constructors() in
 * start_xen(); older trees call it just before that.  The sysctl interface
 * version, 0x16 since 4.21, tells them apart.
 */
#if XEN_SYSCTL_INTERFACE_VERSION < 0x00000016
void __init init_trace_bufs(void)
#else
void __init __constructor init_trace_bufs(void)
#endif
{
    unsigned int cpu;

    cpumask_setall(&tb_cpu_mask);
    for_each_online_cpu ( cpu )
        spin_lock_init(&per_cpu(t_cpu, cpu).t_lock);
    register_cpu_notifier(&cpu_nfb);

    if ( !opt_tbuf_size )
    {
        if ( opt_tevt_mask )
            printk(XENLOG_WARNING "xentrace: tevt_mask needs tbuf_size, "
                   "ignored\n");
        return;
    }

    /* The mask first: allocation turns tracing on at once. */
    spin_lock(&tb_control_lock);
    if ( opt_tevt_mask )
        tb_event_mask = tb_pass_mask = opt_tevt_mask;
    if ( alloc_trace_bufs(opt_tbuf_size) )
    {
        opt_tbuf_size = 0;
        tb_event_mask = tb_pass_mask = TRC_ALL;
    }
    else
        enable_tracing();
    spin_unlock(&tb_control_lock);
}

/*
 * Filtering
 * =========
 */

/*
 * @event passes event mask @mask if it shares a class bit and a subclass
 * bit with it.  Only the 28 event bits count: a mask's bits 31-28 match
 * nothing (upstream let a mask with bit 31 set pass every timed event).
 */
static bool mask_wants(uint32_t mask, uint32_t event)
{
    uint32_t both = TRC_HD_TO_EVENT(event) & mask;

    return (both >> TRC_CLS_SHIFT) && ((both >> TRC_SUBCLS_SHIFT) & 0xf);
}

/*
 * The masks' first look: the event mask, widened by the classes of the
 * events switched on (see "Per-event switches").  Racing set_evt_mask is
 * fine: this record sees the old or the new.
 */
static bool event_wanted(uint32_t event)
{
    return mask_wants(read_atomic(&tb_pass_mask), event);
}

int trace_will_trace_event(uint32_t event)
{
    return tb_init_done && event_wanted(event) &&
           cpumask_test_cpu(smp_processor_id(), &tb_cpu_mask);
}

/*
 * Filtering
 * =========
 *
 * Beside the event and CPU masks, two filters of our own (public/trace.h):
 * per-event switches and the domain filter.  Both cost nothing unused.
 */

/*
 * Per-event switches: events switched on are traced whatever the event
 * mask says, events switched off never.  An event is its 28 bits, a
 * runstate change's states cleared.
 *
 * They cost nothing unused.  The masks' first look is at tb_pass_mask,
 * the event mask with the class and subclass bits of each event switched
 * on, so that the masked path is the same few instructions; while any
 * event is switched, every record that passed goes to the slow path (its
 * room is 0, as for the domain filter), which looks at the switches and
 * at the event mask itself.  A slot is one word, 0 when empty, written
 * whole under tb_control_lock; a change then takes every CPU's t_lock
 * (quiesce_record_paths()), after which every record sees it.
 */
#define EVENT_SWITCHES  64

struct switches {
    uint32_t slot[EVENT_SWITCHES];
    unsigned int top;           /* slots from top on have never been used */
};
static struct switches events_on, events_off;
static unsigned int nr_switched;                /* in both */

static uint32_t event_key(uint32_t event)
{
    event = TRC_HD_TO_EVENT(event);
    return (event & XT_RUNSTATE_CHANGE_MASK) == XT_RUNSTATE_CHANGE
           ? XT_RUNSTATE_CHANGE : event;
}

/*
 * The slot of @event's key in @t, or EVENT_SWITCHES if none.  A slot is
 * filled before top grows past it: a look at an older top misses only
 * what was not switched yet.
 */
static unsigned int event_slot(const struct switches *t, uint32_t event)
{
    uint32_t key = event_key(event);
    unsigned int i, top = read_atomic(&t->top);

    for ( i = 0; i < top; i++ )
        if ( read_atomic(&t->slot[i]) == key )
            return i;
    return EVENT_SWITCHES;
}

/* In the slow path, with some event switched: does @event go on? */
static bool noinline switches_let(uint32_t event)
{
    if ( event_slot(&events_off, event) < EVENT_SWITCHES )
        return false;
    return event_slot(&events_on, event) < EVENT_SWITCHES ||
           mask_wants(read_atomic(&tb_event_mask), event);
}

/*
 * The domain filter is a bitmap of every domain id up to DOMID_IDLE, one
 * page, in force while dom_filter is not NULL.  Control fills a second
 * page, the staged list, and a commit swaps the two.
 *
 * The filter costs nothing unless it is on, as the record path looks at it
 * only in the slow path (see "Writing records"): a filter in force keeps
 * every CPU's room at 0, so each record that passed the masks goes there,
 * and reads dom_filter once, under its CPU's t_lock.  A commit then takes
 * and releases every CPU's t_lock, setting its room to 0: after that no
 * CPU reads the page it replaced, which becomes the staged list and is
 * cleared, and every CPU's next record sees the new filter.
 */
#define DOM_FILTER_IDS  (DOMID_IDLE + 1)      /* one bit each: a page */

static const unsigned long *dom_filter;       /* NULL: every domain */
static unsigned long *dom_filter_pages[2];    /* both, or none yet */
static unsigned int dom_filter_staged;        /* the page not in force */

static bool dom_listed(const unsigned long *filter, unsigned int domid)
{
    return domid < DOM_FILTER_IDS && test_bit(domid, filter);
}

/*
 * Does the filter keep a record of @event with payload @d of @words words,
 * written now on this CPU?  Called with the CPU's t_lock held.
 */
static bool noinline dom_wanted(const unsigned long *filter, uint32_t event,
                                unsigned int words, const uint32_t *d)
{
    uint32_t dom[XT_RECORD_DOMAINS_MAX];
    unsigned int i, n;

    if ( (TRC_HD_TO_EVENT(event) >> TRC_CLS_SHIFT) ==
         (TRC_GEN >> TRC_CLS_SHIFT) )
        return true;
    if ( dom_listed(filter, current->domain->domain_id) )
        return true;

    n = xt_record_domains(event, d, words, dom);
    for ( i = 0; i < n; i++ )
        if ( dom_listed(filter, dom[i]) )
            return true;

    return false;
}

/*
 * Wait until no CPU is in a record path that began before now, and send
 * each CPU's next record to the slow path, which sees the filter now in
 * force and works out the room again.
 */
static void quiesce_record_paths(void)
{
    unsigned int cpu;
    unsigned long flags;

    for_each_online_cpu ( cpu )
    {
        struct t_cpu *tc = &per_cpu(t_cpu, cpu);

        spin_lock_irqsave(&tc->t_lock, flags);
        tc->room = 0;
        spin_unlock_irqrestore(&tc->t_lock, flags);
    }
}

/* The two pages, allocated and cleared on first use; 0 or -ENOMEM. */
static int dom_filter_alloc(void)
{
    unsigned int i;

    if ( dom_filter_pages[0] )
        return 0;
    for ( i = 0; i < 2; i++ )
    {
        dom_filter_pages[i] = alloc_xenheap_pages(0, 0);
        if ( !dom_filter_pages[i] )
        {
            if ( i )
                free_xenheap_pages(dom_filter_pages[0], 0);
            dom_filter_pages[0] = NULL;
            return -ENOMEM;
        }
        clear_page(dom_filter_pages[i]);
    }

    return 0;
}

/* XEN_SYSCTL_TBUFOP_dom_filter_stage.  Caller holds tb_control_lock. */
static int dom_filter_stage(uint32_t range, bool add)
{
    unsigned int first = range >> 16, last = range & 0xffff, id;
    unsigned long *staged;
    int rc = dom_filter_alloc();

    if ( rc )
        return rc;
    staged = dom_filter_pages[dom_filter_staged];
    if ( !add )
    {
        clear_page(staged);
        return 0;
    }
    if ( first > last || last >= DOM_FILTER_IDS )
        return -EINVAL;
    for ( id = first; id <= last; id++ )
        __set_bit(id, staged);

    return 0;
}

/* The event mask with the classes of the events switched on. */
static void set_pass_mask(void)
{
    uint32_t mask = tb_event_mask;
    unsigned int i;

    for ( i = 0; i < events_on.top; i++ )
        mask |= events_on.slot[i] & TRC_ALL;
    write_atomic(&tb_pass_mask, mask);
}

/* Drop @event's switch from @t, if it has one. */
static void unswitch(struct switches *t, uint32_t event)
{
    unsigned int i = event_slot(t, event);

    if ( i == EVENT_SWITCHES )
        return;
    write_atomic(&t->slot[i], 0);
    write_atomic(&nr_switched, nr_switched - 1);
}

/* Switch @event in @t, which has room.  Caller holds tb_control_lock. */
static void switch_event(struct switches *t, uint32_t event)
{
    unsigned int i = event_slot(t, 0);

    if ( i == EVENT_SWITCHES )
        i = t->top;
    write_atomic(&t->slot[i], event_key(event));
    smp_wmb();                          /* the slot, then the top */
    if ( i == t->top )
        write_atomic(&t->top, i + 1);
    write_atomic(&nr_switched, nr_switched + 1);
}

/*
 * XEN_SYSCTL_TBUFOP_event_switch.  While it changes the tables and the
 * pass mask, one more switch is counted, so that every record goes to
 * the slow path, which decides by the tables and the event mask: each
 * record sees the switch before or after, whatever it reads of the pass
 * mask.  Caller holds tb_control_lock.
 */
static int event_switch(uint32_t event, uint32_t state)
{
    struct switches *t = state == XEN_TBUF_EVENT_ON ? &events_on
                                                    : &events_off;

    if ( !event || event != TRC_HD_TO_EVENT(event) ||
         state > XEN_TBUF_EVENT_MASKS )
        return -EINVAL;
    if ( state != XEN_TBUF_EVENT_MASKS &&
         event_slot(t, event) == EVENT_SWITCHES &&
         event_slot(t, 0) == EVENT_SWITCHES && t->top == EVENT_SWITCHES )
        return -ENOSPC;                 /* new, and no slot free */

    write_atomic(&nr_switched, nr_switched + 1);
    quiesce_record_paths();
    unswitch(&events_on, event);
    unswitch(&events_off, event);
    if ( state != XEN_TBUF_EVENT_MASKS )
        switch_event(t, event);
    set_pass_mask();
    write_atomic(&nr_switched, nr_switched - 1);
    quiesce_record_paths();

    return 0;
}

/*
 * XEN_SYSCTL_TBUFOP_dom_filter_commit: the staged page in force (@on) or
 * none; then, with no CPU left reading it, the page replaced is cleared
 * and staged next.  Caller holds tb_control_lock.
 */
static int dom_filter_commit(bool on)
{
    unsigned int replaced = !dom_filter_staged;
    int rc = dom_filter_alloc();

    if ( rc )
        return rc;
    write_atomic(&dom_filter, on ? (const unsigned long *)
                                   dom_filter_pages[dom_filter_staged]
                                 : NULL);
    quiesce_record_paths();
    clear_page(dom_filter_pages[replaced]);
    if ( on )
        dom_filter_staged = replaced;
    else
        clear_page(dom_filter_pages[dom_filter_staged]);

    return 0;
}

/*
 * Writing records
 * ===============
 *
 * A record is written with interrupts off and the buffer's t_lock held, on
 * the buffer's CPU, by one of two paths.
 *
 * The fast path writes it in place at tc->next, and needs only two
 * compares to know that it may: the record is shorter than tc->room, and
 * dom0's cons still has the value tc->cons that the room was worked out
 * from.  The room ends before the first of
 *
 *  - the end of the page at prod, so that the record is contiguous where
 *    tc->next points, and prod cannot reach the end of the data area (the
 *    last page's end) and wrap;
 *  - below the high-water mark, the mark itself: the record cannot cross
 *    it, so there is no virq to send;
 *  - at or above the mark, LOST_RESERVE short of the end of the free space:
 *    the record fits.
 *
 * It is 0 while a lost count is pending (a marker must go first), while
 * the domain filter is on (the slow path applies it), and on a CPU
 * without a buffer.  Since cons is compared with the value the room was
 * based on, the fast path writes exactly what the full checks would: same
 * bytes, same losses, same virqs, and a bad cons is caught by the very next
 * record.  So the page lookup, the check of cons, the loss and pad checks
 * and the high-water check all fold into one limit, and a record that
 * reaches it takes the slow path.
 *
 * The slow path, put_trace_slow(), reads and checks cons afresh, writes the
 * pending lost marker and a wrap pad if need be, writes the record (a
 * record that crosses a page boundary is built in tc->split and copied out
 * in two parts), tells whether the record crossed the high-water mark, and
 * works out the room for the records after it.  It runs about once per
 * page of records, and once each time dom0 moves cons.  Anything else that
 * moves prod (the flush at disable) or gives a CPU its buffer sets the room
 * to 0, which sends the next record there.
 *
 * Time.  A record's TSC is read with interrupts off, so that no trace point
 * of an interrupt comes between it and the record, but before the lock, so
 * that reading it overlaps taking the lock.  The one other writer of a
 * buffer is the control CPU, flushing a pending lost count at disable: it
 * may hold the buffer's t_lock after the buffer's CPU read a TSC and before
 * that CPU gets the lock (and writes, if tracing was enabled again in
 * between).  So that marker is stamped with the TSC of the last loss it
 * counts, which the buffer's CPU read before any TSC of a later record of
 * its own, and not with the control CPU's clock: a buffer's TSCs never go
 * backwards, and the marker spans its losses, first_tsc to its own TSC.
 * Markers and pads written before a record carry the record's TSC.
 */

/* The data offset of index @idx. */
static inline uint32_t data_offset(uint32_t idx)
{
    return idx < data_size ? idx : idx - data_size;
}

static inline uint32_t advance(uint32_t idx, uint32_t bytes)
{
    idx += bytes;
    return idx < 2 * data_size ? idx : idx - 2 * data_size;
}

static uint32_t noinline resync_buffer(struct t_cpu *tc, unsigned int cpu,
                                       uint32_t cons)
{
    if ( !tc->stats.resyncs++ )
        printk(XENLOG_WARNING "trc#%u: bogus cons %#x (prod %#x, size %#x), "
               "buffer reset\n", cpu, cons, tc->prod, data_size);
    write_atomic(&tc->buf->cons, tc->prod);
    tc->cons = tc->prod;

    return 0;
}

/*
 * Bytes between cons and prod.  ->cons is dom0's: read it once (A: pairs
 * with D), and if it cannot be right, empty this buffer and carry on.
 * tc->cons is left with the value the result is based on.
 */
static uint32_t unconsumed_bytes(struct t_cpu *tc, unsigned int cpu)
{
    uint32_t cons = read_atomic(&tc->buf->cons);
    uint32_t used = tc->prod - cons;

    if ( tc->prod < cons )
        used += 2 * data_size;

    if ( unlikely((cons & 3) || cons >= 2 * data_size || used > data_size) )
        return resync_buffer(tc, cpu, cons);

    tc->cons = cons;
    return used;
}

/* Bytes of padding that a @size-byte record written at @idx needs first. */
static inline uint32_t pad_before(uint32_t idx, unsigned int size)
{
    uint32_t to_end = data_size - data_offset(idx);

    return size > to_end ? to_end : 0;
}

/*
 * Bytes that writing a @size-byte record now takes: the pending lost
 * marker, if any, then the record, each with its padding.  @size 0 is
 * the marker alone.
 */
static uint32_t bytes_needed(const struct t_cpu *tc, unsigned int size)
{
    uint32_t idx = tc->prod;
    uint32_t total = 0, step;

    if ( tc->lost_records )
    {
        step = pad_before(idx, LOST_REC_SIZE) + LOST_REC_SIZE;
        total += step;
        idx = advance(idx, step);
    }
    if ( size )
        total += pad_before(idx, size) + size;

    return total;
}

/* Copy @len bytes to data offset @off, across a page boundary if need be. */
static void copy_to_buffer(const struct t_cpu *tc, uint32_t off,
                           const void *src, unsigned int len)
{
    unsigned int pos = sizeof(struct t_buf) + off;
    unsigned int in_page = pos & (PAGE_SIZE - 1);
    unsigned char *dst = mfn_to_virt(tc->mfns[pos >> PAGE_SHIFT]);
    unsigned int first = min_t(unsigned int, len, PAGE_SIZE - in_page);

    memcpy(dst + in_page, src, first);
    if ( first < len )
        memcpy(mfn_to_virt(tc->mfns[(pos >> PAGE_SHIFT) + 1]),
               (const unsigned char *)src + first, len - first);
}

/* Where a @size-byte record at data offset @off goes: in place, or split. */
static uint32_t *record_space(struct t_cpu *tc, uint32_t off,
                              unsigned int size)
{
    unsigned int pos = sizeof(struct t_buf) + off;
    unsigned int in_page = pos & (PAGE_SIZE - 1);

    if ( in_page + size > PAGE_SIZE )
        return tc->split;

    return mfn_to_virt(tc->mfns[pos >> PAGE_SHIFT]) + in_page;
}

/*
 * The fast path's room at prod, where @used bytes are unconsumed as of
 * tc->cons; see "Writing records" above.
 */
static void set_room(struct t_cpu *tc, uint32_t used)
{
    unsigned int pos = sizeof(struct t_buf) + data_offset(tc->prod);
    unsigned int in_page = pos & (PAGE_SIZE - 1);
    uint32_t limit;

    if ( used < t_buf_highwater )
        limit = t_buf_highwater - used;
    else
        limit = data_size - min(data_size, used + LOST_RESERVE);

    tc->next = mfn_to_virt(tc->mfns[pos >> PAGE_SHIFT]) + in_page;
    tc->room = tc->lost_records || read_atomic(&dom_filter) ||
               read_atomic(&nr_switched)
               ? 0 : min_t(uint32_t, PAGE_SIZE - in_page, limit);
}

/*
 * Fill in a record's header and, if @cycles, the TSC @tsc at @rec; returns
 * where its payload goes.
 */
static inline uint32_t *put_header(uint32_t *rec, uint32_t event,
                                   bool cycles, uint64_t tsc,
                                   unsigned int words)
{
    *rec++ = TRC_HD_TO_EVENT(event) | (words << TRACE_EXTRA_SHIFT) |
             (cycles ? TRC_HD_CYCLE_FLAG : 0);
    if ( cycles )
    {
        *rec++ = tsc;
        *rec++ = tsc >> 32;
    }

    return rec;
}

/*
 * Copy @words words of payload from @src, which need not be aligned.  @src
 * is NULL when there are none, and memcpy() may not be passed NULL.
 */
static inline void put_payload(uint32_t *dst, const void *src,
                               unsigned int words)
{
    if ( words )
        memcpy(dst, src, words * sizeof(uint32_t));
}

/* Write a whole record built elsewhere at prod, and advance prod. */
static void put_record(struct t_cpu *tc, const uint32_t *rec,
                       unsigned int size)
{
    copy_to_buffer(tc, data_offset(tc->prod), rec, size);
    tc->prod = advance(tc->prod, size);
}

/*
 * Pad to the end of the data area if a @size-byte record would not fit.
 * A 36-byte pad carries a TSC: @tsc, that of what follows it.
 */
static void put_wrap_pad(struct t_cpu *tc, unsigned int size, uint64_t tsc)
{
    uint32_t pad = pad_before(tc->prod, size);
    uint32_t rec[1 + 2 + TRACE_EXTRA_MAX] = { 0 };

    if ( !pad )
        return;
    /* 4-32 bytes is a header and 0-7 words; 36 needs the TSC's 8 bytes. */
    if ( pad <= 4 + 4 * TRACE_EXTRA_MAX )
        put_header(rec, TRC_TRACE_WRAP_BUFFER, false, 0, (pad - 4) / 4);
    else
        put_header(rec, TRC_TRACE_WRAP_BUFFER, true, tsc, (pad - 12) / 4);
    put_record(tc, rec, pad);
}

/*
 * The marker for records lost so far, stamped @tsc.  Its count is 32 bits:
 * a larger count is reported in parts, one per record written, until it is
 * all out.
 */
static void put_lost_records(struct t_cpu *tc, domid_t did, unsigned int vid,
                             uint64_t tsc)
{
    uint32_t count = min_t(unsigned long, tc->lost_records, UINT32_MAX);
    uint32_t rec[1 + 2 + XT_LOST_RECORDS_WORDS];
    uint32_t *payload = put_header(rec, TRC_LOST_RECORDS, true, tsc,
                                   XT_LOST_RECORDS_WORDS);

    payload[XT_LOST_RECORDS_COUNT] = count;
    payload[XT_LOST_RECORDS_LOST_ON] = XT_VD_WORD(vid, did);
    payload[XT_LOST_RECORDS_FIRST_TSC] = tc->lost_records_first_tsc;
    payload[XT_LOST_RECORDS_FIRST_TSC + 1] = tc->lost_records_first_tsc >> 32;

    put_wrap_pad(tc, LOST_REC_SIZE, tsc);
    put_record(tc, rec, LOST_REC_SIZE);
    tc->lost_records -= count;
}

/* A record of time @tsc found no room. */
static void note_lost_record(struct t_cpu *tc, uint64_t tsc)
{
    if ( !tc->lost_records++ )
        tc->lost_records_first_tsc = tsc;
    tc->lost_records_last_tsc = tsc;
    tc->stats.lost++;
    tc->room = 0;
}

/* Xen's view of a @size-byte record that ends at index @prod. */
static always_inline void count_record(struct t_cpu *tc, uint32_t prod,
                                       unsigned int size)
{
    tc->prod = prod;
    tc->stats.records++;
    tc->stats.bytes += size;
}

/* Show dom0 the records up to index @prod. */
static always_inline void publish_prod(struct t_buf *buf, uint32_t prod)
{
    smp_wmb(); /* B: records before prod; pairs with C. */
    write_atomic(&buf->prod, prod);
}

static void noinline note_unbuffered_record(struct t_cpu *tc,
                                            unsigned int cpu)
{
    if ( !tc->stats.unbuffered++ )
        printk(XENLOG_WARNING "trc#%u: no trace buffer on this CPU; "
               "its records are counted and dropped\n", cpu);
}

/*
 * The slow path (see "Writing records"): @event with @extra bytes from
 * @extra_data, at time @tsc if it carries one.  Returns whether the record
 * crossed the high-water mark.
 */
static bool noinline put_trace_slow(struct t_cpu *tc, unsigned int cpu,
                                    uint32_t event, uint64_t tsc,
                                    unsigned int extra,
                                    const void *extra_data)
{
    bool cycles = event & TRC_HD_CYCLE_FLAG;
    unsigned int words = extra / sizeof(uint32_t);
    unsigned int size = sizeof(uint32_t) * (1 + (cycles ? 2 : 0) + words);
    uint32_t used, needed, *rec;
    const unsigned long *filter = read_atomic(&dom_filter);

    if ( (read_atomic(&nr_switched) && !switches_let(event)) ||
         (filter && !dom_wanted(filter, event, words, extra_data)) )
        return false;               /* see "Filtering" */
    if ( !tc->buf )
    {
        note_unbuffered_record(tc, cpu);
        return false;
    }

    /* A marker or a pad may need a time, and a loss keeps it. */
    if ( !cycles )
        tsc = get_cycles();

    used = unconsumed_bytes(tc, cpu);
    needed = bytes_needed(tc, size);
    if ( needed + LOST_RESERVE > data_size - used )
    {
        note_lost_record(tc, tsc);
        return false;
    }

    /* A: the room check on cons resolved before these stores. */
    if ( tc->lost_records )
        put_lost_records(tc, current->domain->domain_id, current->vcpu_id,
                         tsc);
    put_wrap_pad(tc, size, tsc);

    rec = record_space(tc, data_offset(tc->prod), size);
    put_payload(put_header(rec, event, cycles, tsc, words), extra_data, words);
    if ( rec == tc->split )
        copy_to_buffer(tc, data_offset(tc->prod), rec, size);
    count_record(tc, advance(tc->prod, size), size);
    publish_prod(tc->buf, tc->prod);
    set_room(tc, used + needed);

    return used < t_buf_highwater && used + needed >= t_buf_highwater;
}

/*
 * Write @event, with a TSC if its bit 31 is set, and @extra bytes of
 * payload (whole words, at most TRACE_EXTRA_MAX) from @extra_data, if it
 * passes the masks.  trace() has one copy of this per payload size.
 */
static always_inline void put_trace(uint32_t event, unsigned int extra,
                                    const void *extra_data)
{
    unsigned int cpu = smp_processor_id();
    bool cycles = event & TRC_HD_CYCLE_FLAG;
    unsigned int words, size;
    struct t_cpu *tc;
    unsigned long flags;
    uint64_t tsc = 0;
    bool notify = false;

    if ( !tb_init_done || !event_wanted(event) ||
         !cpumask_test_cpu(cpu, &tb_cpu_mask) )
        return;

    words = extra / sizeof(uint32_t);
    size = sizeof(uint32_t) * (1 + (cycles ? 2 : 0) + words);
    tc = &this_cpu(t_cpu);

    local_irq_save(flags);
    if ( cycles )
        tsc = get_cycles();    /* before the lock: see "Time" above */
    spin_lock(&tc->t_lock);

    /*
     * Again under the lock: disable clears tb_init_done, then takes each
     * CPU's t_lock, so once it returns no record is written.  That makes a
     * consumer's final sweep after disable complete.
     */
    if ( unlikely(!tb_init_done) )
        goto unlock;

    if ( likely(size < tc->room) &&
         likely(read_atomic(&tc->buf->cons) == tc->cons) )
    {
        /*
         * The fast path.  A: the compare with cons resolved before the
         * stores to the record.  tc is done with first, as stores to the
         * record may alias anything (Xen builds with -fno-strict-aliasing).
         */
        uint32_t *rec = tc->next;
        uint32_t prod = tc->prod + size;
        struct t_buf *buf = tc->buf;

        tc->next = rec + size / sizeof(uint32_t);
        tc->room -= size;
        count_record(tc, prod, size);
        put_payload(put_header(rec, event, cycles, tsc, words), extra_data,
                    words);
        publish_prod(buf, prod);
    }
    else
        notify = put_trace_slow(tc, cpu, event, tsc, extra, extra_data);

 unlock:
    spin_unlock(&tc->t_lock);
    local_irq_restore(flags);

    if ( notify )
        tasklet_schedule(&trace_notify_dom0_tasklet);
}

/*
 * Xen 4.18's rule: whole words only, and no more than a record holds.
 * Each size has a copy of the record path of its own, in which the size of
 * the record, its header's word count and the copy of its payload are
 * constants: the copy is then a few moves rather than a loop, and the
 * switch is also the check of the size.
 */
void trace(uint32_t event, unsigned int extra, const void *extra_data)
{
    switch ( extra )
    {
    case  0: put_trace(event,  0, extra_data); break;
    case  4: put_trace(event,  4, extra_data); break;
    case  8: put_trace(event,  8, extra_data); break;
    case 12: put_trace(event, 12, extra_data); break;
    case 16: put_trace(event, 16, extra_data); break;
    case 20: put_trace(event, 20, extra_data); break;
    case 24: put_trace(event, 24, extra_data); break;
    case 28: put_trace(event, 28, extra_data); break;
    default:
        printk_once(XENLOG_WARNING "Trace event %#x bad size %u, "
                    "discarding\n", event, extra);
        break;
    }
}

#if TRACE_API_4_17
/*
 * Xen 4.17's rule, which its callers rely on (HVMOP_xentrace passes the
 * guest's byte count): a partial word is padded, and a longer payload cut.
 */
void __trace_var(uint32_t event, bool cycles, unsigned int extra,
                 const void *extra_data)
{
    uint32_t padded[TRACE_EXTRA_MAX];

    if ( unlikely(extra > sizeof(padded)) )
    {
        printk_once(XENLOG_WARNING "Trace event %#x bad size %u, "
                    "truncated\n", event, extra);
        extra = sizeof(padded);
    }
    if ( unlikely(extra % sizeof(uint32_t)) )
    {
        /* Never read past @extra bytes of the caller's object. */
        padded[extra / sizeof(uint32_t)] = 0;
        memcpy(padded, extra_data, extra);
        extra_data = padded;
        extra = sizeof(uint32_t) * DIV_ROUND_UP(extra, sizeof(uint32_t));
    }

    trace(TRC_HD_TO_EVENT(event) | (cycles ? TRC_HD_CYCLE_FLAG : 0), extra,
          extra_data);
}
#endif

/*
 * Control
 * =======
 */

/*
 * Write @cpu's pending lost-records count now, so that a consumer's final
 * sweep after disable finds it.  LOST_RESERVE guarantees the room for one
 * marker unless tracing was re-enabled and disabled with no sweep in
 * between; a count of 2^32 or more takes as many parts as there is room
 * for.  What does not fit stays pending for the next record.
 */
static void flush_lost_records(unsigned int cpu)
{
    struct t_cpu *tc = &per_cpu(t_cpu, cpu);
    unsigned long flags;

    spin_lock_irqsave(&tc->t_lock, flags);
    if ( tc->buf )
    {
        while ( tc->lost_records &&
                bytes_needed(tc, 0) <= data_size - unconsumed_bytes(tc, cpu) )
            put_lost_records(tc, DOMID_IDLE, cpu, tc->lost_records_last_tsc);
        tc->room = 0;
        publish_prod(tc->buf, tc->prod);
    }
    spin_unlock_irqrestore(&tc->t_lock, flags);
}

int tb_control(struct xen_sysctl_tbuf_op *tbc)
{
    cpumask_var_t mask;
    unsigned int cpu;
    int rc = 0;

    spin_lock(&tb_control_lock);

    switch ( tbc->cmd )
    {
    case XEN_SYSCTL_TBUFOP_get_info:
        tbc->evt_mask = tb_event_mask;
        tbc->buffer_mfn = t_info ? virt_to_mfn(t_info) : 0;
        tbc->size = t_info_pages * PAGE_SIZE;
        break;

    case XEN_SYSCTL_TBUFOP_set_cpu_mask:
        rc = xenctl_bitmap_to_cpumask(&mask, &tbc->cpu_mask);
        if ( rc )
            break;
        cpumask_copy(&tb_cpu_mask, mask);
        free_cpumask_var(mask);
        break;

    case XEN_SYSCTL_TBUFOP_set_evt_mask:
        /* A record sees the old pass mask or the new: see event_wanted(). */
        write_atomic(&tb_event_mask, tbc->evt_mask);
        set_pass_mask();
        break;

    case XEN_SYSCTL_TBUFOP_set_size:
        rc = tb_set_size(tbc->size);
        break;

    case XEN_SYSCTL_TBUFOP_enable:
        if ( !t_buf_pages )
        {
            rc = -EINVAL;
            break;
        }
        tb_init_done = true;
        break;

    case XEN_SYSCTL_TBUFOP_dom_filter_stage:
        rc = dom_filter_stage(tbc->evt_mask, tbc->size);
        break;

    case XEN_SYSCTL_TBUFOP_dom_filter_commit:
        rc = dom_filter_commit(tbc->size);
        break;

    case XEN_SYSCTL_TBUFOP_event_switch:
        rc = event_switch(tbc->evt_mask, tbc->size);
        break;

    case XEN_SYSCTL_TBUFOP_resize:
        rc = tb_resize(tbc->size);
        break;

    case XEN_SYSCTL_TBUFOP_disable:
        tb_init_done = false;
        /*
         * No barrier needed: each t_lock taken below orders the store
         * before any record path that takes that lock later.
         */
        for_each_online_cpu ( cpu )
            flush_lost_records(cpu);
        break;

    default:
        rc = -EINVAL;
        break;
    }

    spin_unlock(&tb_control_lock);

    return rc;
}

/*
 * The scalar arguments of @op worth recording, as a bitmap of argument
 * numbers: counts, commands and vCPU ids, never guest pointers.
 */
static unsigned int hypercall_scalar_args(unsigned long op)
{
    switch ( op )
    {
    case __HYPERVISOR_mmu_update:     return 1U << 1;              /* count */
    case __HYPERVISOR_multicall:      return 1U << 1;              /* count */
    case __HYPERVISOR_grant_table_op: return (1U << 0) | (1U << 2);
    case __HYPERVISOR_vcpu_op:        return (1U << 0) | (1U << 1);
    case __HYPERVISOR_mmuext_op:      return 1U << 1;              /* count */
    case __HYPERVISOR_sched_op:       return 1U << 0;              /* cmd */
    default:                          return 0;
    }
}

void __trace_hypercall(uint32_t event, unsigned long op,
                       const xen_ulong_t *args)
{
    uint32_t d[1 + 6];
    unsigned int want = hypercall_scalar_args(op);
    unsigned int i, n = 1;

    d[0] = op & ~TRC_PV_HYPERCALL_V2_ARG_MASK;
    for ( i = 0; i < 6; i++ )
    {
        if ( !(want & (1U << i)) )
            continue;
        d[0] |= TRC_PV_HYPERCALL_V2_ARG_32(i);
        d[n++] = args[i];
    }

    trace_time(event, n * sizeof(uint32_t), d);
}

void trace_cpu_stats(unsigned int cpu, struct trace_cpu_stats *stats)
{
    struct t_cpu *tc = &per_cpu(t_cpu, cpu);
    unsigned long flags;

    spin_lock_irqsave(&tc->t_lock, flags);
    *stats = tc->stats;
    spin_unlock_irqrestore(&tc->t_lock, flags);
}

/*
 * Local variables:
 * mode: C
 * c-file-style: "BSD"
 * c-basic-offset: 4
 * tab-width: 4
 * indent-tabs-mode: nil
 * End:
 */
