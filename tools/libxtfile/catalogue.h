/*
 * The event catalogue's tables, as gen-trace-events makes them out of
 * tools/trace-events/trace-events, for events.c.  Private to libxtfile.
 */
#ifndef XT_CATALOGUE_H
#define XT_CATALOGUE_H

#include "xtread.h"

/*
 * Names live in zero-padded arrays of these sizes, so that formatting
 * copies a name with one fixed-size memcpy (inlined, no call) and then
 * steps by its length.  gen-trace-events keeps names to 48 and 24
 * characters, and XT_RECORD_FORMAT_MAX leaves room for the padding
 * written past a record's text.
 */
#define XT_EVENT_NAME_PAD   64
#define XT_FIELD_NAME_PAD   32

/* Every entry, sorted by id. */
extern const struct xt_event_desc xt_event_descs[];
extern const size_t xt_nr_event_descs;

/*
 * Open addressing by (id * XT_EVENT_HASH_MULT) >> (32 - bits), linear
 * probing: index + 1 into xt_event_descs[], 0 for an empty slot.  At most
 * half full, so that a miss ends soon.
 */
#define XT_EVENT_HASH_MULT  2654435761u
extern const unsigned int xt_event_hash_bits;
extern const unsigned short xt_event_hash[];

#endif /* XT_CATALOGUE_H */
