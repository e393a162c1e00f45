/*
 * xentrace: the domain filter in dom0, for a Xen without one (see
 * filter.c).
 */
#ifndef FILTER_H
#define FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output.h"
#include "xtfile.h"

struct dom_filter;

/*
 * Whether records of event mask @evt_mask tell whose context each record
 * is in: the scheduler's runstate changes (TRC_SCHED_MIN) pass it.
 * Without them dom0 cannot filter.
 */
bool dom_filter_sees_context(uint32_t evt_mask);

/* The filter of @doms for a host of @nr_cpus CPUs; exits without memory. */
struct dom_filter *dom_filter_new(const struct xt_dom_filter *doms,
                                  unsigned int nr_cpus);
void dom_filter_free(struct dom_filter *f);

/*
 * Of the @len bytes of CPU @cpu's checked records at @p, the next of its
 * stream, keep those the filter keeps, moved down over those it drops:
 * returns the bytes kept, and adds what it dropped to @dropped.
 */
size_t dom_filter_records(struct dom_filter *f, unsigned int cpu,
                          uint8_t *p, size_t len,
                          struct chunk_count *dropped);

#endif /* FILTER_H */
