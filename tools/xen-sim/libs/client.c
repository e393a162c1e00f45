/*
 * Connections to xen-sim: connect, one request/reply exchange with an
 * optional descriptor in the reply (SCM_RIGHTS), and error logging in the
 * form the Xen libraries use.  See client.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <xentoollog.h>

#include "client.h"

/* The request header plus the payload pieces xs_call() accepts. */
#define MAX_REQUEST_IOV 4

/* A reply's rc is 0 or -errno, and Linux errnos stay below this. */
#define MAX_ERRNO       4095

void xs_log_error(struct xentoollog_logger *logger, const char *context,
                  int errnoval, const char *fmt, ...)
{
    int saved_errno = errno;
    va_list ap;

    va_start(ap, fmt);
    if ( logger )
        logger->vmessage(logger, XTL_ERROR, errnoval, context, fmt, ap);
    else
    {
        fprintf(stderr, "%s: error: ", context);
        vfprintf(stderr, fmt, ap);
        if ( errnoval >= 0 )
            fprintf(stderr, ": %s", strerror(errnoval));
        fputc('\n', stderr);
    }
    va_end(ap);
    errno = saved_errno;
}

void xs_init(struct xs_conn *c)
{
    pthread_mutex_init(&c->lock, NULL);
    c->sock = -1;
    c->error = EBADF;
}

int xs_connect(struct xs_conn *c, struct xentoollog_logger *logger,
               const char *context)
{
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    const char *path = getenv(XS_SOCKET_ENV);

    xs_init(c);

    if ( !path )
    {
        if ( context )
            xs_log_error(logger, context, -1,
                         "Could not obtain handle on xen-sim: $%s is not set",
                         XS_SOCKET_ENV);
        errno = ENOENT;
        goto fail;
    }
    if ( strlen(path) >= sizeof(addr.sun_path) )
    {
        errno = ENAMETOOLONG;
        goto fail_logged;
    }
    strcpy(addr.sun_path, path);

    c->sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if ( c->sock < 0 )
        goto fail_logged;
    if ( connect(c->sock, (struct sockaddr *)&addr, sizeof(addr)) )
        goto fail_logged;

    return 0;

 fail_logged:
    if ( context )
        xs_log_error(logger, context, errno,
                     "Could not connect to xen-sim at %s", path);
 fail:
    xs_disconnect(c);
    return -1;
}

void xs_disconnect(struct xs_conn *c)
{
    int saved_errno = errno;

    if ( c->sock >= 0 )
        close(c->sock);
    c->sock = -1;
    pthread_mutex_destroy(&c->lock);
    errno = saved_errno;
}

/* The exchange failed half-way: no later reply can be trusted. */
static int fail_connection(struct xs_conn *c, int error)
{
    close(c->sock);
    c->sock = -1;
    c->error = error;
    return -error;
}

/* Send all of @iov, resuming after short sends and signals. */
static int send_all(int sock, struct iovec *iov, int iovcnt)
{
    struct msghdr msg = { .msg_iov = iov, .msg_iovlen = iovcnt };

    while ( msg.msg_iovlen )
    {
        ssize_t n = sendmsg(sock, &msg, MSG_NOSIGNAL);

        if ( n < 0 )
        {
            if ( errno == EINTR )
                continue;
            return -errno;
        }
        while ( msg.msg_iovlen && (size_t)n >= msg.msg_iov->iov_len )
        {
            n -= msg.msg_iov->iov_len;
            msg.msg_iov++;
            msg.msg_iovlen--;
        }
        if ( msg.msg_iovlen )
        {
            msg.msg_iov->iov_base = (char *)msg.msg_iov->iov_base + n;
            msg.msg_iov->iov_len -= n;
        }
    }

    return 0;
}

/* Keep the first descriptor of an SCM_RIGHTS message; close any other. */
static void take_fds(struct msghdr *msg, int *fd)
{
    struct cmsghdr *cmsg;

    for ( cmsg = CMSG_FIRSTHDR(msg); cmsg; cmsg = CMSG_NXTHDR(msg, cmsg) )
    {
        const unsigned char *data = CMSG_DATA(cmsg);
        size_t i, nr;

        if ( cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS )
            continue;
        nr = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for ( i = 0; i < nr; i++ )
        {
            int one;

            memcpy(&one, data + i * sizeof(int), sizeof(int));
            if ( *fd < 0 )
                *fd = one;
            else
                close(one);
        }
    }
}

/*
 * Receive exactly @len bytes.  Descriptors may come with any of them (the
 * server sends its one with the reply header); they go to take_fds().
 * Returns 0 or a negative errno; ECONNRESET for EOF.
 */
static int recv_all(int sock, void *buf, size_t len, int *fd)
{
    while ( len )
    {
        union {
            struct cmsghdr align;
            char buf[CMSG_SPACE(sizeof(int))];
        } control;
        struct iovec iov = { .iov_base = buf, .iov_len = len };
        struct msghdr msg = {
            .msg_iov = &iov, .msg_iovlen = 1,
            .msg_control = control.buf, .msg_controllen = sizeof(control),
        };
        ssize_t n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);

        if ( n < 0 )
        {
            if ( errno == EINTR )
                continue;
            return -errno;
        }
        take_fds(&msg, fd);
        if ( msg.msg_flags & MSG_CTRUNC )
            return -EPROTO;         /* more descriptors than one */
        if ( n == 0 )
            return -ECONNRESET;
        buf = (char *)buf + n;
        len -= n;
    }

    return 0;
}

static int exchange(struct xs_conn *c, enum xs_op op, const struct iovec *iov,
                    int iovcnt, void *reply, size_t max, size_t *len,
                    int *fd)
{
    struct xs_msg hdr = { .op_or_rc = op };
    struct iovec out[MAX_REQUEST_IOV] = {
        { .iov_base = &hdr, .iov_len = sizeof(hdr) },
    };
    size_t payload = 0;
    int i, rc;

    if ( iovcnt < 0 || iovcnt >= MAX_REQUEST_IOV )
        return -EINVAL;
    for ( i = 0; i < iovcnt; i++ )
    {
        out[i + 1] = iov[i];
        payload += iov[i].iov_len;
    }
    if ( payload > XS_MAX_PAYLOAD )
        return -E2BIG;
    hdr.len = payload;

    if ( (rc = send_all(c->sock, out, iovcnt + 1)) )
        return fail_connection(c, -rc);

    if ( (rc = recv_all(c->sock, &hdr, sizeof(hdr), fd)) )
        return fail_connection(c, -rc);
    if ( hdr.op_or_rc > 0 || hdr.op_or_rc < -MAX_ERRNO || hdr.len > max )
        return fail_connection(c, EPROTO);
    if ( (rc = recv_all(c->sock, reply, hdr.len, fd)) )
        return fail_connection(c, -rc);

    *len = hdr.len;
    return hdr.op_or_rc;
}

int xs_call(struct xs_conn *c, enum xs_op op, const struct iovec *iov,
            int iovcnt, void *reply, size_t max, size_t *len, int *fd)
{
    int received = -1;
    int rc;

    pthread_mutex_lock(&c->lock);
    if ( c->sock < 0 )
        rc = -c->error;
    else
        rc = exchange(c, op, iov, iovcnt, reply, max, len, &received);
    pthread_mutex_unlock(&c->lock);

    /* The protocol sends a descriptor only with a success. */
    if ( received >= 0 && (rc < 0 || !fd) )
    {
        close(received);
        received = -1;
    }
    if ( fd )
        *fd = received;

    return rc;
}

int xs_call_for_fd(struct xs_conn *c, enum xs_op op, const struct iovec *iov,
                   int iovcnt, void *reply, size_t size)
{
    size_t len;
    int fd, rc;

    rc = xs_call(c, op, iov, iovcnt, reply, size, &len, &fd);
    if ( rc == 0 && (len != size || fd < 0) )
    {
        if ( fd >= 0 )
            close(fd);
        rc = -EPROTO;
    }
    if ( rc )
    {
        errno = -rc;
        return -1;
    }

    return fd;
}

int xs_hello(struct xs_conn *c)
{
    struct xs_hello hello;

    return xs_call_for_fd(c, XS_HELLO, NULL, 0, &hello, sizeof(hello));
}
