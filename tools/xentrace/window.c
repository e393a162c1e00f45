/*
 * xentrace: checking and counting what a CPU's trace buffer held.
 *
 * The buffers are shared pages that any dom0 process may map read-write,
 * so what lies between cons and prod is input, not fact: another process
 * may have moved cons into the middle of a record or written over the
 * records.  Xen's own records have a shape that garbage seldom has, and
 * each piece of a window is checked against it as it is counted, in the
 * pass that copies it, 16 KiB at a time (so while it is in the L1 cache,
 * and so that what is checked is what is written, whatever the other
 * process does next; every CPU's piece of a pass together, two walks
 * side by side, and a piece alone as two halves, see SPLIT_MIN):
 *
 *   - the records tile the piece exactly: none runs past its end;
 *   - each event is of a class and subclass Xen writes, and in TRC_GEN
 *     only Xen's own (a lost-records marker of its
 *     size, a wrap pad that ends at the wrap, TRC_TRACE_IRQ), never the
 *     file's (batch headers, xentrace-ng's metadata);
 *   - TSCs do not run backwards on the CPU.
 *
 * A piece is written only if all of it passes: where a record fails,
 * the piece is skipped to its end, the next place where Xen's records
 * provably start again (prod, where Xen writes next, or the wrap, where
 * it starts again after its pad), and from its start, since the records
 * before the failure may be garbage that merely looks right.  So garbage
 * gets into the file only if it tiles a whole piece with records of
 * Xen's shape.  Of a piece that passed and that take.c asks of (a gap
 * comes before it, or a gap's vCPU waits for a name), the copy says what
 * its records say as well (piece_says()): the first TSC and the vCPU
 * running as they start, for the gap's marks; so that take.c, which
 * keeps the marks, need not come back here to read its records.
 *
 * A cons that is not where xentrace left it was moved by another process.
 * Moved back, it points at records taken already: those bytes are
 * skipped before the walk, which starts where xentrace left cons.  Moved
 * on, the bytes it passed over are gone (Xen may be writing over them
 * already), and the window starts where no record is known to.
 */
#include <string.h>

#include "window.h"
#include "xtfile.h"

/*
 * The subclasses Xen writes come from the catalogue (xt_xen_subclasses[],
 * trace-events.h, from its subclass lines): a table, so that the walk
 * tests an event with one load and no branch on its class.
 */

/*
 * A piece's walk so far: where it is, and what it found, to be counted
 * only once the whole piece has passed.
 */
struct walker {
    const uint8_t *p;               /* the next record */
    const uint8_t *limit;           /* the copy so far: walk up to here */
    const uint8_t *end;             /* the piece's */
    uint64_t floor;                 /* the last TSC (or the CPU's before) */
    uint64_t records, lost;
    uint64_t pad_bytes;             /* of wrap pads: not records */
    bool at_wrap;                   /* the piece ends where the ring wraps */
    uint32_t why;                   /* XT_SKIP_*: it failed; 0: not yet */
};

/*
 * Whether Xen writes @hdr, of class TRC_GEN, at @p, a record that ends
 * the piece if @last, which ends at the wrap if @at_wrap; its lost count
 * in *@lost.  Xen's own only: a lost-records marker of its size, a wrap
 * pad that ends at the wrap, TRC_TRACE_IRQ; never the file's (batch
 * headers, xentrace-ng's metadata).  Apart from the walk, so that the
 * walk's state does not leave its registers.
 */
static bool xen_writes_gen(const uint8_t *p, uint32_t hdr, bool last,
                           bool at_wrap, uint32_t *lost)
{
    *lost = 0;
    switch ( TRC_HD_TO_EVENT(hdr) )
    {
    case TRC_LOST_RECORDS:
        if ( !TRC_HD_INCLUDES_CYCLE_COUNT(hdr) ||
             TRC_HD_EXTRA(hdr) != XT_LOST_RECORDS_WORDS )
            return false;
        memcpy(lost, p + 12 + 4 * XT_LOST_RECORDS_COUNT, 4);
        return true;
    case TRC_TRACE_WRAP_BUFFER:
        return last && at_wrap;
    case TRC_TRACE_IRQ:
        return true;
    default:
        return false;
    }
}

/*
 * The record at w->p, which is before w->limit: checked, counted, and
 * passed.  False if the walk stops there: the record is not Xen's
 * (w->why says why), or it is not wholly before w->limit (it runs past
 * the piece's end, XT_SKIP_TILE, or the rest comes with the next copy).
 *
 * This is the cost of the check: a record's size is known only from its
 * header, so a walk is a chain of loads, one a record, and all else must
 * stay off that chain: one table load for the class, no call but for
 * TRC_GEN's rare events, branches that are taken only on bad input,
 * and the walker's fields in registers (inlined, into a copy on the
 * stack that nothing else sees).  Two walks side by side (walk_pair())
 * are two chains the CPU runs at once: bench/capture_floor's copy-check
 * took 0.15-0.16 s/GB with them, 0.20-0.21 with one walk after the other
 * (the same run, 2 cores, one of them busy).
 */
static inline __attribute__((always_inline)) bool
walk_record(struct walker *w)
{
    const uint8_t *p = w->p;
    uint32_t hdr, event, size;
    uint64_t tsc;

    if ( w->limit - p < 4 )
        goto short_record;
    memcpy(&hdr, p, 4);
    /* 4 * xt_record_words(hdr), in fewer steps after the load. */
    size = 4 + ((hdr >> 26) & 0x1c) + ((hdr >> 28) & 8);
    if ( size > (size_t)(w->limit - p) )
        goto short_record;
    event = TRC_HD_TO_EVENT(hdr);
    if ( !xt_xen_writes(event) )
        goto not_xen;
    if ( event >> TRC_CLS_SHIFT == TRC_GEN >> TRC_CLS_SHIFT )
    {
        uint32_t lost;

        if ( !xen_writes_gen(p, hdr, p + size == w->end, w->at_wrap, &lost) )
            goto not_xen;
        w->lost += lost;
        if ( event == TRC_TRACE_WRAP_BUFFER )
            w->pad_bytes += size;
        else
            w->records++;
    }
    else
        w->records++;
    if ( TRC_HD_INCLUDES_CYCLE_COUNT(hdr) )
    {
        memcpy(&tsc, p + 4, 8);
        if ( tsc < w->floor )
        {
            w->why = XT_SKIP_TSC;
            return false;
        }
        w->floor = tsc;
    }
    w->p = p + size;
    return true;

not_xen:
    w->why = XT_SKIP_EVENT;
    return false;
short_record:
    /* The rest comes with the next copy, unless the piece ends here. */
    if ( w->limit == w->end )
        w->why = XT_SKIP_TILE;
    return false;
}

/* Walk @w up to its limit: false if it failed. */
static bool walk(struct walker *w)
{
    struct walker v = *w;               /* in registers */

    while ( v.p < v.limit && walk_record(&v) )
        continue;
    *w = v;
    return !v.why;
}

/* Walk @a and @b up to their limits, side by side while both go on. */
static void walk_pair(struct walker *a, struct walker *b)
{
    struct walker x = *a, y = *b;       /* in registers */

    while ( x.p < x.limit && y.p < y.limit && walk_record(&x) &&
            walk_record(&y) )
        continue;
    *a = x;
    *b = y;
    walk(a);
    walk(b);
}

/* The payload word @i of the record at @p, whose header is @hdr. */
static uint32_t payload(const uint8_t *p, uint32_t hdr, unsigned int i)
{
    uint32_t word;

    memcpy(&word, p + 4 * (1 + 2 * TRC_HD_INCLUDES_CYCLE_COUNT(hdr) + i), 4);
    return word;
}

/* The piece of @len bytes that @w walked passed: count it into @c. */
static void count_piece(struct cpu_check *c, const struct walker *w,
                        size_t len)
{
    c->count.records += w->records;
    c->count.lost += w->lost;
    c->count.bytes += len - w->pad_bytes;
    if ( w->floor > c->count.last_tsc )
        c->count.last_tsc = w->floor;
    c->floor_tsc = w->floor;
}

/* Count @w's piece into @pc's CPU: passed, or skipped with why. */
static void end_piece(struct piece_copy *pc, const struct walker *w)
{
    pc->why = w->why;
    if ( w->why )
        pc->check->count.skipped += pc->len;
    else
        count_piece(pc->check, w, pc->len);
}

/*
 * A walker for @pc over the piece's bytes at @at, of which the first
 * @ready are there to walk.
 */
static void start_walker(const struct piece_copy *pc, const uint8_t *at,
                         size_t ready, struct walker *w)
{
    *w = (struct walker){ .p = at, .limit = at + ready,
                          .end = at + pc->len,
                          .floor = pc->check->floor_tsc,
                          .at_wrap = pc->at_wrap };
}

/* Have the CPU fetch the @len bytes at @p, at most COPY_STEP, in cache. */
static void fetch(const uint8_t *p, size_t len)
{
    size_t off;

    for ( off = 0; off < len && off < COPY_STEP; off += 64 )
        __builtin_prefetch(p + off);
}

/*
 * Let @w walk the next COPY_STEP bytes, unless it failed, and have the
 * step after that fetched meanwhile (start_check() fetches the first):
 * the walk is a chain of loads, one a record, and each would otherwise
 * wait for its line to come from DRAM, one at a time.
 */
static void check_step(struct walker *w)
{
    size_t n = w->end - w->limit < COPY_STEP ? w->end - w->limit : COPY_STEP;

    if ( w->why )
        return;
    w->limit += n;
    fetch(w->limit, w->end - w->limit);
}

/* A walker for @pc's piece where it is, its first step on its way. */
static void start_check(const struct piece_copy *pc, struct walker *w)
{
    start_walker(pc, pc->from, 0, w);
    fetch(pc->from, pc->len);
}

void check_pieces(struct piece_copy *pc, unsigned int n)
{
    struct walker x, y;
    unsigned int i;

    for ( i = 0; i + 1 < n; i += 2 )
    {
        start_check(&pc[i], &x);
        start_check(&pc[i + 1], &y);
        while ( (!x.why && x.limit < x.end) || (!y.why && y.limit < y.end) )
        {
            check_step(&x);
            check_step(&y);
            walk_pair(&x, &y);
        }
        end_piece(&pc[i], &x);
        end_piece(&pc[i + 1], &y);
    }
    if ( i < n )
    {
        start_check(&pc[i], &x);
        while ( !x.why && x.limit < x.end )
        {
            check_step(&x);
            walk(&x);
        }
        end_piece(&pc[i], &x);
    }
}

bool check_piece(struct cpu_check *c, const uint8_t *p, size_t len,
                 bool at_wrap, uint32_t *why)
{
    struct piece_copy pc = { .check = c, .from = p, .len = len,
                             .at_wrap = at_wrap };

    check_pieces(&pc, 1);
    *why = pc.why;
    return !pc.why;
}

/* Copy the next COPY_STEP bytes of @pc, walked by @w, unless it failed. */
static void copy_step(const struct piece_copy *pc, struct walker *w)
{
    size_t done = w->limit - pc->to;
    size_t n = pc->len - done < COPY_STEP ? pc->len - done : COPY_STEP;

    if ( !w->why && n )
    {
        memcpy(pc->to + done, pc->from + done, n);
        w->limit += n;
    }
}

/* Pieces @a and @b, of different CPUs, copied and walked side by side. */
static void copy_pair(struct piece_copy *a, struct piece_copy *b)
{
    struct walker x, y;

    start_walker(a, a->to, 0, &x);
    start_walker(b, b->to, 0, &y);
    while ( (!x.why && x.limit < x.end) || (!y.why && y.limit < y.end) )
    {
        copy_step(a, &x);
        copy_step(b, &y);
        walk_pair(&x, &y);
    }
    end_piece(a, &x);
    end_piece(b, &y);
}

/* Piece @a, copied and walked alone. */
static void copy_alone(struct piece_copy *a)
{
    struct walker x;

    start_walker(a, a->to, 0, &x);
    while ( !x.why && x.limit < x.end )
    {
        copy_step(a, &x);
        walk(&x);
    }
    end_piece(a, &x);
}

/*
 * A piece walked alone is one chain of loads, one a record, where two
 * walks side by side are two (walk_pair()): with two CPUs sharing the
 * cores with the capture thread, a pass often finds one CPU's window
 * alone.  So a piece of SPLIT_MIN bytes or more, alone, is walked as two
 * halves side by side, split where its records seem to start again: at
 * the first of SPLIT_SCAN words from the middle after which SPLIT_CHAIN
 * records look like Xen's.  The guess is read from the buffer, as
 * another process may have left it; what decides is the walk of the
 * copy, whose first half must end exactly at the split.
 */
#define SPLIT_MIN       1024u
#define SPLIT_SCAN      64u
#define SPLIT_CHAIN     4u

/* Whether SPLIT_CHAIN records start at @p, before @end, by their look. */
static bool looks_like_records(const uint8_t *p, const uint8_t *end)
{
    uint64_t last = 0, tsc;
    unsigned int i;

    for ( i = 0; i < SPLIT_CHAIN; i++ )
    {
        uint32_t hdr;
        size_t size;

        if ( end - p < 4 )
            return false;
        memcpy(&hdr, p, 4);
        size = 4 * xt_record_words(hdr);
        if ( size > (size_t)(end - p) || !xt_xen_writes(TRC_HD_TO_EVENT(hdr)) )
            return false;
        if ( TRC_HD_INCLUDES_CYCLE_COUNT(hdr) )
        {
            memcpy(&tsc, p + 4, 8);
            if ( tsc < last )
                return false;
            last = tsc;
        }
        p += size;
    }
    return true;
}

/* Where @pc's piece is split (see SPLIT_MIN), in bytes; 0: it is not. */
static size_t split_point(const struct piece_copy *pc)
{
    size_t at = pc->len / 2 & ~(size_t)3, i;

    if ( pc->len < SPLIT_MIN )
        return 0;
    for ( i = 0; i < SPLIT_SCAN && at < pc->len; i++, at += 4 )
        if ( looks_like_records(pc->from + at, pc->from + pc->len) )
            return at;
    return 0;
}

/*
 * Whether the @len bytes of records at @p have a record with a TSC: the
 * first's in *@tsc.  (A TSC may be 0: it is no sign of "none".)
 */
static bool first_tsc(const uint8_t *p, size_t len, uint64_t *tsc)
{
    const uint8_t *end = p + len;
    uint32_t hdr;

    for ( ; end - p >= 12; p += 4 * xt_record_words(hdr) )
    {
        memcpy(&hdr, p, 4);
        if ( TRC_HD_INCLUDES_CYCLE_COUNT(hdr) )
        {
            memcpy(tsc, p + 4, 8);
            return true;
        }
    }
    return false;
}

/*
 * A piece's halves, walked side by side as @x and @y, @y's at @at: @y
 * started from the CPU's floor before @x, as it had to, to start before
 * @x ended.  If @x passed, make @y's outcome what a walk after @x's would
 * have given: no TSC older than @x's last, which only @y's first TSC
 * before any record that failed (at @y->p) can be; its floor @x's at
 * least.
 */
static void join_walks(const struct walker *x, struct walker *y,
                       const uint8_t *at)
{
    uint64_t tsc;

    if ( first_tsc(at, y->p - at, &tsc) && tsc < x->floor )
        y->why = XT_SKIP_TSC;
    else if ( y->floor < x->floor )
        y->floor = x->floor;
}

/*
 * Piece @a, alone, copied and walked as two halves side by side, split
 * @at bytes in.  The first half's walk proves the split by ending there;
 * if instead its last record runs past it, the guess was wrong, and the
 * walk goes on alone from that record, as copy_alone()'s would have.
 * The outcome and the counts are the whole piece's, as copy_alone()'s.
 */
static void copy_split(struct piece_copy *a, size_t at)
{
    struct piece_copy h[2] = { *a, *a };
    struct walker x, y;

    h[0].len = at;
    h[0].at_wrap = false;
    h[1].to += at;
    h[1].from += at;
    h[1].len -= at;
    start_walker(&h[0], h[0].to, 0, &x);
    start_walker(&h[1], h[1].to, 0, &y);
    while ( (!x.why && x.limit < x.end) || (!y.why && y.limit < y.end) )
    {
        copy_step(&h[0], &x);
        copy_step(&h[1], &y);
        walk_pair(&x, &y);
    }
    if ( x.why == XT_SKIP_TILE )
    {
        x.why = 0;
        x.end = a->to + a->len;
        x.at_wrap = a->at_wrap;
        while ( !x.why && x.limit < x.end )
        {
            copy_step(a, &x);
            walk(&x);
        }
        end_piece(a, &x);
        return;
    }
    if ( !x.why )
        join_walks(&x, &y, h[1].to);
    a->why = x.why ? x.why : y.why;
    if ( a->why )
        a->check->count.skipped += a->len;
    else
    {
        count_piece(a->check, &x, at);
        count_piece(a->check, &y, a->len - at);
    }
}

void copy_pieces_checked(struct piece_copy *pc, unsigned int n)
{
    unsigned int i;
    size_t at;

    for ( i = 0; i + 1 < n; i += 2 )
        copy_pair(&pc[i], &pc[i + 1]);
    if ( i < n && (at = split_point(&pc[i])) )
        copy_split(&pc[i], at);
    else if ( i < n )
        copy_alone(&pc[i]);
    for ( i = 0; i < n; i++ )
        if ( pc[i].say && !pc[i].why )
            piece_says(pc[i].to, pc[i].len, pc[i].cpu, &pc[i].says);
}

/*
 * Where @pc's piece is taken from, and to: past what cons moved back over
 * (taken already); after what it moved on over (gone: counted as
 * skipped, and a gap before the piece, so after room for its marks).
 * Where xentrace leaves cons is then the piece's end, unless cons moved
 * back past it.
 */
static void start_piece(struct piece_copy *pc)
{
    struct cpu_check *c = pc->check;
    bool back;
    uint32_t moved = cons_moved(c, pc->cons, pc->window, pc->data_size,
                                &back);
    size_t skip = back ? (moved < pc->len ? moved : pc->len) : 0;

    pc->moved = moved;
    pc->back = back;
    if ( moved && !back )
    {
        c->count.skipped += moved;
        pc->gap = true;
    }
    if ( !back || moved < pc->len )
        c->next_cons = (pc->cons + pc->len) % (2 * pc->data_size);
    c->knows_cons = true;
    pc->from += skip;
    pc->len -= skip;
    pc->to = pc->at + (pc->gap ? pc->room : 0);
    pc->say |= pc->gap;
}

void take_pieces(struct piece_copy *pc, unsigned int n)
{
    unsigned int i;

    for ( i = 0; i < n; i++ )
        start_piece(&pc[i]);
    copy_pieces_checked(pc, n);
}

uint32_t cons_moved(const struct cpu_check *c, uint32_t cons, uint32_t len,
                    uint32_t data_size, bool *back)
{
    uint32_t ring = 2 * data_size;
    uint32_t behind = (c->next_cons + ring - cons) % ring;
    uint32_t ahead = (cons + ring - c->next_cons) % ring;

    *back = false;
    if ( !c->knows_cons || cons == c->next_cons )
        return 0;
    if ( behind <= len )
    {
        *back = true;
        return behind;
    }
    return ahead <= data_size ? ahead : 0;
}

/*
 * The vCPU running on CPU @cpu when the @len bytes of checked records at
 * @p start, as the first record to name it says: its domain and vCPU in
 * *@dom and *@vcpu.  False if no record there names it.
 */
static bool running_vcpu(const uint8_t *p, size_t len, unsigned int cpu,
                         uint32_t *dom, uint32_t *vcpu)
{
    const uint8_t *end = p + len;

    while ( end - p >= 4 )
    {
        uint32_t hdr, event, words, size;

        memcpy(&hdr, p, 4);
        event = TRC_HD_TO_EVENT(hdr);
        words = TRC_HD_EXTRA(hdr);
        size = 4 * xt_record_words(hdr);
        if ( size > (size_t)(end - p) )
            break;
        /* A runstate change off running. */
        if ( xt_is_runstate_change(event) && words >= 1 &&
             xt_runstate_old(event) == XT_RUNSTATE_RUNNING )
        {
            *dom = XT_DV_DOM(payload(p, hdr, 0));
            *vcpu = XT_DV_VCPU(payload(p, hdr, 0));
            return true;
        }
        if ( (event == TRC_SCHED_SWITCH || event == TRC_SCHED_SWITCH_INFPREV ||
              event == TRC_SCHED_SWITCH_INFCONT) && words >= 2 )
        {
            *dom = payload(p, hdr, 0);
            *vcpu = payload(p, hdr, 1);
            return true;
        }
        /* Xen's idle loop, on the CPU's idle vCPU, whose id is the CPU's. */
        if ( event == TRC_PM_IDLE_ENTRY || event == TRC_PM_IDLE_EXIT )
        {
            *dom = XT_DOMID_IDLE;
            *vcpu = cpu;
            return true;
        }
        p += size;
    }
    return false;
}

void piece_says(const uint8_t *p, size_t len, unsigned int cpu,
                struct piece_says *s)
{
    *s = (struct piece_says){ 0 };
    s->timed = first_tsc(p, len, &s->tsc);
    s->named = running_vcpu(p, len, cpu, &s->dom, &s->vcpu);
}
