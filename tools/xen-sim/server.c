/*
 * xen-sim's control plane.
 *
 * One thread per connection reads requests and answers each in turn
 * (protocol.h).  What a request does is what Xen does: XEN_SYSCTL_tbuf_op
 * goes straight to the hypervisor's tb_control(); a foreign mapping of
 * DOMID_XEN frames is allowed only for frames Xen shared, and writable
 * only if shared read-write, and each frame mapped holds a reference to
 * it until unmapped or the connection ends; VIRQ_TBUF, a global virq,
 * has at most one handler, and the virq is delivered by signalling that
 * connection's eventfd.  A connection that goes away loses its binding,
 * so a dom0 that dies leaves the host serving.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <host.h>
#include <xen/trace.h>

#include "protocol.h"
#include "server.h"
#include "store.h"

#define VIRQ_PORT   7          /* the port dom0 sees VIRQ_TBUF on */

static int listen_fd = -1;
static unsigned long close_after;      /* --close-after: 0, or the request */
static bool stock_tbuf_ops;            /* --stock-xen: Xen's commands only */
static unsigned long requests;         /* atomic: read so far, all sockets */
static int stop_fd = -1;               /* an eventfd: stop accepting */
static pthread_t acceptor;
static char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)];

/*
 * The connection VIRQ_TBUF is bound to: its socket, and the eventfd that
 * delivers the virq (-1 if unbound).  virq_lock covers both.
 */
static pthread_mutex_t virq_lock = PTHREAD_MUTEX_INITIALIZER;
static int virq_fd = -1;
static int virq_owner = -1;

/* Called by the hypervisor's tasklet, on the CPU that crossed high water. */
static void deliver_virq(unsigned int virq)
{
    uint64_t one = 1;

    if ( virq != VIRQ_TBUF )
        return;
    pthread_mutex_lock(&virq_lock);
    /* A write fails only when the counter is full: dom0 is notified. */
    if ( virq_fd >= 0 )
        (void)!write(virq_fd, &one, sizeof(one));
    pthread_mutex_unlock(&virq_lock);
}

/*
 * Whether the peer of @sock has gone.  In Xen, closing the event channel
 * device (or dying) unbinds before close() or the process's exit returns;
 * the thread serving a connection sees its end later, so a new binder
 * asks instead of waiting for it.
 */
static bool peer_gone(int sock)
{
    struct pollfd p = { .fd = sock, .events = POLLRDHUP };

    return poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP));
}

/* Caller holds virq_lock. */
static void release_virq(void)
{
    close(virq_fd);
    virq_fd = -1;
    virq_owner = -1;
}

static int bind_virq(int sock, int *fd)
{
    int rc = 0;

    pthread_mutex_lock(&virq_lock);
    if ( virq_fd >= 0 && peer_gone(virq_owner) )
        release_virq();
    if ( virq_fd >= 0 )
        rc = -EEXIST;           /* as evtchn_bind_virq() says */
    else if ( (virq_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0 )
        rc = -errno;
    else
    {
        virq_owner = sock;
        *fd = virq_fd;
    }
    pthread_mutex_unlock(&virq_lock);

    return rc;
}

static int unbind_virq(int sock)
{
    int rc = -EINVAL;

    pthread_mutex_lock(&virq_lock);
    if ( virq_fd >= 0 && virq_owner == sock )
    {
        release_virq();
        rc = 0;
    }
    pthread_mutex_unlock(&virq_lock);

    return rc;
}

/*
 * Wire I/O
 * ========
 */

static bool read_full(int fd, void *buf, size_t len)
{
    while ( len )
    {
        ssize_t n = read(fd, buf, len);

        if ( n <= 0 )
        {
            if ( n < 0 && errno == EINTR )
                continue;
            return false;
        }
        buf = (char *)buf + n;
        len -= n;
    }
    return true;
}

/* Send a reply, with @fd (if >= 0) passed along with its header. */
static bool send_reply(int sock, int rc, const void *payload, uint32_t len,
                       int fd)
{
    struct xs_msg hdr = { .op_or_rc = rc, .len = len };
    struct iovec iov[2] = {
        { .iov_base = &hdr, .iov_len = sizeof(hdr) },
        { .iov_base = (void *)payload, .iov_len = len },
    };
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } control;
    struct msghdr msg = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };

    if ( fd >= 0 )
    {
        struct cmsghdr *c;

        memset(&control, 0, sizeof(control));
        msg.msg_control = control.buf;
        msg.msg_controllen = sizeof(control.buf);
        c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof(int));
    }

    /* Short writes do not happen on a stream socket this small. */
    return sendmsg(sock, &msg, MSG_NOSIGNAL) ==
           (ssize_t)(sizeof(hdr) + len);
}

/*
 * Requests
 * ========
 */

static bool do_hello(int sock)
{
    struct xs_hello hello = { .machine_pages = host_machine_pages() };

    return send_reply(sock, 0, &hello, sizeof(hello), host_machine_fd());
}

static bool do_tbuf_op(int sock, const void *payload, uint32_t len)
{
    struct xs_tbuf_op op;
    struct xen_sysctl_tbuf_op sysctl = { 0 };
    int rc;

    if ( len < sizeof(op) )
        return send_reply(sock, -EINVAL, NULL, 0, -1);
    memcpy(&op, payload, sizeof(op));
    if ( op.bitmap_bytes > len - sizeof(op) ||
         op.nr_bits > 8 * op.bitmap_bytes )
        return send_reply(sock, -EFAULT, NULL, 0, -1);

    /* An unmodified Xen has none of public/trace.h's own commands. */
    if ( stock_tbuf_ops && (op.cmd == XEN_SYSCTL_TBUFOP_dom_filter_stage ||
                            op.cmd == XEN_SYSCTL_TBUFOP_dom_filter_commit ||
                            op.cmd == XEN_SYSCTL_TBUFOP_event_switch ||
                            op.cmd == XEN_SYSCTL_TBUFOP_resize) )
        return send_reply(sock, -EINVAL, NULL, 0, -1);

    sysctl.cmd = op.cmd;
    sysctl.evt_mask = op.evt_mask;
    sysctl.size = op.size;
    sysctl.cpu_mask.nr_bits = op.nr_bits;
    sysctl.cpu_mask.bitmap.p = (uint8_t *)payload + sizeof(op);
    rc = tb_control(&sysctl);

    op.evt_mask = sysctl.evt_mask;
    op.buffer_mfn = sysctl.buffer_mfn;
    op.size = sysctl.size;
    return send_reply(sock, rc, &op, sizeof(op), -1);
}

static bool do_physinfo(int sock)
{
    struct xs_physinfo info = {
        .nr_cpus = host_online_cpus(),
        .max_cpu_id = host_possible_cpus() - 1,
        .max_cpus = host_possible_cpus(),
    };

    return send_reply(sock, 0, &info, sizeof(info), -1);
}

/*
 * As Xen answers for each frame of a DOMID_XEN foreign mapping.  A frame
 * shared read-only has type PGT_none, so a writable mapping of it cannot
 * take a writable type: EBUSY, as seen with xc_tbuf_get_size() on 4.17.
 */
static int frame_error(uint64_t mfn, uint32_t prot)
{
    if ( mfn >= host_machine_pages() )
        return -EINVAL;
    switch ( host_frame_sharing(mfn) )
    {
    case HOST_SHARED_RW:
        return 0;
    case HOST_SHARED_RO:
        return prot & PROT_WRITE ? -EBUSY : 0;
    default:
        return -EPERM;
    }
}

/*
 * The references a connection's mappings hold: a frame once for each
 * mapping of it.  At most MAX_HELD, so that a dom0 that maps and never
 * unmaps cannot take the simulator's memory.
 */
#define MAX_HELD    (1u << 22)

struct held {
    uint64_t *mfns;
    size_t n, cap;
};

/* A reference to @mfn for this connection: 0, or a negative errno. */
static int hold(struct held *h, uint64_t mfn)
{
    if ( h->n == h->cap )
    {
        size_t cap = h->cap ? 2 * h->cap : 64;
        uint64_t *mfns;

        if ( h->n >= MAX_HELD ||
             !(mfns = realloc(h->mfns, cap * sizeof(*mfns))) )
            return -ENOMEM;
        h->mfns = mfns;
        h->cap = cap;
    }
    if ( host_get_frame(mfn) )
        return -EPERM;          /* taken back since frame_error() */
    h->mfns[h->n++] = mfn;
    return 0;
}

/* Drop one of this connection's references to @mfn, if it has one. */
static void release(struct held *h, uint64_t mfn)
{
    size_t i;

    for ( i = h->n; i--; )
        if ( h->mfns[i] == mfn )
        {
            h->mfns[i] = h->mfns[--h->n];
            host_put_frame(mfn);
            return;
        }
}

static void release_all(struct held *h)
{
    while ( h->n )
        host_put_frame(h->mfns[--h->n]);
    free(h->mfns);
}

static bool do_map(int sock, struct held *held, const void *payload,
                   uint32_t len)
{
    struct xs_map map;
    const uint64_t *mfns;
    int32_t *errs;
    uint32_t i;
    int rc = 0;
    bool sent;

    if ( len < sizeof(map) )
        return send_reply(sock, -EINVAL, NULL, 0, -1);
    memcpy(&map, payload, sizeof(map));
    if ( map.count > (len - sizeof(map)) / sizeof(*mfns) || !map.count )
        return send_reply(sock, -EINVAL, NULL, 0, -1);

    mfns = (const uint64_t *)((const char *)payload + sizeof(map));
    errs = calloc(map.count, sizeof(*errs));
    if ( !errs )
        return send_reply(sock, -ENOMEM, NULL, 0, -1);
    for ( i = 0; i < map.count; i++ )
    {
        errs[i] = frame_error(mfns[i], map.prot);
        if ( !errs[i] )
            errs[i] = hold(held, mfns[i]);
        if ( errs[i] && !rc )
            rc = errs[i];
    }
    sent = send_reply(sock, rc, errs, map.count * sizeof(*errs), -1);
    free(errs);

    return sent;
}

static bool do_unmap(int sock, struct held *held, const void *payload,
                     uint32_t len)
{
    uint32_t i;

    if ( len % sizeof(uint64_t) )
        return send_reply(sock, -EINVAL, NULL, 0, -1);
    for ( i = 0; i < len / sizeof(uint64_t); i++ )
    {
        uint64_t mfn;

        memcpy(&mfn, (const char *)payload + i * sizeof(mfn), sizeof(mfn));
        release(held, mfn);
    }
    return send_reply(sock, 0, NULL, 0, -1);
}

static bool do_bind_virq(int sock, const void *payload, uint32_t len)
{
    uint32_t virq, port = VIRQ_PORT;
    int fd = -1, rc;

    if ( len != sizeof(virq) )
        return send_reply(sock, -EINVAL, NULL, 0, -1);
    memcpy(&virq, payload, sizeof(virq));
    if ( virq != VIRQ_TBUF )
        return send_reply(sock, -EINVAL, NULL, 0, -1);

    rc = bind_virq(sock, &fd);
    if ( rc )
        return send_reply(sock, rc, NULL, 0, -1);
    return send_reply(sock, 0, &port, sizeof(port), fd);
}

static bool do_unbind(int sock, const void *payload, uint32_t len)
{
    uint32_t port;

    if ( len != sizeof(port) )
        return send_reply(sock, -EINVAL, NULL, 0, -1);
    memcpy(&port, payload, sizeof(port));
    return send_reply(sock, port == VIRQ_PORT ? unbind_virq(sock) : -EINVAL,
                      NULL, 0, -1);
}

/* XS_STORE_GET and XS_STORE_LIST: a node's value, or its children. */
static bool do_store_get(int sock, const void *payload, uint32_t len,
                         int list)
{
    char path[256], value[4096];
    size_t got;
    int rc;

    if ( len >= sizeof(path) )
        return send_reply(sock, -EINVAL, NULL, 0, -1);
    memcpy(path, payload, len);
    path[len] = '\0';
    rc = store_get(path, list, value, sizeof(value), &got);
    return send_reply(sock, rc, value, rc ? 0 : got, -1);
}

static bool do_store_watch(int sock)
{
    int fd = -1, rc = store_watch(sock, &fd);

    return send_reply(sock, rc, NULL, 0, rc ? -1 : fd);
}

/* Answer one request; false when the connection is over. */
static bool serve_request(int sock, struct held *held)
{
    struct xs_msg req;
    void *payload = NULL;
    bool ok;

    if ( !read_full(sock, &req, sizeof(req)) || req.len > XS_MAX_PAYLOAD )
        return false;
    if ( req.len && (!(payload = malloc(req.len)) ||
                     !read_full(sock, payload, req.len)) )
    {
        free(payload);
        return false;
    }
    /* The injected fault: a host that drops dom0 in the middle of a call. */
    if ( __atomic_add_fetch(&requests, 1, __ATOMIC_RELAXED) == close_after )
    {
        free(payload);
        return false;
    }

    switch ( req.op_or_rc )
    {
    case XS_HELLO:     ok = do_hello(sock); break;
    case XS_TBUF_OP:   ok = do_tbuf_op(sock, payload, req.len); break;
    case XS_PHYSINFO:  ok = do_physinfo(sock); break;
    case XS_MAP:       ok = do_map(sock, held, payload, req.len); break;
    case XS_UNMAP:     ok = do_unmap(sock, held, payload, req.len); break;
    case XS_BIND_VIRQ: ok = do_bind_virq(sock, payload, req.len); break;
    case XS_UNBIND:    ok = do_unbind(sock, payload, req.len); break;
    case XS_STORE_GET: ok = do_store_get(sock, payload, req.len, 0); break;
    case XS_STORE_LIST: ok = do_store_get(sock, payload, req.len, 1); break;
    case XS_STORE_WATCH: ok = do_store_watch(sock); break;
    default:           ok = send_reply(sock, -ENOSYS, NULL, 0, -1); break;
    }
    free(payload);

    return ok;
}

/*
 * The socket identifies the connection to bind_virq(): it is unbound
 * before it is closed, so its number is not yet anyone else's.
 */
static void *serve_connection(void *arg)
{
    int sock = (int)(intptr_t)arg;
    struct held held = { 0 };

    while ( serve_request(sock, &held) )
        ;
    release_all(&held);
    unbind_virq(sock);
    store_forget(sock);
    close(sock);

    return NULL;
}

/* Accept connections on @arg's listening socket until stop_fd fires. */
static void *accept_connections(void *arg)
{
    int lfd = (int)(intptr_t)arg;
    struct pollfd fds[2] = {
        { .fd = lfd, .events = POLLIN },
        { .fd = stop_fd, .events = POLLIN },
    };

    for ( ; ; )
    {
        pthread_t thread;
        int sock;

        if ( poll(fds, 2, -1) < 0 )
        {
            if ( errno == EINTR )
                continue;
            return NULL;
        }
        if ( fds[1].revents )
            return NULL;
        sock = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if ( sock < 0 )
            continue;           /* EINTR, ECONNABORTED: the next one */
        if ( pthread_create(&thread, NULL, serve_connection,
                            (void *)(intptr_t)sock) )
        {
            close(sock);
            continue;
        }
        pthread_detach(thread);
    }
}

int server_start(const char *path)
{
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    mode_t umask_was;
    int rc;

    if ( strlen(path) >= sizeof(addr.sun_path) )
    {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(addr.sun_path, path);

    listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if ( listen_fd < 0 )
        return -1;
    umask_was = umask(0177);              /* the socket is created 0600 */
    rc = bind(listen_fd, (struct sockaddr *)&addr, sizeof(addr));
    umask(umask_was);
    if ( rc || listen(listen_fd, 16) )
        return -1;
    strcpy(socket_path, path);

    stop_fd = eventfd(0, EFD_CLOEXEC);
    if ( stop_fd < 0 )
        return -1;
    host_set_virq_handler(deliver_virq);
    errno = pthread_create(&acceptor, NULL, accept_connections,
                           (void *)(intptr_t)listen_fd);
    return errno ? -1 : 0;
}

void server_stock_tbuf_ops(void)
{
    stock_tbuf_ops = true;
}

void server_close_after(unsigned long n)
{
    close_after = n;
}

void server_stop(void)
{
    uint64_t one = 1;

    if ( stop_fd < 0 )
        return;
    (void)!write(stop_fd, &one, sizeof(one));
    pthread_join(acceptor, NULL);
    close(listen_fd);
    close(stop_fd);
    stop_fd = listen_fd = -1;
    unlink(socket_path);
}
