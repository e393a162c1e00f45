/*
 * xentrace's control channel (--control PATH): a UNIX socket on which
 * xentrace-ctl steers a running capture.  This is the socket and the
 * protocol; xentrace.c carries the requests out.
 *
 * The protocol, one exchange a connection (SOCK_SEQPACKET): the client
 * sends one message, a command and its argument separated by a blank,
 *
 *   evt-mask MASK    the event mask, as -e takes it ("sched,hvm", 0x...)
 *   cpu-mask CPUS    the CPU mask, as -c takes it ("0-3", "all")
 *   domains DOMS     the domain filter, as -d takes it ("0,3-5"), or
 *                    "all" for none
 *   event EVENT=S    switch an event on, off, or to the event mask (S:
 *                    on, off, mask), as --event takes it
 *   flush            write what is held now
 *   stop             end the capture, as a signal does
 *   status           the masks in force, and the records so far
 *
 * and gets one message back: "ok" and what is now so, or "error: " and
 * why.  Only root, or the user xentrace runs as, is answered: the socket
 * is made mode 0600, and each peer's credentials (SO_PEERCRED) are
 * checked as well.
 */
#ifndef CONTROL_H
#define CONTROL_H

#include <stdbool.h>

#define CONTROL_MESSAGE_MAX 512     /* bytes of a request or a reply */
/* Where xentrace-ctl looks without -s: name it to xentrace --control. */
#define CONTROL_DEFAULT_PATH "/run/xentrace.ctl"

enum control_op {
    CONTROL_EVT_MASK,
    CONTROL_CPU_MASK,
    CONTROL_DOMAINS,
    CONTROL_EVENT,
    CONTROL_FLUSH,
    CONTROL_STOP,
    CONTROL_STATUS,
};

struct control_request {
    enum control_op op;
    char arg[CONTROL_MESSAGE_MAX];  /* the mask; "" for the others */
    int fd;                         /* the client, until the reply */
};

struct control;

/*
 * Listen on @path, mode 0600.  A socket left there by a capture that is
 * gone is replaced; one that a running capture answers on is not.  Exits
 * through err(3) with one line if it cannot.
 */
struct control *control_open(const char *path);

/* Stop listening, and remove the socket. */
void control_close(struct control *ctl);

/*
 * Between passes, without waiting: the next request that came, true; its
 * client waits for control_reply().  A malformed request, or one from a
 * user who may not steer, is answered here and not given.
 */
bool control_next(struct control *ctl, struct control_request *req);

/* Answer @req (printf's @fmt) and hang up. */
void control_reply(struct control_request *req, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* CONTROL_H */
