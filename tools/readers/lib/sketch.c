/*
 * sketch: a log-linear histogram of cycle counts (sketch.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sketch.h"

/* Octave 0 holds 0 to SKETCH_SUB - 1 exactly; octave k >= 1 holds
 * [SKETCH_SUB << (k - 1), SKETCH_SUB << k) in SKETCH_SUB buckets. */
static void locate(uint64_t value, unsigned int *octave, unsigned int *sub)
{
    unsigned int top;

    if ( value < SKETCH_SUB )
    {
        *octave = 0;
        *sub = value;
        return;
    }
    top = 63 - __builtin_clzll(value);          /* >= SKETCH_SUB_BITS */
    *octave = top - SKETCH_SUB_BITS + 1;
    *sub = (value >> (top - SKETCH_SUB_BITS)) & (SKETCH_SUB - 1);
}

/* The middle of a bucket. */
static uint64_t bucket_value(unsigned int octave, unsigned int sub)
{
    unsigned int shift;
    uint64_t low;

    if ( !octave )
        return sub;
    shift = octave - 1;
    low = ((uint64_t)SKETCH_SUB + sub) << shift;
    return low + ((1ull << shift) >> 1);
}

static int add_n(struct sketch *s, unsigned int octave, unsigned int sub,
                 uint64_t n)
{
    if ( !s->octave[octave] )
    {
        s->octave[octave] = calloc(SKETCH_SUB, sizeof(uint64_t));
        if ( !s->octave[octave] )
        {
            errno = ENOMEM;
            return -1;
        }
    }
    s->octave[octave][sub] += n;
    return 0;
}

int sketch_add(struct sketch *s, uint64_t value)
{
    unsigned int octave, sub;

    locate(value, &octave, &sub);
    if ( add_n(s, octave, sub, 1) )
        return -1;
    if ( !s->count || value < s->min )
        s->min = value;
    if ( value > s->max )
        s->max = value;
    s->count++;
    s->sum += value;
    return 0;
}

int sketch_merge(struct sketch *into, const struct sketch *from)
{
    unsigned int o, i;

    if ( !from->count )
        return 0;
    for ( o = 0; o < SKETCH_OCTAVES; o++ )
        for ( i = 0; from->octave[o] && i < SKETCH_SUB; i++ )
            if ( from->octave[o][i] && add_n(into, o, i, from->octave[o][i]) )
                return -1;
    if ( !into->count || from->min < into->min )
        into->min = from->min;
    if ( from->max > into->max )
        into->max = from->max;
    into->count += from->count;
    into->sum += from->sum;
    return 0;
}

uint64_t sketch_quantile(const struct sketch *s, double q)
{
    uint64_t rank, seen = 0, v;
    unsigned int o, i;

    if ( !s->count )
        return 0;
    rank = q <= 0 ? 1 : q >= 1 ? s->count : (uint64_t)(q * s->count + 0.5);
    if ( rank < 1 )
        rank = 1;
    if ( rank == s->count )
        return s->max;          /* exact at the ends */
    if ( rank == 1 )
        return s->min;
    for ( o = 0; o < SKETCH_OCTAVES; o++ )
        for ( i = 0; s->octave[o] && i < SKETCH_SUB; i++ )
        {
            seen += s->octave[o][i];
            if ( seen < rank )
                continue;
            v = bucket_value(o, i);
            return v < s->min ? s->min : v > s->max ? s->max : v;
        }
    return s->max;
}

void sketch_free(struct sketch *s)
{
    unsigned int o;

    for ( o = 0; o < SKETCH_OCTAVES; o++ )
        free(s->octave[o]);
    memset(s, 0, sizeof(*s));
}
