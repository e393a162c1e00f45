/*
 * timebins: a TSC range cut into at most @max bins of 2^shift ticks, made
 * as the TSCs come, for a pipe's range is not known before its end.
 *
 * Bin i covers TSCs [(lo + i) << shift, (lo + i + 1) << shift).  A TSC
 * outside the bins extends them while there are at most @max, else makes
 * every bin twice as wide (shift + 1), and again until it fits; the
 * counts of each bin then move to their wider bin.  The counts are the
 * caller's: arrays of @max bins, each bin @width counters, which
 * timebins_at() finds through a timebins_arrays callback.  The picture a
 * pipe gives is therefore the file's: the bins depend on the TSCs seen,
 * not on their order.
 */
#ifndef TIMEBINS_H
#define TIMEBINS_H

#include <stddef.h>
#include <stdint.h>

struct timebins {
    unsigned int max;           /* bins at most (1 or more) */
    unsigned int nr;            /* in use: 0 before the first TSC */
    unsigned int shift;         /* 2^shift ticks a bin; 64: one bin */
    uint64_t lo;                /* the first bin's index: tsc >> shift */
};

/*
 * The caller's array @i of counts (@max bins, *@width counters each), or
 * NULL after the last.  Called before the bins change.
 */
typedef uint64_t *timebins_arrays(void *arg, unsigned int i, size_t *width);

static inline uint64_t timebins_index(const struct timebins *b, uint64_t tsc)
{
    return b->shift < 64 ? tsc >> b->shift : 0;
}

/* The bin of @tsc, the bins widened to hold it and @arrays' counts moved. */
unsigned int timebins_at(struct timebins *b, uint64_t tsc,
                         timebins_arrays *arrays, void *arg);

/* The TSCs bin @i covers at its whole width: [*start, *end). */
void timebins_bounds(const struct timebins *b, unsigned int i,
                     uint64_t *start, uint64_t *end);

#endif /* TIMEBINS_H */
