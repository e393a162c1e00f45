/*
 * tournament: which of k sources has the least key, for the merges by
 * TSC: the reader's, of a file and of a stream (reader.c), and
 * xentrace-summary's model (merge.c).  Private to xentrace-ng's tools;
 * not installed.
 *
 * A tree of winners: leaf s holds source s's key, each inner node the
 * least key below it, the root the least of all.  When a source has a
 * new key, the matches on its way up are played again: log2(k) compares
 * against the sibling's winner, with no branch, where a heap's sift-down
 * takes twice as many, each a branch the CPU mispredicts as the sources
 * interleave.  Any source may change its key, not only the winner: a
 * stream's merge takes a CPU back in when its next batch comes (a tree
 * of losers could replay only the winner's path).
 *
 * A key is TSC << 32 | source, so that ties go to the lower source, and
 * TOURNAMENT_DONE | source for a source that has no more.
 */
#ifndef XT_TOURNAMENT_H
#define XT_TOURNAMENT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 tournament_key;
#define TOURNAMENT_DONE ((tournament_key)1 << 96)

struct tournament {
    unsigned int leaves;        /* sources, up to a power of 2 */
    tournament_key *won;        /* [1, leaves): inner nodes' winners, the
                                   root at 1; [leaves, 2 leaves): keys */
};

static inline tournament_key tournament_key_of(uint64_t tsc, uint32_t source)
{
    return (tournament_key)tsc << 32 | source;
}

static inline tournament_key tournament_least(tournament_key a,
                                              tournament_key b)
{
    return a < b ? a : b;
}

/* Play every inner match again, from the leaves up. */
static inline void tournament_play_all(struct tournament *t)
{
    unsigned int node;

    for ( node = t->leaves - 1; node; node-- )
        t->won[node] = tournament_least(t->won[2 * node],
                                        t->won[2 * node + 1]);
}

/*
 * Play every match for @n sources, source s starting with @first(@arg, s):
 * 0, or -1 (ENOMEM).
 */
static inline int tournament_start(struct tournament *t, unsigned int n,
                                   tournament_key (*first)(void *arg,
                                                           unsigned int s),
                                   void *arg)
{
    unsigned int s;

    for ( t->leaves = 1; t->leaves < n; t->leaves *= 2 )
        ;
    t->won = calloc(2 * t->leaves, sizeof(*t->won));
    if ( !t->won )
        return -1;
    for ( s = 0; s < t->leaves; s++ )
        t->won[t->leaves + s] = s < n ? first(arg, s) : TOURNAMENT_DONE | s;
    tournament_play_all(t);
    return 0;
}

/*
 * Room for @n sources, the new ones with no more (TOURNAMENT_DONE): 0, or
 * -1 (ENOMEM) with the tree as it was.
 */
static inline int tournament_grow(struct tournament *t, unsigned int n)
{
    unsigned int leaves = t->leaves ? t->leaves : 1, s;
    tournament_key *won;

    if ( n <= t->leaves )
        return 0;
    while ( leaves < n )
        leaves *= 2;
    won = calloc(2 * (size_t)leaves, sizeof(*won));
    if ( !won )
        return -1;
    for ( s = 0; s < leaves; s++ )
        won[leaves + s] = s < t->leaves ? t->won[t->leaves + s]
                                        : TOURNAMENT_DONE | s;
    free(t->won);
    t->won = won;
    t->leaves = leaves;
    tournament_play_all(t);
    return 0;
}

/* Source @s has the new key @key: play its matches again. */
static inline void tournament_set(struct tournament *t, unsigned int s,
                                  tournament_key key)
{
    unsigned int node = s + t->leaves;

    t->won[node] = key;
    for ( ; node > 1; node /= 2 )
    {
        key = tournament_least(key, t->won[node ^ 1]);
        t->won[node / 2] = key;
    }
}

/* Whether a source has records left; then the winner's is: */
static inline bool tournament_over(const struct tournament *t)
{
    return t->won[1] & TOURNAMENT_DONE;
}

static inline unsigned int tournament_source(const struct tournament *t)
{
    return (uint32_t)t->won[1];
}

static inline void tournament_free(struct tournament *t)
{
    free(t->won);
    t->won = NULL;
    t->leaves = 0;
}

#endif /* XT_TOURNAMENT_H */
