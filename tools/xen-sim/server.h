/*
 * xen-sim's control plane: the UNIX socket that dom0's Xen libraries talk
 * to (see protocol.h).
 */
#ifndef XEN_SIM_SERVER_H
#define XEN_SIM_SERVER_H

/*
 * Listen on @path (mode 0600) and serve each connection on a thread of its
 * own, until the process exits.  Returns 0, or -1 with errno set.
 */
int server_start(const char *path);

/*
 * Fault injection: close the connection that sends the @n'th request
 * (counting every connection's, from 1) without answering it.  0: never.
 * Call before server_start().
 */
void server_close_after(unsigned long n);

/* Answer xentrace-ng's own TBUFOP commands -EINVAL, as Xen without them. */
void server_stock_tbuf_ops(void);

/* Stop listening and remove the socket. */
void server_stop(void);

#endif /* XEN_SIM_SERVER_H */
