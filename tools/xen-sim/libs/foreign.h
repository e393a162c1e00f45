/*
 * Foreign mappings of xen-sim's machine memory, shared by the drop-in
 * libxenforeignmemory (xenforeignmemory_map) and libxenctrl (the
 * xc_map_foreign_* compat calls, which libxenctrl 4.17 implements on top of
 * xenforeignmemory_map).
 */
#ifndef XEN_SIM_FOREIGN_H
#define XEN_SIM_FOREIGN_H

#include <stddef.h>
#include <stdint.h>

#include <xen/xen.h>

#include "client.h"

/*
 * Map the frames @arr[@num] of domain @dom into one virtually contiguous
 * range, as Linux privcmd's IOCTL_PRIVCMD_MMAPBATCH_V2 does for
 * libxenforeignmemory: @addr, @prot and @flags as for mmap(2) (MAP_SHARED
 * and MAP_PRIVATE in @flags are ignored: the frames are always shared).
 *
 * Each frame is first offered to xen-sim (XS_MAP), which answers per frame
 * as Xen would; only DOMID_XEN has frames to map, any other domain gets
 * -ESRCH for each, as from Xen for a domain that does not exist.
 *
 * With @err, per-frame results go there as privcmd reports them, 0 or a
 * negative errno, and the allowed frames are mapped even if others were
 * refused (those pages stay inaccessible: touching one raises SIGSEGV
 * where Linux raises SIGBUS).  Without @err, one refused frame fails the
 * whole call with errno set to the first refusal, and nothing is mapped.
 *
 * Returns the mapping, or NULL with errno set.  @memfd is the machine
 * memory file from XS_HELLO on @c.
 */
void *xs_map_frames(struct xs_conn *c, int memfd, uint32_t dom, void *addr,
                    int prot, int flags, size_t num, const xen_pfn_t arr[],
                    int err[]);

/*
 * Unmap what xs_map_frames() mapped on @c, and give its frames back to
 * xen-sim (XS_UNMAP).  Returns munmap(2)'s result.
 */
int xs_unmap_frames(struct xs_conn *c, void *addr, size_t num);

#endif /* XEN_SIM_FOREIGN_H */
