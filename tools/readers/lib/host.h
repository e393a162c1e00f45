/*
 * host: a reader's records straight from this host's trace buffers, by
 * a xentrace of its own, as xentrace-top takes them with no file named.
 *
 * Capturing is xentrace's one job: the checks of every window, the
 * accounting of what is lost or skipped, the one-consumer rule and the
 * masks put back at exit are all xentrace's (tools/xentrace), and a
 * reader that did them again would be a second home for each.  So the
 * reader runs
 *
 *   xentrace -D [-e MASK]... [-c CPUS]... -
 *
 * with its standard output a pipe that becomes the reader's standard
 * input, read as any stream is.  -D: what the buffers held before is
 * not now.  xentrace's own errors (no Xen, no privilege, no buffers, a
 * consumer already running) are its one line on the standard error,
 * and the reader's exit status is then 1.  While the reader holds the
 * terminal (the screen), xentrace's standard error is kept in memory
 * and written out when it is done, after the screen is put back.
 *
 * Which xentrace: $XENTRACE if set, else the one beside the reader, in
 * the build tree (../xentrace/xentrace) or where make install puts it
 * (../sbin/xentrace).
 */
#ifndef HOST_H
#define HOST_H

#include <stdbool.h>

#include "cli.h"

/*
 * Start xentrace with these options (NULL-ended, at most HOST_OPTIONS),
 * its standard output our standard input; with @keep_stderr, its
 * standard error kept until host_stop().  Exits with one line if it
 * cannot be started.  The first SIGINT, SIGTERM or SIGHUP is passed on
 * to it as SIGTERM, so that it ends its capture, puts the masks back
 * and closes the stream; the next ends the reader.
 */
#define HOST_OPTIONS 64
void host_start(const char *const options[], bool keep_stderr);

/*
 * Open the stream as cli_open() would; if xentrace ended before it gave
 * a trace, exit with status 1 after its own line.
 */
struct xt_reader *host_open(const struct cli *c);

/*
 * Tell xentrace to end (SIGTERM) if it runs, wait for it, and write out
 * what it said.  With @drain, read what it still writes to the end, as a
 * capture that is told to end drains Xen's buffers into its output
 * first; without, the caller's reader is still reading.  Returns 0 if it
 * ended well, else 1 (having said why, or after its own line).  Called
 * at exit too, with @drain.
 */
int host_stop(bool drain);

#endif /* HOST_H */
