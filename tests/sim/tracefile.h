/*
 * Reading a trace file as xentrace writes it, for the tests: a stream of
 * t_rec records in which each TRC_TRACE_CPU_CHANGE {cpu, bytes} says whose
 * records the next bytes are.
 */
#ifndef TRACEFILE_H
#define TRACEFILE_H

#include <stdbool.h>
#include <stdint.h>

#define TF_MAX_CPUS 256

struct tf_cpu {
    uint64_t records;       /* records other than pads and markers */
    uint64_t bytes;         /* theirs */
    uint64_t marker_bytes;  /* the markers' */
    uint64_t lost;          /* sum of the TRC_LOST_RECORDS counts */
    uint64_t markers;       /* TRC_LOST_RECORDS records */
    uint64_t windows;       /* TRC_TRACE_CPU_CHANGE headers */
    uint32_t classes;       /* class bits (event >> 16) of its records */
    uint64_t ends;          /* TRC_XT_END records */
    uint64_t after_end;     /* records of any kind after its first one */
    uint64_t skipped;       /* bytes, by its TRC_XT_SKIPPED markers */
    uint64_t skips;         /* TRC_XT_SKIPPED markers */
};

struct tf_summary {
    struct tf_cpu cpu[TF_MAX_CPUS];
    uint64_t bytes;
    uint64_t pad_bytes;     /* in TRC_TRACE_WRAP_BUFFER records */
    uint64_t unaligned;     /* CPU-change records not at a 4 KiB offset */
    uint64_t meta;          /* xentrace-ng metadata records (TRC_GEN+0x1x)
                               other than TRC_XT_END, TRC_XT_SKIPPED, the
                               domains' and the masks' */
    uint64_t domains;       /* TRC_XT_DOMAIN records: a domain told */
    uint64_t masks;         /* TRC_XT_MASKS records */
    uint64_t dom_filters;   /* TRC_XT_DOM_FILTER records */
    uint64_t complete;      /* bytes up to the end of the last whole window */
    char error[160];        /* why the file is not well formed, or "" */
};

/* Read @path into @s; false (and s->error) if it is not a trace file. */
bool tf_read(const char *path, struct tf_summary *s);

#endif /* TRACEFILE_H */
