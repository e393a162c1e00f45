/*
 * xentrace's output: a writer thread that writes chunks of records which
 * the capture thread filled, so that draining Xen's buffers never waits
 * for the disk.  See output.c.
 */
#ifndef OUTPUT_H
#define OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xtfile.h"

/*
 * Xen's records in a chunk, counted as the exit table counts them
 * (window.h's struct cpu_count): not xentrace's own marks, nor pads.
 */
struct chunk_count {
    uint64_t records;
    uint64_t bytes;
    uint64_t lost;
};

static inline void chunk_count_add(struct chunk_count *to,
                                   const struct chunk_count *n)
{
    to->records += n->records;
    to->bytes += n->bytes;
    to->lost += n->lost;
}

/* One CPU's records, laid out as a batch (xt_writer_put()). */
struct chunk {
    struct chunk *next;         /* in the queue or the free list */
    unsigned int cpu;
    size_t len;                 /* bytes of records */
    uint8_t *buf;               /* page-aligned; records at XT_BATCH_HEAD */
    bool ends_epoch;            /* the last of its epoch (see output.c) */
    struct chunk_count count;   /* the capture thread's, of what it holds */
};

static inline uint8_t *chunk_records(struct chunk *c)
{
    return c->buf + XT_BATCH_HEAD;
}

static inline uint8_t *chunk_end(struct chunk *c)
{
    return chunk_records(c) + c->len;
}

struct output;

/*
 * Start the writer thread on @w, for CPUs 0 to @nr_cpus - 1, with chunks
 * that hold @chunk_records bytes of records each, as many as fit in
 * @pool_bytes but at least @min_chunks.  With @ring_bytes (-M), it keeps
 * the newest epochs that hold that many bytes and writes them at the end
 * instead.
 */
struct output *output_start(struct xt_writer *w, unsigned int nr_cpus,
                            size_t chunk_records, size_t pool_bytes,
                            unsigned int min_chunks, size_t ring_bytes);

/*
 * The memory that output_start()'s chunks may come to, with the same
 * arguments: more than @pool_bytes where @min_chunks need more.
 */
uint64_t output_pool_bytes(size_t chunk_records, size_t pool_bytes,
                           unsigned int min_chunks);

/*
 * An empty chunk for CPU @cpu, waiting for the writer thread to free one
 * if all are in use.  NULL if the writer has failed: output_error().
 */
struct chunk *output_take(struct output *o, unsigned int cpu);

/*
 * Queue @c to be written; an empty one goes straight back.  The writer
 * thread starts on the queue once half the pool is queued, or at
 * output_flush(), which has it write what is queued without waiting for
 * more.
 */
void output_push(struct output *o, struct chunk *c);
void output_flush(struct output *o);

/* The writer's error (an errno value), or 0. */
int output_error(struct output *o);

/*
 * Write what is queued (or kept), close the writer, stop the thread.
 * Returns the writer's error or 0; the counts below stay readable until
 * output_free().
 */
int output_finish(struct output *o);
bool output_running(const struct output *o);
/* Bytes of the batches that came through, kept with -M or not. */
uint64_t output_passed_bytes(const struct output *o);
/* Bytes of the file written, the metadata's page included. */
uint64_t output_file_bytes(const struct output *o);
uint64_t output_file_padding(const struct output *o);
/*
 * What the file holds of CPU @cpu's records: its chunks written whole,
 * with -M those kept; not what a failed write or -M's ring left out.
 */
const struct chunk_count *output_written(const struct output *o,
                                         unsigned int cpu);
void output_free(struct output *o);

#endif /* OUTPUT_H */
