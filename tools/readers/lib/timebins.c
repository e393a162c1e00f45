/*
 * timebins: bins that widen as the TSCs come (timebins.h).
 */
#include <string.h>

#include "timebins.h"

/*
 * Move each bin of the @n at @a (@width counters each) from index @lo on
 * to its bin twice as wide.
 */
static void halve(uint64_t *a, unsigned int n, size_t width, uint64_t lo)
{
    unsigned int j;
    size_t k;

    /* A bin moves down or stays: the bins below are done with. */
    for ( j = 0; j < n; j++ )
    {
        uint64_t *from = a + j * width;
        uint64_t *to = a + (((lo + j) >> 1) - (lo >> 1)) * width;

        for ( k = 0; k < width; k++ )
        {
            uint64_t v = from[k];

            from[k] = 0;
            to[k] += v;
        }
    }
}

/* Move the @n bins at @a up by @by bins. */
static void move_up(uint64_t *a, unsigned int n, size_t width, uint64_t by)
{
    memmove(a + by * width, a, n * width * sizeof(*a));
    memset(a, 0, by * width * sizeof(*a));
}

/* Widen the bins until @tsc falls in one of them. */
static void cover(struct timebins *b, uint64_t tsc, timebins_arrays *arrays,
                  void *arg)
{
    for ( ;; )
    {
        uint64_t at = timebins_index(b, tsc), top = b->lo + b->nr - 1;
        uint64_t lo = at < b->lo ? at : b->lo;
        uint64_t hi = at > top ? at : top;
        unsigned int i;
        uint64_t *a;
        size_t width;

        if ( !b->nr )
        {
            b->lo = at;
            b->nr = 1;
            return;
        }
        if ( hi - lo < b->max )
        {
            for ( i = 0; at < b->lo && (a = arrays(arg, i, &width)); i++ )
                move_up(a, b->nr, width, b->lo - at);
            b->lo = lo;
            b->nr = hi - lo + 1;
            return;
        }
        for ( i = 0; (a = arrays(arg, i, &width)); i++ )
            halve(a, b->nr, width, b->lo);
        b->nr = (top >> 1) - (b->lo >> 1) + 1;
        b->lo >>= 1;
        b->shift++;
    }
}

unsigned int timebins_at(struct timebins *b, uint64_t tsc,
                         timebins_arrays *arrays, void *arg)
{
    cover(b, tsc, arrays, arg);
    return timebins_index(b, tsc) - b->lo;
}

void timebins_bounds(const struct timebins *b, unsigned int i,
                     uint64_t *start, uint64_t *end)
{
    uint64_t index = b->lo + i;

    *start = b->shift < 64 ? index << b->shift : 0;
    *end = b->shift < 64 &&
           *start <= UINT64_MAX - (UINT64_C(1) << b->shift) ?
           *start + (UINT64_C(1) << b->shift) : UINT64_MAX;
}
