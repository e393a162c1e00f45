/*
 * keyhash: an open-addressing hash from keys to the index (+ 1) of an
 * element of the caller's array, for the model's vCPUs and the
 * analysis's tables.  The caller keeps the elements; @key_of says an
 * element's key.  At most half full, linear probing.
 */
#ifndef KEYHASH_H
#define KEYHASH_H

#include <stdint.h>
#include <stdlib.h>

struct keyhash {
    uint32_t *slot;             /* index + 1, 0: empty */
    unsigned int nr_slots;      /* a power of two */
};

typedef uint64_t (*keyhash_key_fn)(const void *base, unsigned int index);

/* The slot of @key: holding it, or the empty one where it would go. */
static inline unsigned int keyhash_slot(const struct keyhash *h, uint64_t key,
                                        const void *base,
                                        keyhash_key_fn key_of)
{
    unsigned int i = (uint32_t)((key ^ key >> 29) *
                                0x9e3779b97f4a7c15ull >> 32) &
                     (h->nr_slots - 1);

    while ( h->slot[i] && key_of(base, h->slot[i] - 1) != key )
        i = (i + 1) & (h->nr_slots - 1);
    return i;
}

/*
 * Make room for @n elements (double the slots while more than half would
 * be full) and hash them again; 0, or -1 with the old slots kept.
 */
static inline int keyhash_fit(struct keyhash *h, unsigned int n,
                              const void *base, keyhash_key_fn key_of)
{
    unsigned int size = h->nr_slots ? h->nr_slots : 16, i;
    struct keyhash g;

    while ( n * 2 > size )
        size *= 2;
    if ( size == h->nr_slots )
        return 0;
    g.nr_slots = size;
    g.slot = calloc(size, sizeof(*g.slot));
    if ( !g.slot )
        return -1;
    for ( i = 0; i < n; i++ )
        g.slot[keyhash_slot(&g, key_of(base, i), base, key_of)] = i + 1;
    free(h->slot);
    *h = g;
    return 0;
}

#endif /* KEYHASH_H */
