/*
 * ftrace's events as dom0's records (xtfile.h, "Dom0's kernel events"):
 * which of the kinds an event is, the fields it keeps, and the LOST
 * records that keep the count of what ftrace lost.  Shared by xentrace
 * --dom0, which reads ftrace's buffers, and xentrace-join, which reads a
 * trace-cmd trace.dat: both hand over libtraceevent's records.
 */
#ifndef FTRACE_H
#define FTRACE_H

#include <stdbool.h>
#include <stdint.h>

#include <event-parse.h>

#include "xtfile.h"

struct ftrace;

/*
 * Routes for @tep's events; @who begins the messages of errx(3).  With
 * @all_asked, every event handed over is one the user asked for (a
 * trace.dat's), so one that cannot be taken (the file gives no format
 * for it) is counted lost; --dom0's are only those it enabled.
 */
struct ftrace *ftrace_new(struct tep_handle *tep, const char *who,
                          bool all_asked);
void ftrace_free(struct ftrace *f);

/*
 * Take @ev's records from now on: as their kind where xentrace knows the
 * event (sched, irq, softirq), else as a generic type named in the
 * file's first batch.  Exits through errx(3) past XT_DOM0_TYPES generic
 * types, or for a known event whose fields are not as xentrace knows
 * them.
 */
void ftrace_add(struct ftrace *f, struct tep_event *ev);

/*
 * The id of @rec's event, read where the format of @f's first event puts
 * it, or -1 if the record is too short to hold it (a trace.dat's may be).
 */
int ftrace_event_id(struct ftrace *f, struct tep_record *rec);

/* Whether event id @id is taken; the generic types, into @meta. */
bool ftrace_takes(const struct ftrace *f, int id);
void ftrace_types(const struct ftrace *f, struct xt_dom0_meta *meta);

/* A lane as ftrace gives it: what waits to be counted lost. */
struct ftrace_lane {
    uint64_t last_tsc;          /* of the last event put */
    uint64_t pending;           /* lost, for the next LOST record */
    bool pending_unknown;       /* some lost, how many unknown */
    bool lost_unknown;          /* so it was, once in the lane */
    uint64_t events, lost;      /* put in all: events, and LOST's counts */
    uint64_t untaken;           /* handed over but of no route */
};

/* ftrace's count of missed events before a page or record: -1, unknown. */
void ftrace_missed(struct ftrace_lane *l, long long missed);

/* Words ftrace_put() writes at most: a LOST record and the event. */
#define FTRACE_PUT_WORDS (2 * XT_DOM0_EVENT_WORDS)

/*
 * @rec at @tsc into @words, after a LOST record if losses wait: the words
 * written; 0 for an event not taken (counted lost with all_asked), or one
 * older than the lane's last or cut short, which is counted lost (ftrace
 * gives each CPU's in order, whole).
 */
size_t ftrace_put(struct ftrace *f, struct ftrace_lane *l,
                  struct tep_record *rec, uint64_t tsc, uint32_t *words);

/* The losses that wait, in a LOST record at @tsc: the words (0: none). */
size_t ftrace_put_lost(struct ftrace_lane *l, uint64_t tsc, uint32_t *words);

#endif /* FTRACE_H */
