/*
 * merge: every CPU's records in an order that keeps what matters of TSC
 * order, for the model (model.c).
 *
 * A caller's sync list picks the records that tie CPUs together (for the
 * model: the scheduler's, which move vCPUs, and losses).  Those must come
 * in TSC order across CPUs (ties by CPU, then by the file); each CPU's
 * other records in its own order between them.  Today every record comes
 * from the reader's merge by TSC (XT_ORDER_TSC), which is that order and
 * A record without a TSC has its CPU's last (0 before the first).
 *
 * On a file (an indexed reader), each CPU's records are read where they
 * lie, a run at a time, with a compare per sync record rather than per
 * record.  On a stream, or without a sync list, every record comes from
 * the reader's merge by TSC (XT_ORDER_TSC), which is that order and more.
 */
#ifndef MERGE_H
#define MERGE_H

#include "xtread.h"

struct merge;

/* A sync record: (event & mask) == value. */
struct merge_sync {
    uint32_t mask, value;
};

/*
 * @sync lists the sync records, up to MERGE_MAX_SYNC, ending with a mask
 * of 0; NULL: full TSC order.  NULL with errno (ENOMEM).
 */
#define MERGE_MAX_SYNC  4
struct merge *merge_new(struct xt_reader *r, const struct merge_sync *sync);

/* The next record into @rec: 1, 0 at the end, -1 with errno (ENOMEM). */
int merge_next(struct merge *g, struct xt_record *rec);

void merge_free(struct merge *g);

#endif /* MERGE_H */
