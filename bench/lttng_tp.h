/* SPDX-License-Identifier: MIT */
/*
 * The LTTng-UST tracepoint provider of bench/lttng_cost: events with the
 * payloads of trace_cost's records, 0, 3 and 7 32-bit words.  LTTng
 * timestamps every event, as trace_cost's records carry a TSC.  w3_off has
 * w3's payload and is never enabled in the session: a tracepoint compiled
 * in but not enabled.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER xt_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./lttng_tp.h"

#if !defined(LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define LTTNG_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(xt_bench, w0,
    LTTNG_UST_TP_ARGS(),
    LTTNG_UST_TP_FIELDS()
)

LTTNG_UST_TRACEPOINT_EVENT_CLASS(xt_bench, words3,
    LTTNG_UST_TP_ARGS(uint32_t, a, uint32_t, b, uint32_t, c),
    LTTNG_UST_TP_FIELDS(
	lttng_ust_field_integer(uint32_t, a, a)
	lttng_ust_field_integer(uint32_t, b, b)
	lttng_ust_field_integer(uint32_t, c, c)
    )
)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(xt_bench, words3, xt_bench, w3,
    LTTNG_UST_TP_ARGS(uint32_t, a, uint32_t, b, uint32_t, c))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(xt_bench, words3, xt_bench, w3_off,
    LTTNG_UST_TP_ARGS(uint32_t, a, uint32_t, b, uint32_t, c))

/* 28 bytes from a buffer, as trace_var(ev, true, 28, d) takes them. */
LTTNG_UST_TRACEPOINT_EVENT(xt_bench, w7,
    LTTNG_UST_TP_ARGS(const uint32_t *, d),
    LTTNG_UST_TP_FIELDS(
	lttng_ust_field_array(uint32_t, d, d, 7)
    )
)

#endif /* LTTNG_TP_H */

#include <lttng/tracepoint-event.h>
