/*
 * TSC ticks to time: the one conversion every reader uses, so that a span
 * reads the same in each.  A frequency of 0 (none known, or a file that
 * says 0) gives 0, never a division by zero.
 */
#ifndef TSC_H
#define TSC_H

#include <stdint.h>

#include "decimal.h"

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

/*
 * @tsc as seconds from @origin at @hz at @p, "12.000345678",
 * "-0.000000100": exactly (tsc_split()), formatted by hand for the outputs
 * that print a time on every line; the end.  It may write 8 bytes past.
 */
static inline char *tsc_put_seconds(char *p, uint64_t tsc, uint64_t origin,
                                    uint64_t hz)
{
    uint64_t sec;
    uint32_t ns;

    if ( tsc < origin )
        *p++ = '-';
    tsc_split(tsc >= origin ? tsc - origin : origin - tsc, hz, &sec, &ns);
    p = put_dec(p, sec);
    *p++ = '.';
    return put_dec9(p, ns);
}

/*
 * @ticks at @hz as microseconds to the nearest nanosecond at @p, "1.250",
 * rounded as printf's "%.3f" of tsc_us() rounds them, but exactly; the
 * end.  It may write 8 bytes past.
 */
static inline char *tsc_put_us(char *p, uint64_t ticks, uint64_t hz)
{
    uint64_t ns = tsc_ns_nearest(ticks, hz);
    uint32_t frac = ns % 1000;

    p = put_dec(p, ns / 1000);
    *p++ = '.';
    *p++ = '0' + frac / 100;
    *p++ = '0' + frac / 10 % 10;
    *p++ = '0' + frac % 10;
    return p;
}

#endif /* TSC_H */
