/*
 * Drop-in libxenforeignmemory.so.1 for xen-sim, with Debian's SONAME and
 * symbol versions (libxenforeignmemory.map).  It maps the frames xen-sim
 * allows from its machine memory file (foreign.h) where the real library
 * uses privcmd.  The resource calls (map_resource, unmap_resource,
 * resource_size) are not provided: xen-sim has no resources to map.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <xenforeignmemory.h>

#include "client.h"
#include "foreign.h"

struct xenforeignmemory_handle {
    struct xs_conn conn;
    int memfd;                  /* machine memory, from XS_HELLO */
    domid_t restricted_to;      /* DOMID_INVALID: not restricted */
};

XS_EXPORT
xenforeignmemory_handle *xenforeignmemory_open(struct xentoollog_logger *logger,
                                               unsigned open_flags)
{
    xenforeignmemory_handle *fmem = malloc(sizeof(*fmem));

    (void)open_flags;           /* none are defined */
    if ( !fmem )
        return NULL;
    fmem->restricted_to = DOMID_INVALID;

    if ( xs_connect(&fmem->conn, logger, "xenforeignmemory") )
        goto fail;
    fmem->memfd = xs_hello(&fmem->conn);
    if ( fmem->memfd < 0 )
    {
        xs_log_error(logger, "xenforeignmemory", errno,
                     "xen-sim did not answer XS_HELLO");
        xs_disconnect(&fmem->conn);
        goto fail;
    }

    return fmem;

 fail:
    free(fmem);
    return NULL;
}

XS_EXPORT
int xenforeignmemory_close(xenforeignmemory_handle *fmem)
{
    if ( !fmem )
        return 0;
    close(fmem->memfd);
    xs_disconnect(&fmem->conn);
    free(fmem);

    return 0;
}

/* As privcmd: a restricted handle maps only its domain's memory. */
XS_EXPORT
void *xenforeignmemory_map2(xenforeignmemory_handle *fmem, uint32_t dom,
                            void *addr, int prot, int flags, size_t pages,
                            const xen_pfn_t arr[], int err[])
{
    if ( fmem->restricted_to != DOMID_INVALID && dom != fmem->restricted_to )
    {
        errno = EPERM;
        return NULL;
    }

    return xs_map_frames(&fmem->conn, fmem->memfd, dom, addr, prot, flags,
                         pages, arr, err);
}

XS_EXPORT
void *xenforeignmemory_map(xenforeignmemory_handle *fmem, uint32_t dom,
                           int prot, size_t pages, const xen_pfn_t arr[],
                           int err[])
{
    return xenforeignmemory_map2(fmem, dom, NULL, prot, 0, pages, arr, err);
}

XS_EXPORT
int xenforeignmemory_unmap(xenforeignmemory_handle *fmem, void *addr,
                           size_t pages)
{
    return xs_unmap_frames(&fmem->conn, addr, pages);
}

/* As privcmd's IOCTL_PRIVCMD_RESTRICT: once, or again to the same domain. */
XS_EXPORT
int xenforeignmemory_restrict(xenforeignmemory_handle *fmem, domid_t domid)
{
    if ( fmem->restricted_to != DOMID_INVALID && domid != fmem->restricted_to )
    {
        errno = EINVAL;
        return -1;
    }
    fmem->restricted_to = domid;

    return 0;
}
