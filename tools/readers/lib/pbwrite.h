/*
 * pbwrite: protocol-buffer messages written field by field into a
 * growing buffer, for xentrace-export's Perfetto trace.
 *
 * A message is built in place: pb_begin() opens a nested message (or a
 * packed repeated field) and pb_end() closes it, writing its length in
 * front of it.  The length takes one byte until the message reaches 128,
 * so pb_end() moves the message up when it needs more: most of ours are
 * short, and a length's varint is minimal as protoc writes it.  Only the
 * wire types Perfetto's messages here use: varint, length-delimited and
 * fixed64 (a flow's id).
 * Field numbers and types are the caller's, from Perfetto's .proto files
 * (tests decode every output with protoc against them).
 */
#ifndef PBWRITE_H
#define PBWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PB_MAX_DEPTH    8

struct pb {
    uint8_t *buf;
    size_t len, cap;
    size_t open[PB_MAX_DEPTH];  /* where each open message's length goes */
    unsigned int depth;
    bool failed;                /* out of memory, or too deep: see pb_ok() */
};

void pb_init(struct pb *pb);
void pb_reset(struct pb *pb);   /* empty, for the next message */
void pb_free(struct pb *pb);
bool pb_ok(const struct pb *pb);

void pb_varint(struct pb *pb, unsigned int field, uint64_t v);
void pb_sint(struct pb *pb, unsigned int field, int64_t v);    /* int32/64 */
void pb_string(struct pb *pb, unsigned int field, const char *s);
void pb_fixed64(struct pb *pb, unsigned int field, uint64_t v);
void pb_bytes(struct pb *pb, unsigned int field, const void *p, size_t n);

/* A nested message, or a packed repeated field: pb_raw() its values. */
void pb_begin(struct pb *pb, unsigned int field);
void pb_end(struct pb *pb);
void pb_raw(struct pb *pb, uint64_t v);     /* a varint, no tag */

#endif /* PBWRITE_H */
