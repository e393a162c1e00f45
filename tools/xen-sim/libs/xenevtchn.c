/*
 * Drop-in libxenevtchn.so.1 for xen-sim, with Debian's SONAME and symbol
 * versions (libxenevtchn.map).  Only virq binding is provided: xen-sim
 * has no other domains to bind or notify, so bind_unbound_port,
 * bind_interdomain, notify, restrict and fdopen are left out.
 *
 * The Linux evtchn driver queues a port when its event fires and masks it
 * until dom0 unmasks it; an event that fires while masked is delivered on
 * unmask.  Here xen-sim signals one eventfd per bound virq, and:
 *
 *   xenevtchn_fd()      an epoll descriptor watching the eventfds of the
 *                       unmasked ports: readable when one has fired.  It
 *                       exists from open, before any bind.
 *   xenevtchn_pending() clears a fired port's eventfd, masks the port and
 *                       returns it; -1 with EAGAIN if none has fired (the
 *                       driver's read would block, unless O_NONBLOCK).
 *   xenevtchn_unmask()  watches the port's eventfd again, so an event that
 *                       fired while it was masked makes the fd readable.
 *
 * The epoll set also watches the connection to xen-sim for hang-up.  Real
 * Xen never goes away under dom0, but xen-sim can, and a consumer waiting
 * on xenevtchn_fd() must hear of it rather than wait for ever: the fd
 * turns readable, and pending() fails with ECONNRESET.
 *
 * Like the real library, none of these log.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <xenevtchn.h>

#include "client.h"

struct bound_port {
    struct bound_port *next;
    evtchn_port_t port;
    int eventfd;                /* signalled by xen-sim when the virq fires */
    bool masked;                /* returned by pending, not yet unmasked */
};

struct xenevtchn_handle {
    struct xs_conn conn;
    int epoll_fd;               /* what xenevtchn_fd() returns */
    struct bound_port *ports;
};

static struct bound_port *find_port(xenevtchn_handle *xce, evtchn_port_t port)
{
    struct bound_port *p;

    for ( p = xce->ports; p; p = p->next )
        if ( p->port == port )
            return p;
    return NULL;
}

/* Watch @p's eventfd from xenevtchn_fd(), or stop watching it. */
static int watch(xenevtchn_handle *xce, struct bound_port *p, bool on)
{
    struct epoll_event ev = {
        .events = on ? EPOLLIN : 0,
        .data.u32 = p->port,
    };

    return epoll_ctl(xce->epoll_fd, EPOLL_CTL_MOD, p->eventfd, &ev);
}

/*
 * Make xenevtchn_fd() readable when xen-sim hangs up.  No EPOLLIN: replies
 * to calls arrive on the socket too, and are not events.
 */
static int watch_connection(xenevtchn_handle *xce)
{
    struct epoll_event ev = { .events = EPOLLRDHUP };

    return epoll_ctl(xce->epoll_fd, EPOLL_CTL_ADD, xce->conn.sock, &ev);
}

/* Whether xen-sim has closed our connection (it died, or dropped us). */
static bool connection_lost(const xenevtchn_handle *xce)
{
    struct pollfd p = { .fd = xce->conn.sock, .events = POLLRDHUP };

    return xce->conn.sock < 0 ||
           (poll(&p, 1, 0) == 1 &&
            (p.revents & (POLLRDHUP | POLLHUP | POLLERR)));
}

static void forget_port(xenevtchn_handle *xce, struct bound_port *p)
{
    struct bound_port **pp;

    for ( pp = &xce->ports; *pp != p; pp = &(*pp)->next )
        ;
    *pp = p->next;
    epoll_ctl(xce->epoll_fd, EPOLL_CTL_DEL, p->eventfd, NULL);
    close(p->eventfd);
    free(p);
}

/*
 * XENEVTCHN_NO_CLOEXEC is accepted and has no effect: every descriptor
 * here is close-on-exec, as xenevtchn_fdopen(), the only use of an
 * inherited one, is not provided.
 */
XS_EXPORT
xenevtchn_handle *xenevtchn_open(struct xentoollog_logger *logger,
                                 unsigned int flags)
{
    xenevtchn_handle *xce = calloc(1, sizeof(*xce));
    int saved_errno;

    (void)logger;
    (void)flags;
    if ( !xce )
        return NULL;

    xce->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if ( xce->epoll_fd < 0 )
        goto fail;
    if ( xs_connect(&xce->conn, NULL, NULL) )
        goto fail;
    if ( watch_connection(xce) )
    {
        xs_disconnect(&xce->conn);          /* keeps errno */
        goto fail;
    }

    return xce;

 fail:
    saved_errno = errno;
    if ( xce->epoll_fd >= 0 )
        close(xce->epoll_fd);
    free(xce);
    errno = saved_errno;
    return NULL;
}

/* Closing the connection makes xen-sim unbind what it had bound. */
XS_EXPORT
int xenevtchn_close(xenevtchn_handle *xce)
{
    if ( !xce )
        return 0;
    while ( xce->ports )
        forget_port(xce, xce->ports);
    close(xce->epoll_fd);
    xs_disconnect(&xce->conn);
    free(xce);

    return 0;
}

XS_EXPORT
int xenevtchn_fd(xenevtchn_handle *xce)
{
    return xce->epoll_fd;
}

/* The port, or -1 with errno as xen-sim gives it (see protocol.h). */
XS_EXPORT
xenevtchn_port_or_error_t xenevtchn_bind_virq(xenevtchn_handle *xce,
                                              unsigned int virq)
{
    struct epoll_event ev = { .events = EPOLLIN };
    uint32_t request = virq, port;
    struct iovec iov = { .iov_base = &request, .iov_len = sizeof(request) };
    struct bound_port *p;
    size_t len;
    int fd, rc;

    fd = xs_call_for_fd(&xce->conn, XS_BIND_VIRQ, &iov, 1, &port,
                        sizeof(port));
    if ( fd < 0 )
        return -1;
    if ( port > INT_MAX )
    {
        close(fd);
        errno = EPROTO;
        return -1;
    }

    p = malloc(sizeof(*p));
    if ( !p )
        goto undo;
    p->port = port;
    p->eventfd = fd;
    p->masked = false;
    ev.data.u32 = port;
    /* Shared with xen-sim's copy: the flag is the open file's anyway. */
    if ( fcntl(fd, F_SETFL, O_NONBLOCK) ||
         epoll_ctl(xce->epoll_fd, EPOLL_CTL_ADD, fd, &ev) )
        goto undo;
    p->next = xce->ports;
    xce->ports = p;

    return port;

 undo:
    rc = errno;
    free(p);
    close(fd);
    iov.iov_base = &port;
    (void)xs_call(&xce->conn, XS_UNBIND, &iov, 1, NULL, 0, &len, NULL);
    errno = rc;
    return -1;
}

/*
 * As the Linux driver: ENOTCONN for a port this handle has not bound.
 * The port is forgotten here whatever xen-sim answers: if it disagrees or
 * has gone away, the binding is gone on its side too.
 */
XS_EXPORT
int xenevtchn_unbind(xenevtchn_handle *xce, evtchn_port_t port)
{
    struct bound_port *p = find_port(xce, port);
    struct iovec iov = { .iov_base = &port, .iov_len = sizeof(port) };
    size_t len;
    int rc;

    if ( !p )
    {
        errno = ENOTCONN;
        return -1;
    }
    forget_port(xce, p);

    rc = xs_call(&xce->conn, XS_UNBIND, &iov, 1, NULL, 0, &len, NULL);
    if ( rc )
    {
        errno = -rc;
        return -1;
    }

    return 0;
}

XS_EXPORT
xenevtchn_port_or_error_t xenevtchn_pending(xenevtchn_handle *xce)
{
    struct bound_port *p;
    uint64_t count;

    for ( p = xce->ports; p; p = p->next )
    {
        if ( p->masked || read(p->eventfd, &count, sizeof(count)) < 0 )
            continue;
        p->masked = true;
        if ( watch(xce, p, false) )
            return -1;
        return p->port;
    }

    errno = connection_lost(xce) ? ECONNRESET : EAGAIN;
    return -1;
}

/* As the Linux driver, unmasking a port not bound here does nothing. */
XS_EXPORT
int xenevtchn_unmask(xenevtchn_handle *xce, evtchn_port_t port)
{
    struct bound_port *p = find_port(xce, port);

    if ( !p || !p->masked )
        return 0;
    if ( watch(xce, p, true) )
        return -1;
    p->masked = false;

    return 0;
}
