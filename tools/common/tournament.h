/*
 * tournament: which of k sources has the least key, for the merges by
 * TSC of the reader (reader.c) and of xentrace-summary's model (merge.c).
 * Private to xentrace-ng's tools; not installed.
 *
 * A tree of losers: each inner node holds the loser of the match played
 * there, the root's winner is the least key.  When the winner's source
 * has a new key, it plays the matches on its way up again: log2(k)
 * compares that need no branch, where a heap's sift-down takes twice as
 * many, each a branch the CPU mispredicts as the sources interleave.
 * A key is TSC << 32 | source, so that ties go to the lower source, and
 * TOURNAMENT_DONE | source for a source that has no more.
 */
#ifndef XT_TOURNAMENT_H
#define XT_TOURNAMENT_H

#include <stdbool.h>
#include <stdlib.h>

typedef unsigned __int128 tournament_key;
#define TOURNAMENT_DONE ((tournament_key)1 << 96)

struct tournament {
    unsigned int leaves;        /* sources, up to a power of 2 */
    tournament_key *losers;     /* [1, leaves): who lost each match */
    tournament_key winner;
};

static inline tournament_key tournament_key_of(uint64_t tsc, uint32_t source)
{
    return (tournament_key)tsc << 32 | source;
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
    tournament_key *won;
    unsigned int s, node;

    for ( t->leaves = 1; t->leaves < n; t->leaves *= 2 )
        ;
    t->losers = calloc(t->leaves, sizeof(*t->losers));
    /* Winners of every match, while the tree is built. */
    won = calloc(2 * t->leaves, sizeof(*won));
    if ( !t->losers || !won )
    {
        free(won);
        return -1;
    }
    for ( s = 0; s < t->leaves; s++ )
        won[t->leaves + s] = s < n ? first(arg, s) : TOURNAMENT_DONE | s;
    for ( node = t->leaves - 1; node; node-- )
    {
        tournament_key a = won[2 * node], b = won[2 * node + 1];

        won[node] = a < b ? a : b;
        t->losers[node] = a < b ? b : a;
    }
    t->winner = won[1];
    free(won);
    return 0;
}

/* The winner's source @s has the new key @key: play its matches again. */
static inline void tournament_replay(struct tournament *t, unsigned int s,
                                     tournament_key key)
{
    unsigned int node;

    for ( node = (s + t->leaves) / 2; node; node /= 2 )
    {
        tournament_key other = t->losers[node];
        bool lost = other < key;

        t->losers[node] = lost ? key : other;
        key = lost ? other : key;
    }
    t->winner = key;
}

/* Whether a source has records left; then the winner's is: */
static inline bool tournament_over(const struct tournament *t)
{
    return t->winner & TOURNAMENT_DONE;
}

static inline unsigned int tournament_source(const struct tournament *t)
{
    return (uint32_t)t->winner;
}

static inline void tournament_free(struct tournament *t)
{
    free(t->losers);
    t->losers = NULL;
}

#endif /* XT_TOURNAMENT_H */
