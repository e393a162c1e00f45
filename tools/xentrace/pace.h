/*
 * xentrace: how long the capture thread waits after a pass (see pace.c).
 */
#ifndef PACE_H
#define PACE_H

#include <stdint.h>

/*
 * When to look at the buffers again: the rate the busiest buffer fills
 * at, and how far past the fill it was aimed at passes found it.
 */
struct pacing {
    uint32_t data;              /* bytes of a CPU's buffer */
    uint64_t poll_ns;           /* -s: the longest wait */
    uint64_t last_ns;           /* when the last pass began; 0: none yet */
    uint64_t rate;              /* bytes a second into the busiest buffer */
    uint32_t aim;               /* the fill the wait was aimed at, bytes */
    uint32_t margin;            /* the latest overshoot, decaying: bytes */
    uint64_t lost;              /* records lost, as of the last pass */
};

/* Pacing for buffers of @data bytes, looked at every @poll_ms at least. */
void pace_start(struct pacing *p, uint32_t data, unsigned int poll_ms);

/*
 * The wait after the pass begun at @now (ns, CLOCK_MONOTONIC) that found
 * @largest bytes in the busiest buffer, @lost records lost in all so
 * far: in ns; 0: pass again now.
 */
uint64_t pace_next_wait(struct pacing *p, uint64_t now, uint32_t largest,
                        uint64_t lost);

#endif /* PACE_H */
