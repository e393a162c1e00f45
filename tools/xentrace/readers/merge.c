/*
 * merge: records in an order that keeps what matters of TSC order, for
 * the model (merge.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "merge.h"

struct merge {
    struct xt_iter *it;
};

struct merge *merge_new(struct xt_reader *r, const struct merge_sync *sync)
{
    struct merge *g = calloc(1, sizeof(*g));

    (void)sync;                 /* every record comes in TSC order */
    if ( !g )
        return NULL;
    if ( !(g->it = xt_iter_new(r, XT_ORDER_TSC, 0, 0)) )
    {
        free(g);
        return NULL;
    }
    return g;
}

int merge_next(struct merge *g, struct xt_record *rec)
{
    return xt_iter_next(g->it, rec) > 0;
}

void merge_free(struct merge *g)
{
    if ( !g )
        return;
    xt_iter_free(g->it);
    free(g);
}
