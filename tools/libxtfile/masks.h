/*
 * libxtfile's periods of the masks in force (xtfile.h, "Masks"), filled
 * by the reader from their records.  Private to the library.
 */
#ifndef XTFILE_MASKS_H
#define XTFILE_MASKS_H

#include <stdbool.h>

#include "xtread.h"

/*
 * A period: what the reader gives, and the CPU mask's bits, from which
 * its text is made when asked: the records of a mask can be checked
 * before the metadata that says how many CPUs there are (four batches
 * are checked side by side).
 */
struct mask_period {
    struct xt_mask_period given;
    uint8_t *bits;              /* bit n of byte n / 8: CPU n */
    unsigned int nr_bits;       /* the CPUs its records covered */
    struct xt_dom_filter doms;  /* its domain filter's ranges so far */
    struct xt_event_switches switches;  /* and its switches */
};

struct masks {
    struct mask_period *periods;        /* by TSC, the start's first */
    unsigned int nr;
    size_t cap;
    uint64_t dropped;           /* changes past XT_MASK_PERIODS_MAX */
    unsigned int telling;       /* periods[telling - 1] takes the next
                                   chunk of its mask; 0: none */
};

/* All zeros is an empty table. */
void masks_free(struct masks *m);

/*
 * Take @rec if it is a mask's record: true if it was one.  A change for
 * which there is no memory, or no room, is counted in dropped.
 */
bool masks_take(struct masks *m, const struct xt_record *rec);

/* Period @i, its CPUs as text for a host of @nr_cpus (0: not known). */
const struct xt_mask_period *masks_at(const struct masks *m, unsigned int i,
                                      unsigned int nr_cpus);

#endif /* XTFILE_MASKS_H */
