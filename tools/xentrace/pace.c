/*
 * xentrace's pacing: how long the capture thread waits after a pass.
 *
 * Xen notifies when a buffer crosses its high-water mark, half the
 * buffer; waiting for that alone (as upstream does) leaves half a buffer
 * of room for the time the capture thread takes to run again, 3 ms at a
 * million records a second.  A wake-up costs 12-18 us of CPU, as much as
 * copying 64 KiB, so the wait is as long as is safe, and no longer: a
 * timer (ppoll(2), to the nanosecond, so waits under a millisecond are
 * what they say) aimed at the moment the busiest buffer reaches a fill,
 * the aim, at the rate it has been filling (smoothed over about 10 ms;
 * none: -s).  The aim is a safe fill, three quarters of the buffer, less
 * the margin: how far past the aim passes have found a buffer (a pass
 * that finds records lost found it full), the largest overshoot decaying
 * by e a second.  It is never above the high-water mark, where the
 * notification comes first, nor below a quarter of the buffer.  So where
 * the capture thread runs when it should, it wakes as upstream's does,
 * once a buffer is half full; where it has run late, or lost records, it
 * wakes earlier, with more room, until a second or two pass without it;
 * and it always looks at the buffers at least every -s.
 */
#include "pace.h"

/*
 * The fills are bytes of a CPU's buffer of @data bytes: the wait aims at
 * a fill between AIM_MIN and AIM_MAX, as far below SAFE_FILL as the
 * margin says.
 */
#define SAFE_FILL(data)  ((data) / 4 * 3)
#define AIM_MIN(data)    ((data) / 4)
#define AIM_MAX(data)    ((data) / 2)   /* Xen's high-water mark: VIRQ_TBUF */
#define RATE_NS          10000000ULL    /* the rate: over about 10 ms */
#define MARGIN_NS        1000000000ULL  /* the margin decays by e in 1 s */
#define MIN_WAIT_NS      20000ULL       /* less: the next pass at once */

void pace_start(struct pacing *p, uint32_t data, unsigned int poll_ms)
{
    /* At first, as Xen's notification alone would. */
    *p = (struct pacing){ .data = data, .poll_ns = poll_ms * 1000000ULL,
                          .aim = AIM_MAX(data) };
}

/* @x moved towards @to by the share @ns / @span of the way, at most all. */
static uint64_t decay(uint64_t x, uint64_t to, uint64_t ns, uint64_t span)
{
    unsigned __int128 share = ns < span ? ns : span;

    return to >= x ? x + (to - x) * share / span
                   : x - (x - to) * share / span;
}

/*
 * Learn from the pass begun at @now that found @largest bytes in the
 * busiest buffer, or records lost (@lost in all), which means it was
 * full: the rate, the margin (the overshoot of the aim), and from them
 * the next aim.
 */
static void learn(struct pacing *p, uint64_t now, uint32_t largest,
                  uint64_t lost)
{
    uint32_t data = p->data;
    uint64_t since = now - p->last_ns;
    uint32_t over;

    if ( lost > p->lost )
        largest = data;
    over = largest > p->aim ? largest - p->aim : 0;
    if ( p->last_ns )
        p->rate = decay(p->rate, (unsigned __int128)largest * 1000000000ULL /
                                 (since ? since : 1), since, RATE_NS);
    p->margin = decay(p->margin, 0, since, MARGIN_NS);
    if ( over > p->margin )
        p->margin = over;
    p->lost = lost;
    p->last_ns = now;

    p->aim = p->margin < SAFE_FILL(data) - AIM_MIN(data)
             ? SAFE_FILL(data) - p->margin : AIM_MIN(data);
    if ( p->aim > AIM_MAX(data) )
        p->aim = AIM_MAX(data);
}

/*
 * Until the busiest buffer reaches the aim at the rate it fills, -s at
 * most.  An aim at the high-water mark is the notification's: the timer
 * is then for a full buffer, should no notification come (a buffer still
 * half full after a pass crosses no mark), as a timer for less, at a rate
 * that bursts make uncertain, fires before the notification often.
 */
uint64_t pace_next_wait(struct pacing *p, uint64_t now, uint32_t largest,
                        uint64_t lost)
{
    uint64_t wait;
    uint32_t fill;

    learn(p, now, largest, lost);
    fill = p->aim < AIM_MAX(p->data) ? p->aim : p->data;
    wait = p->rate ? (unsigned __int128)fill * 1000000000ULL / p->rate
                   : p->poll_ns;
    if ( wait > p->poll_ns )
        return p->poll_ns;
    return wait < MIN_WAIT_NS ? 0 : wait;
}
