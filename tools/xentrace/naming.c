/*
 * xentrace: the domains' names and UUIDs, from xenstore.
 *
 * xenstored keeps what the toolstack says of each domain under
 * /local/domain/N: its name in "name", and in "vm" the path /vm/UUID.  We
 * list them at start, for the first batch, then watch /local/domain (a
 * watch fires on a change anywhere under its path) and @introduceDomain:
 * a domain created (xl create) or renamed (xl rename) makes a watch fire,
 * and the next naming_poll() lists the domains again and keeps those
 * whose name or UUID is new, for the capture to tell in the stream.
 *
 * Only a xenstored that answers on its socket is asked: the other way
 * in, the kernel's xenbus device, waits for ever for a xenstored that is
 * not running (dom0 before its toolstack starts), and tracing must not
 * hang on naming.  xs_open() cannot be told so: Xen's libxenstore ignores
 * XS_OPEN_SOCKETONLY since 4.15, and falls back on the device.
 */
#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <xenstore.h>

#include "array.h"
#include "naming.h"

#define WATCH_TOKEN "xentrace"

struct naming {
    struct xs_handle *xs;       /* NULL once xenstored went away */
    struct xt_domain *known;    /* as last listed, by ascending domid */
    size_t nr_known, cap_known;
    struct xt_domain *due;      /* changes not told yet, oldest first */
    size_t first_due, nr_due, cap_due;
};

/* The UUID at the end of @vm, "/vm/UUID"; false if it does not parse. */
static bool parse_uuid(const char *vm, uint8_t uuid[16])
{
    static const char hex[] = "0123456789abcdef";
    const char *p = strrchr(vm, '/'), *digit;
    unsigned int i = 0;

    for ( p = p ? p + 1 : vm; *p && i < 32; p++ )
    {
        if ( *p == '-' )
            continue;
        if ( !(digit = strchr(hex, tolower((unsigned char)*p))) || !*digit )
            return false;
        if ( i % 2 )
            uuid[i / 2] |= digit - hex;
        else
            uuid[i / 2] = (digit - hex) << 4;
        i++;
    }
    return i == 32 && !*p;
}

/* Domain @domid's name and UUID; false if xenstore has no name for it. */
static bool read_domain(struct xs_handle *xs, unsigned int domid,
                        struct xt_domain *d)
{
    char path[64];
    char *name, *vm;
    unsigned int len;

    snprintf(path, sizeof(path), "/local/domain/%u/name", domid);
    if ( !(name = xs_read(xs, XBT_NULL, path, &len)) )
        return false;
    *d = (struct xt_domain){ .domid = domid };
    memcpy(d->name, name, len < XT_DOMAIN_NAME_MAX ? len : XT_DOMAIN_NAME_MAX);
    free(name);
    snprintf(path, sizeof(path), "/local/domain/%u/vm", domid);
    if ( (vm = xs_read(xs, XBT_NULL, path, &len)) && !parse_uuid(vm, d->uuid) )
        memset(d->uuid, 0, sizeof(d->uuid));
    free(vm);
    return true;
}

static int by_domid(const void *a, const void *b)
{
    const struct xt_domain *x = a, *y = b;

    return (x->domid > y->domid) - (x->domid < y->domid);
}

static const struct xt_domain *find(const struct naming *nm, uint32_t domid)
{
    struct xt_domain key = { .domid = domid };

    return bsearch(&key, nm->known, nm->nr_known, sizeof(key), by_domid);
}

static void keep_due(struct naming *nm, const struct xt_domain *d)
{
    if ( array_fit(&nm->due, &nm->cap_due, nm->nr_due + 1, sizeof(*d)) )
        err(1, "memory");
    nm->due[nm->nr_due++] = *d;
}

/*
 * List the domains xenstore names now, keeping as due those that are new
 * or changed (@keep), in place of those known.  False if xenstored did
 * not answer.
 */
static bool list_domains(struct naming *nm, bool keep)
{
    struct xt_domain *now = NULL;
    size_t nr = 0, cap = 0;
    unsigned int num, i, domid;
    char **ids = xs_directory(nm->xs, XBT_NULL, "/local/domain", &num);

    if ( !ids )
        return errno == ENOENT;         /* no domain is listed yet */
    for ( i = 0; i < num; i++ )
    {
        char end;

        if ( sscanf(ids[i], "%u%c", &domid, &end) != 1 || domid > 0xffff )
            continue;
        if ( array_fit(&now, &cap, nr + 1, sizeof(*now)) )
            err(1, "memory");
        if ( read_domain(nm->xs, domid, &now[nr]) )
            nr++;
    }
    free(ids);
    qsort(now, nr, sizeof(*now), by_domid);
    for ( i = 0; keep && i < nr; i++ )
    {
        const struct xt_domain *was = find(nm, now[i].domid);

        if ( !was || strcmp(was->name, now[i].name) ||
             memcmp(was->uuid, now[i].uuid, sizeof(was->uuid)) )
            keep_due(nm, &now[i]);
    }
    free(nm->known);
    nm->known = now;
    nm->nr_known = nr;
    nm->cap_known = cap;
    return true;
}

static void lost_xenstored(struct naming *nm, const char *what)
{
    warn("xenstore: %s: domains created or renamed from now on are not "
         "named in the file", what);
    xs_close(nm->xs);
    nm->xs = NULL;
}

/* Whether a xenstored accepts connections on its socket. */
static bool xenstored_answers(void)
{
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    const char *path = xs_daemon_socket();
    bool answers;
    int fd;

    if ( !path || strlen(path) >= sizeof(addr.sun_path) )
        return false;
    strcpy(addr.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    answers = fd >= 0 &&
              !connect(fd, (struct sockaddr *)&addr, sizeof(addr));
    if ( fd >= 0 )
        close(fd);
    return answers;
}

struct naming *naming_open(void)
{
    struct naming *nm;
    struct xs_handle *xs;

    if ( !xenstored_answers() || !(xs = xs_open(0)) )
        return NULL;
    if ( !(nm = calloc(1, sizeof(*nm))) )
        err(1, "memory");
    nm->xs = xs;
    if ( !list_domains(nm, false) ||
         !xs_watch(xs, "/local/domain", WATCH_TOKEN) ||
         !xs_watch(xs, "@introduceDomain", WATCH_TOKEN) )
        lost_xenstored(nm, "listing the domains");
    return nm;
}

void naming_close(struct naming *nm)
{
    if ( !nm )
        return;
    if ( nm->xs )
        xs_close(nm->xs);
    free(nm->known);
    free(nm->due);
    free(nm);
}

const struct xt_domain *naming_domains(const struct naming *nm,
                                       unsigned int *n)
{
    *n = nm->nr_known;
    return nm->known;
}

void naming_poll(struct naming *nm)
{
    struct pollfd p = { .events = POLLIN };
    bool fired = false;
    char **event;

    if ( !nm->xs )
        return;
    p.fd = xs_fileno(nm->xs);
    if ( p.fd < 0 || poll(&p, 1, 0) <= 0 )
        return;
    /* Every event that came: one listing answers them all. */
    while ( (event = xs_check_watch(nm->xs)) )
    {
        free(event);
        fired = true;
    }
    if ( errno != EAGAIN )
        lost_xenstored(nm, "reading its watch");
    else if ( fired && !list_domains(nm, true) )
        lost_xenstored(nm, "listing the domains");
}

const struct xt_domain *naming_next(const struct naming *nm)
{
    return nm->first_due < nm->nr_due ? &nm->due[nm->first_due] : NULL;
}

void naming_told(struct naming *nm)
{
    if ( ++nm->first_due == nm->nr_due )
        nm->first_due = nm->nr_due = 0;
}
