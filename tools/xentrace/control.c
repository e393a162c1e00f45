/*
 * xentrace's control channel (control.h).
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "control.h"

/* How long a client that connected may take to send its request. */
#define REQUEST_WAIT_MS 100

struct control {
    int fd;
    struct sockaddr_un addr;
};

static const struct {
    const char *name;
    enum control_op op;
    bool arg;
} commands[] = {
    { "evt-mask", CONTROL_EVT_MASK, true },
    { "cpu-mask", CONTROL_CPU_MASK, true },
    { "domains",  CONTROL_DOMAINS,  true },
    { "event",    CONTROL_EVENT,    true },
    { "flush",    CONTROL_FLUSH,    false },
    { "stop",     CONTROL_STOP,     false },
    { "status",   CONTROL_STATUS,   false },
};

/* Whether a capture answers at @addr: the socket there is not stale. */
static bool answered(const struct sockaddr_un *addr)
{
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    bool live = fd >= 0 &&
                !connect(fd, (const struct sockaddr *)addr, sizeof(*addr));

    if ( fd >= 0 )
        close(fd);
    return live;
}

struct control *control_open(const char *path)
{
    struct control *ctl = calloc(1, sizeof(*ctl));
    mode_t old;
    int rc;

    if ( !ctl )
        err(1, "memory");
    ctl->addr.sun_family = AF_UNIX;
    if ( strlen(path) >= sizeof(ctl->addr.sun_path) )
        errx(1, "--control %s: longer than a socket's path may be (%zu)",
             path, sizeof(ctl->addr.sun_path) - 1);
    strcpy(ctl->addr.sun_path, path);
    ctl->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC,
                     0);
    if ( ctl->fd < 0 )
        err(1, "--control %s", path);
    if ( answered(&ctl->addr) )
        errx(1, "--control %s: another capture answers there", path);
    unlink(path);                       /* a stale socket, or nothing */
    old = umask(0077);
    rc = bind(ctl->fd, (struct sockaddr *)&ctl->addr, sizeof(ctl->addr));
    umask(old);
    if ( rc || listen(ctl->fd, 8) )
        err(1, "--control %s", path);
    return ctl;
}

void control_close(struct control *ctl)
{
    if ( !ctl )
        return;
    close(ctl->fd);
    unlink(ctl->addr.sun_path);
    free(ctl);
}

void control_reply(struct control_request *req, const char *fmt, ...)
{
    char text[CONTROL_MESSAGE_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    /* A client that went away misses its answer: nothing more. */
    (void)!send(req->fd, text, strlen(text), MSG_NOSIGNAL | MSG_DONTWAIT);
    close(req->fd);
    req->fd = -1;
}

/* Root, or the user the capture runs as. */
static bool may_steer(int fd)
{
    struct ucred cred;
    socklen_t len = sizeof(cred);

    return !getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) &&
           (cred.uid == 0 || cred.uid == geteuid());
}

/* @text, "COMMAND[ ARG]", into @req: false with a reply if it is none. */
static bool parse(char *text, struct control_request *req)
{
    char *arg = strchr(text, ' ');
    size_t i;

    if ( arg )
        *arg++ = '\0';
    for ( i = 0; i < sizeof(commands) / sizeof(commands[0]); i++ )
    {
        if ( strcmp(text, commands[i].name) )
            continue;
        if ( commands[i].arg != (arg && *arg) )
        {
            control_reply(req, "error: %s %s", text, commands[i].arg ?
                          "needs an argument" : "takes no argument");
            return false;
        }
        req->op = commands[i].op;
        snprintf(req->arg, sizeof(req->arg), "%s", arg ? arg : "");
        return true;
    }
    control_reply(req, "error: %s: no such command (evt-mask, cpu-mask, "
                  "domains, event, flush, stop, status)", text);
    return false;
}

bool control_next(struct control *ctl, struct control_request *req)
{
    char text[CONTROL_MESSAGE_MAX];
    struct pollfd p = { .events = POLLIN };
    ssize_t n;

    while ( (req->fd = accept4(ctl->fd, NULL, NULL, SOCK_CLOEXEC)) >= 0 )
    {
        /* Read first: a socket closed on a request unread resets, and
           the client would not get its answer. */
        p.fd = req->fd;
        n = poll(&p, 1, REQUEST_WAIT_MS) == 1 ?
            recv(req->fd, text, sizeof(text) - 1, MSG_DONTWAIT) : -1;
        if ( n <= 0 )
            control_reply(req, "error: no request within %d ms",
                          REQUEST_WAIT_MS);
        else if ( !may_steer(req->fd) )
            control_reply(req, "error: only root or the capture's user may "
                          "steer it");
        else if ( (text[n] = '\0', parse(text, req)) )
            return true;
    }
    return false;
}
