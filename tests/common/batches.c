/* Epochs of batches for xt_writer_put(): see batches.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "batches.h"

struct batch {
    uint8_t *buf;               /* page-aligned; records at XT_BATCH_HEAD */
    size_t cap;                 /* bytes of records it has room for */
    size_t len;                 /* bytes of records in it */
};

struct batches {
    unsigned int nr_cpus;
    size_t batch_bytes;
    unsigned int nr_full;       /* CPUs holding batch_bytes or more */
    struct batch cpu[];
};

struct batches *batches_new(unsigned int nr_cpus, size_t batch_bytes)
{
    struct batches *b = calloc(1, sizeof(*b) + nr_cpus * sizeof(b->cpu[0]));

    if ( b )
    {
        b->nr_cpus = nr_cpus;
        b->batch_bytes = batch_bytes;
    }
    return b;
}

void batches_free(struct batches *b)
{
    unsigned int cpu;

    for ( cpu = 0; cpu < b->nr_cpus; cpu++ )
        free(b->cpu[cpu].buf);
    free(b);
}

/* Room for @cap bytes of records in @c, keeping those it holds. */
static int grow(struct batch *c, size_t cap)
{
    size_t size;
    void *buf;
    int rc;

    if ( cap <= c->cap )
        return 0;
    if ( cap < 2 * c->cap )
        cap = 2 * c->cap;
    size = xt_batch_size(cap);
    if ( (rc = posix_memalign(&buf, XT_PAGE, size)) )
    {
        errno = rc;
        return -1;
    }
    if ( c->len )
        memcpy((uint8_t *)buf + XT_BATCH_HEAD, c->buf + XT_BATCH_HEAD,
               c->len);
    free(c->buf);
    c->buf = buf;
    c->cap = size - XT_BATCH_HEAD;
    return 0;
}

int batches_add(struct batches *b, unsigned int cpu, const void *data,
                size_t len)
{
    struct batch *c;

    if ( cpu >= b->nr_cpus )
    {
        errno = EINVAL;
        return -1;
    }
    c = &b->cpu[cpu];
    if ( !len )
        return 0;
    if ( grow(c, c->len + len) )
        return -1;
    memcpy(c->buf + XT_BATCH_HEAD + c->len, data, len);
    if ( c->len < b->batch_bytes && c->len + len >= b->batch_bytes )
        b->nr_full++;
    c->len += len;
    return 0;
}

bool batches_full(const struct batches *b)
{
    return b->nr_full > 0;
}

int batches_put(struct batches *b, struct xt_writer *w)
{
    unsigned int cpu;
    int rc = 0;

    for ( cpu = 0; cpu < b->nr_cpus; cpu++ )
    {
        struct batch *c = &b->cpu[cpu];

        if ( c->len && !rc )
            rc = xt_writer_put(w, cpu, c->buf, c->len);
        c->len = 0;
    }
    b->nr_full = 0;
    return rc;
}
