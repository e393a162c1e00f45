/*
 * perfetto: a trace file as Perfetto's native trace (a stream of
 * perfetto.protos.TracePacket in a perfetto.protos.Trace), from the
 * model's events: docs/reading-traces.md, "Looking at a trace in
 * Perfetto", says what it shows and how.
 */
#ifndef PERFETTO_H
#define PERFETTO_H

#include <stdint.h>
#include <stdio.h>

#include "view.h"
#include "xtread.h"

/*
 * Write @r's machine to @out as Perfetto packets, keeping what @f keeps;
 * @hz: TSC ticks per second (cli_tsc_hz()).  0, or -1 with errno (ENOMEM;
 * a write to @out failed, ferror(@out), and errno is the write's; ERANGE,
 * CPU numbers beyond VIEW_MAX_PCPUS).  Memory is bounded by the number of
 * pCPUs and vCPUs.
 */
int perfetto_export(struct xt_reader *r, FILE *out,
                    const struct view_filter *f, uint64_t hz);

#endif /* PERFETTO_H */
