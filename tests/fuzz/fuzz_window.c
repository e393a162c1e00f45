/*
 * libFuzzer target: xentrace's check of what a CPU's buffer held
 * (tools/xentrace/window.c), on bytes as another dom0 process may leave
 * them.
 *
 * Input: byte 0 says whether the piece ends at the wrap (bit 0) and how
 * many words a window it starts has after it (bits 1-7), bytes
 * 1-8 the TSC floor, 9-12 where xentrace left cons, 13-16 the cons found;
 * the rest, cut to whole words, is the piece, in a buffer of exactly its
 * size (so that ASan sees any read past it).  A piece that passes must
 * be whole records, tiling it exactly, TSCs never below the floor or the
 * one before, and be counted as such; one that fails must be counted as
 * skipped, with a reason, and change nothing else.  The helpers that read
 * checked records stay inside them, and cons_moved() never reports more
 * than the window or a buffer.  The check fused with the copy decides and
 * counts alike, alone (walked as two halves from 1 KiB on) or beside
 * another CPU's piece; and take_pieces(), with the cons found, takes what
 * cons_moved() leaves of the piece, as the fused copy does, after room
 * for a gap's marks if cons moved on, and leaves next_cons at its end.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "window.h"
#include "xtfile.h"

#define HEAD        17u
#define DATA_SIZE   (32u * 4096 - 8)    /* -S 32's data bytes */

/* Records in a piece that passed, and their bytes: walked again here. */
static uint64_t walk(const uint8_t *p, size_t len, uint64_t floor,
                     uint64_t *bytes)
{
    uint64_t records = 0, tsc;
    size_t at = 0;
    uint32_t hdr;

    while ( at < len )
    {
        if ( len - at < 4 )
            abort();
        memcpy(&hdr, p + at, 4);
        if ( at + 4 * xt_record_words(hdr) > len )
            abort();                            /* does not tile */
        if ( TRC_HD_INCLUDES_CYCLE_COUNT(hdr) )
        {
            memcpy(&tsc, p + at + 4, 8);
            if ( tsc < floor )
                abort();
            floor = tsc;
        }
        if ( TRC_HD_TO_EVENT(hdr) != TRC_TRACE_WRAP_BUFFER )
        {
            records++;
            *bytes += 4 * xt_record_words(hdr);
        }
        at += 4 * xt_record_words(hdr);
    }
    return records;
}

static bool same_check(const struct cpu_check *a, const struct cpu_check *b)
{
    return a->count.records == b->count.records &&
           a->count.bytes == b->count.bytes &&
           a->count.lost == b->count.lost &&
           a->count.last_tsc == b->count.last_tsc &&
           a->count.skipped == b->count.skipped &&
           a->floor_tsc == b->floor_tsc;
}

/*
 * The check fused with the copy (copy_pieces_checked()), alone and side
 * by side with a piece of another CPU, must copy what it passes, and
 * decide and count as check_piece() does on the piece in place.
 */
static void copied_alike(const struct cpu_check *c, const uint8_t *piece,
                         size_t len, bool at_wrap)
{
    struct cpu_check in_place = *c, alone = *c, paired = *c, other = *c;
    uint8_t *to = malloc(2 * len + 2);
    struct piece_copy pc[2] = {
        { .check = &alone, .to = to, .from = piece, .len = len,
          .at_wrap = at_wrap },
    };
    uint32_t why;
    bool passed = check_piece(&in_place, piece, len, at_wrap, &why);

    if ( !to )
        return;
    copy_pieces_checked(pc, 1);
    if ( passed != !pc[0].why || (!passed && pc[0].why != why) ||
         !same_check(&alone, &in_place) ||
         (passed && len && memcmp(to, piece, len)) )
        abort();
    /* Paired: the other CPU's piece is the same bytes, the halves swapped. */
    pc[0] = (struct piece_copy){ .check = &paired, .to = to + len + 1,
                                 .from = piece, .len = len,
                                 .at_wrap = at_wrap };
    pc[1] = (struct piece_copy){ .check = &other, .to = to, .from = piece,
                                 .len = len / 2 & ~(size_t)3 };
    copy_pieces_checked(pc, 2);
    if ( passed != !pc[0].why || (!passed && pc[0].why != why) ||
         !same_check(&paired, &in_place) )
        abort();
    free(to);
}

/*
 * take_pieces() of the piece found at @cons, the first of a window of
 * @more bytes more (its second piece, if it wraps): what cons_moved()
 * says of it not taken again or counted as skipped, the rest as
 * copy_pieces_checked() takes it.
 */
static void taken_alike(const struct cpu_check *c, uint32_t cons,
                        const uint8_t *piece, size_t len, bool at_wrap,
                        uint32_t more)
{
    struct cpu_check taken = *c, copied = *c;
    uint32_t n = len < DATA_SIZE / 2 ? len : DATA_SIZE / 2, moved;
    uint8_t *at = malloc(n + 64 + 1), *to = malloc(n + 1);
    struct piece_copy pc = { .check = &taken, .at = at, .room = 64,
                             .from = piece, .len = n, .at_wrap = at_wrap,
                             .cons = cons, .window = n + more,
                             .data_size = DATA_SIZE }, ref;
    bool back, on;
    size_t skip;

    if ( !at || !to )
        abort();
    moved = cons_moved(c, cons, n + more, DATA_SIZE, &back);
    on = moved && !back;
    skip = back ? (moved < n ? moved : n) : 0;
    ref = (struct piece_copy){ .check = &copied, .to = to,
                               .from = piece + skip, .len = n - skip,
                               .at_wrap = at_wrap };
    copied.count.skipped += on ? moved : 0;
    take_pieces(&pc, 1);
    copy_pieces_checked(&ref, 1);
    if ( pc.moved != moved || pc.back != back || pc.gap != on ||
         pc.from != ref.from || pc.len != ref.len ||
         pc.to != at + (on ? 64 : 0) || pc.why != ref.why ||
         !same_check(&taken, &copied) || !taken.knows_cons ||
         taken.next_cons != (back && moved >= n ? c->next_cons
                             : (cons + n) % (2 * DATA_SIZE)) ||
         (!pc.why && memcmp(pc.to, to, pc.len)) )
        abort();
    free(at);
    free(to);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cpu_check c = { .knows_cons = true }, before;
    uint32_t why, moved, cons;
    size_t len;
    uint8_t *piece;
    bool back;

    if ( size < HEAD )
        return 0;
    memcpy(&c.floor_tsc, data + 1, 8);
    memcpy(&c.next_cons, data + 9, 4);
    memcpy(&cons, data + 13, 4);
    c.next_cons %= 2 * DATA_SIZE;
    cons %= 2 * DATA_SIZE;
    len = (size - HEAD) & ~(size_t)3;
    if ( !(piece = malloc(len ? len : 1)) )
        return 0;
    memcpy(piece, data + HEAD, len);
    before = c;
    copied_alike(&c, piece, len, data[0] & 1);
    taken_alike(&c, cons, piece, len, data[0] & 1, 4 * (data[0] >> 1));

    if ( check_piece(&c, piece, len, data[0] & 1, &why) )
    {
        uint64_t bytes = 0;             /* the records', not the pads' */

        if ( c.count.records != walk(piece, len, before.floor_tsc, &bytes) ||
             c.count.bytes != bytes || c.count.skipped ||
             c.floor_tsc < before.floor_tsc ||
             c.count.last_tsc != (c.floor_tsc > before.count.last_tsc ?
                                  c.floor_tsc : before.count.last_tsc) )
            abort();
        struct piece_says says;

        piece_says(piece, len, 1, &says);
        if ( (says.named || says.timed) && !len )
            abort();
        if ( says.timed && says.tsc < before.floor_tsc )
            abort();
    }
    else if ( why < XT_SKIP_TILE || why > XT_SKIP_TSC ||
              c.count.skipped != len || c.count.records || c.count.bytes ||
              c.floor_tsc != before.floor_tsc )
        abort();

    moved = cons_moved(&before, cons, len < DATA_SIZE ? len : DATA_SIZE,
                       DATA_SIZE, &back);
    if ( (back && moved > len) || moved > DATA_SIZE ||
         (cons == before.next_cons && moved) )
        abort();

    free(piece);
    return 0;
}
