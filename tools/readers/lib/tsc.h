/*
 * TSC ticks to time: the one conversion every reader uses, so that a span
 * reads the same in each.  A frequency of 0 (none known, or a file that
 * says 0) gives 0, never a division by zero.
 */
#ifndef TSC_H
#define TSC_H

#include <stdint.h>

/* @ticks at @hz as seconds. */
static inline double tsc_seconds(uint64_t ticks, uint64_t hz)
{
    return hz ? (double)ticks / hz : 0;
}

/* @tsc as seconds from @origin at @hz, negative before it. */
static inline double tsc_seconds_from(uint64_t tsc, uint64_t origin,
                                      uint64_t hz)
{
    return tsc >= origin ? tsc_seconds(tsc - origin, hz)
                         : -tsc_seconds(origin - tsc, hz);
}

/*
 * @ticks at @hz as microseconds: scaled before the division, so that a
 * time printed to the nanosecond (Chrome's JSON, %.3f) is the nearest.
 */
static inline double tsc_us(uint64_t ticks, uint64_t hz)
{
    return hz ? (double)ticks * 1e6 / hz : 0;
}

/*
 * @ticks at @hz as whole seconds and nanoseconds, exactly (rounded down),
 * for the outputs that print every digit.
 */
static inline void tsc_split(uint64_t ticks, uint64_t hz, uint64_t *sec,
                             uint32_t *nsec)
{
    *sec = hz ? ticks / hz : 0;
    *nsec = hz ? (unsigned __int128)(ticks % hz) * 1000000000u / hz : 0;
}

/* @ticks at @hz as nanoseconds, rounded down, UINT64_MAX at most. */
static inline uint64_t tsc_ns(uint64_t ticks, uint64_t hz)
{
    unsigned __int128 ns = hz ? (unsigned __int128)ticks * 1000000000u / hz
                              : 0;

    return ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

/* @ticks at @hz as nanoseconds, to the nearest, UINT64_MAX at most. */
static inline uint64_t tsc_ns_nearest(uint64_t ticks, uint64_t hz)
{
    unsigned __int128 ns = hz ? ((unsigned __int128)ticks * 1000000000u +
                                 hz / 2) / hz : 0;

    return ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

/* @ns nanoseconds as ticks at @hz, rounded down: time back to the TSC. */
static inline uint64_t tsc_from_ns(uint64_t ns, uint64_t hz)
{
    return (unsigned __int128)ns * hz / 1000000000u;
}

#endif /* TSC_H */
