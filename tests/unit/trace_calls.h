/*
 * Every generated trc_*() call of xen/trace-events.h behind one signature,
 * for test_trace_events: gen-trace-events --calls makes the table.
 */
#ifndef TRACE_CALLS_H
#define TRACE_CALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trc_call {
    uint32_t event;             /* the catalogue's id */
    bool tsc;                   /* the catalogue says it is timed */
    const char *params;         /* each parameter's kind: "u32 dom vcpu rs8" */
    void (*call)(const uint64_t *v);   /* the call, with v[i] as parameter i */
};

extern const struct trc_call trc_calls[];
extern const size_t nr_trc_calls;

#endif /* TRACE_CALLS_H */
