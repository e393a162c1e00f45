/*
 * Host environment: machine memory and the xenheap.
 *
 * Machine memory is a memfd mapped once, so MFN n is the page at offset
 * n * PAGE_SIZE of both the file and the mapping (the "directmap").  The
 * file is sparse: a page costs memory only once it is written.  The heap
 * is a bitmap of used pages; allocations are rare (boot, set_size, CPU
 * hotplug), so a first-fit scan is enough.  Like Xen's, it hands out the
 * highest pages first, so successive pages of a buffer are not adjacent
 * frames and consumers must not assume they are.  MFN 0 is never handed
 * out: Xen's interfaces use it to mean "none".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xen/lib.h>
#include <xen/mm.h>
#include <xen/sched.h>
#include "host_private.h"

unsigned char *host_machine;
struct page_info *frame_table;

static int machine_fd = -1;
static unsigned long machine_pages;
static unsigned long *page_used;       /* bitmap, one bit per MFN */
static unsigned long top_free;         /* no free page at or above this */
static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;

#define LONG_BITS (8 * sizeof(unsigned long))

static bool test_used(unsigned long mfn)
{
    return page_used[mfn / LONG_BITS] & (1UL << (mfn % LONG_BITS));
}

static void set_used(unsigned long mfn, unsigned long n, bool used)
{
    for ( ; n--; mfn++ )
        if ( used )
            page_used[mfn / LONG_BITS] |= 1UL << (mfn % LONG_BITS);
        else
            page_used[mfn / LONG_BITS] &= ~(1UL << (mfn % LONG_BITS));
}

int host_mm_init(unsigned long pages)
{
    machine_fd = memfd_create("xen-machine-memory", MFD_CLOEXEC);
    if ( machine_fd < 0 )
        return -errno;
    if ( ftruncate(machine_fd, pages * PAGE_SIZE) )
        return -errno;
    host_machine = mmap(NULL, pages * PAGE_SIZE, PROT_READ | PROT_WRITE,
                        MAP_SHARED, machine_fd, 0);
    if ( host_machine == MAP_FAILED )
        return -errno;

    frame_table = calloc(pages, sizeof(*frame_table));
    page_used = calloc(DIV_ROUND_UP(pages, LONG_BITS), sizeof(long));
    if ( !frame_table || !page_used )
        return -ENOMEM;

    machine_pages = pages;
    set_used(0, 1, true);
    top_free = pages;
    return 0;
}

/* The highest MFN (exclusive) that memflags' MEMF_bits() allows. */
static unsigned long mfn_limit(unsigned int memflags)
{
    unsigned int bits = (memflags >> _MEMF_bits) & 0xff;

    if ( !bits || bits - PAGE_SHIFT >= LONG_BITS ||
         (1UL << (bits - PAGE_SHIFT)) > machine_pages )
        return machine_pages;
    return 1UL << (bits - PAGE_SHIFT);
}

static bool range_free(unsigned long mfn, unsigned long n)
{
    while ( n-- )
        if ( test_used(mfn++) )
            return false;
    return true;
}

void *alloc_xenheap_pages(unsigned int order, unsigned int memflags)
{
    unsigned long n = 1UL << order, end, mfn, i;
    void *va = NULL;

    pthread_mutex_lock(&heap_lock);
    end = min(mfn_limit(memflags), top_free);
    for ( mfn = end & ~(n - 1); mfn >= n; )
    {
        mfn -= n;
        if ( !range_free(mfn, n) )
            continue;
        set_used(mfn, n, true);
        for ( i = 0; i < n; i++ )
            frame_table[mfn + i].count_info = PGC_xen_heap;
        while ( top_free > 1 && test_used(top_free - 1) )
            top_free--;
        va = mfn_to_virt(mfn);
        break;
    }
    pthread_mutex_unlock(&heap_lock);

    return va;
}

void free_xenheap_pages(void *v, unsigned int order)
{
    unsigned long mfn = virt_to_mfn(v), n = 1UL << order, i;

    if ( !v )
        return;
    pthread_mutex_lock(&heap_lock);
    for ( i = 0; i < n; i++ )
    {
        frame_table[mfn + i].shared = HOST_SHARED_NONE;
        frame_table[mfn + i].count_info = 0;
    }
    set_used(mfn, n, false);
    if ( mfn + n > top_free )
        top_free = mfn + n;
    pthread_mutex_unlock(&heap_lock);
}

/* As Xen's: a page shared already is left as it is. */
void share_xen_page_with_privileged_guests(struct page_info *page,
                                           enum XENSHARE_flags flags)
{
    if ( __atomic_load_n(&page->shared, __ATOMIC_ACQUIRE) )
        return;
    __atomic_fetch_or(&page->count_info, PGC_allocated | 1,
                      __ATOMIC_SEQ_CST);
    __atomic_store_n(&page->shared,
                     flags == SHARE_ro ? HOST_SHARED_RO : HOST_SHARED_RW,
                     __ATOMIC_RELEASE);
}

static struct domain xen_domain = { .domain_id = DOMID_XEN };
struct domain *const dom_xen = &xen_domain;

/* Owned by none: no longer shared, so never mapped again. */
void page_set_owner(struct page_info *page, struct domain *d)
{
    if ( !d )
        __atomic_store_n(&page->shared, HOST_SHARED_NONE, __ATOMIC_RELEASE);
}

void put_page_alloc_ref(struct page_info *page)
{
    if ( __atomic_fetch_and(&page->count_info, ~PGC_allocated,
                            __ATOMIC_SEQ_CST) & PGC_allocated )
        __atomic_fetch_sub(&page->count_info, 1, __ATOMIC_SEQ_CST);
}

/* A reference, unless none is held: then the page is on its way out. */
bool get_page(struct page_info *page, const struct domain *d)
{
    unsigned long x = __atomic_load_n(&page->count_info, __ATOMIC_ACQUIRE);

    (void)d;
    do {
        if ( !(x & PGC_count_mask) )
            return false;
    } while ( !__atomic_compare_exchange_n(&page->count_info, &x, x + 1,
                                           false, __ATOMIC_SEQ_CST,
                                           __ATOMIC_ACQUIRE) );
    return true;
}

int host_get_frame(unsigned long mfn)
{
    if ( mfn >= machine_pages || !host_frame_sharing(mfn) ||
         !get_page(&frame_table[mfn], dom_xen) )
        return -EPERM;
    return 0;
}

void host_put_frame(unsigned long mfn)
{
    if ( mfn < machine_pages )
        __atomic_fetch_sub(&frame_table[mfn].count_info, 1,
                           __ATOMIC_SEQ_CST);
}

int host_machine_fd(void)
{
    return machine_fd;
}

unsigned long host_machine_pages(void)
{
    return machine_pages;
}

int host_frame_sharing(unsigned long mfn)
{
    if ( mfn >= machine_pages )
        return HOST_SHARED_NONE;
    return __atomic_load_n(&frame_table[mfn].shared, __ATOMIC_ACQUIRE);
}

void *host_mfn_to_virt(unsigned long mfn)
{
    return mfn < machine_pages ? mfn_to_virt(mfn) : NULL;
}

static bool may_map(uint32_t mfn, int prot)
{
    int sharing = host_frame_sharing(mfn);

    return sharing == HOST_SHARED_RW ||
           (sharing == HOST_SHARED_RO && !(prot & PROT_WRITE));
}

static void put_frames(const uint32_t *mfns, unsigned int n)
{
    while ( n-- )
        host_put_frame(mfns[n]);
}

/* Each frame mapped holds a reference, as a mapping does in Xen. */
void *host_map_frames(const uint32_t *mfns, unsigned int n, int prot)
{
    unsigned char *va;
    unsigned int i;

    for ( i = 0; i < n; i++ )
        if ( !may_map(mfns[i], prot) || host_get_frame(mfns[i]) )
        {
            put_frames(mfns, i);
            errno = EPERM;
            return NULL;
        }

    va = mmap(NULL, n * PAGE_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
              -1, 0);
    if ( va == MAP_FAILED )
        goto fail;
    for ( i = 0; i < n; i++ )
        if ( mmap(va + i * PAGE_SIZE, PAGE_SIZE, prot, MAP_SHARED | MAP_FIXED,
                  machine_fd, (off_t)mfns[i] * PAGE_SIZE) == MAP_FAILED )
        {
            munmap(va, n * PAGE_SIZE);
            goto fail;
        }
    return va;

 fail:
    put_frames(mfns, n);
    return NULL;
}

void host_unmap_frames(void *va, const uint32_t *mfns, unsigned int n)
{
    munmap(va, n * PAGE_SIZE);
    put_frames(mfns, n);
}
