/*
 * The client half of xen-sim's protocol (../protocol.h), shared by the
 * drop-in libxenctrl, libxenforeignmemory and libxenevtchn.  Each library
 * handle owns one connection.  Nothing here is exported: the libraries are
 * built with -fvisibility=hidden and export only their API (XS_EXPORT).
 *
 * Errors follow the Xen libraries: a negative errno from xs_call(), -1 and
 * errno from the rest.  A connection whose exchange failed half-way (the
 * server went away, or sent something that is not the protocol) cannot be
 * resynchronised: it is closed, and every later call on it fails with the
 * errno of that first failure.  When xen-sim goes away that errno is
 * ECONNRESET (EOF or reset) or EPIPE (a send to a closed socket); a reply
 * that breaks the protocol gives EPROTO.  Sends use MSG_NOSIGNAL, so a dead
 * server never raises SIGPIPE in the dom0 program.
 */
#ifndef XEN_SIM_CLIENT_H
#define XEN_SIM_CLIENT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "../protocol.h"

/* The API functions of a library: everything else stays hidden. */
#define XS_EXPORT __attribute__((visibility("default")))

#define XS_PAGE_SHIFT 12
#define XS_PAGE_SIZE  (1UL << XS_PAGE_SHIFT)

struct xentoollog_logger;

/*
 * One connection to xen-sim.  lock serialises whole request/reply
 * exchanges, so threads may share a library handle as they may share the
 * real ones.  sock is -1 once the connection failed; error then says why.
 */
struct xs_conn {
    pthread_mutex_t lock;
    int sock;
    int error;
};

/*
 * Log an error as the Xen libraries do: through @logger if there is one,
 * else as a line "CONTEXT: error: MESSAGE[: strerror(errnoval)]" on stderr.
 * @errnoval is -1 for none.  errno is preserved.
 */
void xs_log_error(struct xentoollog_logger *logger, const char *context,
                  int errnoval, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A connection that is not connected: every call on it fails with EBADF. */
void xs_init(struct xs_conn *c);

/*
 * Connect to the xen-sim whose socket is named by $XEN_SIM_SOCKET.  On
 * failure, logs why under @context (unless @context is NULL: the event
 * channel library does no logging) and returns -1 with errno set: ENOENT
 * when $XEN_SIM_SOCKET is not set, else the error of socket() or connect().
 */
int xs_connect(struct xs_conn *c, struct xentoollog_logger *logger,
               const char *context);

/* Close the connection; xen-sim drops what it held for it. */
void xs_disconnect(struct xs_conn *c);

/*
 * Send request @op with the payload gathered from @iov[@iovcnt] (at most
 * 3 pieces), then wait for the reply.  Up to @max bytes of its payload go
 * to @reply and *@len is set to the payload's length; a longer payload is a
 * protocol error.  If @fd is not NULL, *@fd is the descriptor sent with a
 * successful reply (close-on-exec), or -1 if none came; descriptors nobody
 * asked for are closed.
 *
 * Returns the server's rc (0 or a negative errno), or a negative errno if
 * the exchange itself failed.
 */
int xs_call(struct xs_conn *c, enum xs_op op, const struct iovec *iov,
            int iovcnt, void *reply, size_t max, size_t *len, int *fd);

/*
 * XS_HELLO: get the machine memory file.  Returns its descriptor, or -1
 * with errno set.
 */
int xs_hello(struct xs_conn *c);

/*
 * xs_call() for a request answered with exactly @size bytes in @reply and
 * a descriptor; any other answer is EPROTO.  Returns the descriptor, or -1
 * with errno.
 */
int xs_call_for_fd(struct xs_conn *c, enum xs_op op, const struct iovec *iov,
                   int iovcnt, void *reply, size_t size);

#endif /* XEN_SIM_CLIENT_H */
