/*
 * xentrace: taking Xen's trace buffers into chunks, a pass at a time, and
 * queueing the chunks as epochs (see take.c).
 */
#ifndef TAKE_H
#define TAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libxentrace.h"
#include "filter.h"
#include "output.h"
#include "window.h"

struct taking;
struct unnamed_gap;

/* The capture thread's taking: what it holds between passes. */
struct take {
    struct xt_host *h;
    struct output *out;
    unsigned int nr_cpus;
    unsigned int nr_lanes;      /* dom0's, streams nr_cpus + lane */
    uint64_t newest_lane_tsc;   /* of any lane's event */
    size_t batch_bytes;         /* queue an epoch once a chunk holds this */
    size_t chunk_room;          /* bytes of records a chunk holds */
    struct chunk **filling;     /* [nr_cpus + nr_lanes]: NULL until it has
                                   records */
    bool epoch_full;            /* a chunk holds batch_bytes */
    uint64_t held_since_ms;     /* when the oldest chunk got records; 0 */
    uint64_t queued_since_ms;   /* the same, of those queued unflushed; 0 */
    uint8_t *warned;            /* [nr_cpus]: WARNED_* said already */
    struct cpu_check *check;    /* [nr_cpus]: what was taken, and how */
    struct unnamed_gap *unnamed;        /* [nr_cpus] */
    /* A pass's, [nr_cpus] each: the windows, their pieces (see drain_pass) */
    struct taking *taking;
    struct piece_copy *pieces;
    unsigned int *piece_of;     /* the taking of each piece */
    struct cpu_count *before;   /* its CPU's counts before it */
    /* The domain filter in dom0 (filter.c), NULL if none; and what it
       dropped, which the chunks' counts do not count. */
    struct dom_filter *filter;
    struct chunk_count filtered;
};

/*
 * Set @c up to take @h's buffers, mapped, epochs of @batch_bytes, and
 * @lanes streams more for dom0's events (dom0.c), each taking up to
 * @lane_pass_bytes at a time; its output, of chunks that hold chunk_room
 * bytes of records, is set once started.  Exits through err(3) without
 * memory.
 */
void take_start(struct take *c, struct xt_host *h, size_t batch_bytes,
                unsigned int lanes, size_t lane_pass_bytes);

/*
 * Lane @lane's chunk, with room for lane_pass_bytes more (its epoch is
 * queued first if it holds a batch); NULL if the writer has failed.
 * After filling it, take_lane_filled() with the newest TSC put in it.
 */
struct chunk *take_lane(struct take *c, unsigned int lane, uint64_t now);
void take_lane_filled(struct take *c, struct chunk *k, uint64_t tsc);
void take_free(struct take *c);

/*
 * One pass at @now (ms): take every mapped CPU's window, copy them into
 * their chunks and give their space back to Xen.  Returns the largest
 * window, in bytes.
 */
uint32_t drain_pass(struct take *c, uint64_t now);

/*
 * After a pass: queue the epoch once a CPU has a batch or a second
 * passed; have the writer start on the queue if records in it are a
 * second old.
 */
void push_due(struct take *c, uint64_t now);

/*
 * Queue every CPU's chunk, an epoch; unless @ending, the records of a gap
 * whose vCPU waits for a name stay behind.
 */
void push_epoch(struct take *c, uint64_t now, bool ending);

/*
 * Between passes, one of each a pass: domain @d's records (xtfile.h,
 * "Domains"), or the masks now in force (xtfile.h, "Masks": @cpus a bitmap
 * of the host's CPUs; @more, the domain filter and the event switches),
 * in the stream of the CPU with the newest record,
 * at its TSC.  False if no CPU has a record yet (or the writer failed):
 * told later, then.
 */
bool put_domain(struct take *c, const struct xt_domain *d, uint64_t now);
bool put_masks(struct take *c, uint32_t evt_mask, const uint8_t *cpus,
               const struct xt_masks_more *more, uint64_t now);

/* Queue every CPU's chunk (as push_epoch()) and write them now. */
void take_flush(struct take *c, uint64_t now);

/* The last epoch: the end marks of every CPU with records. */
void push_end(struct take *c);

#endif /* TAKE_H */
