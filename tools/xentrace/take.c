/*
 * xentrace: taking Xen's trace buffers, a pass at a time, into the chunks
 * of the writer thread (output.c), and queueing them as epochs.
 *
 * A pass takes every mapped CPU's window, cons..prod, and releases it.
 * Each piece of a window (two if it wraps) goes one way, each file
 * entered once, in the order of its data:
 *
 *   take.c    the CPU's chunk (output.c's, once an epoch) and where in it
 *             the piece goes: plan_piece();
 *   window.c  where cons is against where xentrace left it, the copy into
 *             the chunk, checked as it is copied, and, if a gap comes
 *             before the piece or a gap's vCPU waits for a name, what its
 *             records say (first TSC, running vCPU): take_pieces();
 *   take.c    what is kept: a gap noted (cons moved on, or the piece
 *             failed: skipped, counted, marked in the file before the
 *             records that follow it, put_gap()), or the piece kept after
 *             the marks of the gap before it, or naming that gap's vCPU
 *             from what the records say: keep_piece();
 *   output.c  once a chunk holds a batch, or records are a second old,
 *             every CPU's chunk queued, in ascending order: an epoch
 *             (push_due(); see xentrace.c for why, and for what it costs).
 *
 * window.c reads records; take.c never does, it keeps what window.c says
 * they say.  The first pieces of every CPU's window go through together,
 * then the second pieces of those that wrap, so that the checks walk them
 * side by side.
 */
#include <assert.h>
#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "take.h"
#include "xtfile.h"

#define FLUSH_MS         1000       /* a reader sees data at least this often */
#define WARNED_INDEX     1u         /* a bad cons or prod */
#define WARNED_SKIP      2u         /* bytes that are not Xen's records */
/* A gap's marks: TRC_XT_SKIPPED and TRC_LOST_RECORDS, with TSCs. */
#define GAP_MARK_BYTES   48u

/*
 * A CPU's last gap, if its lost-records record names no vCPU yet (see
 * put_gap()): where its marks and its vCPU word are, in bytes into the
 * records of the CPU's chunk being filled, and the chunk's count of the
 * records before the marks.
 */
struct unnamed_gap {
    bool pending;
    bool held;              /* over one epoch already: the last chance */
    uint32_t mark, word;
    struct chunk_count before;
};

static const char *skip_reason(uint32_t why)
{
    switch ( why )
    {
    case XT_SKIP_CONS:  return "another process moved cons";
    case XT_SKIP_TILE:  return "a record runs past the end of the window";
    case XT_SKIP_EVENT: return "an event Xen does not write";
    default:            return "a TSC older than the one before";
    }
}

/* Once per CPU, a line on stderr: its buffer held what Xen did not write. */
static void warn_skip(struct take *c, unsigned int cpu, uint32_t bytes,
                      uint32_t why)
{
    if ( !(c->warned[cpu] & WARNED_SKIP) )
        warnx("CPU %u: %u bytes in its trace buffer are not Xen's records "
              "(%s): skipped", cpu, bytes, skip_reason(why));
    c->warned[cpu] |= WARNED_SKIP;
}

/* @bytes of CPU @cpu's buffer skipped for @why: marked before what follows. */
static void note_gap(struct take *c, unsigned int cpu, uint64_t bytes,
                     uint32_t why)
{
    struct cpu_check *check = &c->check[cpu];

    if ( !check->gap_bytes )
        check->gap_why = why;
    check->gap_bytes += bytes;
    warn_skip(c, cpu, bytes, why);
}

/*
 * At @at, where CPU @cpu's records resume after a gap, its marks:
 * TRC_XT_SKIPPED, at @before, the CPU's last TSC before the gap (0: it
 * had none); then, if records with a TSC follow (as @next says, NULL if
 * none do), a lost-records marker of count 0 for xenalyze, which takes
 * only that for a gap in a CPU's records, and without it fails on the
 * scheduler records on either side.  Like Xen's, the marker has the TSC
 * of the first record after the gap, a first lost TSC before that, and
 * names the vCPU running when the records resume, as the first of them
 * to name it says.  Where @next names none, the CPU's next pieces may
 * (name_gap(), hold_unnamed()), and *@unnamed says where in the marks the
 * vCPU word is (0: named); until then it is xenalyze's default domain.
 * Only the truth will do: the gap may hold context switches, so the last
 * one before it proves nothing; xenalyze keeps a vCPU named wrongly
 * running until it fails, and fails on the default domain where a vCPU
 * it has not seen yet stops running.  A CPU with no record before the gap
 * gets no lost-records record: to xenalyze its records start there.
 * Returns the marks' bytes, GAP_MARK_BYTES at most.
 */
static uint32_t put_gap(struct cpu_check *check, unsigned int cpu,
                        uint64_t before, uint8_t *at,
                        const struct piece_says *next, uint32_t *unnamed)
{
    bool timed = next && next->timed;
    uint64_t after = timed ? next->tsc : 0, first_lost = 0, tsc;
    uint32_t bytes = check->gap_bytes < UINT32_MAX ? check->gap_bytes
                                                   : UINT32_MAX;
    uint32_t mark[GAP_MARK_BYTES / 4], n = 0, dom = XT_DOMID_UNKNOWN,
             vcpu = cpu;

    /* xenalyze wants the marker's TSC later than its first lost. */
    if ( timed )
        first_lost = before && before < after ? before
                                              : after ? after - 1 : 0;
    tsc = before ? before : first_lost;
    mark[n++] = TRC_XT_SKIPPED | 2u << TRACE_EXTRA_SHIFT |
                (tsc ? TRC_HD_CYCLE_FLAG : 0);
    if ( tsc )
    {
        mark[n++] = tsc;
        mark[n++] = tsc >> 32;
    }
    mark[n++] = bytes;
    mark[n++] = check->gap_why;
    *unnamed = 0;
    if ( timed && before )
    {
        if ( next->named )
        {
            dom = next->dom;
            vcpu = next->vcpu;
        }
        mark[n++] = TRC_LOST_RECORDS |
                    XT_LOST_RECORDS_WORDS << TRACE_EXTRA_SHIFT |
                    TRC_HD_CYCLE_FLAG;
        mark[n++] = after;
        mark[n++] = after >> 32;
        mark[n++] = 0;                          /* count: not known */
        *unnamed = next->named ? 0 : 4 * n;
        mark[n++] = XT_VD_WORD(vcpu, dom);
        mark[n++] = first_lost;
        mark[n++] = first_lost >> 32;
    }
    memcpy(at, mark, 4 * n);
    check->gap_bytes = 0;
    return 4 * n;
}

/* A CPU's window being taken in a pass, and its chunk. */
struct taking {
    struct xt_window win;
    struct chunk *k;
    uint8_t *records;           /* k's */
};

/*
 * Piece @i of @t's window, to be taken (window.c) to the end of its chunk,
 * after room for the marks if a gap comes before it, as @pc, and asked
 * what its records say if a gap's vCPU waits for a name (or a gap comes
 * before it); false if there is none.  It fits (see start_taking()).
 */
static bool plan_piece(struct take *c, const struct taking *t,
                       unsigned int i, struct piece_copy *pc)
{
    const struct xt_window *win = &t->win;
    struct cpu_check *check = &c->check[win->cpu];
    uint32_t data_size = xt_data_size(c->h);
    uint32_t off = win->cons % data_size;

    if ( !win->len[i] )
        return false;
    *pc = (struct piece_copy){
        .check = check,
        .cpu = win->cpu,
        .at = t->records + t->k->len,
        .room = GAP_MARK_BYTES,
        .gap = check->gap_bytes,
        .from = win->piece[i],
        .len = win->len[i],
        .at_wrap = i == 0 && (win->len[1] || off + win->len[0] == data_size),
        .say = c->unnamed[win->cpu].pending,
        .cons = i ? (win->cons + win->len[0]) % (2 * data_size) : win->cons,
        .window = i ? win->len[1] : win->len[0] + win->len[1],
        .data_size = data_size,
    };
    assert(t->k->len + GAP_MARK_BYTES + pc->len <= c->chunk_room);
    return true;
}

/*
 * Name the vCPU of the last gap in @t's chunk, if it is still unnamed and
 * the records that follow it say (@next).
 */
static void name_gap(struct take *c, const struct taking *t,
                     const struct piece_says *next)
{
    struct unnamed_gap *u = &c->unnamed[t->win.cpu];
    uint32_t word;

    if ( !u->pending || !next->named )
        return;
    word = XT_VD_WORD(next->vcpu, next->dom);
    memcpy(t->records + u->word, &word, 4);
    u->pending = false;
}

/*
 * What @pc found of where cons was: moved back, nothing is missing;
 * moved on, what it passed over is (window.c counted it): a gap.
 */
static void note_cons(struct take *c, const struct piece_copy *pc)
{
    if ( pc->moved && pc->back )
        warn_skip(c, pc->cpu, pc->moved, XT_SKIP_CONS);
    else if ( pc->moved )
        note_gap(c, pc->cpu, pc->moved, XT_SKIP_CONS);
}

/*
 * @pc, copied and checked: kept, after the marks of the gap before it if
 * there is one (@before: its CPU's counts before it, the last TSC among
 * them), or noted as a gap.  A piece with no TSC in it (a wrap pad alone)
 * leaves the gap open: its marks go before the records with a TSC that
 * follow, which xenalyze would otherwise take to follow the records
 * before the gap.
 */
static void keep_piece(struct take *c, const struct taking *t,
                       const struct piece_copy *pc,
                       const struct cpu_count *before)
{
    const struct cpu_count *now = &pc->check->count;
    struct chunk *k = t->k;
    uint8_t *end = pc->at;
    uint32_t marks, unnamed;
    struct chunk_count dropped = { 0 };
    size_t len = pc->len;

    if ( pc->why )
    {
        note_gap(c, k->cpu, pc->len, pc->why);
        return;
    }
    if ( pc->to == end )
    {
        if ( pc->say )
            name_gap(c, t, &pc->says);
    }
    else if ( !pc->says.timed )
        memmove(end, pc->to, pc->len);
    else
    {
        marks = put_gap(pc->check, k->cpu, before->last_tsc, end, &pc->says,
                        &unnamed);
        c->unnamed[k->cpu] = (struct unnamed_gap){
            .pending = unnamed, .mark = k->len, .word = k->len + unnamed,
            .before = k->count };
        memmove(end + marks, pc->to, pc->len);
        k->len += marks;
    }
    if ( c->filter )
        len = dom_filter_records(c->filter, k->cpu, chunk_records(k) + k->len,
                                 len, &dropped);
    k->len += len;
    k->count.records += now->records - before->records - dropped.records;
    k->count.bytes += now->bytes - before->bytes - dropped.bytes;
    k->count.lost += now->lost - before->lost;
    chunk_count_add(&c->filtered, &dropped);
}

/*
 * Start taking @t's window: its CPU's chunk, and where its records are.
 * False if the writer has failed: there is no chunk to take.
 *
 * The chunk has room for the window (chunk_room, take_start()): at the
 * start of a pass it holds less than batch_bytes (push_due() queued it
 * if it held more, and what hold_unnamed() keeps back is half a batch at
 * most), and the notes put_domain() and put_masks() added since; a pass copies
 * one window into it, at most data_size bytes in two pieces, each after
 * room for a gap's marks, GAP_MARK_BYTES, used or not.  plan_piece()
 * asserts it.
 */
static bool start_taking(struct take *c, struct taking *t, uint64_t now)
{
    unsigned int cpu = t->win.cpu;

    if ( !(t->k = c->filling[cpu]) )
    {
        if ( !(t->k = output_take(c->out, cpu)) )
            return false;
        c->filling[cpu] = t->k;
        if ( !c->held_since_ms )
            c->held_since_ms = now;
    }
    t->records = chunk_records(t->k);
    return true;
}

/*
 * Take the @n windows at @t into their CPUs' chunks, checking and
 * counting them (window.c): first pieces, then the second pieces of those
 * that wrap, each time every CPU's together, so that the checks walk
 * them side by side; and keep them, with the marks of the gaps before
 * them.
 */
static void copy_windows(struct take *c, struct taking *t, unsigned int n)
{
    struct piece_copy *pc = c->pieces;
    unsigned int i, j, m;

    for ( i = 0; i < 2; i++ )
    {
        for ( j = m = 0; j < n; j++ )
            if ( plan_piece(c, &t[j], i, &pc[m]) )
            {
                c->before[m] = c->check[t[j].win.cpu].count;
                c->piece_of[m++] = j;
            }
        take_pieces(pc, m);
        /* Every CPU's cons first, as its window's start: its line first. */
        for ( j = 0; j < m; j++ )
            note_cons(c, &pc[j]);
        for ( j = 0; j < m; j++ )
            keep_piece(c, &t[c->piece_of[j]], &pc[j], &c->before[j]);
    }
    for ( j = 0; j < n; j++ )
        c->epoch_full |= t[j].k->len >= c->batch_bytes;
}

/*
 * One pass: take every mapped CPU's window, copy them into their chunks
 * and give their space back to Xen.  Returns the largest window, in
 * bytes.
 */
uint32_t drain_pass(struct take *c, uint64_t now)
{
    struct taking *t = c->taking;
    uint32_t largest = 0;
    unsigned int cpu, n = 0, i;

    for ( cpu = 0; cpu < c->nr_cpus; cpu++ )
    {
        long got;

        if ( !xt_cpu_mapped(c->h, cpu) )
            continue;
        got = xt_window(c->h, cpu, &t[n].win);
        if ( got < 0 )
        {
            /* The library has resynchronised the CPU: go on. */
            if ( !(c->warned[cpu] & WARNED_INDEX) )
                warnx("CPU %u: bad cons or prod in its trace buffer, "
                      "records dropped", cpu);
            c->warned[cpu] |= WARNED_INDEX;
            continue;
        }
        if ( got == 0 )
            continue;
        if ( !start_taking(c, &t[n], now) )
            break;              /* the writer failed: capture() stops */
        if ( (uint32_t)got > largest )
            largest = got;
        n++;
    }
    copy_windows(c, t, n);
    for ( i = 0; i < n; i++ )
        xt_release(c->h, &t[i].win);
    return largest;
}

/*
 * What of CPU @cpu's chunk @k stays behind as its epoch is queued: if its
 * last gap's vCPU is still unnamed, that gap and the records after it, so
 * that the next epoch's records can name it: in a new chunk, or in @k if
 * that is all @k holds.  Once only, and half a batch at most.  NULL if
 * nothing stays.
 */
static struct chunk *hold_unnamed(struct take *c, unsigned int cpu,
                                  struct chunk *k)
{
    struct unnamed_gap *u = &c->unnamed[cpu];
    size_t held = k->len - u->mark;
    struct chunk *n = NULL;

    /* Another chunk is free or queued: the pool has two beyond one a CPU. */
    if ( u->pending && !u->held && held <= c->batch_bytes / 2 )
        n = u->mark ? output_take(c->out, cpu) : k;
    if ( !n )
    {
        /* k goes as it is: its gap stays the default domain's. */
        u->pending = false;
        return NULL;
    }
    u->held = true;
    if ( n == k )
        return k;
    assert(held <= c->chunk_room);      /* half a batch, and k's own */
    memcpy(chunk_records(n), chunk_records(k) + u->mark, held);
    n->len = held;
    k->len = u->mark;
    n->count = (struct chunk_count){
        .records = k->count.records - u->before.records,
        .bytes = k->count.bytes - u->before.bytes,
        .lost = k->count.lost - u->before.lost,
    };
    k->count = u->before;
    u->word -= u->mark;
    u->mark = 0;
    u->before = (struct chunk_count){ 0 };
    return n;
}

/*
 * Queue every CPU's chunk, in ascending CPU order: an epoch; but for the
 * records that wait for a name (hold_unnamed()), unless @ending.
 */
void push_epoch(struct take *c, uint64_t now, bool ending)
{
    struct chunk *k, *last = NULL;
    unsigned int cpu;

    for ( cpu = 0; cpu < c->nr_cpus + c->nr_lanes; cpu++ )
    {
        if ( !(k = c->filling[cpu]) )
            continue;
        c->filling[cpu] = ending || cpu >= c->nr_cpus ? NULL
                                                      : hold_unnamed(c, cpu, k);
        if ( c->filling[cpu] == k )
            continue;
        if ( last )
            output_push(c->out, last);
        last = k;
    }
    if ( last )
    {
        last->ends_epoch = true;
        output_push(c->out, last);
    }
    if ( !c->queued_since_ms )
        c->queued_since_ms = c->held_since_ms;
    c->epoch_full = false;
    c->held_since_ms = 0;
    for ( cpu = 0; cpu < c->nr_cpus + c->nr_lanes && !c->held_since_ms;
          cpu++ )
        if ( c->filling[cpu] )
            c->held_since_ms = now;
}

/*
 * After a pass: queue the epoch once a CPU has a batch or a second
 * passed; have the writer start on the queue if records in it are a
 * second old (it starts by itself once half the pool is queued):
 * so an epoch queued because its records are a second old is written at
 * once, and one queued full within a second of its first records.
 */
void push_due(struct take *c, uint64_t now)
{
    if ( c->epoch_full ||
         (c->held_since_ms && now >= c->held_since_ms + FLUSH_MS) )
        push_epoch(c, now, false);
    if ( c->queued_since_ms && now >= c->queued_since_ms + FLUSH_MS )
    {
        output_flush(c->out);
        c->queued_since_ms = 0;
    }
}

/* Queue every CPU's chunk and have the writer write them now. */
void take_flush(struct take *c, uint64_t now)
{
    push_epoch(c, now, false);
    output_flush(c->out);
    c->queued_since_ms = 0;
}

/*
 * The last epoch: TRC_XT_END, with the newest TSC of the capture (dom0's
 * lanes' included), for every CPU the file has records of (after the
 * marks of a gap that no record followed); not for the lanes, which
 * upstream's readers do not need to keep open.  A CPU's records can come a pass
 * late for their TSCs (Xen's CPU stalled between reading the TSC and
 * publishing the record: by an SMI on real hardware, by the host's
 * scheduler in xen-sim), so a CPU's last batch can hold records older
 * than batches of other CPUs written before it; without an end at the
 * newest TSC, xenalyze finishes that CPU's stream early and then reads
 * its last batch again (see TRC_XT_END).
 */
void push_end(struct take *c)
{
    uint64_t newest = c->newest_lane_tsc;
    unsigned int cpu;
    uint32_t unnamed;           /* no records follow: none */

    for ( cpu = 0; cpu < c->nr_cpus; cpu++ )
        if ( c->check[cpu].count.last_tsc > newest )
            newest = c->check[cpu].count.last_tsc;
    for ( cpu = 0; cpu < c->nr_cpus; cpu++ )
    {
        uint32_t end[3] = { TRC_XT_END | TRC_HD_CYCLE_FLAG,
                            (uint32_t)newest, (uint32_t)(newest >> 32) };
        struct cpu_check *check = &c->check[cpu];
        struct chunk *k;

        if ( !check->gap_bytes && (!check->count.bytes || !newest) )
            continue;
        if ( !(k = output_take(c->out, cpu)) )
            return;                     /* the writer failed: it says so */
        /* A gap that nothing followed: marked all the same. */
        if ( check->gap_bytes )
            k->len += put_gap(check, cpu, check->count.last_tsc,
                              chunk_end(k), NULL, &unnamed);
        if ( newest )
        {
            memcpy(chunk_end(k), end, sizeof(end));
            k->len += sizeof(end);
        }
        output_push(c->out, k);
    }
}

/*
 * The chunk a note (a domain's records, the masks') goes into: that of
 * the CPU with the newest record, at the end of its stream, with that
 * record's TSC at *@tsc: no later than xentrace saw the change, and no
 * older than what that CPU's stream holds before it.  Called between
 * passes, a note of each kind a pass at most: a chunk then holds less
 * than a batch, and chunk_room has room for one of each beside the next
 * window.  NULL if no CPU has a record yet, or the writer has failed.
 */
static struct chunk *note_chunk(struct take *c, uint64_t now, uint64_t *tsc)
{
    unsigned int cpu, newest = c->nr_cpus;
    struct chunk *k;

    for ( cpu = 0; cpu < c->nr_cpus; cpu++ )
        if ( c->check[cpu].count.last_tsc &&
             (newest == c->nr_cpus || c->check[cpu].count.last_tsc >
                                      c->check[newest].count.last_tsc) )
            newest = cpu;
    if ( newest == c->nr_cpus )
        return NULL;
    if ( !(k = c->filling[newest]) )
    {
        if ( !(k = output_take(c->out, newest)) )
            return NULL;
        c->filling[newest] = k;
        if ( !c->held_since_ms )
            c->held_since_ms = now;
    }
    assert(k->len < c->batch_bytes + 4 * XT_DOMAIN_WORDS_MAX);
    *tsc = c->check[newest].count.last_tsc;
    return k;
}

/* A note of @words words went into @k. */
static void noted(struct take *c, struct chunk *k, size_t words)
{
    k->len += 4 * words;
    c->epoch_full |= k->len >= c->batch_bytes;
}

bool put_domain(struct take *c, const struct xt_domain *d, uint64_t now)
{
    uint64_t tsc;
    struct chunk *k = note_chunk(c, now, &tsc);

    if ( k )
        noted(c, k, xt_domain_put(d, &tsc, (uint32_t *)chunk_end(k)));
    return k;
}

bool put_masks(struct take *c, uint32_t evt_mask, const uint8_t *cpus,
               const struct xt_masks_more *more, uint64_t now)
{
    uint64_t tsc;
    struct chunk *k = note_chunk(c, now, &tsc);

    if ( k )
        noted(c, k, xt_masks_put(evt_mask, cpus, c->nr_cpus, more, &tsc,
                                 (uint32_t *)chunk_end(k)));
    return k;
}

/*
 * Lane @lane's chunk (a stream after the CPUs'), with room for
 * take_start()'s lane_pass_bytes more: its epoch is queued first if it
 * holds a batch.  NULL if the writer has failed.
 */
struct chunk *take_lane(struct take *c, unsigned int lane, uint64_t now)
{
    unsigned int cpu = c->nr_cpus + lane;

    if ( c->filling[cpu] && c->filling[cpu]->len >= c->batch_bytes )
        push_epoch(c, now, false);
    if ( !c->filling[cpu] )
    {
        if ( !(c->filling[cpu] = output_take(c->out, cpu)) )
            return NULL;
        if ( !c->held_since_ms )
            c->held_since_ms = now;
    }
    return c->filling[cpu];
}

void take_lane_filled(struct take *c, struct chunk *k, uint64_t tsc)
{
    c->epoch_full |= k->len >= c->batch_bytes;
    if ( tsc > c->newest_lane_tsc )
        c->newest_lane_tsc = tsc;
}

void take_start(struct take *c, struct xt_host *h, size_t batch_bytes,
                unsigned int lanes, size_t lane_pass_bytes)
{
    c->h = h;
    c->nr_cpus = xt_max_cpus(h);
    c->nr_lanes = lanes;
    c->batch_bytes = batch_bytes;
    c->chunk_room = batch_bytes + xt_data_size(h) + 2 * GAP_MARK_BYTES +
                    4 * (XT_DOMAIN_WORDS_MAX + XT_MASKS_WORDS_MAX);
    if ( c->chunk_room < batch_bytes + lane_pass_bytes )
        c->chunk_room = batch_bytes + lane_pass_bytes;
    c->filling = calloc(c->nr_cpus + lanes, sizeof(*c->filling));
    c->warned = calloc(c->nr_cpus, sizeof(*c->warned));
    c->check = calloc(c->nr_cpus, sizeof(*c->check));
    c->taking = calloc(c->nr_cpus, sizeof(*c->taking));
    c->pieces = calloc(c->nr_cpus, sizeof(*c->pieces));
    c->piece_of = calloc(c->nr_cpus, sizeof(*c->piece_of));
    c->before = calloc(c->nr_cpus, sizeof(*c->before));
    c->unnamed = calloc(c->nr_cpus, sizeof(*c->unnamed));
    if ( !c->filling || !c->warned || !c->check || !c->taking ||
         !c->pieces || !c->piece_of || !c->before || !c->unnamed )
        err(1, "memory");
}

void take_free(struct take *c)
{
    free(c->filling);
    free(c->warned);
    free(c->check);
    free(c->taking);
    free(c->pieces);
    free(c->piece_of);
    free(c->before);
    free(c->unnamed);
    dom_filter_free(c->filter);
}
