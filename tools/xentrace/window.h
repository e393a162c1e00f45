/*
 * xentrace: checking and counting what a CPU's trace buffer held, in the
 * pass that takes it (see window.c).
 */
#ifndef WINDOW_H
#define WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * What was taken from one CPU's buffer.  "records" are those Xen wrote,
 * lost-records markers included, its pads not: what every reader counts
 * (docs/trace-format.md); the file's batch headers and metadata are not
 * Xen's.  "skipped" bytes failed the checks and were not written.
 */
struct cpu_count {
    uint64_t records;
    uint64_t bytes;         /* of the records (xtread.h's count): not pads */
    uint64_t lost;          /* the sum of its lost-records counts */
    uint64_t last_tsc;      /* of its newest record with one; 0: none */
    uint64_t skipped;       /* bytes */
};

/* One CPU's: its counts, and what the next window is checked against. */
struct cpu_check {
    struct cpu_count count;
    uint64_t floor_tsc;     /* no record's TSC may be older; 0: none */
    uint32_t next_cons;     /* where xentrace left cons, if known */
    bool knows_cons;
    uint64_t gap_bytes;     /* skipped since the last record kept, not */
    uint32_t gap_why;       /*   marked yet; why the first were */
};

/*
 * Whether the @len bytes at @p, a piece of a window copied out of the
 * CPU's buffer (the copy: another process can change the buffer as it is
 * read), are all records Xen wrote.  @at_wrap: the piece ends where the
 * buffer wraps.  If so, counts them into @c; if not, counts the piece as
 * skipped, and *@why says why (XT_SKIP_*, xtfile.h).
 */
bool check_piece(struct cpu_check *c, const uint8_t *p, size_t len,
                 bool at_wrap, uint32_t *why);

/*
 * The same check, fused with the copy out of the buffer: for each piece,
 * its @len bytes from @from copied to @to, COPY_STEP bytes at a time,
 * each step walked right after it was copied, while it is in the L1
 * cache; the pieces in pairs, walked side by side.  Walked after the
 * whole copy instead, a window of a large buffer (an eighth of 8192
 * pages is 4 MiB) is out of the cache again, and every record's header
 * a miss that the walk waits for; and one walk alone waits on each
 * header, where two overlap.  What is checked is the copy.  Each
 * piece's outcome is in its @why (0: it passed), and counted into its
 * @check as check_piece() counts it.  Pieces of one CPU must be in
 * separate calls, in order: each is checked against the one before.
 * A piece alone in a call is walked as two halves side by side, split
 * where its records seem to start again, which the walk proves (or, if
 * not, walks on alone): the outcome is the same.
 */
#define COPY_STEP       (16u << 10)

/*
 * What a piece's checked records say, for the marks of a gap before
 * them (take.c): the first TSC, and the vCPU running on the CPU when they
 * start, as the first record to name it says (a scheduler record, or a
 * C-state one: only the idle vCPU writes those).
 */
struct piece_says {
    bool timed;             /* a record has a TSC: the first's */
    uint64_t tsc;           /*   (which may be 0) */
    bool named;             /* a record names the vCPU: */
    uint32_t dom, vcpu;
};

struct piece_copy {
    struct cpu_check *check;
    unsigned int cpu;
    uint8_t *to;            /* where it is copied (take_pieces(): out) */
    const uint8_t *from;
    size_t len;
    bool at_wrap;           /* the piece ends where the buffer wraps */
    bool say;               /* fill in says, if it passes */
    uint32_t why;           /* out: XT_SKIP_*, or 0 if it passed */
    struct piece_says says; /* out, with say, if it passed */
    /* take_pieces()'s: */
    uint8_t *at;            /* where it goes if no gap comes before it */
    uint32_t room;          /*   and how much later if one does */
    bool gap;               /* a gap comes before it (out: cons moved on) */
    uint32_t cons;          /* the piece's index in the ring */
    uint32_t window;        /* bytes of the window from the piece on */
    uint32_t data_size;     /* of the CPU's buffer */
    uint32_t moved;         /* out: cons_moved()'s, and which way: */
    bool back;
};

void copy_pieces_checked(struct piece_copy *pc, unsigned int n);

/*
 * Take the @n pieces at @pc, of different CPUs, from their buffers: each
 * where cons is against where xentrace left it (cons_moved()), then
 * copied and checked as copy_pieces_checked() does, and asked what its
 * records say if a gap comes before it or @say.  What cons moved back
 * over is not taken again (@moved with @back); what it moved on over is
 * gone, counted as skipped (@moved): a gap, before the piece, which then
 * goes @room bytes after @at, at @to.  Where xentrace leaves cons
 * (next_cons) follows the pieces taken.  The pieces of a CPU's window,
 * one a call, in order; one with nothing left to take passes as empty.
 */
void take_pieces(struct piece_copy *pc, unsigned int n);

/*
 * The check alone, of each piece's @len bytes at @from where they are (@to
 * is not used), the pieces in pairs, walked side by side; outcomes and
 * counts as copy_pieces_checked()'s.  What passes is what was read: bytes
 * that another process can change are not checked by it.
 */
void check_pieces(struct piece_copy *pc, unsigned int n);

/*
 * A window from @cons, @len bytes in a buffer of @data_size, when cons is
 * not where xentrace left it (XT_SKIP_CONS): the bytes at its start that
 * xentrace took already, with *@back set (cons was moved back), or the
 * bytes from where xentrace left it to @cons, gone (cons was moved on).
 * 0 if cons is where xentrace left it, or that is not known, or the two
 * are too far apart to tell which way it moved.
 */
uint32_t cons_moved(const struct cpu_check *c, uint32_t cons, uint32_t len,
                    uint32_t data_size, bool *back);

/* What the @len bytes of checked records at @p, CPU @cpu's, say. */
void piece_says(const uint8_t *p, size_t len, unsigned int cpu,
                struct piece_says *s);

#endif /* WINDOW_H */
