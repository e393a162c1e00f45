/*
 * Unsigned decimals written by hand, eight digits at a time, for the text
 * that readers print per record (events.c, xentrace-dump): printf costs
 * more than the rest of a record's formatting.  Private to xentrace-ng's
 * tools; not installed.
 */
#ifndef XT_DECIMAL_H
#define XT_DECIMAL_H

#include <stdint.h>
#include <string.h>

/* Eight digits are built in a 64-bit word, the first in its low byte. */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "decimal.h: little-endian hosts only"
#endif

#define DEC_1E8     100000000u
#define DEC_ZEROS   0x3030303030303030ULL   /* "00000000" */
#define DEC_SPACES  0x2020202020202020ULL   /* "        " */

/*
 * @v < 10^8 as 8 digits in a word, with SWAR arithmetic: the halves of 4
 * digits, then the pairs, then the digits are split in all lanes at once
 * by multiplying by reciprocals (exact for these ranges).  Three
 * multiplies, no table, nothing through memory.
 */
static inline uint64_t dec8_word(uint32_t v)
{
    uint64_t x = v / 10000 | (uint64_t)(v % 10000) << 32;
    uint64_t hundreds = ((x * 10486) >> 20) & 0x0000007f0000007fULL;
    uint64_t pairs = hundreds | (x - hundreds * 100) << 16;
    uint64_t tens = ((pairs * 103) >> 10) & 0x000f000f000f000fULL;

    return (tens | (pairs - tens * 10) << 8) + DEC_ZEROS;
}

/* How many of the word's first bytes are leading '0's, at most 7. */
static inline unsigned int dec8_leading_zeros(uint64_t word)
{
    uint64_t diff = word ^ DEC_ZEROS;

    return diff ? __builtin_ctzll(diff) / 8 : 7;
}

/* @v < 10^8 as exactly 8 digits at @p. */
static inline void put_dec8(char *p, uint32_t v)
{
    uint64_t word = dec8_word(v);

    memcpy(p, &word, 8);
}

/* @v < 10^8 right-aligned in 8 columns, padded with spaces, as a word. */
static inline uint64_t dec8_word_right(uint32_t v)
{
    uint64_t word = dec8_word(v);
    unsigned int lead = dec8_leading_zeros(word);
    uint64_t pad = lead ? ~0ULL >> (64 - 8 * lead) : 0;

    return (word & ~pad) | (DEC_SPACES & pad);
}

/*
 * @v < 10^8 at @p without leading zeros; the end.  It writes 8 bytes at
 * @p whatever the length: the buffer needs the room.  No branch on the
 * number of digits.
 */
static inline char *put_dec_small(char *p, uint32_t v)
{
    uint64_t word;
    unsigned int lead;

    /* Payload words are mostly small: one or two digits are cheaper. */
    if ( v < 10 )
    {
        *p = '0' + v;
        return p + 1;
    }
    if ( v < 100 )
    {
        p[0] = '0' + v / 10;
        p[1] = '0' + v % 10;
        return p + 2;
    }
    word = dec8_word(v);
    lead = dec8_leading_zeros(word);

    word >>= 8 * lead;
    memcpy(p, &word, 8);
    return p + 8 - lead;
}

/* @v in decimal at @p; the end.  It may write 8 bytes past the end. */
static inline char *put_dec(char *p, uint64_t v)
{
    if ( v < DEC_1E8 )
        return put_dec_small(p, v);
    if ( v < (uint64_t)DEC_1E8 * DEC_1E8 )
        p = put_dec_small(p, v / DEC_1E8);
    else
    {
        p = put_dec_small(p, v / ((uint64_t)DEC_1E8 * DEC_1E8));
        put_dec8(p, v / DEC_1E8 % DEC_1E8);
        p += 8;
    }
    put_dec8(p, v % DEC_1E8);
    return p + 8;
}

/* @v < 10^9 as exactly 9 digits at @p, zero-padded. */
static inline char *put_dec9(char *p, uint32_t v)
{
    *p = '0' + v / DEC_1E8;
    put_dec8(p + 1, v % DEC_1E8);
    return p + 9;
}

#endif /* XT_DECIMAL_H */
