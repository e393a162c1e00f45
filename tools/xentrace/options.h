/*
 * xentrace's option values: defaults, limits, and the parsers of the
 * option arguments that are more than a number or a size (those are
 * tools/common/numbers.h's, as is the grammar of -c's lists).
 *
 * Each parser returns NULL on success, or a short reason ("too large",
 * "selects no CPU") that the caller prints as "xentrace: -e x: ...";
 * none of them exits, so that they can be tested.
 */
#ifndef XENTRACE_OPTIONS_H
#define XENTRACE_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

/* Defaults: docs/man/xentrace.8 states them. */
#define DEFAULT_TBUF_PAGES   32         /* -S, as upstream since 4.2 */
#define DEFAULT_POLL_MS      100        /* -s */
#define DEFAULT_BATCH_BYTES  (256 << 10)    /* --batch-size: the writer's */

/* Limits of the numeric options. */
#define MAX_TBUF_PAGES       65535      /* t_info's tbuf_size is a u16 */
#define MAX_POLL_MS          3600000    /* -s: an hour */
#define MAX_SECONDS          31536000   /* -T: a year */
#define MAX_RESERVE_MB       (1ULL << 32)               /* -r: 4 PiB */
#define MIN_RING_BYTES       (64ULL << 10)              /* -M */
#define MAX_RING_BYTES       (1ULL << 40)
#define MIN_BATCH_BYTES      (4ULL << 10)               /* --batch-size */
#define MAX_BATCH_BYTES      (256ULL << 20)

/* An -e keyword and the class mask it stands for. */
struct evt_class {
    const char *name;
    uint32_t mask;
};

/* The -e keywords, NULL-terminated. */
extern const struct evt_class evt_classes[];

/*
 * An event mask: keywords of evt_classes[] and numbers (0x... hex, or
 * decimal), separated by commas and OR-ed.  Bits 28-31 are not part of an
 * event number and are cleared (the "0xfffff000" of older documentation
 * means all).  A mask that no event can pass (no class bit or no
 * subclass bit) is an error.
 */
const char *parse_evt_mask(const char *arg, uint32_t *mask);

/*
 * A CPU mask for a host of @max_cpus CPUs, into @bitmap of
 * (max_cpus + 7) / 8 bytes (bit n of byte n / 8 is CPU n):
 *   all          every CPU;
 *   0x...        hex of any width, bit n for CPU n;
 *   list         numbers.h's list of CPUs 0 to @max_cpus - 1: N, N-M,
 *                -M (0 to M) and N- (N to the last CPU): 0-3,7.
 * A CPU at or beyond @max_cpus, or a mask without any CPU, is an error.
 * The reason may be formatted into a static buffer, valid until the next
 * call.
 */
const char *parse_cpu_mask(const char *arg, unsigned int max_cpus,
                           uint8_t *bitmap);

/*
 * A domain filter: numbers.h's list of domain ids, 0 to DOMID_IDLE
 * (0x7fff), such as 0,3-5; into @doms as at most XT_DOM_RANGES_MAX
 * ranges, ascending.  An empty filter is an error.
 */
struct xt_dom_filter;
const char *parse_domains(const char *arg, struct xt_dom_filter *doms);

#endif /* XENTRACE_OPTIONS_H */
