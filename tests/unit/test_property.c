/*
 * Properties of trace.c under concurrency.  Two CPUs, each on its own
 * thread, trace as fast as they can into small buffers while dom0, on a
 * third thread, drains both at random speeds and checks every record it
 * reads; then the same while dom0 writes nonsense into one CPU's cons at
 * random moments.
 *
 * Each record carries a per-CPU sequence number, so the consumer knows
 * exactly which records it did not get, and checks that TRC_LOST_RECORDS
 * markers account for every one of them.  Everything else in a record is a
 * function of (CPU, sequence number), so a torn or misplaced record shows.
 *
 * cmocka's asserts work only on the main thread: the consumer writes the
 * first broken property of a CPU's stream into its failure[], and the main
 * thread asserts on it after joining.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "host_util.h"

#define NR_TEST_CPUS    2
#define EV_SEQ          (TRC_HW_IRQ + 0x5e)
#define MAX_EXTRA       5        /* words after the sequence number */
#define SOFTIRQ_EVERY   64       /* records between host_process_softirqs() */
#define ALL_PAD_SIZES   0x1ff    /* bit n: a pad of 4 * (n + 1) bytes */
#define FINAL_STRETCH   10000    /* last records, emitted with none read */

/*
 * 10^7 records in all.  ThreadSanitizer (make check-tsan) slows the run
 * about fivefold, to seconds, so it runs the same count.
 */
#define RECORDS_PER_CPU 5000000

/*
 * The hostile consumer attacks one CPU in EPISODES bursts; producers run
 * until it has seen CALM_RECORDS on each CPU after the last one, but stop
 * at HOSTILE_CAP so that a CPU that never records again fails the test
 * rather than hanging it.
 */
#define ATTACKED_CPU    1
#define EPISODES        100
#define CALM_RECORDS    1000
#define HOSTILE_CAP     (20 * RECORDS_PER_CPU)
#define BAD_CONS        2        /* misaligned: Xen must reset it */

/* The dom0 view of one CPU's stream of records, and what it has seen. */
struct stream {
    unsigned int cpu;
    uint32_t data_size;
    bool synced;              /* next_seq is known */
    uint64_t next_seq;        /* one past the last sequence number read */
    uint64_t lost_since;      /* lost in markers since that record */
    uint32_t pad;             /* size of the pad just read, or 0 */
    uint64_t last_tsc;
    uint64_t records;         /* our records read */
    uint64_t lost;            /* sum of the marker counts read */
    uint64_t markers;
    unsigned int pad_sizes;   /* ALL_PAD_SIZES' bits seen */
    char failure[256];        /* the first property broken, or "" */
};

struct reader {
    struct tu_buf buf;
    uint32_t cons;            /* ours; Xen's ->cons may disagree */
    struct stream s;
};

struct producer {
    pthread_t thread;
    unsigned int cpu;
    uint64_t max;             /* records to emit, unless stopped first */
    const int *stop;          /* if not NULL: once set, FINAL_STRETCH more */
    int finishing;            /* the last FINAL_STRETCH are under way */
    uint64_t emitted;
};

/* One test's threads.  Fields are the consumer's unless said otherwise. */
struct run {
    struct reader rd[NR_TEST_CPUS];
    struct producer pr[NR_TEST_CPUS];
    uint64_t rng;
    int stop_producers;       /* the consumer asks producers to finish */
    int producers_done;       /* the main thread: joined, tracing off */
    unsigned int episodes;    /* attacks recovered from */
    uint64_t calm_records[NR_TEST_CPUS];  /* records read when they ended */
};

static struct tu_buf bufs[NR_TEST_CPUS];

static int setup(void **state)
{
    unsigned int cpu;

    (void)state;
    tu_boot(NR_TEST_CPUS, "tbuf_size=2");    /* 8184 bytes: overflow often */
    for ( cpu = 0; cpu < NR_TEST_CPUS; cpu++ )
        tu_map_buf(cpu, &bufs[cpu]);
    return 0;
}

/*
 * Records
 * =======
 */

static uint64_t mix64(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t next_random(uint64_t *rng)
{
    return mix64(*rng += 0x9e3779b97f4a7c15ULL);
}

/* What record @seq of @cpu looks like: its payload and how it is emitted. */
struct shape {
    unsigned int extra;       /* payload words after the sequence number */
    bool macro;               /* by TRACE_nD, else by __trace_var() */
    bool tsc;
    uint32_t d[2 + MAX_EXTRA];
};

static void shape_of(unsigned int cpu, uint64_t seq, struct shape *s)
{
    uint64_t h = mix64(seq << 1 | cpu);
    unsigned int i;

    /* 5 as often as 5, 6 and 7: a 36-byte pad needs a 40-byte record. */
    s->extra = h % 8 < MAX_EXTRA ? h % 8 : MAX_EXTRA;
    s->macro = s->extra < MAX_EXTRA && (h >> 8) % 3 == 0;  /* TRACE_6D */
    s->tsc = s->macro || (seq & 1);
    s->d[0] = seq;
    s->d[1] = seq >> 32;
    for ( i = 0; i < s->extra; i++ )
        s->d[2 + i] = (uint32_t)(h >> 32) + i * 0x9e3779b9U;
}

static void emit(unsigned int cpu, uint64_t seq)
{
    struct shape s;
    const uint32_t *d = s.d;

    shape_of(cpu, seq, &s);
    if ( !s.macro )
    {
        __trace_var(EV_SEQ, s.tsc, 4 * (2 + s.extra), d);
        return;
    }
    switch ( s.extra )
    {
    case 0: TRACE_2D(EV_SEQ, d[0], d[1]); break;
    case 1: TRACE_3D(EV_SEQ, d[0], d[1], d[2]); break;
    case 2: TRACE_4D(EV_SEQ, d[0], d[1], d[2], d[3]); break;
    case 3: TRACE_5D(EV_SEQ, d[0], d[1], d[2], d[3], d[4]); break;
    case 4: TRACE_6D(EV_SEQ, d[0], d[1], d[2], d[3], d[4], d[5]); break;
    }
}

static bool stop_asked(const struct producer *p)
{
    return p->stop && __atomic_load_n(p->stop, __ATOMIC_ACQUIRE);
}

static void *produce(void *arg)
{
    struct producer *p = arg;
    uint64_t seq, end = p->max;
    bool finishing = false;

    host_cpu_enter(p->cpu);
    for ( seq = 0; seq < end; seq++ )
    {
        if ( !finishing && (seq + FINAL_STRETCH >= end || stop_asked(p)) )
        {
            if ( seq + FINAL_STRETCH < end )
                end = seq + FINAL_STRETCH;
            finishing = true;
            __atomic_store_n(&p->finishing, 1, __ATOMIC_RELEASE);
        }
        emit(p->cpu, seq);
        if ( seq % SOFTIRQ_EVERY == 0 )
            host_process_softirqs();
    }
    host_process_softirqs();
    p->emitted = seq;
    return NULL;
}

/*
 * Checking a stream
 * =================
 */

static void broken(struct stream *s, const char *fmt, ...)
{
    int n;
    va_list ap;

    if ( s->failure[0] )
        return;
    n = snprintf(s->failure, sizeof(s->failure), "cpu%u: ", s->cpu);
    va_start(ap, fmt);
    vsnprintf(s->failure + n, sizeof(s->failure) - n, fmt, ap);
    va_end(ap);
}

/* After dom0 lost its place: what comes next cannot be compared. */
static void stream_resync(struct stream *s)
{
    s->synced = false;
    s->lost_since = 0;
    s->pad = 0;
}

static void check_tsc(struct stream *s, const struct tu_rec *r)
{
    if ( !r->has_tsc )
        return;
    if ( r->tsc < s->last_tsc )
        broken(s, "TSC %#" PRIx64 " at %#x after %#" PRIx64, r->tsc,
               r->offset, s->last_tsc);
    s->last_tsc = r->tsc;
}

static void check_pad(struct stream *s, const struct tu_rec *r)
{
    unsigned int i;

    if ( r->offset + r->size != s->data_size )
        broken(s, "pad of %u at %#x ends short of %#x", r->size, r->offset,
               s->data_size);
    if ( s->pad )
        broken(s, "pad at %#x after a pad", r->offset);
    for ( i = 0; i < r->words; i++ )
        if ( r->data[i] )
            broken(s, "pad at %#x has data", r->offset);
    s->pad = r->size;
    s->pad_sizes |= 1U << (r->size / 4 - 1);
}

static void check_marker(struct stream *s, const struct tu_rec *r)
{
    uint64_t first_tsc = r->data[2] | (uint64_t)r->data[3] << 32;

    if ( r->words != 4 || !r->has_tsc )
        broken(s, "marker at %#x: %u words, tsc %d", r->offset, r->words,
               r->has_tsc);
    else if ( r->data[0] == 0 )
        broken(s, "marker at %#x: count 0", r->offset);
    /* Xen's own, with no guest: the CPU's idle vCPU, or DOMID_IDLE/cpu. */
    else if ( r->data[1] != (DOMID_IDLE | s->cpu << 16) )
        broken(s, "marker at %#x: domain/vcpu %#x", r->offset, r->data[1]);
    else if ( first_tsc > r->tsc || first_tsc < s->last_tsc )
        broken(s, "marker at %#x: first loss at %#" PRIx64 ", not between "
               "%#" PRIx64 " and %#" PRIx64, r->offset, first_tsc,
               s->last_tsc, r->tsc);
    s->lost += r->data[0];
    s->lost_since += r->data[0];
    s->markers++;
}

static void check_ours(struct stream *s, const struct tu_rec *r)
{
    uint64_t seq = r->data[0] | (uint64_t)r->data[1] << 32;
    struct shape want;

    if ( r->words < 2 )
    {
        broken(s, "record at %#x has %u words", r->offset, r->words);
        return;
    }
    shape_of(s->cpu, seq, &want);
    if ( r->words != 2 + want.extra || r->has_tsc != want.tsc ||
         memcmp(r->data, want.d, 4 * r->words) )
        broken(s, "record at %#x (seq %" PRIu64 ") is not as emitted",
               r->offset, seq);
    else if ( s->synced && seq != s->next_seq + s->lost_since )
        broken(s, "seq %" PRIu64 " where %" PRIu64 " was due (%" PRIu64
               " lost before it)", seq, s->next_seq + s->lost_since,
               s->lost_since);
    s->synced = true;
    s->next_seq = seq + 1;
    s->lost_since = 0;
    s->records++;
}

static void check_record(struct stream *s, const struct tu_rec *r)
{
    if ( r->event != TRC_TRACE_WRAP_BUFFER )
    {
        /* A pad is there only because what follows did not fit. */
        if ( s->pad && r->size <= s->pad )
            broken(s, "pad of %u before a record of %u", s->pad, r->size);
        s->pad = 0;
    }

    switch ( r->event )
    {
    case TRC_TRACE_WRAP_BUFFER:
        check_pad(s, r);
        break;
    case TRC_LOST_RECORDS:
        check_marker(s, r);
        break;
    case EV_SEQ:
        check_ours(s, r);
        break;
    default:
        broken(s, "event %#x at %#x", r->event, r->offset);
        break;
    }
    check_tsc(s, r);    /* last: a marker compares with the TSC before */
}

/*
 * Draining
 * ========
 */

static uint32_t ring_distance(uint32_t from, uint32_t to, uint32_t data_size)
{
    return to >= from ? to - from : to + 2 * data_size - from;
}

static uint32_t ring_advance(uint32_t idx, uint32_t bytes, uint32_t data_size)
{
    idx += bytes;
    return idx < 2 * data_size ? idx : idx - 2 * data_size;
}

/* The record at index @cons, if it is whole within @left bytes. */
static bool read_record(struct stream *s, const struct tu_buf *b,
                        uint32_t cons, uint32_t left, struct tu_rec *r)
{
    uint32_t off = cons < b->data_size ? cons : cons - b->data_size;
    uint32_t hdr;

    memcpy(&hdr, b->data + off, 4);
    tu_decode_header(hdr, off, r);
    if ( off + r->size > b->data_size || r->size > left )
    {
        broken(s, "record of %u at %#x: %u to the end, %u to prod", r->size,
               off, b->data_size - off, left);
        return false;
    }
    r->tsc = 0;
    if ( r->has_tsc )
        memcpy(&r->tsc, b->data + off + 4, 8);
    memcpy(r->data, b->data + off + r->size - 4 * r->words, 4 * r->words);
    return true;
}

/*
 * Read and check at most @max records from our cons towards prod, then
 * give their room back, as xentrace does.  A stream found broken is only
 * consumed from then on, so that Xen keeps recording.
 */
static void drain(struct reader *rd, size_t max)
{
    const struct tu_buf *b = &rd->buf;
    struct stream *s = &rd->s;
    /* C: records after prod; pairs with B. */
    uint32_t prod = __atomic_load_n(&b->meta->prod, __ATOMIC_ACQUIRE);
    uint32_t cons = rd->cons, left;
    struct tu_rec r;

    if ( (prod & 3) || prod >= 2 * b->data_size )
    {
        broken(s, "prod %#x", prod);
        return;
    }
    left = ring_distance(cons, prod, b->data_size);
    if ( left > b->data_size )
        broken(s, "prod %#x is %u past cons %#x", prod, left, cons);
    if ( s->failure[0] )
    {
        left = 0;
        cons = prod;
    }

    for ( ; left && max; max-- )
    {
        if ( !read_record(s, b, cons, left, &r) )
        {
            cons = prod;
            break;
        }
        check_record(s, &r);
        cons = ring_advance(cons, r.size, b->data_size);
        left -= r.size;
    }

    rd->cons = cons;
    /* D: records read before cons; pairs with A. */
    __atomic_store_n(&b->meta->cons, cons, __ATOMIC_RELEASE);
}

static bool finishing(const struct producer *p)
{
    return __atomic_load_n(&p->finishing, __ATOMIC_ACQUIRE);
}

/* The CPUs whose producers are not finishing yet. */
static void drain_all(struct run *run, size_t max)
{
    unsigned int cpu;

    for ( cpu = 0; cpu < NR_TEST_CPUS; cpu++ )
        if ( !finishing(&run->pr[cpu]) )
            drain(&run->rd[cpu], max);
}

/* Mostly everything; sometimes only the first few records. */
static size_t random_batch(struct run *run)
{
    uint64_t r = next_random(&run->rng);

    return r % 4 ? SIZE_MAX : 1 + (r >> 8) % 32;
}

static void spin(unsigned int loops)
{
    while ( loops-- )
        __builtin_ia32_pause();
}

static void sleep_us(unsigned int us)
{
    struct timespec ts = { .tv_nsec = 1000L * us };

    nanosleep(&ts, NULL);
}

/* Keep up, fall a little behind, or let the buffers overflow. */
static void pause_randomly(struct run *run)
{
    uint64_t r = next_random(&run->rng);
    unsigned int how = r % 32;

    r >>= 8;
    if ( how < 12 )
        return;
    if ( how < 16 )
        spin(r % 64);
    else if ( how < 28 )
        spin(r % 2048);
    else if ( how < 31 )
        sleep_us(1 + r % 8);
    else
        sleep_us(100 + r % 400);
}

static bool producers_done(struct run *run)
{
    return __atomic_load_n(&run->producers_done, __ATOMIC_ACQUIRE);
}

static bool producers_finishing(struct run *run)
{
    unsigned int cpu;

    for ( cpu = 0; cpu < NR_TEST_CPUS; cpu++ )
        if ( !finishing(&run->pr[cpu]) )
            return false;
    return true;
}

/*
 * Read nothing while the producers emit their last records, so that
 * tracing goes off with full buffers and losses pending: their markers
 * must fit in the room that Xen keeps for them.  Then read what is left.
 */
static void drain_at_the_end(struct run *run)
{
    unsigned int cpu;

    while ( !producers_done(run) )
        sleep_us(10);
    for ( cpu = 0; cpu < NR_TEST_CPUS; cpu++ )
        drain(&run->rd[cpu], SIZE_MAX);
}

static void *calm_consumer(void *arg)
{
    struct run *run = arg;

    while ( !producers_finishing(run) )
    {
        pause_randomly(run);
        drain_all(run, random_batch(run));
    }
    drain_at_the_end(run);
    return NULL;
}

/*
 * The hostile consumer
 * ====================
 */

/* A cons that is anything from plausible to absurd. */
static uint32_t hostile_cons(struct run *run, const struct tu_buf *b)
{
    uint64_t r = next_random(&run->rng);
    uint32_t ds = b->data_size;
    uint32_t prod = __atomic_load_n(&b->meta->prod, __ATOMIC_ACQUIRE);
    uint32_t k = (r >> 8) % (ds / 4);

    switch ( r % 6 )
    {
    case 0:  return r >> 32;                              /* anything */
    case 1:  return prod | (1 + k % 3);                   /* misaligned */
    case 2:  return 2 * ds + 4 * k;                       /* out of range */
    case 3:  return ring_advance(prod, 4 + 4 * (k % 64), ds); /* ahead */
    case 4:  return ring_advance(prod, 2 * ds - 4 * k, ds);   /* behind */
    default: return prod;                                 /* all read */
    }
}

static void attack(struct run *run, struct reader *rd)
{
    unsigned int writes = 1 + next_random(&run->rng) % 8;

    while ( writes-- )
    {
        __atomic_store_n(&rd->buf.meta->cons, hostile_cons(run, &rd->buf),
                         __ATOMIC_RELEASE);
        spin(next_random(&run->rng) % 2048);
    }
}

/*
 * Find a record boundary again after an attack.  Xen writes cons only to
 * reset it to its own prod, which is a record boundary; so write a cons
 * that Xen must reset, and wait for it to.  No attack is in flight after
 * that, since Xen reads cons once per record.  The other CPUs are drained
 * meanwhile.  False if producers stopped first.
 */
static bool recover(struct run *run, struct reader *rd)
{
    volatile uint32_t *cons = &rd->buf.meta->cons;
    uint32_t seen;
    unsigned int cpu;
    bool last_chance;

    __atomic_store_n(cons, BAD_CONS, __ATOMIC_RELEASE);
    do {
        last_chance = producers_done(run);
        seen = __atomic_load_n(cons, __ATOMIC_ACQUIRE);
        if ( seen != BAD_CONS )
        {
            rd->cons = seen;
            stream_resync(&rd->s);
            return true;
        }
        for ( cpu = 0; cpu < NR_TEST_CPUS; cpu++ )
            if ( &run->rd[cpu] != rd )
                drain(&run->rd[cpu], SIZE_MAX);
    } while ( !last_chance );

    return false;
}

static bool calm_records_seen(struct run *run)
{
    unsigned int cpu;

    for ( cpu = 0; cpu < NR_TEST_CPUS; cpu++ )
        if ( run->rd[cpu].s.records < run->calm_records[cpu] + CALM_RECORDS )
            return false;
    return true;
}

static void *hostile_consumer(void *arg)
{
    struct run *run = arg;
    struct reader *victim = &run->rd[ATTACKED_CPU];
    unsigned int cpu, rounds;

    while ( run->episodes < EPISODES )
    {
        for ( rounds = next_random(&run->rng) % 64; rounds; rounds-- )
        {
            pause_randomly(run);
            drain_all(run, random_batch(run));
        }
        attack(run, victim);
        if ( !recover(run, victim) )
            break;
        run->episodes++;
    }

    for ( cpu = 0; cpu < NR_TEST_CPUS; cpu++ )
        run->calm_records[cpu] = run->rd[cpu].s.records;
    while ( !calm_records_seen(run) && !producers_done(run) )
    {
        pause_randomly(run);
        drain_all(run, random_batch(run));
    }
    __atomic_store_n(&run->stop_producers, 1, __ATOMIC_RELEASE);
    drain_at_the_end(run);
    return NULL;
}

/*
 * The tests
 * =========
 */

static struct trace_cpu_stats stats_of(unsigned int cpu)
{
    struct trace_cpu_stats st;

    trace_cpu_stats(cpu, &st);
    return st;
}

/* Per CPU, what happened since @before. */
static struct trace_cpu_stats stats_since(unsigned int cpu,
                                          const struct trace_cpu_stats *before)
{
    struct trace_cpu_stats st = stats_of(cpu);

    st.records -= before->records;
    st.lost -= before->lost;
    st.unbuffered -= before->unbuffered;
    st.resyncs -= before->resyncs;
    return st;
}

static void init_run(struct run *run, uint64_t max, bool stoppable)
{
    unsigned int cpu;

    memset(run, 0, sizeof(*run));
    run->rng = 0x7e57ab1e;
    for ( cpu = 0; cpu < NR_TEST_CPUS; cpu++ )
    {
        struct reader *rd = &run->rd[cpu];

        rd->buf = bufs[cpu];
        rd->cons = rd->buf.meta->prod;      /* whatever is left is skipped */
        rd->buf.meta->cons = rd->cons;
        rd->s.cpu = cpu;
        rd->s.data_size = rd->buf.data_size;
        rd->s.synced = true;
        run->pr[cpu].cpu = cpu;
        run->pr[cpu].max = max;
        run->pr[cpu].stop = stoppable ? &run->stop_producers : NULL;
    }
}

/*
 * Trace on, the consumer and the producers started; producers joined,
 * trace off (flushing lost counts), the consumer told and joined.
 */
static void run_threads(struct run *run, void *(*consumer)(void *))
{
    pthread_t consumer_thread;
    unsigned int cpu;

    assert_int_equal(tu_enable(), 0);
    assert_int_equal(pthread_create(&consumer_thread, NULL, consumer, run),
                     0);
    for ( cpu = 0; cpu < NR_TEST_CPUS; cpu++ )
        assert_int_equal(pthread_create(&run->pr[cpu].thread, NULL, produce,
                                        &run->pr[cpu]), 0);
    for ( cpu = 0; cpu < NR_TEST_CPUS; cpu++ )
        assert_int_equal(pthread_join(run->pr[cpu].thread, NULL), 0);

    /* Only now: a producer may not see tb_init_done change under it. */
    assert_int_equal(tu_disable(), 0);
    __atomic_store_n(&run->producers_done, 1, __ATOMIC_RELEASE);
    assert_int_equal(pthread_join(consumer_thread, NULL), 0);
}

static void assert_stream_ok(const struct reader *rd)
{
    if ( rd->s.failure[0] )
        fail_msg("%s", rd->s.failure);
    assert_int_equal(tu_unconsumed(&rd->buf), 0);
}

/* Every record emitted is in the stream or counted by its markers. */
static void assert_stream_complete(const struct reader *rd,
                                   const struct producer *pr,
                                   const struct trace_cpu_stats *st)
{
    assert_true(rd->s.synced);
    assert_int_equal(rd->s.next_seq + rd->s.lost_since, pr->emitted);
    assert_int_equal(rd->s.records + rd->s.lost, pr->emitted);
    assert_int_equal(st->records, rd->s.records);
    assert_int_equal(st->lost, rd->s.lost);
}

static void report(const struct reader *rd, const struct producer *pr,
                   const struct trace_cpu_stats *st)
{
    print_message("cpu%u: %" PRIu64 " emitted, %" PRIu64 " read, %" PRIu64
                  " lost in %" PRIu64 " markers; stats: %lu records, %lu "
                  "lost, %lu resyncs\n", rd->s.cpu, pr->emitted,
                  rd->s.records, rd->s.lost, rd->s.markers, st->records,
                  st->lost, st->resyncs);
}

/*
 * A consumer that keeps up, falls behind and catches up: every record is
 * read once, whole and in order, or accounted for by a marker; pads fill
 * exactly to the end; time does not go backwards; and the stream, the
 * stats and the producers agree on every count.
 */
static void test_every_record_read_or_counted(void **state)
{
    struct run run;
    struct trace_cpu_stats before[NR_TEST_CPUS], st;
    unsigned long virqs = host_virq_count(VIRQ_TBUF);
    unsigned int cpu, pad_sizes = 0;

    (void)state;
    init_run(&run, RECORDS_PER_CPU, false);
    for ( cpu = 0; cpu < NR_TEST_CPUS; cpu++ )
        before[cpu] = stats_of(cpu);

    run_threads(&run, calm_consumer);

    for ( cpu = 0; cpu < NR_TEST_CPUS; cpu++ )
    {
        const struct reader *rd = &run.rd[cpu];
        const struct producer *pr = &run.pr[cpu];

        st = stats_since(cpu, &before[cpu]);
        report(rd, pr, &st);
        assert_stream_ok(rd);
        assert_int_equal(pr->emitted, RECORDS_PER_CPU);
        assert_stream_complete(rd, pr, &st);
        assert_int_equal(st.resyncs, 0);
        assert_int_equal(st.unbuffered, 0);
        /*
         * The run did what it is for: overflow, and losses pending when
         * tracing went off (their marker the last record).
         */
        assert_true(rd->s.markers > 1);
        assert_true(rd->s.lost_since > 0);
        pad_sizes |= rd->s.pad_sizes;
    }
    assert_int_equal(pad_sizes, ALL_PAD_SIZES);
    assert_true(host_virq_count(VIRQ_TBUF) > virqs);
}

/*
 * A consumer that writes nonsense into one CPU's cons now and then: Xen
 * resets that buffer each time, and both CPUs go on recording correctly.
 * Records dropped by a reset were written, so they are in the stats but not
 * in the stream: only the untouched CPU's stream must account for all.
 */
static void test_hostile_consumer(void **state)
{
    struct run run;
    struct trace_cpu_stats before[NR_TEST_CPUS], st;
    char warning[32];
    unsigned int cpu;

    (void)state;
    init_run(&run, HOSTILE_CAP, true);
    for ( cpu = 0; cpu < NR_TEST_CPUS; cpu++ )
        before[cpu] = stats_of(cpu);

    run_threads(&run, hostile_consumer);

    assert_int_equal(run.episodes, EPISODES);
    for ( cpu = 0; cpu < NR_TEST_CPUS; cpu++ )
    {
        const struct reader *rd = &run.rd[cpu];
        const struct producer *pr = &run.pr[cpu];

        st = stats_since(cpu, &before[cpu]);
        report(rd, pr, &st);
        assert_stream_ok(rd);
        assert_true(pr->emitted < HOSTILE_CAP);
        assert_int_equal(pr->emitted, st.records + st.lost);
        assert_true(rd->s.records >= run.calm_records[cpu] + CALM_RECORDS);
        snprintf(warning, sizeof(warning), "trc#%u: bogus cons", cpu);
        if ( cpu == ATTACKED_CPU )
        {
            /* One reset at least per attack: each ended with BAD_CONS. */
            assert_true(st.resyncs >= EPISODES);
            assert_non_null(strstr(tu_console(), warning));
        }
        else
        {
            assert_int_equal(st.resyncs, 0);
            assert_null(strstr(tu_console(), warning));
            assert_stream_complete(rd, pr, &st);
        }
    }
}

/*
 * Disabling under running producers
 * =================================
 *
 * Once tu_disable() returns, nothing more is written, however the
 * producers' reads of tb_init_done interleave with it.
 */

struct racer {
    pthread_t thread;
    unsigned int cpu;
    int stop;
};

static void *race_disable(void *arg)
{
    struct racer *r = arg;

    host_cpu_enter(r->cpu);
    while ( !__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE) )
        TRACE_2D(EV_SEQ, 0, 0);
    return NULL;
}

static void test_disable_is_a_barrier(void **state)
{
    struct racer racers[NR_TEST_CPUS] = { { 0 } };
    struct trace_cpu_stats at_disable[NR_TEST_CPUS];
    uint32_t prod[NR_TEST_CPUS];
    unsigned int cpu;

    (void)state;
    assert_int_equal(tu_enable(), 0);
    for ( cpu = 0; cpu < NR_TEST_CPUS; cpu++ )
    {
        racers[cpu].cpu = cpu;
        assert_int_equal(pthread_create(&racers[cpu].thread, NULL,
                                        race_disable, &racers[cpu]), 0);
    }
    sleep_us(2000);

    assert_int_equal(tu_disable(), 0);
    for ( cpu = 0; cpu < NR_TEST_CPUS; cpu++ )
    {
        at_disable[cpu] = stats_of(cpu);
        prod[cpu] = __atomic_load_n(&bufs[cpu].meta->prod, __ATOMIC_ACQUIRE);
    }
    sleep_us(2000);

    for ( cpu = 0; cpu < NR_TEST_CPUS; cpu++ )
    {
        __atomic_store_n(&racers[cpu].stop, 1, __ATOMIC_RELEASE);
        assert_int_equal(pthread_join(racers[cpu].thread, NULL), 0);
    }
    for ( cpu = 0; cpu < NR_TEST_CPUS; cpu++ )
    {
        struct trace_cpu_stats now = stats_of(cpu);

        assert_true(at_disable[cpu].records > 0);
        assert_int_equal(now.records, at_disable[cpu].records);
        assert_int_equal(now.lost, at_disable[cpu].lost);
        assert_int_equal(bufs[cpu].meta->prod, prod[cpu]);
        tu_drain(&bufs[cpu], NULL, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_record_read_or_counted),
        cmocka_unit_test(test_hostile_consumer),
        cmocka_unit_test(test_disable_is_a_barrier),
    };

    return cmocka_run_group_tests(tests, setup, NULL);
}
