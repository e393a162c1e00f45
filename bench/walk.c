/*
 * walk: the reader's bare walk over a trace file, for run-read's "bare
 * parse" column: every record, and nothing done with it but a count.
 *
 *   walk [-b] file
 *
 * By default it takes every record merged by TSC (XT_ORDER_TSC), as the
 * model does, which is what xentrace-summary's analysis reads; with -b it
 * walks the batches in place instead, as its per-CPU counts do.  Prints
 * the number of records.
 */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "xtread.h"

static uint64_t walk_merged(struct xt_reader *r)
{
    struct xt_iter *it = xt_iter_new(r, XT_ORDER_TSC, 0, 0);
    struct xt_record rec;
    uint64_t n = 0;

    if ( !it )
        err(1, "iterator");
    while ( xt_iter_next(it, &rec) > 0 )
        n++;
    xt_iter_free(it);
    return n;
}

static uint64_t walk_batches(struct xt_reader *r)
{
    struct xt_iter *it = xt_iter_new(r, XT_ORDER_FILE, 0, 0);
    struct xt_batch b;
    uint64_t n = 0;
    size_t w;
    int got;

    if ( !it )
        err(1, "iterator");
    while ( (got = xt_iter_batch(it, &b)) > 0 )
        for ( w = 0; w < b.len; w += xt_record_words(b.words[w]) )
            n++;
    if ( got )
        err(1, "batches");
    xt_iter_free(it);
    return n;
}

int main(int argc, char **argv)
{
    bool batches = false;
    struct xt_reader *r;
    int opt;

    while ( (opt = getopt(argc, argv, "b")) != -1 )
    {
        if ( opt != 'b' )
        {
            fprintf(stderr, "usage: walk [-b] file\n");
            return 1;
        }
        batches = true;
    }
    if ( optind != argc - 1 )
    {
        fprintf(stderr, "usage: walk [-b] file\n");
        return 1;
    }
    r = xt_reader_open(argv[optind], 0);
    if ( !r )
        errx(1, "%s: %s", argv[optind], xt_reader_strerror(errno));
    printf("%" PRIu64 "\n", batches ? walk_batches(r) : walk_merged(r));
    xt_reader_close(r);
    return 0;
}
