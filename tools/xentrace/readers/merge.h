/*
 * merge: every CPU's records in an order that keeps what matters of TSC
 * order, straight from the batches in place (xt_reader_batch()), for the
 * model (model.c).
 *
 * A caller's sync list picks the records that tie CPUs together (for the
 * model: the scheduler's, which move vCPUs, and losses).  Those come in
 * TSC order across CPUs (ties by CPU, then by the file), as XT_ORDER_TSC
 * gives them; each CPU's other records come in its own order, in the
 * stretch between its sync records, but not interleaved with other
 * CPUs' records by TSC.  That is the order of XT_ORDER_TSC wherever it can
 * be told apart through the sync records, and it costs a heap operation
 * per sync record, not per record: the other records of a CPU are walked
 * in place, one after the other.  A record without a TSC has its CPU's
 * last (0 before the first).
 *
 * It needs no record index: it works on a reader opened with
 * XT_READ_BATCHES, whose damage it learns as it walks
 * (xt_reader_walked()).  Memory: one cursor per CPU, and one word per
 * batch to chain each CPU's batches (the size of the reader's own batch
 * index).
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
 * of 0.  NULL with errno (ENOMEM).
 */
#define MERGE_MAX_SYNC  4
struct merge *merge_new(struct xt_reader *r, const struct merge_sync *sync);

/* The next record into @rec: 1, 0 at the end, -1 with ENOMEM. */
int merge_next(struct merge *g, struct xt_record *rec);

void merge_free(struct merge *g);

#endif /* MERGE_H */
