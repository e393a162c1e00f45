/*
 * Foreign mappings: ask xen-sim which frames may be mapped, then map those
 * from the machine memory file (frame n at offset n * 4096) into a
 * reserved range, one mmap(MAP_FIXED) per run of contiguous frames.
 * See foreign.h.
 *
 * xen-sim counts a reference for each frame it allowed, as Xen does for
 * each frame mapped, so that it cannot take back buffers a process maps
 * (trace.c's resize).  The frames of each mapping are kept here until
 * xs_unmap_frames() gives them back; those of a refused or failed
 * mapping at once.  A mapping that its process unmaps with munmap(2), as
 * the xc_map_foreign_* calls' callers do, holds its frames until the
 * process's connection closes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "foreign.h"

/* Frames per XS_MAP request: as many as fit in the largest payload. */
#define FRAMES_PER_REQUEST \
    ((XS_MAX_PAYLOAD - sizeof(struct xs_map)) / sizeof(uint64_t))

/* The server's per-frame int32_t results are read straight into err[]. */
_Static_assert(sizeof(int) == sizeof(int32_t), "int is not int32_t");

/*
 * XS_MAP for @num (at most FRAMES_PER_REQUEST) frames; their results go to
 * @err.  Returns 0, or -1 with errno set if xen-sim gave no per-frame
 * answer.
 */
static int ask_server(struct xs_conn *c, int prot, size_t num,
                      const xen_pfn_t arr[], int err[])
{
    struct xs_map req = {
        .prot = PROT_READ | (prot & PROT_WRITE),
        .count = num,
    };
    uint64_t *mfns = malloc(num * sizeof(*mfns));
    struct iovec iov[2] = {
        { .iov_base = &req, .iov_len = sizeof(req) },
        { .iov_base = mfns, .iov_len = num * sizeof(*mfns) },
    };
    size_t i, len = 0;
    int rc;

    if ( !mfns )
        return -1;
    for ( i = 0; i < num; i++ )
        mfns[i] = arr[i];
    rc = xs_call(c, XS_MAP, iov, 2, err, num * sizeof(*err), &len, NULL);
    free(mfns);

    /* A refusal still answers per frame; anything else is no answer. */
    if ( len == num * sizeof(*err) )
        rc = 0;
    else if ( rc == 0 )
        rc = -EPROTO;
    for ( i = 0; i < num && rc == 0; i++ )
        if ( err[i] > 0 )
            rc = -EPROTO;
    if ( rc )
    {
        errno = -rc;
        return -1;
    }

    return 0;
}

/* A mapping made: the frames it holds a reference to. */
struct mapping {
    struct mapping *next;
    void *base;
    size_t num;                 /* frames held */
    uint64_t mfns[];
};

static pthread_mutex_t mappings_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mapping *mappings;

/* XS_UNMAP: xen-sim drops this connection's references to @mfns[@num]. */
static void give_back(struct xs_conn *c, const uint64_t *mfns, size_t num)
{
    size_t done, n, len;

    for ( done = 0; done < num; done += n )
    {
        struct iovec iov = { (void *)(mfns + done), 0 };

        n = num - done < FRAMES_PER_REQUEST ? num - done : FRAMES_PER_REQUEST;
        iov.iov_len = n * sizeof(*mfns);
        (void)xs_call(c, XS_UNMAP, &iov, 1, NULL, 0, &len, NULL);
    }
}

/*
 * The frames of @arr[@num] that xen-sim allowed (@err 0), kept with the
 * mapping at @base, or given back at once if @base is NULL.  -1 with no
 * memory to keep them: they are then held until the connection closes.
 */
static int keep_frames(struct xs_conn *c, void *base, size_t num,
                       const xen_pfn_t arr[], const int err[])
{
    struct mapping *m = malloc(sizeof(*m) + num * sizeof(m->mfns[0]));
    size_t i;

    if ( !m )
        return -1;
    m->base = base;
    m->num = 0;
    for ( i = 0; i < num; i++ )
        if ( !err[i] )
            m->mfns[m->num++] = arr[i];
    if ( !base )
    {
        give_back(c, m->mfns, m->num);
        free(m);
        return 0;
    }
    pthread_mutex_lock(&mappings_lock);
    m->next = mappings;
    mappings = m;
    pthread_mutex_unlock(&mappings_lock);
    return 0;
}

/* Fill @err[@num] with xen-sim's answer for each frame. */
static int check_frames(struct xs_conn *c, uint32_t dom, int prot,
                        size_t num, const xen_pfn_t arr[], int err[])
{
    size_t done, n;

    if ( dom != DOMID_XEN )
    {
        for ( done = 0; done < num; done++ )
            err[done] = -ESRCH;
        return 0;
    }

    for ( done = 0; done < num; done += n )
    {
        n = num - done < FRAMES_PER_REQUEST ? num - done : FRAMES_PER_REQUEST;
        if ( ask_server(c, prot, n, arr + done, err + done) )
            return -1;
    }

    return 0;
}

/*
 * Reserve @num pages, inaccessible, then map over them each run of allowed
 * frames that are contiguous in machine memory too.
 */
static void *map_allowed(int memfd, void *addr, int prot, int flags,
                         size_t num, const xen_pfn_t arr[], const int err[])
{
    char *base;
    size_t i, run;

    base = mmap(addr, num << XS_PAGE_SHIFT, PROT_NONE,
                (flags & ~MAP_TYPE) | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if ( base == MAP_FAILED )
        return NULL;

    for ( i = 0; i < num; i += run )
    {
        run = 1;
        if ( err[i] )
            continue;
        while ( i + run < num && !err[i + run] && arr[i + run] == arr[i] + run )
            run++;
        if ( mmap(base + (i << XS_PAGE_SHIFT), run << XS_PAGE_SHIFT, prot,
                  MAP_SHARED | MAP_FIXED, memfd,
                  (off_t)arr[i] << XS_PAGE_SHIFT) == MAP_FAILED )
        {
            int saved_errno = errno;

            munmap(base, num << XS_PAGE_SHIFT);
            errno = saved_errno;
            return NULL;
        }
    }

    return base;
}

static int first_error(const int err[], size_t num)
{
    size_t i;

    for ( i = 0; i < num; i++ )
        if ( err[i] )
            return err[i];
    return 0;
}

void *xs_map_frames(struct xs_conn *c, int memfd, uint32_t dom, void *addr,
                    int prot, int flags, size_t num, const xen_pfn_t arr[],
                    int err[])
{
    int *results = err;
    void *base = NULL;
    int refused;

    /* As mmap(2) of no pages, or of more than the address space. */
    if ( num == 0 || num > SIZE_MAX >> XS_PAGE_SHIFT )
    {
        errno = EINVAL;
        return NULL;
    }
    if ( !results && !(results = malloc(num * sizeof(*results))) )
        return NULL;

    if ( check_frames(c, dom, prot, num, arr, results) )
        goto out;
    if ( !err && (refused = first_error(results, num)) )
    {
        keep_frames(c, NULL, num, arr, results);
        errno = -refused;
        goto out;
    }
    base = map_allowed(memfd, addr, prot, flags, num, arr, results);
    if ( keep_frames(c, base, num, arr, results) && base )
    {
        munmap(base, num << XS_PAGE_SHIFT);
        errno = ENOMEM;
        base = NULL;
    }

 out:
    if ( results != err )
        free(results);
    return base;
}

int xs_unmap_frames(struct xs_conn *c, void *addr, size_t num)
{
    struct mapping **p, *m = NULL;

    pthread_mutex_lock(&mappings_lock);
    for ( p = &mappings; *p; p = &(*p)->next )
        if ( (*p)->base == addr )
        {
            m = *p;
            *p = m->next;
            break;
        }
    pthread_mutex_unlock(&mappings_lock);
    if ( m )
    {
        give_back(c, m->mfns, m->num);
        free(m);
    }
    return munmap(addr, num << XS_PAGE_SHIFT);
}
