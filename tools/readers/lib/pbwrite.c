/*
 * pbwrite: protocol-buffer messages written field by field.  pbwrite.h
 * says how.
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "pbwrite.h"

#define WIRE_VARINT     0
#define WIRE_I64        1
#define WIRE_LEN        2
#define VARINT_MAX      10

void pb_init(struct pb *pb)
{
    memset(pb, 0, sizeof(*pb));
}

void pb_reset(struct pb *pb)
{
    pb->len = 0;
    pb->depth = 0;
}

void pb_free(struct pb *pb)
{
    free(pb->buf);
    pb_init(pb);
}

bool pb_ok(const struct pb *pb)
{
    return !pb->failed && !pb->depth;
}

static bool grow(struct pb *pb, size_t n)
{
    if ( !pb->failed && array_fit(&pb->buf, &pb->cap, pb->len + n, 1) )
        pb->failed = true;
    return !pb->failed;
}

/* Room for @n more bytes. */
static inline bool reserve(struct pb *pb, size_t n)
{
    return (pb->len + n <= pb->cap && !pb->failed) || grow(pb, n);
}

static unsigned int varint_at(uint8_t *p, uint64_t v)
{
    unsigned int n = 0;

    while ( v >= 0x80 )
    {
        p[n++] = (uint8_t)v | 0x80;
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

void pb_raw(struct pb *pb, uint64_t v)
{
    if ( reserve(pb, VARINT_MAX) )
        pb->len += varint_at(pb->buf + pb->len, v);
}

static void tag(struct pb *pb, unsigned int field, unsigned int wire)
{
    pb_raw(pb, (uint64_t)field << 3 | wire);
}

void pb_varint(struct pb *pb, unsigned int field, uint64_t v)
{
    tag(pb, field, WIRE_VARINT);
    pb_raw(pb, v);
}

/* int32 and int64 alike: a negative one is ten bytes, as protoc's. */
void pb_sint(struct pb *pb, unsigned int field, int64_t v)
{
    pb_varint(pb, field, (uint64_t)v);
}

void pb_fixed64(struct pb *pb, unsigned int field, uint64_t v)
{
    unsigned int i;

    tag(pb, field, WIRE_I64);
    if ( !reserve(pb, 8) )
        return;
    for ( i = 0; i < 8; i++ )
        pb->buf[pb->len++] = (uint8_t)(v >> 8 * i);
}

void pb_bytes(struct pb *pb, unsigned int field, const void *p, size_t n)
{
    tag(pb, field, WIRE_LEN);
    pb_raw(pb, n);
    if ( reserve(pb, n) )
    {
        memcpy(pb->buf + pb->len, p, n);
        pb->len += n;
    }
}

void pb_string(struct pb *pb, unsigned int field, const char *s)
{
    pb_bytes(pb, field, s, strlen(s));
}

void pb_begin(struct pb *pb, unsigned int field)
{
    tag(pb, field, WIRE_LEN);
    if ( pb->depth == PB_MAX_DEPTH )
    {
        pb->failed = true;
        return;
    }
    if ( !reserve(pb, 1) )
        return;
    pb->open[pb->depth++] = pb->len++;
}

void pb_end(struct pb *pb)
{
    uint8_t len[VARINT_MAX];
    size_t at, size;
    unsigned int n;

    if ( !pb->depth )
    {
        pb->failed = true;
        return;
    }
    at = pb->open[--pb->depth];
    if ( pb->failed )
        return;
    size = pb->len - at - 1;
    n = varint_at(len, size);
    if ( n > 1 )
    {
        if ( !reserve(pb, n - 1) )
            return;
        memmove(pb->buf + at + n, pb->buf + at + 1, size);
        pb->len += n - 1;
    }
    memcpy(pb->buf + at, len, n);
}
