/*
 * relay: a file's records read on one thread and taken on another.
 *
 * Reading a file (merge.c: its pages, each CPU's runs, the compares at
 * each sync record) costs about as much as the model that takes the
 * records.  With two threads, one reads batches of records ahead while
 * the caller's takes them, in the same order, so whatever the caller
 * computes is the same, byte for byte, as with one thread.
 *
 * Only an indexed file is relayed: a stream's reader learns CPUs and
 * metadata as it reads, which the taker would look at meanwhile.
 */
#ifndef RELAY_H
#define RELAY_H

#include "xtread.h"

/*
 * The ring: RELAY_BATCHES batches of RELAY_BATCH records (2.25 MiB).  A
 * batch is handed over with a lock and a wake-up: at 512 records a batch
 * that took most of the gain (the summary of bench/'s 200 MB 8-pCPU file
 * in 0.32 s of wall time, 0.25 s now, 0.35 s on one thread), and at 2048
 * still almost half of it.  At 16384, filling a 4.5 MiB ring made an 8 MB
 * real capture slower than on one thread.
 */
#define RELAY_BATCH     8192
#define RELAY_BATCHES   4

struct relay_ops {
    /* On the reading thread, each record before it is passed on, in
       order; non-zero stops the run (ENOMEM).  NULL: none. */
    int (*each)(void *each_arg, const struct xt_record *rec);
    void *each_arg;
    /* On the caller's thread, each record, in order; non-zero stops the
       run (ENOMEM). */
    int (*take)(void *take_arg, const struct xt_record *rec);
    void *take_arg;
};

/*
 * Where the records come from, in order, as merge_next() and
 * xt_iter_next() give them: 1 with *@rec, 0 at the end, -1 with errno.
 */
typedef int relay_next_fn(void *src, struct xt_record *rec);

/*
 * Every record of @src, a reading of @r, through @ops, on up to @threads
 * threads: two at most, one (the caller's alone) for a stream or if
 * @threads < 2.  0 at the end; -1 with errno (@next's, or ENOMEM).
 */
int relay_run(struct xt_reader *r, relay_next_fn *next, void *src,
              unsigned int threads, const struct relay_ops *ops);

#endif /* RELAY_H */
