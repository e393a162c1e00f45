/*
 * The start of the fuzz targets of the readers on tally.c
 * (xentrace-summary, xentrace-plot): the input, opened as they open it,
 * counted with a bin count and a TSC frequency the input chooses.
 */
#ifndef FUZZ_TALLY_H
#define FUZZ_TALLY_H

#include <stdlib.h>

#include "check_output.h"
#include "tally.h"

/* @data's reader, counted into @t; NULL if it is not a trace. */
static inline struct xt_reader *tally_input(struct tally *t,
                                            const uint8_t *data, size_t size)
{
    struct xt_reader *r = xt_reader_open_mem(data, size, 0);

    /* Out of memory is a finding: over -rss_limit_mb. */
    if ( r && tally_run(t, r, fuzz_bins(data, size), fuzz_hz(r, data, size)) )
        abort();
    return r;
}

#endif /* FUZZ_TALLY_H */
