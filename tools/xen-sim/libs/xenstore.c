/*
 * Drop-in libxenstore.so.4 for xen-sim, with Debian's SONAME and symbol
 * version (libxenstore.map): reading the nodes xen-sim's store.c holds,
 * and watching them; xs_daemon_socket() is xen-sim's socket.  Writing, transactions, permissions and the daemon
 * control calls are left out: no dom0 program run against xen-sim needs
 * them.  Reads ignore the transaction, as a read outside one does.
 *
 * Watches.  xenstored fires a watch once when it is set, then on every
 * change under its path; xs_fileno() is readable while events wait.
 * xen-sim signals one eventfd per connection on every change to its
 * store (XS_STORE_WATCH): then every watch of the handle fires, as each
 * of them could be under the change, and the caller reads again.
 * xs_fileno() is that eventfd, which xs_watch() signals too, for its
 * first firing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xenstore.h>

#include "client.h"

#define VALUE_MAX 4096          /* the longest value xen-sim sends */

struct watch {
    char *path, *token;
    bool due;                   /* fired, not yet read */
};

struct xs_handle {
    struct xs_conn conn;
    int fd;                     /* XS_STORE_WATCH's eventfd; -1: none yet */
    struct watch *watches;
    unsigned int nr_watches;
};

/* xenstored's socket is xen-sim's: where a dom0 program finds it up. */
XS_EXPORT
const char *xs_daemon_socket(void)
{
    return getenv(XS_SOCKET_ENV);
}

XS_EXPORT
struct xs_handle *xs_open(unsigned long flags)
{
    struct xs_handle *h = calloc(1, sizeof(*h));

    (void)flags;
    if ( !h )
        return NULL;
    h->fd = -1;
    if ( xs_connect(&h->conn, NULL, NULL) )
    {
        int saved_errno = errno;

        free(h);
        errno = saved_errno;
        return NULL;
    }
    return h;
}

XS_EXPORT
void xs_close(struct xs_handle *h)
{
    unsigned int i;

    if ( !h )
        return;
    xs_disconnect(&h->conn);
    if ( h->fd >= 0 )
        close(h->fd);
    for ( i = 0; i < h->nr_watches; i++ )
    {
        free(h->watches[i].path);
        free(h->watches[i].token);
    }
    free(h->watches);
    free(h);
}

/* A node's value or children: a malloc'd copy, NUL-ended, its length. */
static char *get(struct xs_handle *h, enum xs_op op, const char *path,
                 size_t *len)
{
    struct iovec iov = { .iov_base = (void *)path, .iov_len = strlen(path) };
    char *value = malloc(VALUE_MAX + 1);
    int rc;

    if ( !value )
        return NULL;
    rc = xs_call(&h->conn, op, &iov, 1, value, VALUE_MAX, len, NULL);
    if ( rc )
    {
        free(value);
        errno = -rc;
        return NULL;
    }
    value[*len] = '\0';
    return value;
}

XS_EXPORT
void *xs_read(struct xs_handle *h, xs_transaction_t t, const char *path,
              unsigned int *len)
{
    size_t got;
    char *value = get(h, XS_STORE_GET, path, &got);

    (void)t;
    if ( value && len )
        *len = got;
    return value;
}

/*
 * As the real one: one allocation, the array of pointers, then the names
 * they point at; the caller frees it.
 */
XS_EXPORT
char **xs_directory(struct xs_handle *h, xs_transaction_t t,
                    const char *path, unsigned int *num)
{
    size_t len, i, n = 0;
    char *names = get(h, XS_STORE_LIST, path, &len), **array, *p;

    (void)t;
    if ( !names )
        return NULL;
    for ( i = 0; len && i <= len; i++ )
        n += names[i] == '\0';
    array = malloc(n * sizeof(*array) + len + 1);
    if ( array )
    {
        p = memcpy(array + n, names, len + 1);
        for ( i = 0; i < n; i++, p += strlen(p) + 1 )
            array[i] = p;
        *num = n;
    }
    free(names);
    return array;
}

/* The eventfd of the handle's watches: asked of xen-sim the first time. */
static int watch_fd(struct xs_handle *h)
{
    size_t len;
    int rc;

    if ( h->fd >= 0 )
        return h->fd;
    rc = xs_call(&h->conn, XS_STORE_WATCH, NULL, 0, NULL, 0, &len, &h->fd);
    if ( rc || h->fd < 0 )
    {
        errno = rc ? -rc : EPROTO;
        return -1;
    }
    return h->fd;
}

XS_EXPORT
int xs_fileno(struct xs_handle *h)
{
    return watch_fd(h);
}

XS_EXPORT
bool xs_watch(struct xs_handle *h, const char *path, const char *token)
{
    uint64_t one = 1;
    struct watch *w;

    if ( watch_fd(h) < 0 )
        return false;
    w = realloc(h->watches, (h->nr_watches + 1) * sizeof(*w));
    if ( !w )
        return false;
    h->watches = w;
    w = &w[h->nr_watches];
    w->path = strdup(path);
    w->token = strdup(token);
    if ( !w->path || !w->token )
    {
        free(w->path);
        free(w->token);
        errno = ENOMEM;
        return false;
    }
    w->due = true;
    h->nr_watches++;
    return write(h->fd, &one, sizeof(one)) == sizeof(one);
}

XS_EXPORT
bool xs_unwatch(struct xs_handle *h, const char *path, const char *token)
{
    unsigned int i;

    for ( i = 0; i < h->nr_watches; i++ )
        if ( !strcmp(h->watches[i].path, path) &&
             !strcmp(h->watches[i].token, token) )
        {
            free(h->watches[i].path);
            free(h->watches[i].token);
            h->watches[i] = h->watches[--h->nr_watches];
            return true;
        }
    errno = ENOENT;
    return false;
}

/* {path, token} of a due watch, as one allocation; NULL with errno. */
static char **next_event(struct xs_handle *h)
{
    uint64_t fired;
    unsigned int i;

    if ( watch_fd(h) < 0 )
        return NULL;
    if ( read(h->fd, &fired, sizeof(fired)) == sizeof(fired) )
        for ( i = 0; i < h->nr_watches; i++ )
            h->watches[i].due = true;
    for ( i = 0; i < h->nr_watches; i++ )
        if ( h->watches[i].due )
        {
            size_t lp = strlen(h->watches[i].path) + 1,
                   lt = strlen(h->watches[i].token) + 1;
            char **ev = malloc(2 * sizeof(*ev) + lp + lt);

            if ( !ev )
                return NULL;
            ev[XS_WATCH_PATH] = memcpy((char *)(ev + 2), h->watches[i].path,
                                       lp);
            ev[XS_WATCH_TOKEN] = memcpy((char *)(ev + 2) + lp,
                                        h->watches[i].token, lt);
            h->watches[i].due = false;
            return ev;
        }
    errno = EAGAIN;
    return NULL;
}

XS_EXPORT
char **xs_check_watch(struct xs_handle *h)
{
    return next_event(h);
}

XS_EXPORT
char **xs_read_watch(struct xs_handle *h, unsigned int *num)
{
    char **ev;

    while ( !(ev = next_event(h)) && errno == EAGAIN )
    {
        struct pollfd p = { .fd = h->fd, .events = POLLIN };

        if ( poll(&p, 1, -1) < 0 && errno != EINTR )
            return NULL;
    }
    if ( ev && num )
        *num = 2;
    return ev;
}
