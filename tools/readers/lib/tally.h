/*
 * tally: what xentrace-summary and xentrace-plot count of a trace file's
 * records.
 *
 * Per CPU and per event: records and bytes.  Per CPU: the losses, with the
 * TSC ticks each TRC_LOST_RECORDS covers (from its first lost record to
 * itself), and records per time bin.  Per time bin over all CPUs: the
 * losses.  Events are listed in the order of their first record in the
 * file, and CPUs by number, whatever order the records were counted in.
 *
 * The time bins are counted as the records come, so that a stream (a
 * pipe, a followed file) needs no second pass: each is 2^k TSC ticks
 * wide, at a multiple of its width, and k is the least for which the
 * trace's TSCs fit in the bins asked for.  k grows as the TSCs spread,
 * two bins becoming one, so the counts depend only on which TSCs the
 * records have, never on the order they came in: a pipe gives the same
 * bins as the file.  There are from half the bins asked for (plus one)
 * to all of them; the first and the last cover only the part of their
 * width inside the trace's TSC range, and their rates are of that part.
 * Records of a CPU before its first TSC count in the first bin.
 *
 * Memory grows only when an event or CPU is seen for the first time,
 * never per record or loss: CPUs times bins at most.  tally_run() reads
 * the records in place, batch by batch (xt_iter_batch()); a reader that
 * takes every record anyway (xentrace-summary's model) counts each with
 * tally_record() between tally_begin() and tally_end() instead, in the
 * same pass.
 */
#ifndef TALLY_H
#define TALLY_H

#include <stddef.h>
#include <stdint.h>

#include "hashtab.h"
#include "timebins.h"
#include "xtread.h"


struct tally_count {
    uint64_t records;
    uint64_t bytes;
};

/* An event and what counting one takes, by a small hash of its id. */
struct tally_seen {
    uint32_t count_id;          /* @id if only counted, else NONE */
    uint32_t index;             /* in tally.events */
    uint32_t id;                /* TALLY_SEEN_NONE: no event yet */
    unsigned int kind;          /* private to tally.c */
};

#define TALLY_SEEN_BITS     10
#define TALLY_SEEN_NONE     UINT32_MAX  /* events have 28 bits */

struct tally_event {
    uint32_t id;
    const char *class;          /* xt_event_class() */
    struct tally_count total;
    uint64_t first;             /* offset of its first record */
};

struct tally_cpu {
    unsigned int cpu;
    struct tally_count total;
    struct tally_count *by_event;   /* indexed like tally.events */
    unsigned int nr_by_event;       /* entries allocated */
    uint64_t lost_markers;
    uint64_t lost_records;
    uint64_t lost_ticks;        /* TSC ticks their markers cover */
    uint64_t *bins;             /* records per time bin */
    unsigned int bin;           /* the bin of its last record, */
    uint64_t bin_start, bin_end;    /* and the TSCs it covers */
    uint64_t tsc;               /* of its last record with one, */
    uint64_t first_tsc;         /* and of its first: TALLY_NO_TSC before */
    uint64_t untimed;           /* records before its first TSC */
};

#define TALLY_NO_TSC        UINT64_MAX

/* The losses of a time bin, over all CPUs. */
struct tally_bin_loss {
    uint64_t records;           /* lost, as their markers (in this bin) say */
    uint64_t markers;           /* whose span (first lost record to the
                                   marker) covers some of this bin */
};

struct tally {
    struct xt_reader *reader;
    const struct xt_reader_info *info;
    const struct xt_dom0_info *dom0;    /* whose lanes are not counted */
    uint64_t hz;                /* TSC ticks per second used for times */
    uint64_t first_tsc;         /* the trace's TSC range, over all CPUs, */
    uint64_t last_tsc;          /* and time 0 of its seconds (cli_origin()): */
    uint64_t origin;            /* known once tally_end() has run */
    struct tally_count total;

    unsigned int nr_cpus;       /* CPUs with a record; by number at the end */
    size_t cpus_cap;
    struct tally_cpu *cpus;     /* by the reader's cpu_index until then */

    unsigned int nr_events;     /* distinct events, in order of appearance */
    struct tally_event *events;
    size_t events_cap;
    struct hashtab by_id;       /* of the events, by id */
    struct tally_seen *seen;    /* the last event of each small hash */

    /* The time bins (timebins.h): time.max asked for, time.nr in use. */
    struct timebins time;
    uint64_t bin_ticks;         /* 2^time.shift, or UINT64_MAX */
    struct tally_bin_loss *bin_losses;  /* time.nr, made by tally_end() */

    /* Until then, per bin: lost records, and markers starting and ending */
    uint64_t *lost_in_bin, *marker_starts, *marker_ends;
    struct tally_bin_loss untimed_losses;   /* markers before any TSC */
};

/*
 * Count every record of @r into @t, with the TSC range cut into at most
 * @nr_bins bins, with times at @hz TSC ticks per second (cli_tsc_hz(); 0
 * takes CLI_DEFAULT_HZ).  Returns 0, or -1 with errno ENOMEM (or EAGAIN
 * from a reader that gives it).
 */
int tally_run(struct tally *t, struct xt_reader *r, unsigned int nr_bins,
              uint64_t hz);

/*
 * The same in three steps, for a caller that reads every record of @r
 * itself (xt_record.cpu_index must be the reader's): tally_begin() as
 * tally_run(), then tally_record() on each record that is not a
 * CPU-change or pad, in any order that keeps each CPU's records in the
 * file's order, then tally_end().  Each returns 0, or -1 with errno
 * ENOMEM.
 */
int tally_begin(struct tally *t, struct xt_reader *r, unsigned int nr_bins,
                uint64_t hz);
int tally_record(void *tally, const struct xt_record *rec); /* as .each of
                                                   struct model_options */
int tally_end(struct tally *t);

void tally_free(struct tally *t);

/*
 * After tally_end(): the TSCs bin @b covers, [*start, *end), cut to the
 * trace's range; where it starts in seconds from the origin; and the rate
 * of @records in it, per second of that part.
 */
void tally_bin_span(const struct tally *t, unsigned int b, uint64_t *start,
                    uint64_t *end);
double tally_bin_seconds(const struct tally *t, unsigned int b);
double tally_bin_rate(const struct tally *t, unsigned int b,
                      uint64_t records);

#endif /* TALLY_H */
