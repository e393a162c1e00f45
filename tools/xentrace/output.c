/*
 * xentrace's output: the writer thread and the chunks it shares with the
 * capture thread.
 *
 *   capture thread                          writer thread
 *   --------------                          -------------
 *   output_take(): a free chunk for a CPU   wait for half the pool queued,
 *   copy the CPU's windows into it            or a flush, the end,
 *   output_push() it, with the other CPUs'    or a capture thread waiting
 *     (see xentrace.c)                      xt_writer_putv() 1 MiB of them:
 *                                             headers and pads in place,
 *                                             one writev(2); again while
 *                                             1 MiB is queued
 *                                           back to the free list
 *
 * A chunk is laid out as the batch it will be written as, so the records
 * are copied once, out of Xen's buffer, and written from where they were
 * copied to, with O_DIRECT too (xentrace's default): whole pages,
 * page-aligned.
 * Chunks are allocated as they are first needed, up to the pool's size,
 * and then reused: after the first seconds, capture touches no new
 * memory.  The queue is first in, first out, so each CPU's chunks
 * reach the file in the order they were filled.
 *
 * When every chunk is in use, output_take() waits for the writer thread:
 * the writer is a whole pool behind, Xen's buffers fill, and Xen counts
 * what it loses in lost-records markers as always.
 *
 * The writer thread is woken once half the pool is queued, or by
 * output_flush() (the capture thread's, once records queued are a second
 * old): not for every chunk, as a wake-up costs about as much CPU as
 * writing 64 KiB to the page cache, and its work is not urgent: half the
 * pool is still free for the capture thread when it is woken.  Awake, it
 * writes what gathered in writev(2)s of GATHER_BYTES until less than that
 * is left.
 *
 * Flight recorder (-M, ring_bytes).  The writer thread copies each chunk
 * into a batch of its exact size, keeps the batches of an epoch together
 * (the capture thread marks its last chunk), and writes nothing until
 * the end, when it writes the epochs it kept, oldest first.  The oldest
 * epoch is dropped as long as the others hold ring_bytes without it: what
 * is kept is at least the newest ring_bytes, and less than one epoch
 * more, and starts at an epoch boundary, as xenalyze needs.  (Keeping at
 * most ring_bytes instead kept nearly nothing when epochs were about as
 * big as the ring: the small last epoch of a capture alone.)  Whole
 * batches only, so nothing ever straddles the end of a ring (upstream's
 * -M overflows its heap there).
 *
 * The first error of the writer (a full disk, a closed pipe, no memory
 * for the ring) ends the thread: the file is cut back to its last
 * complete batch, and output_take() returns NULL from then on.
 *
 * Each chunk carries the count of Xen's records it holds; the writer adds
 * it to its CPU's once the batch is in the file whole, so that the exit
 * table describes the file, whatever -M dropped or a failed write lost.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

/*
 * The writer thread gathers queued chunks into one writev(2) of
 * GATHER_BYTES or more (1 MiB: what O_DIRECT needs to be cheap, and
 * several batches a call for the page cache), the chunk that reaches it
 * the last.
 */
#define GATHER_BYTES     (1u << 20)

/* With ring_bytes: a batch kept, in memory of its size. */
struct kept {
    struct kept *next;
    unsigned int cpu;
    size_t len;                         /* bytes of records */
    uint8_t *buf;                       /* laid out for xt_writer_put() */
    struct chunk_count count;
};

/* The batches of one epoch, ascending CPUs. */
struct epoch {
    struct epoch *next;                 /* the next newer epoch */
    struct kept *first, **last;
    size_t bytes;                       /* the batches' sizes */
};

struct output {
    struct xt_writer *w;                /* the writer thread's */
    size_t chunk_bytes;                 /* xt_batch_size() of the records */
    size_t ring_bytes;                  /* -M; 0: write as chunks come */
    pthread_t thread;
    bool running;                       /* the thread was started */

    pthread_mutex_t lock;
    pthread_cond_t cond;                /* queued, freed, stop, error */
    struct chunk *queue, **queue_tail;  /* under lock */
    size_t queued_bytes;                /* under lock: records queued */
    bool flushing;                      /* under lock: output_flush() */
    unsigned int takers;                /* under lock: waiting for a chunk */
    unsigned int nr_queued, wake_at;    /* under lock: wake the writer */
    struct chunk *free;                 /* under lock */
    unsigned int nr_chunks, max_chunks; /* under lock */
    bool stop;                          /* under lock: nothing more comes */
    int error;                          /* under lock: the writer failed */

    /* The writer thread's, with ring_bytes: the epochs kept. */
    struct epoch *oldest, *newest;
    struct epoch *filling;              /* not yet ended */
    size_t ring_used;                   /* bytes of batches kept */

    uint64_t passed_bytes;              /* batches that came through */
    uint64_t file_bytes, file_padding;  /* at close */
    unsigned int nr_cpus;
    struct chunk_count *written;        /* [nr_cpus]: in the file */
};

/*
 * The writer thread
 * =================
 */

/*
 * Whether the writer thread should write what is queued now rather than
 * sleep: what is queued must not wait (output_flush(), the capture
 * thread's once a second), nothing more is coming, the capture thread
 * waits for a chunk, or enough is queued: asleep, half the pool
 * (wake_at chunks), and once @awake, GATHER_BYTES, so that a wake-up
 * writes down what gathered, not just one writev(2) of it.
 */
static bool write_now(const struct output *o, bool awake)
{
    if ( o->flushing || o->stop || o->takers || o->ring_bytes )
        return true;
    return awake ? o->queued_bytes >= GATHER_BYTES
                 : o->nr_queued >= o->wake_at;
}

/*
 * Queued chunks into @c, until they hold GATHER_BYTES (at most
 * XT_PUTV_MAX of them), waiting until write_now(); 0 once stopped and
 * empty.  @awake: the writer has just written.
 */
static unsigned int next_chunks(struct output *o, struct chunk **c,
                                bool awake)
{
    unsigned int n = 0;
    size_t bytes = 0;

    pthread_mutex_lock(&o->lock);
    while ( !(o->queue && write_now(o, awake)) && !o->stop )
    {
        if ( awake )
            awake = false;      /* look again, as one asleep would */
        else
            pthread_cond_wait(&o->cond, &o->lock);
    }
    while ( o->queue && n < XT_PUTV_MAX && bytes < GATHER_BYTES )
    {
        struct chunk *k = o->queue;

        if ( !(o->queue = k->next) )
            o->queue_tail = &o->queue;
        o->queued_bytes -= k->len;
        o->nr_queued--;
        bytes += k->len;
        c[n++] = k;
    }
    if ( !o->queue )
        o->flushing = false;
    pthread_mutex_unlock(&o->lock);
    return n;
}

/* The output fails with @error, unless it failed already. */
static void set_error(struct output *o, int error)
{
    if ( error && !o->error )
        o->error = error;
    pthread_cond_broadcast(&o->cond);
}

/* Put the @n chunks at @c back on the free list; @error fails the output. */
static void give_back(struct output *o, struct chunk **c, unsigned int n,
                      int error)
{
    unsigned int i;

    pthread_mutex_lock(&o->lock);
    for ( i = 0; i < n; i++ )
    {
        c[i]->next = o->free;
        o->free = c[i];
    }
    set_error(o, error);
    pthread_mutex_unlock(&o->lock);
}

static int error_of(int rc)
{
    return rc ? (errno ? errno : EIO) : 0;
}

static void free_epoch(struct epoch *e)
{
    while ( e->first )
    {
        struct kept *k = e->first;

        e->first = k->next;
        free(k->buf);
        free(k);
    }
    free(e);
}

/* End the epoch filling; drop the oldest while the rest hold enough. */
static void end_epoch(struct output *o)
{
    struct epoch *e = o->filling;

    if ( !e )
        return;
    o->filling = NULL;
    if ( o->oldest )
        o->newest->next = e;
    else
        o->oldest = e;
    o->newest = e;
    o->ring_used += e->bytes;

    while ( o->oldest != o->newest &&
            o->ring_used - o->oldest->bytes >= o->ring_bytes )
    {
        struct epoch *old = o->oldest;

        o->oldest = old->next;
        o->ring_used -= old->bytes;
        free_epoch(old);
    }
}

/* Copy @c into the epoch filling, in a batch of its size: an errno or 0. */
static int keep(struct output *o, const struct chunk *c)
{
    size_t size = xt_batch_size(c->len);
    struct kept *k = calloc(1, sizeof(*k));

    if ( !o->filling && (o->filling = calloc(1, sizeof(*o->filling))) )
        o->filling->last = &o->filling->first;
    if ( !k || !o->filling || posix_memalign((void **)&k->buf, 4096, size) )
    {
        free(k);
        return ENOMEM;
    }
    k->cpu = c->cpu;
    k->len = c->len;
    k->count = c->count;
    memcpy(k->buf + XT_BATCH_HEAD, c->buf + XT_BATCH_HEAD, c->len);
    *o->filling->last = k;
    o->filling->last = &k->next;
    o->filling->bytes += size;
    if ( c->ends_epoch )
        end_epoch(o);
    return 0;
}

/* Write the epochs kept, oldest first. */
static int write_ring(struct output *o)
{
    struct epoch *e;
    struct kept *k;

    end_epoch(o);
    for ( e = o->oldest; e; e = e->next )
        for ( k = e->first; k; k = k->next )
        {
            if ( xt_writer_put(o->w, k->cpu, k->buf, k->len) )
                return error_of(-1);
            chunk_count_add(&o->written[k->cpu], &k->count);
        }
    return 0;
}

/* Free the ring: once written, or what an error left in it. */
static void drop_ring(struct output *o)
{
    end_epoch(o);
    while ( o->oldest )
    {
        struct epoch *e = o->oldest;

        o->oldest = e->next;
        free_epoch(e);
    }
}

/* Close the writer: the end of the file. */
static int close_writer(struct output *o)
{
    int rc;

    o->file_bytes = xt_writer_bytes(o->w);
    o->file_padding = xt_writer_padding(o->w);
    rc = xt_writer_close(o->w);
    o->w = NULL;
    return error_of(rc);
}

/*
 * The @n chunks at @c to the file, as many batches in one writev(2); the
 * counts of those written whole, which after an error may be only some.
 */
static int put_chunks(struct output *o, struct chunk **c, unsigned int n)
{
    struct xt_out_batch b[XT_PUTV_MAX];
    uint64_t before = xt_writer_bytes(o->w), whole;
    unsigned int i;
    int error;

    for ( i = 0; i < n; i++ )
        b[i] = (struct xt_out_batch){ .cpu = c[i]->cpu, .buf = c[i]->buf,
                                      .records = c[i]->len };
    error = error_of(xt_writer_putv(o->w, b, n));
    whole = xt_writer_bytes(o->w) - before;
    for ( i = 0; i < n && whole >= xt_batch_size(c[i]->len); i++ )
    {
        whole -= xt_batch_size(c[i]->len);
        chunk_count_add(&o->written[c[i]->cpu], &c[i]->count);
    }
    return error;
}

static void *write_out(void *arg)
{
    struct output *o = arg;
    struct chunk *c[XT_PUTV_MAX];
    unsigned int n, i;
    bool awake;
    int error = 0, rc;

    for ( awake = false; !error && (n = next_chunks(o, c, awake));
          awake = true )
    {
        for ( i = 0; i < n; i++ )
            o->passed_bytes += xt_batch_size(c[i]->len);
        if ( !o->ring_bytes )
            error = put_chunks(o, c, n);
        for ( i = 0; i < n && o->ring_bytes && !error; i++ )
            error = keep(o, c[i]);
        give_back(o, c, n, error);
    }
    if ( !error && o->ring_bytes )
        error = write_ring(o);
    drop_ring(o);
    rc = close_writer(o);
    pthread_mutex_lock(&o->lock);
    set_error(o, error ? error : rc);
    pthread_mutex_unlock(&o->lock);
    return NULL;
}

/*
 * The capture thread's side
 * =========================
 */

static struct chunk *new_chunk(size_t bytes)
{
    struct chunk *c = calloc(1, sizeof(*c));

    if ( c && posix_memalign((void **)&c->buf, 4096, bytes) )
    {
        free(c);
        c = NULL;
    }
    return c;
}

struct chunk *output_take(struct output *o, unsigned int cpu)
{
    struct chunk *c = NULL;

    pthread_mutex_lock(&o->lock);
    while ( !o->error )
    {
        if ( (c = o->free) )
        {
            o->free = c->next;
            break;
        }
        if ( o->nr_chunks == o->max_chunks )
        {
            /* The writer must not wait to gather more: there is none. */
            o->takers++;
            pthread_cond_broadcast(&o->cond);
            pthread_cond_wait(&o->cond, &o->lock);
            o->takers--;
            continue;
        }
        if ( (c = new_chunk(o->chunk_bytes)) )
        {
            o->nr_chunks++;
            break;
        }
        /* No memory: make do with the chunks there are, if any. */
        o->max_chunks = o->nr_chunks;
        if ( !o->nr_chunks )
            set_error(o, ENOMEM);
    }
    pthread_mutex_unlock(&o->lock);
    if ( c )
        *c = (struct chunk){ .cpu = cpu, .buf = c->buf };
    return c;
}

void output_push(struct output *o, struct chunk *c)
{
    pthread_mutex_lock(&o->lock);
    if ( c->len )
    {
        c->next = NULL;
        *o->queue_tail = c;
        o->queue_tail = &c->next;
        o->queued_bytes += c->len;
        if ( ++o->nr_queued >= o->wake_at )
            pthread_cond_broadcast(&o->cond);
    }
    else
    {
        c->next = o->free;
        o->free = c;
    }
    pthread_mutex_unlock(&o->lock);
}

void output_flush(struct output *o)
{
    pthread_mutex_lock(&o->lock);
    if ( o->nr_queued )
    {
        o->flushing = true;
        pthread_cond_broadcast(&o->cond);
    }
    pthread_mutex_unlock(&o->lock);
}

int output_error(struct output *o)
{
    int error;

    pthread_mutex_lock(&o->lock);
    error = o->error;
    pthread_mutex_unlock(&o->lock);
    return error;
}

/* Chunks of @chunk_bytes in a pool: as many as fit, @min_chunks at least. */
static size_t pool_chunks(size_t chunk_bytes, size_t pool_bytes,
                          unsigned int min_chunks)
{
    size_t n = pool_bytes / chunk_bytes;

    return n < min_chunks ? min_chunks : n;
}

uint64_t output_pool_bytes(size_t chunk_records, size_t pool_bytes,
                           unsigned int min_chunks)
{
    size_t chunk_bytes = xt_batch_size(chunk_records);

    return (uint64_t)pool_chunks(chunk_bytes, pool_bytes, min_chunks) *
           chunk_bytes;
}

struct output *output_start(struct xt_writer *w, unsigned int nr_cpus,
                            size_t chunk_records, size_t pool_bytes,
                            unsigned int min_chunks, size_t ring_bytes)
{
    struct output *o = calloc(1, sizeof(*o));
    sigset_t block, old;

    if ( !o )
        return NULL;
    if ( !(o->written = calloc(nr_cpus ? nr_cpus : 1, sizeof(*o->written))) )
    {
        free(o);
        return NULL;
    }
    o->nr_cpus = nr_cpus;
    o->w = w;
    o->ring_bytes = ring_bytes;
    o->chunk_bytes = xt_batch_size(chunk_records);
    o->max_chunks = pool_chunks(o->chunk_bytes, pool_bytes, min_chunks);
    o->wake_at = o->max_chunks / 2 ? o->max_chunks / 2 : 1;
    o->queue_tail = &o->queue;
    pthread_mutex_init(&o->lock, NULL);
    pthread_cond_init(&o->cond, NULL);

    /*
     * Signals are for the capture thread: they must interrupt its wait.
     * The writer thread's write(2)s to a pipe are not cut short by them.
     */
    sigfillset(&block);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    errno = pthread_create(&o->thread, NULL, write_out, o);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if ( errno )
    {
        output_free(o);
        return NULL;
    }
    o->running = true;
    return o;
}

int output_finish(struct output *o)
{
    pthread_mutex_lock(&o->lock);
    o->stop = true;
    pthread_cond_broadcast(&o->cond);
    pthread_mutex_unlock(&o->lock);
    pthread_join(o->thread, NULL);
    o->running = false;
    return o->error;
}

bool output_running(const struct output *o)
{
    return o->running;
}

uint64_t output_passed_bytes(const struct output *o)
{
    return o->passed_bytes;
}

uint64_t output_file_bytes(const struct output *o)
{
    return o->file_bytes;
}

uint64_t output_file_padding(const struct output *o)
{
    return o->file_padding;
}

const struct chunk_count *output_written(const struct output *o,
                                         unsigned int cpu)
{
    static const struct chunk_count none;

    return cpu < o->nr_cpus ? &o->written[cpu] : &none;
}

static void free_chunks(struct chunk *c)
{
    while ( c )
    {
        struct chunk *next = c->next;

        free(c->buf);
        free(c);
        c = next;
    }
}

/* After output_finish(): chunks the capture thread still holds are its. */
void output_free(struct output *o)
{
    free_chunks(o->queue);
    free_chunks(o->free);
    pthread_mutex_destroy(&o->lock);
    pthread_cond_destroy(&o->cond);
    free(o->written);
    free(o);
}
