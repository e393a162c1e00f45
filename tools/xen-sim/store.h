/*
 * xen-sim's xenstore: the nodes of each domain that dom0's libxenstore
 * reads (libs/xenstore.c, over protocol.h's XS_STORE_* requests), and the
 * watches on them.
 *
 * For each of the workload's domains N (workload.h) it holds
 *
 *   /local/domain/N/name    the domain's name
 *   /local/domain/N/vm      /vm/UUID (workload.h's wl_domain())
 *   /local/domain/N/domid   N
 *
 * as xl and xen-init-dom0 write them.  A change (store_rename()) signals
 * every connection's watch eventfd, as xenstored fires the watches on
 * /local/domain.
 */
#ifndef XEN_SIM_STORE_H
#define XEN_SIM_STORE_H

#include <stddef.h>

void store_init(void);

/*
 * The value of node @path, or its children's names each ended by a NUL
 * (@list): its length at *@len, at most @size bytes at @buf.  0, or
 * -ENOENT (no such node) or -E2BIG.
 */
int store_get(const char *path, int list, char *buf, size_t size,
              size_t *len);

/* An eventfd for connection @sock's watches, signalled at each change. */
int store_watch(int sock, int *fd);
void store_forget(int sock);

/* Rename domain @domid (-ENOENT if there is none) and fire the watches. */
int store_rename(unsigned int domid, const char *name);

#endif /* XEN_SIM_STORE_H */
