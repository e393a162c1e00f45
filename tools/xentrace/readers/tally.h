/*
 * tally: one pass over a trace file's records, counting what
 * xentrace-summary and xentrace-plot show.
 *
 * Per CPU and per event: records and bytes.  Per CPU: the losses, with the
 * TSC ticks each TRC_LOST_RECORDS covers (from its first lost record to
 * itself), and records per time bin.  Per vCPU (domain << 16 | vcpu, as
 * TRC_SCHED_RUNSTATE_CHANGE names it): the time spent in each runstate.
 *
 * Memory grows only when an event, vCPU or loss is seen for the first
 * time, never per record.  The records are read in place, batch by batch
 * (xt_reader_batch()): the reader is opened with XT_READ_BATCHES.
 */
#ifndef TALLY_H
#define TALLY_H

#include <stddef.h>
#include <stdint.h>

#include "xtread.h"

#define TALLY_DEFAULT_HZ    2400000000ULL   /* xenalyze's default */

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

/* A runstate change or loss, as counted or put off (tally.c: struct lane). */
struct tally_later {
    struct tally_cpu *cpu;
    unsigned int kind;
    uint32_t event;
    unsigned int nr_extra;      /* up to 4: what they need */
    uint32_t extra[4];
    uint64_t tsc;
};

struct tally_event {
    uint32_t id;
    const char *class;          /* xt_event_class() */
    struct tally_count total;
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
    uint64_t tsc;               /* of its last record with one */
};

struct tally_vcpu {
    uint32_t domvcpu;           /* domain << 16 | vcpu */
    unsigned int state;         /* the last runstate it entered */
    uint64_t since;             /* TSC it entered it */
    uint64_t ticks[XT_NR_RUNSTATES];
    uint64_t changes;
};

/* One TRC_LOST_RECORDS: @count records lost on @cpu from @first to @tsc. */
struct tally_loss {
    unsigned int cpu;
    uint32_t count;
    uint64_t first_tsc, tsc;
};

struct tally {
    const struct xt_reader_info *info;
    uint64_t hz;                /* TSC ticks per second used for times */
    uint64_t first_tsc;         /* the trace's TSC range, over all CPUs */
    uint64_t last_tsc;
    struct tally_count total;

    unsigned int nr_cpus;       /* CPUs with a batch, ascending */
    struct tally_cpu *cpus;

    unsigned int nr_events;     /* distinct events, in order of appearance */
    struct tally_event *events;
    size_t events_cap;
    uint32_t *event_slot;       /* hash of event id -> index + 1 */
    unsigned int event_slots;
    struct tally_seen *seen;    /* the last event of each small hash */

    unsigned int nr_vcpus;      /* vCPUs with a runstate change */
    struct tally_vcpu *vcpus;
    size_t vcpus_cap;
    uint32_t *vcpu_slot;        /* hash of domvcpu -> index + 1 */
    unsigned int vcpu_slots;

    struct tally_later *later;
    size_t nr_later, later_cap;

    unsigned int nr_losses;
    struct tally_loss *losses;
    size_t losses_cap;

    unsigned int nr_bins;
    uint64_t bin_ticks;         /* TSC ticks per bin */
};

/*
 * Count every record of @r into @t, with the TSC range cut into @nr_bins
 * bins; @hz of 0 takes the file's TSC frequency, or TALLY_DEFAULT_HZ.
 * @r may be opened with XT_READ_BATCHES or not; its damage is known
 * afterwards.  Returns 0, or -1 with errno ENOMEM.
 */
int tally_run(struct tally *t, struct xt_reader *r, unsigned int nr_bins,
              uint64_t hz);

void tally_free(struct tally *t);

/* Ticks as seconds. */
double tally_seconds(const struct tally *t, uint64_t ticks);

#endif /* TALLY_H */
