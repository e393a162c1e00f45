/*
 * libxtfile, reading trace files (xtread.h, docs/trace-format.md).
 *
 * Loading.  The whole input is in memory at @data: a regular file is
 * mapped, a pipe is read into a growing buffer, and a gzip stream is
 * inflated into one.  Nothing in it is trusted.
 *
 * Indexing.  xt_reader_open*() walks the input once, batch by batch: a
 * CPU-change record {cpu, bytes}, then records up to @bytes further.  For
 * each batch it keeps where its records start and where the last complete
 * one ends, so that the iterators never check a bound again: whatever lies
 * between a batch's @start and @end is whole records.  The same pass
 * counts records per CPU and picks up the metadata.  It stops:
 *   - at the end of the input;
 *   - where a batch should start and there is no CPU-change record
 *     (XT_DAMAGE_CORRUPT);
 *   - inside a batch that runs past the end (XT_DAMAGE_TRUNCATED), after
 *     its last complete record.
 * A batch whose last record runs over its @bytes is kept up to the record
 * before, marked CORRUPT, and the walk goes on at the next batch.
 *
 * With XT_READ_BATCHES the walk jumps from CPU-change record to CPU-change
 * record, and walks the records of only the batches that hold what
 * xt_reader_info() and xt_cpu_info need: a batch's @end is what its
 * CPU-change record says until the caller has walked it
 * (xt_reader_walked()).  Summing up takes one pass over the records, not
 * two.
 *
 * CPUs.  CPU numbers are any 32-bit value, so they are mapped to dense
 * "slots" through a hash table while indexing, then the slots are sorted
 * by CPU number (slot order is CPU order).  Each CPU's batches form a
 * chain through the batch array, in file order.
 *
 * Merging.  XT_ORDER_TSC keeps one cursor per CPU, each walking its
 * CPU's chain, in a tournament (loser tree) keyed by (TSC, slot):
 * O(log nCPU) compares without branches per record, where xenalyze's
 * sorted array costs O(nCPU).  Records are decoded only when they are
 * returned; the merge reads just their TSCs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "xtread.h"

#define NO_BATCH        UINT64_MAX
#define READ_CHUNK      (1u << 20)

struct batch {
    uint64_t hdr;               /* offset of its CPU-change record */
    uint64_t start;             /* of its first record */
    uint64_t end;               /* of the end of its last complete record */
    uint64_t next;              /* the CPU's next batch, or NO_BATCH */
    uint32_t slot;
    bool checked;               /* @end is known to end whole records */
};

struct slot {
    struct xt_cpu_info info;
    uint64_t first_batch, last_batch;
    bool last_tsc_found;        /* XT_READ_BATCHES, while opening */
};

struct xt_reader {
    const uint8_t *data;
    size_t size;
    void *map;                  /* to munmap, or NULL */
    size_t map_len;
    void *heap_copy;            /* to free, or NULL */

    struct batch *batches;
    uint64_t nr_batches, cap_batches;
    struct slot *slots;
    unsigned int nr_slots, cap_slots;

    /* CPU number -> slot + 1 (0: empty), open addressing, while indexing */
    uint32_t *hash_cpu, *hash_slot;
    unsigned int hash_cap;

    struct xt_reader_info info;
    uint64_t skipped;           /* bytes of damage not read as records */

    uint32_t xen_version;       /* xt_reader_set_xen_version(), or 0 */
    bool batches_only;          /* XT_READ_BATCHES */
    uint32_t *copy;             /* xt_reader_batch()'s unaligned batches */
    uint64_t copy_cap;          /* words */
};

/* Loads, as records are 4-byte aligned in the file but @data may not be. */
static inline uint32_t rd32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

static inline uint64_t rd64(const uint8_t *p)
{
    return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static inline unsigned int rec_size(uint32_t hdr)
{
    return 4 * xt_record_words(hdr);
}

static inline bool is_cpu_change(uint32_t hdr)
{
    return TRC_HD_TO_EVENT(hdr) == TRC_TRACE_CPU_CHANGE &&
           TRC_HD_EXTRA(hdr) >= 2;
}

/* Pads and CPU-change records: skipped unless XT_ITER_SPECIAL. */
static inline bool is_special(uint32_t event)
{
    return event == TRC_TRACE_WRAP_BUFFER || event == TRC_TRACE_CPU_CHANGE;
}

/*
 * Decode the record at @p (known to be whole) for CPU @cpu; the input
 * ends at @lim.
 */
static inline void decode(const uint8_t *p, const uint8_t *lim,
                          uint64_t offset, unsigned int cpu,
                          uint64_t *last_tsc, struct xt_record *rec)
{
    uint32_t hdr = rd32(p);
    unsigned int n = TRC_HD_EXTRA(hdr), i;

    rec->offset = offset;
    rec->event = TRC_HD_TO_EVENT(hdr);
    rec->cpu = cpu;
    rec->nr_extra = n;
    rec->has_tsc = TRC_HD_INCLUDES_CYCLE_COUNT(hdr);
    p += 4;
    if ( rec->has_tsc )
    {
        *last_tsc = rd64(p);
        p += 8;
    }
    rec->tsc = *last_tsc;
    if ( (size_t)(lim - p) >= sizeof(rec->extra) )
    {
        /*
         * Seven words whatever @n, the ones past it masked to 0: no
         * branch to mispredict as the records' sizes vary.
         */
        for ( i = 0; i < 7; i++ )
            rec->extra[i] = rd32(p + 4 * i) & -(uint32_t)(i < n);
        return;
    }
    memset(rec->extra, 0, sizeof(rec->extra));
    for ( i = 0; i < n; i++ )
        rec->extra[i] = rd32(p + 4 * i);
}

/*
 * Loading
 * =======
 */

static bool is_gzip(const uint8_t *p, size_t len)
{
    return len >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

/* Inflate @len bytes of gzip (concatenated members too) into r->heap_copy. */
static int inflate_input(struct xt_reader *r, const uint8_t *in, size_t len)
{
    z_stream zs;
    size_t cap = len < SIZE_MAX / 8 ? len * 4 + 4096 : len, used = 0;
    uint8_t *out = malloc(cap);

    if ( !out )
        return -1;
    memset(&zs, 0, sizeof(zs));
    if ( inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK )
    {
        free(out);
        errno = ENOMEM;
        return -1;
    }
    zs.next_in = (Bytef *)in;
    for ( ;; )
    {
        size_t in_chunk = len > UINT32_MAX ? UINT32_MAX : len;
        size_t out_chunk;
        int ret;

        if ( used == cap )
        {
            uint8_t *bigger = cap * 2 > cap ? realloc(out, cap * 2) : NULL;

            if ( !bigger )
            {
                errno = cap * 2 > cap ? ENOMEM : EFBIG;
                goto fail;
            }
            out = bigger;
            cap *= 2;
        }
        out_chunk = cap - used > UINT32_MAX ? UINT32_MAX : cap - used;
        zs.avail_in = in_chunk;
        zs.next_out = out + used;
        zs.avail_out = out_chunk;
        ret = inflate(&zs, Z_NO_FLUSH);
        len -= in_chunk - zs.avail_in;
        used += out_chunk - zs.avail_out;
        if ( ret == Z_STREAM_END )
        {
            /* Another member may follow; anything else ends the input. */
            if ( !is_gzip(zs.next_in, len) )
                break;
            inflateReset(&zs);
            continue;
        }
        if ( ret != Z_OK && ret != Z_BUF_ERROR )
        {
            errno = EIO;
            goto fail;
        }
        /* Room left and nothing more to give: the stream was cut short. */
        if ( zs.avail_out != 0 && (ret == Z_BUF_ERROR || len == 0) )
            break;
    }
    inflateEnd(&zs);
    r->heap_copy = out;
    r->data = out;
    r->size = used;
    r->info.gzip = true;
    return 0;

 fail:
    inflateEnd(&zs);
    free(out);
    return -1;
}

/* Read all of @fd (a pipe, a terminal...) into r->heap_copy. */
static int slurp(struct xt_reader *r, int fd)
{
    size_t cap = READ_CHUNK, used = 0;
    uint8_t *buf = malloc(cap);

    if ( !buf )
        return -1;
    for ( ;; )
    {
        ssize_t n;

        if ( used == cap )
        {
            uint8_t *bigger = cap * 2 > cap ? realloc(buf, cap * 2) : NULL;

            if ( !bigger )
            {
                free(buf);
                errno = cap * 2 > cap ? ENOMEM : EFBIG;
                return -1;
            }
            buf = bigger;
            cap *= 2;
        }
        n = read(fd, buf + used, cap - used);
        if ( n < 0 && errno == EINTR )
            continue;
        if ( n < 0 )
        {
            free(buf);
            return -1;
        }
        if ( n == 0 )
            break;
        used += n;
    }
    r->heap_copy = buf;
    r->data = buf;
    r->size = used;
    return 0;
}

/*
 * Indexing
 * ========
 */

static int grow(void **arr, size_t elem, uint64_t *cap, uint64_t need)
{
    uint64_t n = *cap ? *cap : 16;
    void *bigger;

    if ( need <= *cap )
        return 0;
    while ( n < need )
        n *= 2;
    if ( n > SIZE_MAX / elem )
    {
        errno = ENOMEM;
        return -1;
    }
    bigger = realloc(*arr, n * elem);
    if ( !bigger )
        return -1;
    *arr = bigger;
    *cap = n;
    return 0;
}

static inline unsigned int hash_of(uint32_t cpu, unsigned int cap)
{
    return (cpu * 2654435761u) & (cap - 1);
}

static int rehash(struct xt_reader *r)
{
    unsigned int cap = r->hash_cap ? r->hash_cap * 2 : 64, i;
    uint32_t *cpus = calloc(cap, sizeof(*cpus));
    uint32_t *slots = calloc(cap, sizeof(*slots));

    if ( !cpus || !slots )
    {
        free(cpus);
        free(slots);
        return -1;
    }
    for ( i = 0; i < r->hash_cap; i++ )
    {
        unsigned int h;

        if ( !r->hash_slot[i] )
            continue;
        for ( h = hash_of(r->hash_cpu[i], cap); slots[h];
              h = (h + 1) & (cap - 1) )
            ;
        cpus[h] = r->hash_cpu[i];
        slots[h] = r->hash_slot[i];
    }
    free(r->hash_cpu);
    free(r->hash_slot);
    r->hash_cpu = cpus;
    r->hash_slot = slots;
    r->hash_cap = cap;
    return 0;
}

/* The slot of CPU @cpu, made if new; -1 on ENOMEM. */
static int64_t slot_of(struct xt_reader *r, uint32_t cpu)
{
    unsigned int h;
    struct slot *s;

    if ( (r->nr_slots + 1) * 2 > r->hash_cap && rehash(r) )
        return -1;
    for ( h = hash_of(cpu, r->hash_cap); r->hash_slot[h];
          h = (h + 1) & (r->hash_cap - 1) )
        if ( r->hash_cpu[h] == cpu )
            return r->hash_slot[h] - 1;

    if ( r->nr_slots == r->cap_slots )
    {
        uint64_t cap = r->cap_slots;

        if ( grow((void **)&r->slots, sizeof(*r->slots), &cap,
                  (uint64_t)r->nr_slots + 1) )
            return -1;
        r->cap_slots = cap;
    }
    s = &r->slots[r->nr_slots];
    memset(s, 0, sizeof(*s));
    s->info.cpu = cpu;
    s->first_batch = s->last_batch = NO_BATCH;
    r->hash_cpu[h] = cpu;
    r->hash_slot[h] = ++r->nr_slots;
    return r->nr_slots - 1;
}

/*
 * The first damage in the file is the one: indexing finds it in file
 * order, xt_reader_walked() may find an earlier one later.
 */
static void note_damage(struct xt_reader *r, enum xt_damage d, uint64_t at)
{
    if ( r->info.damage == XT_DAMAGE_NONE || at < r->info.damage_offset )
    {
        r->info.damage = d;
        r->info.damage_offset = at;
    }
}

/* The first of each metadata record is the one. */
static void take_metadata(struct xt_reader *r, const struct xt_record *rec)
{
    struct xt_reader_info *in = &r->info;

    switch ( rec->event )
    {
    case TRC_XT_FORMAT:
        if ( rec->nr_extra >= 1 && !in->has_meta )
        {
            in->has_meta = true;
            in->format_version = rec->extra[0];
        }
        break;
    case TRC_XT_TOOL:
        if ( rec->nr_extra >= 3 && !in->tool_version[0] &&
             !in->tool_version[1] && !in->tool_version[2] )
            memcpy(in->tool_version, rec->extra, sizeof(in->tool_version));
        break;
    case TRC_XT_TSC_HZ:
        if ( rec->nr_extra >= 2 && !in->has_tsc_hz )
        {
            in->has_tsc_hz = true;
            in->meta.tsc_hz = rec->extra[0] | (uint64_t)rec->extra[1] << 32;
        }
        break;
    case TRC_XT_CPUS:
        if ( rec->nr_extra >= 1 && !in->has_nr_cpus )
        {
            in->has_nr_cpus = true;
            in->meta.nr_cpus = rec->extra[0];
        }
        break;
    case TRC_XT_XEN_VERSION:
        if ( rec->nr_extra >= 1 && !in->meta.xen_version )
            in->meta.xen_version = rec->extra[0];
        break;
    case TRC_XT_START:
        if ( rec->nr_extra >= 5 && !in->has_start )
        {
            in->has_start = true;
            in->meta.start_tsc = rec->extra[0] | (uint64_t)rec->extra[1] << 32;
            in->meta.start_sec = (int64_t)(rec->extra[2] |
                                           (uint64_t)rec->extra[3] << 32);
            in->meta.start_nsec = rec->extra[4];
        }
        break;
    }
}

/*
 * Count the whole records of a batch, from @p to @lim, into @s, and take
 * the metadata if @meta; where they end.
 */
static uint64_t walk_batch(struct xt_reader *r, struct slot *s, uint64_t p,
                           uint64_t lim, bool meta)
{
    struct xt_cpu_info *ci = &s->info;
    uint64_t last_tsc = ci->last_tsc;

    while ( lim - p >= 4 )
    {
        uint32_t hdr = rd32(r->data + p);
        unsigned int size = rec_size(hdr);
        uint32_t event = TRC_HD_TO_EVENT(hdr);

        if ( lim - p < size )
            break;
        if ( event == TRC_TRACE_WRAP_BUFFER )
            ci->pads++;
        else if ( event != TRC_TRACE_CPU_CHANGE )
        {
            ci->records++;
            if ( TRC_HD_INCLUDES_CYCLE_COUNT(hdr) )
            {
                last_tsc = rd64(r->data + p + 4);
                if ( !ci->has_tsc )
                {
                    ci->has_tsc = true;
                    ci->first_tsc = last_tsc;
                }
                ci->last_tsc = last_tsc;
            }
            if ( event == TRC_LOST_RECORDS )
            {
                unsigned int n = TRC_HD_EXTRA(hdr);

                ci->lost_markers++;
                if ( n >= 1 )
                    ci->lost_records += rd32(r->data + p + size - 4 * n);
            }
            else if ( meta && xt_is_metadata(event) )
            {
                struct xt_record rec;

                decode(r->data + p, r->data + r->size, p, ci->cpu, &last_tsc,
                       &rec);
                take_metadata(r, &rec);
            }
        }
        p += size;
    }
    return p;
}

/* Add the batch whose CPU-change record is at @off; where reading goes on. */
static int add_batch(struct xt_reader *r, uint64_t off, uint64_t *next)
{
    uint32_t hdr = rd32(r->data + off);
    uint64_t start = off + rec_size(hdr);
    const uint8_t *words = r->data + off +
                           (TRC_HD_INCLUDES_CYCLE_COUNT(hdr) ? 12 : 4);
    uint32_t cpu = rd32(words), bytes = rd32(words + 4);
    uint64_t end = start + bytes;
    uint64_t lim = end < r->size ? end : r->size;
    int64_t si = slot_of(r, cpu);
    struct slot *s, scratch = { .info.cpu = cpu };
    struct batch *b;

    if ( si < 0 )
        return -1;
    if ( grow((void **)&r->batches, sizeof(*r->batches), &r->cap_batches,
              r->nr_batches + 1) )
        return -1;
    s = &r->slots[si];
    b = &r->batches[r->nr_batches];
    b->hdr = off;
    b->start = start;
    if ( r->batches_only && end <= r->size )
    {
        b->end = end;
        b->checked = false;
    }
    else
    {
        b->end = walk_batch(r, r->batches_only ? &scratch : s, start, lim,
                            !r->batches_only);
        b->checked = true;
    }
    b->next = NO_BATCH;
    b->slot = si;
    if ( s->last_batch == NO_BATCH )
        s->first_batch = r->nr_batches;
    else
        r->batches[s->last_batch].next = r->nr_batches;
    s->last_batch = r->nr_batches++;
    s->info.batches++;
    s->info.bytes += b->end - off;

    if ( end > r->size )
    {
        note_damage(r, XT_DAMAGE_TRUNCATED, b->end);
        r->info.missing = end - r->size;
        *next = r->size;
        r->info.end = b->end;
        return 1;
    }
    if ( b->end != end )
    {
        note_damage(r, XT_DAMAGE_CORRUPT, b->end);
        r->skipped += end - b->end;
    }
    *next = end;
    r->info.end = end;
    return 0;
}

static int cmp_slot_cpu(const void *a, const void *b)
{
    unsigned int x = ((const struct slot *)a)->info.cpu;
    unsigned int y = ((const struct slot *)b)->info.cpu;

    return x < y ? -1 : x > y;
}

/* Sort the slots by CPU, and renumber the batches' slots to match. */
static int sort_slots(struct xt_reader *r)
{
    uint32_t *new_of = malloc((r->nr_slots + 1) * sizeof(*new_of));
    unsigned int i;
    uint64_t b;

    if ( !new_of )
        return -1;
    if ( !r->nr_slots )
    {
        free(new_of);
        return 0;
    }
    /* first_batch identifies a slot: its batch knows the old number. */
    qsort(r->slots, r->nr_slots, sizeof(*r->slots), cmp_slot_cpu);
    for ( i = 0; i < r->nr_slots; i++ )
        new_of[r->batches[r->slots[i].first_batch].slot] = i;
    for ( b = 0; b < r->nr_batches; b++ )
        r->batches[b].slot = new_of[r->batches[b].slot];
    free(new_of);
    return 0;
}

static void total_up(struct xt_reader *r)
{
    struct xt_reader_info *in = &r->info;
    unsigned int i;

    in->batches = r->nr_batches;
    in->nr_cpus = r->nr_slots;
    for ( i = 0; i < r->nr_slots; i++ )
    {
        const struct xt_cpu_info *ci = &r->slots[i].info;

        in->records += ci->records;
        in->pads += ci->pads;
        in->lost_markers += ci->lost_markers;
        in->lost_records += ci->lost_records;
        in->max_cpu = ci->cpu;
    }
}

/* Walk batch @i into a slot of its own: its TSCs, and metadata if @meta. */
static struct xt_cpu_info walk_alone(struct xt_reader *r, uint64_t i,
                                     bool meta)
{
    const struct batch *b = &r->batches[i];
    struct slot scratch = { .info.cpu = r->slots[b->slot].info.cpu };

    walk_batch(r, &scratch, b->start, b->end, meta);
    return scratch.info;
}

/* The TSC of batch @i's first record that has one, if any: *@tsc. */
static bool first_tsc_in(const struct xt_reader *r, uint64_t i, uint64_t *tsc)
{
    const struct batch *b = &r->batches[i];
    uint64_t p;

    for ( p = b->start; b->end - p >= 4; )
    {
        uint32_t hdr = rd32(r->data + p);

        if ( b->end - p < rec_size(hdr) )
            break;
        if ( TRC_HD_INCLUDES_CYCLE_COUNT(hdr) &&
             !is_special(TRC_HD_TO_EVENT(hdr)) )
        {
            *tsc = rd64(r->data + p + 4);
            return true;
        }
        p += rec_size(hdr);
    }
    return false;
}

/*
 * XT_READ_BATCHES: the metadata, from the first batch; each CPU's first
 * TSC, from the start of its first batch that has one; and its last TSC,
 * from all of its last batch that has one (a walk goes forwards only).
 */
static void find_tsc_range(struct xt_reader *r)
{
    unsigned int left = r->nr_slots, with_tsc = 0;
    uint64_t i;

    if ( r->nr_batches )
        walk_alone(r, 0, true);
    for ( i = 0; i < r->nr_batches && left; i++ )
    {
        struct slot *s = &r->slots[r->batches[i].slot];

        if ( s->info.has_tsc || !first_tsc_in(r, i, &s->info.first_tsc) )
            continue;
        s->info.has_tsc = true;
        left--;
        with_tsc++;
    }
    for ( i = r->nr_batches; i-- > 0 && with_tsc; )
    {
        struct slot *s = &r->slots[r->batches[i].slot];
        struct xt_cpu_info found;

        if ( !s->info.has_tsc || s->last_tsc_found )
            continue;
        found = walk_alone(r, i, false);
        if ( !found.has_tsc )
            continue;
        s->info.last_tsc = found.last_tsc;
        s->last_tsc_found = true;
        with_tsc--;
    }
}

static int index_input(struct xt_reader *r)
{
    uint64_t off = 0;

    r->info.size = r->size;
    if ( r->size >= 4 && !is_cpu_change(rd32(r->data)) )
    {
        errno = is_cpu_change(__builtin_bswap32(rd32(r->data))) ?
                EBADMSG : EILSEQ;
        return -1;
    }
    while ( off < r->size )
    {
        int ret;

        if ( r->size - off < 4 ||
             (is_cpu_change(rd32(r->data + off)) &&
              r->size - off < rec_size(rd32(r->data + off))) )
        {
            note_damage(r, XT_DAMAGE_TRUNCATED, off);
            break;
        }
        if ( !is_cpu_change(rd32(r->data + off)) )
        {
            note_damage(r, XT_DAMAGE_CORRUPT, off);
            break;
        }
        ret = add_batch(r, off, &off);
        if ( ret < 0 )
            return -1;
        if ( ret > 0 )
            break;
    }
    free(r->hash_cpu);
    free(r->hash_slot);
    r->hash_cpu = r->hash_slot = NULL;
    if ( sort_slots(r) )
        return -1;
    if ( r->batches_only )
        find_tsc_range(r);
    total_up(r);
    return 0;
}

/*
 * Opening
 * =======
 */

static struct xt_reader *finish_open(struct xt_reader *r, unsigned int flags)
{
    r->batches_only = flags & XT_READ_BATCHES;
    if ( !(flags & XT_READ_NO_GZIP) && is_gzip(r->data, r->size) )
    {
        void *old_copy = r->heap_copy;

        r->heap_copy = NULL;
        if ( inflate_input(r, r->data, r->size) )
        {
            r->heap_copy = old_copy;
            goto fail;
        }
        free(old_copy);
        if ( r->map )
        {
            munmap(r->map, r->map_len);
            r->map = NULL;
        }
    }
    if ( index_input(r) )
        goto fail;
    return r;

 fail:
    {
        int err = errno;

        xt_reader_close(r);
        errno = err;
    }
    return NULL;
}

struct xt_reader *xt_reader_open_mem(const void *data, size_t len,
                                     unsigned int flags)
{
    struct xt_reader *r = calloc(1, sizeof(*r));

    if ( !r )
        return NULL;
    r->data = data;
    r->size = len;
    return finish_open(r, flags);
}

struct xt_reader *xt_reader_open_fd(int fd, unsigned int flags)
{
    struct xt_reader *r = calloc(1, sizeof(*r));
    struct stat st;

    if ( !r )
        return NULL;
    if ( fstat(fd, &st) )
        goto fail;
    if ( S_ISREG(st.st_mode) && st.st_size > 0 )
    {
        if ( (uint64_t)st.st_size > SIZE_MAX )
        {
            errno = EFBIG;
            goto fail;
        }
        r->map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if ( r->map == MAP_FAILED )
        {
            r->map = NULL;
            goto fail;
        }
        r->map_len = st.st_size;
        madvise(r->map, r->map_len, MADV_SEQUENTIAL);
        r->data = r->map;
        r->size = r->map_len;
    }
    else if ( slurp(r, fd) )
        goto fail;
    return finish_open(r, flags);

 fail:
    {
        int err = errno;

        xt_reader_close(r);
        errno = err;
    }
    return NULL;
}

struct xt_reader *xt_reader_open(const char *path, unsigned int flags)
{
    struct xt_reader *r;
    int fd, err;

    if ( !path || !strcmp(path, "-") )
        return xt_reader_open_fd(STDIN_FILENO, flags);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if ( fd < 0 )
        return NULL;
    r = xt_reader_open_fd(fd, flags);
    err = errno;
    close(fd);
    errno = err;
    return r;
}

void xt_reader_close(struct xt_reader *r)
{
    if ( !r )
        return;
    if ( r->map )
        munmap(r->map, r->map_len);
    free(r->heap_copy);
    free(r->batches);
    free(r->slots);
    free(r->hash_cpu);
    free(r->hash_slot);
    free(r->copy);
    free(r);
}

const char *xt_reader_strerror(int err)
{
    if ( err == EILSEQ )
        return "not a trace file";
    if ( err == EBADMSG )
        return "trace file of the other byte order";
    return strerror(err);
}

/*
 * What the file holds
 * ===================
 */

const struct xt_reader_info *xt_reader_info(const struct xt_reader *r)
{
    return &r->info;
}

void xt_reader_set_xen_version(struct xt_reader *r, uint32_t version)
{
    r->xen_version = version;
}

uint32_t xt_reader_xen_version(const struct xt_reader *r)
{
    if ( r->xen_version )
        return r->xen_version;
    return r->info.meta.xen_version ? r->info.meta.xen_version
                                    : XT_XEN_DEFAULT;
}

const char *xt_reader_damage(const struct xt_reader *r, char *buf,
                             size_t size)
{
    const struct xt_reader_info *in = &r->info;
    uint64_t unread = in->size - in->end;

    if ( in->damage == XT_DAMAGE_NONE )
        return NULL;
    if ( in->damage == XT_DAMAGE_TRUNCATED )
        snprintf(buf, size, "truncated: %" PRIu64 " bytes at offset %" PRIu64
                 " not read, the last batch lacks %" PRIu64 " bytes",
                 unread, in->end, in->missing);
    else
        snprintf(buf, size, "corrupt at offset %" PRIu64 ": %" PRIu64
                 " bytes not read", in->damage_offset, r->skipped + unread);
    return buf;
}

const struct xt_cpu_info *xt_reader_cpu(const struct xt_reader *r,
                                        unsigned int i)
{
    return i < r->nr_slots ? &r->slots[i].info : NULL;
}

static int64_t find_slot(const struct xt_reader *r, unsigned int cpu)
{
    unsigned int lo = 0, hi = r->nr_slots;

    while ( lo < hi )
    {
        unsigned int mid = lo + (hi - lo) / 2;

        if ( r->slots[mid].info.cpu < cpu )
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->nr_slots && r->slots[lo].info.cpu == cpu ? (int64_t)lo : -1;
}

const struct xt_cpu_info *xt_reader_cpu_by_id(const struct xt_reader *r,
                                              unsigned int cpu)
{
    int64_t i = find_slot(r, cpu);

    return i < 0 ? NULL : &r->slots[i].info;
}

bool xt_record_lost(const struct xt_record *rec, struct xt_lost *lost)
{
    if ( rec->event != TRC_LOST_RECORDS || rec->nr_extra < 4 )
        return false;
    lost->count = rec->extra[0];
    lost->domain = rec->extra[1] & 0xffff;
    lost->vcpu = rec->extra[1] >> 16;
    lost->first_tsc = rec->extra[2] | (uint64_t)rec->extra[3] << 32;
    return true;
}

/*
 * Batches
 * =======
 */

int xt_reader_batch(struct xt_reader *r, uint64_t i, struct xt_batch *out)
{
    const struct batch *b;
    const uint8_t *p;
    size_t len;

    if ( i >= r->nr_batches )
        return 0;
    b = &r->batches[i];
    p = r->data + b->start;
    len = (b->end - b->start) / 4;
    out->in_place = !((uintptr_t)p & 3);
    if ( !out->in_place )
    {
        if ( grow((void **)&r->copy, sizeof(*r->copy), &r->copy_cap,
                  len ? len : 1) )
            return -1;
        memcpy(r->copy, p, len * 4);
        p = (const uint8_t *)r->copy;
    }
    out->cpu = r->slots[b->slot].info.cpu;
    out->cpu_index = b->slot;
    out->words = (const uint32_t *)p;
    out->len = len;
    out->offset = b->start;
    return 1;
}

void xt_reader_walked(struct xt_reader *r, uint64_t i, size_t len)
{
    struct batch *b;
    uint64_t end;

    if ( i >= r->nr_batches || r->batches[i].checked )
        return;
    b = &r->batches[i];
    b->checked = true;
    if ( len >= (b->end - b->start) / 4 && (b->end - b->start) % 4 == 0 )
        return;
    if ( len > (b->end - b->start) / 4 )
        len = (b->end - b->start) / 4;
    end = b->start + 4 * (uint64_t)len;
    note_damage(r, XT_DAMAGE_CORRUPT, end);
    r->skipped += b->end - end;
    r->slots[b->slot].info.bytes -= b->end - end;
    b->end = end;
}

/*
 * Iterators
 * =========
 */

/* A walk through batches: the whole file, or one CPU's chain. */
struct cursor {
    uint64_t batch;             /* the current one, NO_BATCH at the end */
    uint64_t pos;               /* its next record (or CPU-change record) */
    bool chain;                 /* follow batch->next, not batch + 1 */
};

/*
 * XT_ORDER_TSC's merge key of a slot: its next record's TSC, ties broken
 * by slot; KEY_DONE when it has no more.  One integer compare orders two.
 */
typedef unsigned __int128 merge_key;
#define KEY_DONE        ((merge_key)1 << 96)

struct xt_iter {
    const struct xt_reader *r;
    enum xt_order order;
    bool special;
    uint64_t *last_tsc;         /* per slot */
    struct cursor file;         /* XT_ORDER_FILE and _CPU */
    struct cursor *cursors;     /* XT_ORDER_TSC: one per slot */
    unsigned int leaves;        /* slots, up to a power of 2 */
    merge_key *losers;          /* [1, leaves): who lost each match */
    merge_key winner;
};

static void cursor_enter(const struct xt_iter *it, struct cursor *c,
                         uint64_t batch)
{
    c->batch = batch;
    if ( batch != NO_BATCH )
        c->pos = it->special ? it->r->batches[batch].hdr
                             : it->r->batches[batch].start;
}

/*
 * Put the cursor on its next record, past the pads and CPU-change records
 * that the iterator skips; false at its end.  Records are not decoded
 * here: the merge only needs the TSC of the record at the cursor.
 */
static bool cursor_seek(const struct xt_iter *it, struct cursor *c)
{
    const struct xt_reader *r = it->r;

    while ( c->batch != NO_BATCH )
    {
        const struct batch *b = &r->batches[c->batch];

        for ( ; c->pos < b->end; c->pos += rec_size(rd32(r->data + c->pos)) )
            if ( it->special ||
                 !is_special(TRC_HD_TO_EVENT(rd32(r->data + c->pos))) )
                return true;
        cursor_enter(it, c, c->chain ? b->next
                            : c->batch + 1 < r->nr_batches ? c->batch + 1
                                                          : NO_BATCH);
    }
    return false;
}

/* Decode the record at the cursor (cursor_seek() found one), step on. */
static void cursor_take(const struct xt_iter *it, struct cursor *c,
                        struct xt_record *rec)
{
    const struct xt_reader *r = it->r;
    const struct batch *b = &r->batches[c->batch];
    const uint8_t *p = r->data + c->pos;

    decode(p, r->data + r->size, c->pos, r->slots[b->slot].info.cpu,
           &it->last_tsc[b->slot], rec);
    rec->xen_version = xt_reader_xen_version(r);
    c->pos += rec_size(rd32(p));
}

/* The TSC of the record at the cursor of @slot, as decode() will give it. */
static uint64_t cursor_tsc(const struct xt_iter *it, unsigned int slot)
{
    const uint8_t *p = it->r->data + it->cursors[slot].pos;

    return TRC_HD_INCLUDES_CYCLE_COUNT(rd32(p)) ? rd64(p + 4)
                                                : it->last_tsc[slot];
}

static merge_key next_key(const struct xt_iter *it, unsigned int slot)
{
    if ( !cursor_seek(it, &it->cursors[slot]) )
        return KEY_DONE | slot;
    return (merge_key)cursor_tsc(it, slot) << 32 | slot;
}

/*
 * The merge is a tournament of the slots (a loser tree): each inner node
 * holds the loser of the match played there, the root's winner is the
 * next record.  When the winner's slot has a new key, it plays the
 * matches on its way up again: log2(slots) compares that need no branch,
 * where a heap's sift-down takes twice as many, each a branch the CPU
 * mispredicts as the CPUs' records interleave.
 */
static void replay(struct xt_iter *it, unsigned int slot, merge_key key)
{
    unsigned int node;

    for ( node = (slot + it->leaves) / 2; node; node /= 2 )
    {
        merge_key other = it->losers[node];
        bool lost = other < key;

        it->losers[node] = lost ? key : other;
        key = lost ? other : key;
    }
    it->winner = key;
}

static int start_merge(struct xt_iter *it)
{
    const struct xt_reader *r = it->r;
    merge_key *won;
    unsigned int s, node;

    for ( it->leaves = 1; it->leaves < r->nr_slots; it->leaves *= 2 )
        ;
    it->cursors = calloc(r->nr_slots ? r->nr_slots : 1, sizeof(*it->cursors));
    it->losers = calloc(it->leaves, sizeof(*it->losers));
    /* Winners of every match, while the tree is built. */
    won = calloc(2 * it->leaves, sizeof(*won));
    if ( !it->cursors || !it->losers || !won )
    {
        free(won);
        return -1;
    }
    for ( s = 0; s < it->leaves; s++ )
    {
        if ( s >= r->nr_slots )
        {
            won[it->leaves + s] = KEY_DONE | s;
            continue;
        }
        it->cursors[s].chain = true;
        cursor_enter(it, &it->cursors[s], r->slots[s].first_batch);
        won[it->leaves + s] = next_key(it, s);
    }
    for ( node = it->leaves - 1; node; node-- )
    {
        merge_key a = won[2 * node], b = won[2 * node + 1];

        won[node] = a < b ? a : b;
        it->losers[node] = a < b ? b : a;
    }
    it->winner = won[1];
    free(won);
    return 0;
}

struct xt_iter *xt_iter_new(struct xt_reader *r, enum xt_order order,
                            unsigned int cpu, unsigned int flags)
{
    struct xt_iter *it = calloc(1, sizeof(*it));

    if ( !it )
        return NULL;
    if ( r->batches_only )
    {
        free(it);
        errno = EINVAL;
        return NULL;
    }
    it->r = r;
    it->order = order;
    it->special = flags & XT_ITER_SPECIAL;
    it->last_tsc = calloc(r->nr_slots ? r->nr_slots : 1,
                          sizeof(*it->last_tsc));
    if ( !it->last_tsc )
        goto fail;
    switch ( order )
    {
    case XT_ORDER_FILE:
        cursor_enter(it, &it->file, r->nr_batches ? 0 : NO_BATCH);
        break;
    case XT_ORDER_CPU:
    {
        int64_t s = find_slot(r, cpu);

        it->file.chain = true;
        cursor_enter(it, &it->file, s < 0 ? NO_BATCH : r->slots[s].first_batch);
        break;
    }
    case XT_ORDER_TSC:
        if ( start_merge(it) )
            goto fail;
        break;
    default:
        errno = EINVAL;
        goto fail;
    }
    return it;

 fail:
    xt_iter_free(it);
    return NULL;
}

int xt_iter_next(struct xt_iter *it, struct xt_record *rec)
{
    unsigned int slot;

    if ( it->order != XT_ORDER_TSC )
    {
        if ( !cursor_seek(it, &it->file) )
            return 0;
        cursor_take(it, &it->file, rec);
        return 1;
    }
    if ( it->winner & KEY_DONE )
        return 0;
    slot = (uint32_t)it->winner;
    cursor_take(it, &it->cursors[slot], rec);
    replay(it, slot, next_key(it, slot));
    return 1;
}

void xt_iter_free(struct xt_iter *it)
{
    if ( !it )
        return;
    free(it->last_tsc);
    free(it->cursors);
    free(it->losers);
    free(it);
}
