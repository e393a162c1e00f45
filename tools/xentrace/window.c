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
 *   - each event is of a class Xen writes (one class bit, a subclass
 *     bit), and in TRC_GEN only Xen's own (a lost-records marker of its
 *     size, a wrap pad that ends at the wrap, TRC_TRACE_IRQ), never the
 *     file's (batch headers, xentrace-ng's metadata);
 *   - TSCs do not run backwards on the CPU.
 *
 * What fails is skipped to the next place where Xen's records provably
 * start again: the end of the piece, which is either prod, where Xen
 * writes next, or the wrap, where Xen starts writing again after its pad.
 * The records before the failure are kept if the piece started where
 * records provably start (where xentrace left cons, or the wrap);
 * otherwise nothing of the piece is, since a record that merely looks
 * right is no proof.  The TSC a later piece is held to is taken only
 * from pieces that passed whole, so that a garbage record that passed
 * cannot make Xen's next records fail.
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

/* The classes of public/trace.h (TRC_GEN .. TRC_HW, TRC_GUEST), bits 27-16. */
#define XEN_CLASSES     0x8ffu
#define TRC_TRACE_IRQ   (TRC_GEN + 4)   /* Xen 4.17's trace.h; not in ours */
#define LOST_WORDS      4u              /* TRC_LOST_RECORDS's payload */

/* Whether Xen writes @hdr, a record ending the piece if @last. */
static bool xen_writes(uint32_t hdr, bool last, bool at_wrap)
{
    uint32_t event = TRC_HD_TO_EVENT(hdr);
    uint32_t cls = event >> TRC_CLS_SHIFT;

    if ( !(cls & XEN_CLASSES) || (cls & (cls - 1)) ||
         !((event >> TRC_SUBCLS_SHIFT) & 0xf) )
        return false;
    if ( cls != TRC_GEN >> TRC_CLS_SHIFT )
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

size_t check_piece(struct cpu_check *c, const uint8_t *p, size_t len,
                   bool proven, bool at_wrap, uint32_t *why)
{
    const uint8_t *start = p, *end = p + len;
    uint64_t floor = c->floor_tsc, records = 0, lost = 0;

    *why = 0;
    while ( p < end )
    {
        uint32_t hdr, size, count;
        uint64_t tsc;

        memcpy(&hdr, p, 4);
        size = 4 * xt_record_words(hdr);
        if ( size > (size_t)(end - p) )
        {
            *why = XT_SKIP_TILE;
            break;
        }
        if ( !xen_writes(hdr, p + size == end, at_wrap) )
        {
            *why = XT_SKIP_EVENT;
            break;
        }
        if ( TRC_HD_INCLUDES_CYCLE_COUNT(hdr) )
        {
            memcpy(&tsc, p + 4, 8);
            if ( tsc < floor )
            {
                *why = XT_SKIP_TSC;
                break;
            }
            floor = tsc;
        }
        if ( TRC_HD_TO_EVENT(hdr) == TRC_LOST_RECORDS )
        {
            memcpy(&count, p + 12, 4);
            lost += count;
        }
        records += TRC_HD_TO_EVENT(hdr) != TRC_TRACE_WRAP_BUFFER;
        p += size;
    }

    if ( *why && !proven )
        p = start;                      /* nothing here is proven Xen's */
    else
    {
        c->count.records += records;
        c->count.lost += lost;
        if ( floor > c->count.last_tsc )
            c->count.last_tsc = floor;
        if ( !*why )
            c->floor_tsc = floor;
    }
    c->count.bytes += p - start;
    c->count.skipped += end - p;
    return p - start;
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
