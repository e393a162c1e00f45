/*
 * xentrace: checking and counting what a CPU's trace buffer held.
 *
 * The buffers are shared pages that any dom0 process may map read-write,
 * so what lies between cons and prod is input, not fact: another process
 * may have moved cons into the middle of a record or written over the
 * records.  Xen's own records have a shape that garbage seldom has, and
 * each piece of a window is checked against it as it is counted, right
 * after it was copied (so while it is in the cache, and so that what is
 * checked is what is written, whatever the other process does next):
 *
 *   - the records tile the piece exactly: none runs past its end;
 *   - each event is of a class and subclass Xen writes, and in TRC_GEN
 *     only Xen's own (a lost-records marker of its
 *     size, a wrap pad that ends at the wrap, TRC_TRACE_IRQ), never the
 *     file's (batch headers, xentrace-ng's metadata);
 *   - TSCs do not run backwards on the CPU.
 *
 * A piece is written only if all of it passes: where a record fails,
 * the piece is skipped to its end, the next place where Xen's records
 * provably start again (prod, where Xen writes next, or the wrap, where
 * it starts again after its pad), and from its start, since the records
 * before the failure may be garbage that merely looks right.  So garbage
 * gets into the file only if it tiles a whole piece with records of
 * Xen's shape.  The walk also notes the vCPU that the CPU's last context
 * switch ran, for the marks of a gap (xentrace.c).
 *
 * A cons that is not where xentrace left it was moved by another process.
 * Moved back, it points at records taken already: those bytes are
 * skipped before the walk, which starts where xentrace left cons.  Moved
 * on, the bytes it passed over are gone (Xen may be writing over them
 * already), and the window starts where no record is known to.
 */
#include <string.h>

#include "window.h"
#include "xtfile.h"

#define TRC_TRACE_IRQ   (TRC_GEN + 4)   /* Xen 4.17's trace.h; not in ours */
#define LOST_WORDS      4u              /* TRC_LOST_RECORDS's payload */

/*
 * Whether Xen writes events of @event's class and subclass: those of
 * public/trace.h, the same from 4.17 to 4.22 (a class without
 * subclasses has them all set, as TRC_GEN's 0x0001f000).
 */
static bool xen_class(uint32_t event)
{
    unsigned int sub = (event >> TRC_SUBCLS_SHIFT) & 0xf;

    switch ( event >> TRC_CLS_SHIFT )
    {
    case TRC_GEN >> TRC_CLS_SHIFT:
    case TRC_MEM >> TRC_CLS_SHIFT:
    case TRC_SHADOW >> TRC_CLS_SHIFT:
    case TRC_GUEST >> TRC_CLS_SHIFT:
        return sub == 0xf;
    case TRC_SCHED >> TRC_CLS_SHIFT:        /* MIN, CLASS, VERBOSE */
        return sub == 1 || sub == 2 || sub == 8;
    case TRC_DOM0OP >> TRC_CLS_SHIFT:       /* DOM0_DOMOPS */
        return sub == 1;
    case TRC_HVM >> TRC_CLS_SHIFT:          /* ENTRYEXIT, HANDLER, EMUL */
        return sub == 1 || sub == 2 || sub == 4;
    case TRC_PV >> TRC_CLS_SHIFT:           /* ENTRY, SUBCALL */
    case TRC_HW >> TRC_CLS_SHIFT:           /* PM, IRQ */
        return sub == 1 || sub == 2;
    default:
        return false;
    }
}

/* Whether Xen writes @hdr, a record ending the piece if @last. */
static bool xen_writes(uint32_t hdr, bool last, bool at_wrap)
{
    uint32_t event = TRC_HD_TO_EVENT(hdr);

    if ( !xen_class(event) )
        return false;
    if ( event >> TRC_CLS_SHIFT != TRC_GEN >> TRC_CLS_SHIFT )
        return true;
    switch ( event )
    {
    case TRC_LOST_RECORDS:
        return TRC_HD_INCLUDES_CYCLE_COUNT(hdr) &&
               TRC_HD_EXTRA(hdr) == LOST_WORDS;
    case TRC_TRACE_WRAP_BUFFER:
        return last && at_wrap;
    case TRC_TRACE_IRQ:
        return true;
    default:
        return false;
    }
}

/* The payload word @i of the record at @p, whose header is @hdr. */
static uint32_t payload(const uint8_t *p, uint32_t hdr, unsigned int i)
{
    uint32_t word;

    memcpy(&word, p + 4 * (1 + 2 * TRC_HD_INCLUDES_CYCLE_COUNT(hdr) + i), 4);
    return word;
}

/* Why the record at @p, @left bytes before the piece's end, is not Xen's. */
static uint32_t not_xen(const uint8_t *p, size_t left, bool at_wrap,
                        uint64_t floor)
{
    uint32_t hdr, size;
    uint64_t tsc;

    memcpy(&hdr, p, 4);
    size = 4 * xt_record_words(hdr);
    if ( size > left )
        return XT_SKIP_TILE;
    if ( !xen_writes(hdr, size == left, at_wrap) )
        return XT_SKIP_EVENT;
    if ( TRC_HD_INCLUDES_CYCLE_COUNT(hdr) )
    {
        memcpy(&tsc, p + 4, 8);
        if ( tsc < floor )
            return XT_SKIP_TSC;
    }
    return 0;
}

bool check_piece(struct cpu_check *c, const uint8_t *p, size_t len,
                 bool at_wrap, uint32_t *why)
{
    const uint8_t *end = p + len, *last_switch = NULL;
    uint64_t floor = c->floor_tsc, records = 0, lost = 0;
    uint32_t hdr, count;

    for ( ; p < end; p += 4 * xt_record_words(hdr) )
    {
        if ( (*why = not_xen(p, end - p, at_wrap, floor)) )
        {
            c->count.skipped += len;
            return false;
        }
        memcpy(&hdr, p, 4);
        if ( TRC_HD_INCLUDES_CYCLE_COUNT(hdr) )
            memcpy(&floor, p + 4, 8);
        switch ( TRC_HD_TO_EVENT(hdr) )
        {
        case TRC_SCHED_SWITCH:
            if ( TRC_HD_EXTRA(hdr) >= 4 )
                last_switch = p;
            break;
        case TRC_LOST_RECORDS:
            memcpy(&count, p + 12, 4);
            lost += count;
            break;
        }
        records += TRC_HD_TO_EVENT(hdr) != TRC_TRACE_WRAP_BUFFER;
    }

    c->count.records += records;
    c->count.lost += lost;
    c->count.bytes += len;
    if ( floor > c->count.last_tsc )
        c->count.last_tsc = floor;
    c->floor_tsc = floor;
    if ( last_switch )
    {
        memcpy(&hdr, last_switch, 4);
        c->running_dom = payload(last_switch, hdr, 2);
        c->running_vcpu = payload(last_switch, hdr, 3);
        c->knows_running = true;
    }
    return true;
}

uint32_t cons_moved(const struct cpu_check *c, uint32_t cons, uint32_t len,
                    uint32_t data_size, bool *back)
{
    uint32_t ring = 2 * data_size;
    uint32_t behind = (c->next_cons + ring - cons) % ring;
    uint32_t ahead = (cons + ring - c->next_cons) % ring;

    *back = false;
    if ( !c->knows_cons || cons == c->next_cons )
        return 0;
    if ( behind <= len )
    {
        *back = true;
        return behind;
    }
    return ahead <= data_size ? ahead : 0;
}

/* Scheduler records that name the vCPU that was running (public/trace.h). */
#define RUNSTATE_RUNNING        0       /* public/vcpu.h's RUNSTATE_running */

bool running_vcpu(const uint8_t *p, size_t len, uint32_t *dom,
                  uint32_t *vcpu)
{
    const uint8_t *end = p + len;

    while ( end - p >= 4 )
    {
        uint32_t hdr, event, words, size;

        memcpy(&hdr, p, 4);
        event = TRC_HD_TO_EVENT(hdr);
        words = TRC_HD_EXTRA(hdr);
        size = 4 * xt_record_words(hdr);
        if ( size > (size_t)(end - p) )
            break;
        /* A runstate change off running: the event holds old << 8. */
        if ( (event & ~0xff0u) == TRC_SCHED_RUNSTATE_CHANGE && words >= 1 &&
             ((event >> 8) & 0xf) == RUNSTATE_RUNNING )
        {
            *dom = payload(p, hdr, 0) >> 16;
            *vcpu = payload(p, hdr, 0) & 0xffff;
            return true;
        }
        if ( (event == TRC_SCHED_SWITCH || event == TRC_SCHED_SWITCH_INFPREV ||
              event == TRC_SCHED_SWITCH_INFCONT) && words >= 2 )
        {
            *dom = payload(p, hdr, 0);
            *vcpu = payload(p, hdr, 1);
            return true;
        }
        p += size;
    }
    return false;
}

uint64_t first_tsc(const uint8_t *p, size_t len)
{
    const uint8_t *end = p + len;
    uint64_t tsc;

    while ( end - p >= 12 )
    {
        uint32_t hdr;

        memcpy(&hdr, p, 4);
        if ( TRC_HD_INCLUDES_CYCLE_COUNT(hdr) )
        {
            memcpy(&tsc, p + 4, 8);
            return tsc;
        }
        p += 4 * xt_record_words(hdr);
    }
    return 0;
}
