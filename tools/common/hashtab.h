/*
 * hashtab: the one hash table of xentrace-ng's tools.  It maps a key to
 * the index of an element of the caller's array, which keeps the
 * elements (in the order they came, so that what a tool prints does not
 * depend on the hash): a slot holds index + 1, 0 when empty.  Open
 * addressing, linear probing, at most half full, so that a miss ends
 * soon.  Private to the tools; not installed.
 *
 * The caller says what an element's key is: a 64-bit number
 * (hashtab_find(), with @key_of), or anything it can hash and compare
 * (hashtab_probe(), with a hash and @match, e.g. a name and
 * hashtab_hash_string()).  hashtab_get() looks a number up and adds
 * nothing, so a hot path can find before it fits.
 *
 *     if ( hashtab_fit(&t, n + 1, cpus, hash_of) )   room for one more
 *         ... ENOMEM ...
 *     s = hashtab_find(&t, cpu, cpus, cpu_of);
 *     if ( hashtab_index(&t, s) )
 *         return hashtab_index(&t, s) - 1;            found
 *     ... append the element at index n ...
 *     hashtab_set(&t, s, n++);         (the table's elements are 0 to n - 1)
 */
#ifndef XT_HASHTAB_H
#define XT_HASHTAB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

struct hashtab {
    uint32_t *slot;             /* index + 1, 0: empty */
    unsigned int nr_slots;      /* a power of two; 0 before the first fit */
    unsigned int nr;            /* elements in it: indices 0 to nr - 1 */
};

/* The hash of a 64-bit key: Fibonacci hashing of its bits folded. */
static inline uint64_t hashtab_hash(uint64_t key)
{
    return (key ^ key >> 29) * 0x9e3779b97f4a7c15ull;
}

/* The hash of a string: FNV-1a, 64 bits. */
static inline uint64_t hashtab_hash_string(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;

    while ( *s )
        h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
    return h;
}

/* The hash of the element at @index of @base: for hashtab_fit(). */
typedef uint64_t hashtab_hash_fn(const void *base, unsigned int index);
/* Whether the element at @index of @base has @key. */
typedef bool hashtab_match_fn(const void *base, unsigned int index,
                              const void *key);
/* The 64-bit key of the element at @index of @base. */
typedef uint64_t hashtab_key_fn(const void *base, unsigned int index);

/*
 * The slot of the element of hash @hash that @match takes for @key, or
 * the empty slot where it would go.  The table has been fitted.
 */
static inline unsigned int hashtab_probe(const struct hashtab *t,
                                         uint64_t hash, const void *key,
                                         const void *base,
                                         hashtab_match_fn *match)
{
    unsigned int mask = t->nr_slots - 1, i = (uint32_t)(hash >> 32) & mask;

    while ( t->slot[i] && !match(base, t->slot[i] - 1, key) )
        i = (i + 1) & mask;
    return i;
}

/* hashtab_probe() for a 64-bit @key, each element's from @key_of. */
static inline unsigned int hashtab_find(const struct hashtab *t, uint64_t key,
                                        const void *base,
                                        hashtab_key_fn *key_of)
{
    unsigned int mask = t->nr_slots - 1,
                 i = (uint32_t)(hashtab_hash(key) >> 32) & mask;

    while ( t->slot[i] && key_of(base, t->slot[i] - 1) != key )
        i = (i + 1) & mask;
    return i;
}

/* The index + 1 that slot @s holds; 0 if it is empty. */
static inline unsigned int hashtab_index(const struct hashtab *t,
                                         unsigned int s)
{
    return t->slot[s];
}

/*
 * The index + 1 of the element of 64-bit @key, 0 if there is none: a
 * look-up that adds nothing, so the table may be empty and unfitted.
 */
static inline unsigned int hashtab_get(const struct hashtab *t, uint64_t key,
                                       const void *base,
                                       hashtab_key_fn *key_of)
{
    if ( !t->nr_slots )
        return 0;
    return hashtab_index(t, hashtab_find(t, key, base, key_of));
}

/*
 * Put the element at @index, the next of the caller's array (the table's
 * elements are those before it), in the empty slot @s a probe found.
 */
static inline void hashtab_set(struct hashtab *t, unsigned int s,
                               unsigned int index)
{
    t->slot[s] = index + 1;
    t->nr = index + 1;
}

/*
 * Make room for @n elements: double the slots (16 at first) while more
 * than half would be full, and put the table's elements (the first of
 * @base, hashed by @hash_of) in again.  0, or -1 (ENOMEM) with the table
 * as it was.  Call it for one more than the table holds before a probe
 * that may add.
 */
static inline int hashtab_fit(struct hashtab *t, unsigned int n,
                              const void *base, hashtab_hash_fn *hash_of)
{
    unsigned int size = t->nr_slots ? t->nr_slots : 16, i;
    unsigned int held = t->nr;
    struct hashtab g;

    while ( (uint64_t)n * 2 > size )
        size *= 2;
    if ( size == t->nr_slots )
        return 0;
    g.nr_slots = size;
    g.nr = held;
    g.slot = calloc(size, sizeof(*g.slot));
    if ( !g.slot )
        return -1;
    for ( i = 0; i < held; i++ )
    {
        unsigned int s = (uint32_t)(hash_of(base, i) >> 32) & (size - 1);

        while ( g.slot[s] )
            s = (s + 1) & (size - 1);
        g.slot[s] = i + 1;
    }
    free(t->slot);
    *t = g;
    return 0;
}

/* Free the slots (not the caller's elements). */
static inline void hashtab_free(struct hashtab *t)
{
    free(t->slot);
    t->slot = NULL;
    t->nr_slots = t->nr = 0;
}

/*
 * A table of the first @n elements of @base, all at once (after they were
 * moved, as by a sort): 0, or -1 (ENOMEM) with the table empty.
 */
static inline int hashtab_build(struct hashtab *t, unsigned int n,
                                const void *base, hashtab_hash_fn *hash_of)
{
    hashtab_free(t);
    t->nr = n;
    if ( !hashtab_fit(t, n, base, hash_of) )
        return 0;
    t->nr = 0;
    return -1;
}

#endif /* XT_HASHTAB_H */
