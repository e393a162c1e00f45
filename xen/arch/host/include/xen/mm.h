/*
 * Host environment: machine memory and the xenheap.  Machine memory is one
 * shared memory file; MFN n is the page at byte n * PAGE_SIZE of it, mapped
 * at host_machine + n * PAGE_SIZE, so the directmap is a single mapping.
 * Pages shared with dom0 are marked in the frame table, which the embedder
 * consults before it lets dom0 map a frame.
 */
#ifndef __HOST_XEN_MM_H__
#define __HOST_XEN_MM_H__

#include <xen/config.h>
#include <xen/types.h>
#include <host.h>

#define _MEMF_bits      24
#define MEMF_bits(n)    ((n) << _MEMF_bits)

enum XENSHARE_flags {
    SHARE_rw,
    SHARE_ro,
};

/*
 * Frame table entry: how dom0 may map the frame, and its references, as
 * Xen counts them: a xenheap page shared with dom0 holds one for the
 * sharing (PGC_allocated), and each mapping of it one more.
 */
struct page_info {
    unsigned char shared;     /* HOST_SHARED_* of host.h */
    unsigned long count_info;
};

#define PGC_xen_heap     (1UL << 63)
#define _PGC_allocated   62
#define PGC_allocated    (1UL << _PGC_allocated)
#define PGC_count_mask   ((1UL << 32) - 1)

/* Whom a page belongs to: only whether dom0 may still map it. */
struct domain;
extern struct domain *const dom_xen;
void page_set_owner(struct page_info *page, struct domain *d);

/* Xen's reference counting, on count_info (mm.c). */
void put_page_alloc_ref(struct page_info *page);
bool get_page(struct page_info *page, const struct domain *d);

typedef struct { unsigned long mfn; } mfn_t;
static inline mfn_t _mfn(unsigned long m) { return (mfn_t){ m }; }
static inline unsigned long mfn_x(mfn_t m) { return m.mfn; }

extern unsigned char *host_machine;
extern struct page_info *frame_table;

#define virt_to_mfn(va) \
    ((unsigned long)((const unsigned char *)(va) - host_machine) >> PAGE_SHIFT)
#define mfn_to_virt(mfn) \
    ((void *)(host_machine + ((unsigned long)(mfn) << PAGE_SHIFT)))
#define mfn_to_page(mfn)  (frame_table + mfn_x(mfn))
#define virt_to_page(va)  (frame_table + virt_to_mfn(va))
#define clear_page(va)    memset(va, 0, PAGE_SIZE)

void *alloc_xenheap_pages(unsigned int order, unsigned int memflags);
void free_xenheap_pages(void *v, unsigned int order);

void share_xen_page_with_privileged_guests(struct page_info *page,
                                           enum XENSHARE_flags flags);

static inline unsigned int get_order_from_pages(unsigned long nr_pages)
{
    unsigned int order = 0;

    while ( (1UL << order) < nr_pages )
        order++;
    return order;
}

#endif /* __HOST_XEN_MM_H__ */
