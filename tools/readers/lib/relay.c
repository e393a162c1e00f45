/*
 * relay: a file's records read on one thread and taken on another.
 *
 * A ring of RELAY_BATCHES batches, each of up to RELAY_BATCH records.
 * The reading thread fills the batch after the last filled one, waiting
 * while every batch is full; the caller's thread takes the batch after
 * the last taken one, waiting while none is filled.  Two counters say
 * where each side is (filled, taken: batches since the start), both
 * under one lock, taken at most once a batch.  The reading thread
 * publishes its last batch, short or empty, with @ended; the taker stops
 * after it.  A taker that fails sets @stop, which the reader sees before
 * its next batch.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "relay.h"

struct batch {
    struct xt_record rec[RELAY_BATCH];
    unsigned int n;
};

struct relay {
    relay_next_fn *next;
    void *src;
    const struct relay_ops *ops;
    pthread_mutex_t lock;
    pthread_cond_t filled_cond, taken_cond;
    unsigned long filled, taken;    /* batches so far, under @lock */
    bool ended;                     /* the reader's last batch is filled, */
    int read_errno;                 /* and why it ended: 0 at the end */
    bool stop;                      /* the taker failed */
    struct batch ring[RELAY_BATCHES];
};

/* The records of one batch into @b: 1 if it is full, 0 at the end, -1
   with errno. */
static int fill(struct relay *y, struct batch *b)
{
    const struct relay_ops *ops = y->ops;

    for ( b->n = 0; b->n < RELAY_BATCH; b->n++ )
    {
        struct xt_record *rec = &b->rec[b->n];
        int got = y->next(y->src, rec);

        if ( got <= 0 )
            return got;
        if ( ops->each && ops->each(ops->each_arg, rec) )
        {
            errno = ENOMEM;
            return -1;
        }
    }
    return 1;
}

static void *read_batches(void *arg)
{
    struct relay *y = arg;
    int got = 1;

    while ( got > 0 )
    {
        bool stop;

        pthread_mutex_lock(&y->lock);
        while ( y->filled - y->taken == RELAY_BATCHES && !y->stop )
            pthread_cond_wait(&y->taken_cond, &y->lock);
        stop = y->stop;
        pthread_mutex_unlock(&y->lock);
        if ( stop )
            break;
        /* Only this thread moves @filled: its batch is its own. */
        got = fill(y, &y->ring[y->filled % RELAY_BATCHES]);
        pthread_mutex_lock(&y->lock);
        y->filled++;
        if ( got <= 0 )
        {
            y->ended = true;
            y->read_errno = got ? errno : 0;
        }
        pthread_cond_signal(&y->filled_cond);
        pthread_mutex_unlock(&y->lock);
    }
    return NULL;
}

/* The next filled batch, or NULL after the last; *@read_errno says how
   the reading ended. */
static const struct batch *next_batch(struct relay *y, int *read_errno)
{
    const struct batch *b = NULL;

    pthread_mutex_lock(&y->lock);
    while ( y->taken == y->filled && !y->ended )
        pthread_cond_wait(&y->filled_cond, &y->lock);
    if ( y->taken < y->filled )
        b = &y->ring[y->taken % RELAY_BATCHES];
    *read_errno = y->read_errno;
    pthread_mutex_unlock(&y->lock);
    return b;
}

static void batch_taken(struct relay *y, bool failed)
{
    pthread_mutex_lock(&y->lock);
    y->taken++;
    y->stop = failed;
    pthread_cond_signal(&y->taken_cond);
    pthread_mutex_unlock(&y->lock);
}

static int take_batches(struct relay *y)
{
    const struct relay_ops *ops = y->ops;
    const struct batch *b;
    int read_errno = 0;

    while ( (b = next_batch(y, &read_errno)) )
    {
        unsigned int i;
        bool failed;

        for ( i = 0; i < b->n; i++ )
            if ( ops->take(ops->take_arg, &b->rec[i]) )
                break;
        /* Once taken, the batch is the reader's to fill again. */
        failed = i < b->n;
        batch_taken(y, failed);
        if ( failed )
        {
            errno = ENOMEM;
            return -1;
        }
    }
    errno = read_errno;
    return read_errno ? -1 : 0;
}

/* The caller's thread alone. */
static int run_alone(relay_next_fn *next, void *src,
                     const struct relay_ops *ops)
{
    struct xt_record rec;
    int got;

    while ( (got = next(src, &rec)) > 0 )
        if ( (ops->each && ops->each(ops->each_arg, &rec)) ||
             ops->take(ops->take_arg, &rec) )
        {
            errno = ENOMEM;
            return -1;
        }
    return got;
}

int relay_run(struct xt_reader *r, relay_next_fn *next, void *src,
              unsigned int threads, const struct relay_ops *ops)
{
    struct relay *y;
    pthread_t reader;
    int ret;

    if ( threads < 2 || xt_reader_info(r)->streamed ||
         !(y = calloc(1, sizeof(*y))) )
        return run_alone(next, src, ops);
    y->next = next;
    y->src = src;
    y->ops = ops;
    pthread_mutex_init(&y->lock, NULL);
    pthread_cond_init(&y->filled_cond, NULL);
    pthread_cond_init(&y->taken_cond, NULL);
    if ( pthread_create(&reader, NULL, read_batches, y) )
        ret = run_alone(next, src, ops);
    else
    {
        ret = take_batches(y);
        pthread_join(reader, NULL);
    }
    pthread_cond_destroy(&y->taken_cond);
    pthread_cond_destroy(&y->filled_cond);
    pthread_mutex_destroy(&y->lock);
    free(y);
    return ret;
}
