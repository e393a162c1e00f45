/*
 * The control plane and boot-time behaviour of common/trace.c: set_size and
 * its return codes, resizing, the page clamp, the boot parameters, the
 * t_info layout and what dom0 may map, the CPU mask, and CPU hotplug.
 *
 * set_size is one-shot and each case boots differently, so every test runs
 * in a fresh hypervisor in a child process (tu_in_fresh_host()).  The child
 * only gathers facts into a result structure, and the parent asserts on
 * them: a cmocka assert in the child would unwind into the child's copy of
 * the test runner.  For the same reason the child maps frames with
 * host_map_frames(), which fails softly, not with tu_map_t_info() or
 * tu_map_buf(), which assert.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "host_util.h"

#define DIV_ROUND_UP(n, d)  (((n) + (d) - 1) / (d))
#define ARRAY_SIZE(a)       (sizeof(a) / sizeof((a)[0]))

/* Words of t_info before the first MFN list (UPSTREAM-FACTS 1.3). */
#define T_INFO_FIRST_OFFSET 129

/* Test events, of two classes; TRACE_1D makes a 16-byte timed record. */
#define EV_SCHED   (TRC_SCHED_MIN + 1)
#define EV_HVM     (TRC_HVM_ENTRYEXIT + 1)
#define REC_BYTES  16


/*
 * The child's side
 * ================
 */

/* Copy what the console printed so far into a result. */
static void save_console(char *dst, size_t len)
{
    size_t n = strnlen(tu_console(), len - 1);

    memcpy(dst, tu_console(), n);
    dst[n] = '\0';
}

static int boot(const struct host_config *cfg)
{
    tu_capture_console();
    return host_boot(cfg);
}

static int get_info(struct xen_sysctl_tbuf_op *info)
{
    memset(info, 0, sizeof(*info));
    return tu_tbuf_op(XEN_SYSCTL_TBUFOP_get_info, info);
}

/*
 * The first frame of t_info, mapped read-only as dom0 maps it, or NULL.  It
 * holds tbuf_size, all of mfn_offset[] and, in these tests, every MFN list.
 */
static const struct t_info *map_t_info_head(void)
{
    struct xen_sysctl_tbuf_op info;
    uint32_t mfn;

    if ( get_info(&info) || !info.buffer_mfn )
        return NULL;
    mfn = info.buffer_mfn;
    return host_map_frames(&mfn, 1, PROT_READ);
}

/* @cpu's buffer, mapped as tu_map_buf() maps it; false if dom0 cannot. */
static bool map_buf(unsigned int cpu, struct tu_buf *b)
{
    const struct t_info *ti = map_t_info_head();
    unsigned char *va;

    if ( !ti || !ti->mfn_offset[cpu] ||
         ti->mfn_offset[cpu] + ti->tbuf_size > PAGE_SIZE / sizeof(uint32_t) )
        return false;
    va = host_map_frames((const uint32_t *)ti + ti->mfn_offset[cpu],
                         ti->tbuf_size, PROT_READ | PROT_WRITE);
    if ( !va )
        return false;

    b->cpu = cpu;
    b->meta = (volatile struct t_buf *)va;
    b->data = va + sizeof(struct t_buf);
    b->data_size = ti->tbuf_size * PAGE_SIZE - sizeof(struct t_buf);
    return true;
}

/*
 * Emit @event with @value as @cpu, then return to CPU 0.  Returns what
 * trace_will_trace_event() said beforehand.
 */
static bool emit_as(unsigned int cpu, uint32_t event, uint32_t value)
{
    bool predicted;

    host_cpu_enter(cpu);
    predicted = trace_will_trace_event(event);
    TRACE_1D(event, value);
    host_cpu_enter(0);

    return predicted;
}

/* What one dom0 sweep of a buffer found; the parent decodes it. */
struct sweep {
    uint32_t bytes;                 /* unconsumed when swept */
    uint32_t words[REC_BYTES / 4];  /* the bytes at cons: the first record */
};

/* Look at the unconsumed bytes of @b, then consume them all. */
static void sweep(struct tu_buf *b, struct sweep *s)
{
    uint32_t prod = __atomic_load_n(&b->meta->prod, __ATOMIC_ACQUIRE); /* C */
    uint32_t cons = b->meta->cons;

    s->bytes = tu_unconsumed(b);
    memset(s->words, 0, sizeof(s->words));
    memcpy(s->words, b->data + cons % b->data_size,
           s->bytes < sizeof(s->words) ? s->bytes : sizeof(s->words));
    __atomic_store_n(&b->meta->cons, prod, __ATOMIC_RELEASE);         /* D */
}

/*
 * The parent's side
 * =================
 */

/* @s found exactly one record, TRACE_1D(@event, @value)'s. */
static void assert_swept_record(const struct sweep *s, uint32_t event,
                                uint32_t value)
{
    assert_int_equal(s->bytes, REC_BYTES);
    assert_int_equal(s->words[0], event | (1U << TRACE_EXTRA_SHIFT) |
                                  TRC_HD_CYCLE_FLAG);
    assert_int_equal(s->words[3], value);
}

static unsigned int count_text(const char *console, const char *text)
{
    unsigned int n = 0;
    const char *p;

    for ( p = strstr(console, text); p; p = strstr(p + 1, text) )
        n++;
    return n;
}

static void assert_console_count(const char *console, const char *text,
                                 unsigned int expected)
{
    unsigned int found = count_text(console, text);

    if ( found != expected )
        print_error("expected %u of \"%s\" in the console:\n%s", expected,
                    text, console);
    assert_int_equal(found, expected);
}

/* Frames of t_info for @pages per CPU on @nr_cpus possible CPUs. */
static unsigned int t_info_pages(unsigned int nr_cpus, unsigned int pages)
{
    return DIV_ROUND_UP((T_INFO_FIRST_OFFSET + nr_cpus * pages) *
                        sizeof(uint32_t), PAGE_SIZE);
}

/*
 * 1. set_size, enable, disable and get_info
 * =========================================
 *
 * 256 possible CPUs at 4 pages each need a t_info of two frames; only two
 * CPUs are online, so only two get buffers.
 */
#define SZ_CPUS   256
#define SZ_PAGES  4

struct set_size_result {
    int boot_rc;
    int enable_unallocated;
    int info_before_rc;
    struct xen_sysctl_tbuf_op info_before;
    int size_zero, size_first, size_same, size_other;
    int tracing_after_size;
    bool mapped;
    struct sweep after_size;
    int disable_rc, tracing_after_disable;
    struct sweep after_disable;
    int enable_rc, tracing_after_enable;
    struct sweep after_enable;
    int unknown_cmd, set_evt_mask_rc;
    struct xen_sysctl_tbuf_op info_after;
};
static void set_size_body(void *result)
{
    struct set_size_result *r = result;
    struct xen_sysctl_tbuf_op unknown = { 0 };
    struct tu_buf b;

    r->boot_rc = boot(&(struct host_config){ .nr_cpus = SZ_CPUS,
                                             .online_cpus = 2 });
    if ( r->boot_rc )
        return;

    r->enable_unallocated = tu_enable();
    r->info_before_rc = get_info(&r->info_before);
    r->size_zero = tu_set_size(0);
    r->size_first = tu_set_size(SZ_PAGES);
    r->tracing_after_size = tb_init_done;
    r->mapped = map_buf(0, &b);
    if ( !r->mapped )
        return;
    emit_as(0, EV_SCHED, 1);
    sweep(&b, &r->after_size);

    r->size_same = tu_set_size(SZ_PAGES);
    r->size_other = tu_set_size(2 * SZ_PAGES);

    r->disable_rc = tu_disable();
    r->tracing_after_disable = tb_init_done;
    emit_as(0, EV_SCHED, 2);
    sweep(&b, &r->after_disable);

    r->enable_rc = tu_enable();
    r->tracing_after_enable = tb_init_done;
    emit_as(0, EV_SCHED, 3);
    sweep(&b, &r->after_enable);

    r->unknown_cmd = tu_tbuf_op(99, &unknown);
    r->set_evt_mask_rc = tu_set_evt_mask(0x12345678);
    get_info(&r->info_after);
}

static void test_set_size(void **state)
{
    struct set_size_result r = { 0 };

    (void)state;
    tu_in_fresh_host(set_size_body, &r, sizeof(r));
    assert_int_equal(r.boot_rc, 0);

    /* Before any buffer exists. */
    assert_int_equal(r.enable_unallocated, -EINVAL);
    assert_int_equal(r.info_before_rc, 0);
    assert_int_equal(r.info_before.buffer_mfn, 0);
    assert_int_equal(r.info_before.size, 0);
    assert_int_equal(r.info_before.evt_mask, TRC_ALL);
    assert_int_equal(r.size_zero, -EINVAL);

    /* Allocating turns tracing on, as in 4.17. */
    assert_int_equal(r.size_first, 0);
    assert_int_equal(r.tracing_after_size, 1);
    assert_true(r.mapped);
    assert_swept_record(&r.after_size, EV_SCHED, 1);

    /* One-shot. */
    assert_int_equal(r.size_same, -EBUSY);
    assert_int_equal(r.size_other, -EINVAL);

    assert_int_equal(r.disable_rc, 0);
    assert_int_equal(r.tracing_after_disable, 0);
    assert_int_equal(r.after_disable.bytes, 0);

    assert_int_equal(r.enable_rc, 0);
    assert_int_equal(r.tracing_after_enable, 1);
    assert_swept_record(&r.after_enable, EV_SCHED, 3);

    assert_int_equal(r.unknown_cmd, -EINVAL);

    /* size is the bytes of t_info, not of a buffer; evt_mask unchecked. */
    assert_int_equal(r.set_evt_mask_rc, 0);
    assert_int_not_equal(r.info_after.buffer_mfn, 0);
    assert_int_equal(t_info_pages(SZ_CPUS, SZ_PAGES), 2);
    assert_int_equal(r.info_after.size,
                     t_info_pages(SZ_CPUS, SZ_PAGES) * PAGE_SIZE);
    assert_int_equal(r.info_after.evt_mask, 0x12345678);
}

/*
 * 1a. Resizing (XEN_SYSCTL_TBUFOP_resize)
 * =======================================
 *
 * Refused while tracing is on and while dom0 maps a page of the buffers,
 * which then work as before; done once nothing maps them, tracing left
 * off, the old pages no longer shared, and a record then goes to the new
 * buffer.  A CPU that comes up later gets the new size.  Without
 * buffers, it makes them and leaves tracing off.
 */
#define RS_CPUS     4
#define RS_ONLINE   2
#define RS_PAGES    2
#define RS_NEW      8

struct resize_result {
    int boot_rc, size_rc, resize_on, resize_mapped, resize_ok, resize_zero;
    bool mapped;
    struct sweep kept, after;          /* a record, mapped, after each */
    struct xen_sysctl_tbuf_op before, info;
    int tracing_after_resize;
    uint16_t tbuf_size;
    int old_t_info_shared, old_buf_shared, new_buf_shared;
    int up_rc;
    uint16_t up_offset;
    int fresh_rc, fresh_tracing;
    struct xen_sysctl_tbuf_op fresh;
};

/* @cpu's buffer and t_info's first frame, mapped, as dom0 maps them. */
struct mapped_buf {
    uint32_t t_info_mfn;
    const struct t_info *ti;
    uint32_t mfns[RS_NEW];
    unsigned int pages;
    struct tu_buf b;
};

static bool map_whole(unsigned int cpu, struct mapped_buf *m)
{
    struct xen_sysctl_tbuf_op info;
    unsigned char *va;

    if ( get_info(&info) || !info.buffer_mfn )
        return false;
    m->t_info_mfn = info.buffer_mfn;
    if ( !(m->ti = host_map_frames(&m->t_info_mfn, 1, PROT_READ)) )
        return false;
    m->pages = m->ti->tbuf_size;
    if ( !m->ti->mfn_offset[cpu] || m->pages > RS_NEW )
        return false;
    memcpy(m->mfns, (const uint32_t *)m->ti + m->ti->mfn_offset[cpu],
           m->pages * sizeof(uint32_t));
    if ( !(va = host_map_frames(m->mfns, m->pages, PROT_READ | PROT_WRITE)) )
        return false;
    m->b = (struct tu_buf){
        .cpu = cpu, .meta = (volatile struct t_buf *)va,
        .data = va + sizeof(struct t_buf),
        .data_size = m->pages * PAGE_SIZE - sizeof(struct t_buf),
    };
    return true;
}

static void unmap_whole(struct mapped_buf *m)
{
    host_unmap_frames((void *)m->b.meta, m->mfns, m->pages);
    host_unmap_frames((void *)m->ti, &m->t_info_mfn, 1);
}

/* Trace one record on CPU 0 and sweep it from @m. */
static void trace_one(struct mapped_buf *m, uint32_t value, struct sweep *s)
{
    tu_enable();
    emit_as(0, EV_SCHED, value);
    tu_disable();
    sweep(&m->b, s);
}

static void resize_body(void *result)
{
    struct resize_result *r = result;
    struct mapped_buf old, now;

    r->boot_rc = boot(&(struct host_config){ .nr_cpus = RS_CPUS,
                                             .online_cpus = RS_ONLINE });
    if ( r->boot_rc )
        return;
    r->fresh_rc = tu_resize(RS_PAGES);
    r->fresh_tracing = tb_init_done;
    get_info(&r->fresh);
    tu_enable();

    r->resize_on = tu_resize(RS_NEW);
    tu_disable();
    r->mapped = map_whole(0, &old);
    if ( !r->mapped )
        return;
    r->resize_mapped = tu_resize(RS_NEW);
    get_info(&r->before);
    trace_one(&old, 1, &r->kept);
    unmap_whole(&old);

    r->resize_zero = tu_resize(0);
    r->resize_ok = tu_resize(RS_NEW);
    r->tracing_after_resize = tb_init_done;
    get_info(&r->info);
    r->old_t_info_shared = host_frame_sharing(old.t_info_mfn);
    r->old_buf_shared = host_frame_sharing(old.mfns[0]);
    r->mapped = map_whole(0, &now);
    if ( !r->mapped )
        return;
    r->tbuf_size = now.ti->tbuf_size;
    r->new_buf_shared = host_frame_sharing(now.mfns[0]);
    trace_one(&now, 2, &r->after);

    r->up_rc = host_cpu_up(RS_ONLINE);
    r->up_offset = now.ti->mfn_offset[RS_ONLINE];
}

static void test_resize(void **state)
{
    struct resize_result r = { 0 };

    (void)state;
    tu_in_fresh_host(resize_body, &r, sizeof(r));
    assert_int_equal(r.boot_rc, 0);

    /* Without buffers: made, tracing off. */
    assert_int_equal(r.fresh_rc, 0);
    assert_int_equal(r.fresh_tracing, 0);
    assert_int_not_equal(r.fresh.buffer_mfn, 0);

    /* Refused while tracing, and while mapped: the buffers as they were. */
    assert_int_equal(r.resize_on, -EBUSY);
    assert_true(r.mapped);
    assert_int_equal(r.resize_mapped, -EBUSY);
    assert_int_equal(r.before.buffer_mfn, r.fresh.buffer_mfn);
    assert_swept_record(&r.kept, EV_SCHED, 1);
    assert_int_equal(r.resize_zero, -EINVAL);

    /* Unmapped: resized, tracing left off, the old no longer shared. */
    assert_int_equal(r.resize_ok, 0);
    assert_int_equal(r.tracing_after_resize, 0);
    assert_int_not_equal(r.info.buffer_mfn, r.fresh.buffer_mfn);
    assert_int_equal(r.old_t_info_shared, HOST_SHARED_NONE);
    assert_int_equal(r.old_buf_shared, HOST_SHARED_NONE);
    assert_int_equal(r.new_buf_shared, HOST_SHARED_RW);
    assert_int_equal(r.tbuf_size, RS_NEW);
    assert_swept_record(&r.after, EV_SCHED, 2);

    /* A CPU up later: a buffer of the new size, after the others'. */
    assert_int_equal(r.up_rc, 0);
    assert_int_equal(r.up_offset, T_INFO_FIRST_OFFSET + RS_ONLINE * RS_NEW);
}

/*
 * 2. The page clamp (UPSTREAM-FACTS 2.3)
 * ======================================
 *
 * Only CPU 0 is online, so only it gets pages.  t_info's first frame says
 * all we check (and a clamped t_info has more frames than tu_map_t_info()
 * can map).
 */
struct clamp_case {
    unsigned int nr_cpus;
    unsigned int max_pages;     /* the table of UPSTREAM-FACTS 2.3 */
    const char *reduced_line;   /* the console line for 65535 pages */
};

static const struct clamp_case clamp_cases[] = {
    {   2, 65406,
        "xentrace: requested number of 65535 pages reduced to 65406\n" },
    {   8,  9343,
        "xentrace: requested number of 65535 pages reduced to 9343\n" },
    {  16,  4360,
        "xentrace: requested number of 65535 pages reduced to 4360\n" },
    {  64,  1038,
        "xentrace: requested number of 65535 pages reduced to 1038\n" },
    { 128,   515,
        "xentrace: requested number of 65535 pages reduced to 515\n" },
    { 256,   256,
        "xentrace: requested number of 65535 pages reduced to 256\n" },
};

/* In: nr_cpus, cmdline.  Out: the rest. */
struct clamp_result {
    unsigned int nr_cpus;
    char cmdline[32];
    int boot_rc;
    bool mapped;
    uint16_t tbuf_size;
    uint16_t mfn_offset0;
    char console[1024];
};
static void clamp_body(void *result)
{
    struct clamp_result *r = result;
    const struct t_info *ti;

    r->boot_rc = boot(&(struct host_config){ .nr_cpus = r->nr_cpus,
                                             .online_cpus = 1,
                                             .cmdline = r->cmdline });
    save_console(r->console, sizeof(r->console));
    if ( r->boot_rc )
        return;

    ti = map_t_info_head();
    r->mapped = ti != NULL;
    if ( !ti )
        return;
    r->tbuf_size = ti->tbuf_size;
    r->mfn_offset0 = ti->mfn_offset[0];
}

/* Words before the first MFN list, as the ABI header lays them out. */
static unsigned int t_info_first_offset(void)
{
    return DIV_ROUND_UP(offsetof(struct t_info, mfn_offset[NR_CPUS]),
                        sizeof(uint32_t));
}

/* The most pages per CPU, by the formula of UPSTREAM-FACTS 2.3. */
static unsigned int clamp_formula(unsigned int nr_cpus)
{
    unsigned int pages = UINT16_MAX;

    if ( nr_cpus > 1 )
        pages = (UINT16_MAX - t_info_first_offset()) / (nr_cpus - 1);
    return pages < UINT16_MAX ? pages : UINT16_MAX;
}

static void boot_with_pages(unsigned int nr_cpus, unsigned int pages,
                            struct clamp_result *r)
{
    memset(r, 0, sizeof(*r));
    r->nr_cpus = nr_cpus;
    snprintf(r->cmdline, sizeof(r->cmdline), "tbuf_size=%u", pages);
    tu_in_fresh_host(clamp_body, r, sizeof(*r));
    assert_int_equal(r->boot_rc, 0);
    assert_true(r->mapped);
    assert_int_equal(r->mfn_offset0, T_INFO_FIRST_OFFSET);
}

static void test_clamp(void **state)
{
    const struct clamp_case *c = *state;
    unsigned int max = clamp_formula(c->nr_cpus);
    unsigned int last = c->nr_cpus - 1;
    struct clamp_result r;

    /* The formula and the facts' table agree. */
    assert_int_equal(t_info_first_offset(), T_INFO_FIRST_OFFSET);
    assert_int_equal(max, c->max_pages);
    /* max is the most pages for which the last CPU's list start fits u16. */
    assert_true(T_INFO_FIRST_OFFSET + last * max <= UINT16_MAX);
    assert_true(T_INFO_FIRST_OFFSET + last * (max + 1) > UINT16_MAX);

    boot_with_pages(c->nr_cpus, UINT16_MAX, &r);
    assert_int_equal(r.tbuf_size, max);
    assert_console_count(r.console, c->reduced_line, 1);

    boot_with_pages(c->nr_cpus, max, &r);
    assert_int_equal(r.tbuf_size, max);
    assert_console_count(r.console, "xentrace: requested number of", 0);
}

/*
 * 3. Boot parameters
 * ==================
 */

/* In: cmdline.  Out: the rest; records emitted on CPU 0 after boot. */
struct boot_result {
    const char *cmdline;
    int boot_rc;
    int tracing;
    struct xen_sysctl_tbuf_op info;
    bool predicted_sched, predicted_hvm;
    bool mapped;
    struct sweep sched, hvm;
    char console[1024];
};
static void boot_body(void *result)
{
    struct boot_result *r = result;
    struct tu_buf b;

    r->boot_rc = boot(&(struct host_config){ .nr_cpus = 2,
                                             .cmdline = r->cmdline });
    save_console(r->console, sizeof(r->console));
    if ( r->boot_rc )
        return;

    r->tracing = tb_init_done;
    get_info(&r->info);
    r->mapped = r->info.buffer_mfn && map_buf(0, &b);
    r->predicted_sched = emit_as(0, EV_SCHED, 1);
    if ( r->mapped )
        sweep(&b, &r->sched);
    r->predicted_hvm = emit_as(0, EV_HVM, 2);
    if ( r->mapped )
        sweep(&b, &r->hvm);
}

static void boot_fresh(const char *cmdline, struct boot_result *r)
{
    memset(r, 0, sizeof(*r));
    r->cmdline = cmdline;
    tu_in_fresh_host(boot_body, r, sizeof(*r));
}

/* tbuf_size alone starts tracing with TRC_ALL: the 4.17 surprise. */
static void test_boot_tbuf_size(void **state)
{
    struct boot_result r;

    (void)state;
    boot_fresh("tbuf_size=8", &r);
    assert_int_equal(r.boot_rc, 0);
    assert_int_not_equal(r.info.buffer_mfn, 0);
    assert_int_equal(r.tracing, 1);
    assert_int_equal(r.info.evt_mask, TRC_ALL);
    assert_true(r.mapped);
    assert_true(r.predicted_sched);
    assert_swept_record(&r.sched, EV_SCHED, 1);
    assert_true(r.predicted_hvm);
    assert_swept_record(&r.hvm, EV_HVM, 2);
}

static void test_boot_tbuf_size_and_mask(void **state)
{
    struct boot_result r;

    (void)state;
    boot_fresh("tbuf_size=8 tevt_mask=0x0002f000", &r);
    assert_int_equal(r.boot_rc, 0);
    assert_int_not_equal(r.info.buffer_mfn, 0);
    assert_int_equal(r.tracing, 1);
    assert_int_equal(r.info.evt_mask, 0x2f000);
    assert_true(r.mapped);
    assert_true(r.predicted_sched);
    assert_swept_record(&r.sched, EV_SCHED, 1);
    assert_false(r.predicted_hvm);
    assert_int_equal(r.hvm.bytes, 0);
}

/* Without buffers the mask is not applied either (as 4.17). */
static void test_boot_mask_alone(void **state)
{
    struct boot_result r;

    (void)state;
    boot_fresh("tevt_mask=0x0002f000", &r);
    assert_int_equal(r.boot_rc, 0);
    assert_int_equal(r.info.buffer_mfn, 0);
    assert_int_equal(r.info.size, 0);
    assert_int_equal(r.tracing, 0);
    assert_int_equal(r.info.evt_mask, TRC_ALL);
    assert_false(r.predicted_sched);
    assert_false(r.predicted_hvm);
}

static void test_boot_bad_value(void **state)
{
    struct boot_result r;

    (void)state;
    boot_fresh("tbuf_size=12abc", &r);
    assert_int_equal(r.boot_rc, -EINVAL);
    assert_console_count(r.console, "Bad value for tbuf_size=12abc\n", 1);
}

/*
 * 4. t_info layout and what dom0 may map
 * ======================================
 *
 * The mask lets only guest records through, so the records emitted here
 * are filtered out and the buffers must still be all zero.
 */
#define LAYOUT_CPUS        4
#define LAYOUT_PAGES       3
#define LAYOUT_MAX_FRAMES  4   /* of t_info, recorded */

struct layout_result {
    int boot_rc;
    struct xen_sysctl_tbuf_op info;
    int t_info_sharing[LAYOUT_MAX_FRAMES];
    bool mapped;
    uint16_t tbuf_size;
    uint16_t mfn_offset[NR_CPUS];
    uint32_t mfns[LAYOUT_CPUS][LAYOUT_PAGES];
    int sharing[LAYOUT_CPUS][LAYOUT_PAGES];
    bool buf_mapped[LAYOUT_CPUS];
    struct t_buf meta[LAYOUT_CPUS];
    unsigned int nonzero_bytes[LAYOUT_CPUS];
};
/* Copy @cpu's MFN list from @ti, with what dom0 may do with each frame. */
static void read_mfn_list(const struct t_info *ti, unsigned int cpu,
                          struct layout_result *r)
{
    const uint32_t *words = (const uint32_t *)ti;
    unsigned int offset = ti->mfn_offset[cpu], i;

    if ( !offset || offset + LAYOUT_PAGES > PAGE_SIZE / sizeof(*words) )
        return;
    for ( i = 0; i < LAYOUT_PAGES; i++ )
    {
        r->mfns[cpu][i] = words[offset + i];
        r->sharing[cpu][i] = host_frame_sharing(words[offset + i]);
    }
}

/* Map @cpu's buffer; copy its t_buf and count its nonzero data bytes. */
static void read_buffer_bytes(unsigned int cpu, bool *mapped,
                              struct t_buf *meta, unsigned int *nonzero)
{
    struct tu_buf b;
    uint32_t i;

    *mapped = map_buf(cpu, &b);
    if ( !*mapped )
        return;
    meta->cons = b.meta->cons;
    meta->prod = b.meta->prod;
    for ( i = 0; i < b.data_size; i++ )
        *nonzero += b.data[i] != 0;
}

static void layout_body(void *result)
{
    struct layout_result *r = result;
    const struct t_info *ti;
    unsigned int cpu, i;

    r->boot_rc = boot(&(struct host_config){
        .nr_cpus = LAYOUT_CPUS,
        .cmdline = "tbuf_size=3 tevt_mask=0x0800f000" });
    if ( r->boot_rc )
        return;

    get_info(&r->info);
    for ( i = 0; i < r->info.size / PAGE_SIZE && i < LAYOUT_MAX_FRAMES; i++ )
        r->t_info_sharing[i] = host_frame_sharing(r->info.buffer_mfn + i);

    ti = map_t_info_head();
    r->mapped = ti != NULL;
    if ( !ti )
        return;
    r->tbuf_size = ti->tbuf_size;
    memcpy(r->mfn_offset, ti->mfn_offset, sizeof(r->mfn_offset));
    for ( cpu = 0; cpu < LAYOUT_CPUS; cpu++ )
    {
        read_mfn_list(ti, cpu, r);
        emit_as(cpu, EV_SCHED, cpu);
        read_buffer_bytes(cpu, &r->buf_mapped[cpu], &r->meta[cpu],
                          &r->nonzero_bytes[cpu]);
    }
}

/* @mfn is not a t_info frame and appears once among all buffer frames. */
static void assert_mfn_unique(const struct layout_result *r, uint32_t mfn)
{
    unsigned int cpu, i, seen = 0;

    assert_false(mfn >= r->info.buffer_mfn &&
                 mfn < r->info.buffer_mfn + r->info.size / PAGE_SIZE);
    for ( cpu = 0; cpu < LAYOUT_CPUS; cpu++ )
        for ( i = 0; i < LAYOUT_PAGES; i++ )
            seen += r->mfns[cpu][i] == mfn;
    assert_int_equal(seen, 1);
}

static void test_layout(void **state)
{
    struct layout_result r = { 0 };
    unsigned int frames = t_info_pages(LAYOUT_CPUS, LAYOUT_PAGES);
    unsigned int cpu, i;

    (void)state;
    tu_in_fresh_host(layout_body, &r, sizeof(r));
    assert_int_equal(r.boot_rc, 0);

    assert_int_not_equal(r.info.buffer_mfn, 0);
    assert_int_equal(r.info.size, frames * PAGE_SIZE);
    assert_true(frames <= LAYOUT_MAX_FRAMES);
    for ( i = 0; i < frames; i++ )
        assert_int_equal(r.t_info_sharing[i], HOST_SHARED_RO);

    assert_true(r.mapped);
    assert_int_equal(r.tbuf_size, LAYOUT_PAGES);
    for ( cpu = 0; cpu < NR_CPUS; cpu++ )
        assert_int_equal(r.mfn_offset[cpu], cpu < LAYOUT_CPUS ?
                         T_INFO_FIRST_OFFSET + cpu * LAYOUT_PAGES : 0);

    for ( cpu = 0; cpu < LAYOUT_CPUS; cpu++ )
    {
        for ( i = 0; i < LAYOUT_PAGES; i++ )
        {
            assert_int_not_equal(r.mfns[cpu][i], 0);
            assert_int_equal(r.sharing[cpu][i], HOST_SHARED_RW);
            assert_mfn_unique(&r, r.mfns[cpu][i]);
        }
        assert_true(r.buf_mapped[cpu]);
        assert_int_equal(r.meta[cpu].cons, 0);
        assert_int_equal(r.meta[cpu].prod, 0);
        assert_int_equal(r.nonzero_bytes[cpu], 0);
    }
}

/*
 * Heap pages hold whatever their last user left.  Xen clears what it
 * hands to dom0: buffers and t_info show nothing but what tracing wrote.
 */
#define STALE_MEM_PAGES  32
#define STALE_CPUS       2
#define STALE_PAGES      2
#define STALE_BYTE       0xa5

struct stale_result {
    int boot_rc;
    int size_rc;
    bool mapped;
    unsigned int t_info_nonzero_bytes;      /* where nothing is in use */
    bool buf_mapped[STALE_CPUS];
    struct t_buf meta[STALE_CPUS];
    unsigned int nonzero_bytes[STALE_CPUS];
};
static void stale_body(void *result)
{
    struct stale_result *r = result;
    const struct t_info *ti;
    unsigned int used = T_INFO_FIRST_OFFSET + STALE_CPUS * STALE_PAGES;
    unsigned long mfn;
    unsigned int cpu, i;

    r->boot_rc = boot(&(struct host_config){ .nr_cpus = STALE_CPUS,
                                             .mem_pages = STALE_MEM_PAGES });
    if ( r->boot_rc )
        return;

    for ( mfn = 1; mfn < STALE_MEM_PAGES; mfn++ )
        memset(host_mfn_to_virt(mfn), STALE_BYTE, PAGE_SIZE);
    r->size_rc = tu_set_size(STALE_PAGES);

    ti = map_t_info_head();
    r->mapped = ti != NULL;
    if ( !ti )
        return;
    /* Unused: mfn_offset[] of absent CPUs, then past the last list. */
    for ( i = offsetof(struct t_info, mfn_offset[STALE_CPUS]);
          i < PAGE_SIZE; i++ )
        if ( i < T_INFO_FIRST_OFFSET * 4 || i >= used * 4 )
            r->t_info_nonzero_bytes += ((const uint8_t *)ti)[i] != 0;
    for ( cpu = 0; cpu < STALE_CPUS; cpu++ )
        read_buffer_bytes(cpu, &r->buf_mapped[cpu], &r->meta[cpu],
                          &r->nonzero_bytes[cpu]);
}

static void test_no_stale_memory(void **state)
{
    struct stale_result r = { 0 };
    unsigned int cpu;

    (void)state;
    tu_in_fresh_host(stale_body, &r, sizeof(r));
    assert_int_equal(r.boot_rc, 0);
    assert_int_equal(r.size_rc, 0);
    assert_true(r.mapped);
    assert_int_equal(r.t_info_nonzero_bytes, 0);
    for ( cpu = 0; cpu < STALE_CPUS; cpu++ )
    {
        assert_true(r.buf_mapped[cpu]);
        assert_int_equal(r.meta[cpu].cons, 0);
        assert_int_equal(r.meta[cpu].prod, 0);
        assert_int_equal(r.nonzero_bytes[cpu], 0);
    }
}

/*
 * 5. The CPU mask
 * ===============
 */
#define MASK_CPUS  4

static const uint8_t cpu1_only[] = { 0x02 };
static const uint8_t cpu1_and_absent[] = { 0xf2 };     /* CPUs 4-7 absent */
static const uint8_t eight_cpus[] = { 0xff };

/*
 * Bits from nr_cpu_ids up are ignored.  As in Xen, only the bytes that hold
 * nr_cpu_ids bits are read, so the NR_CPUS-bit case passes just one byte
 * (and under ASan, reading more would fail).
 */
static const struct mask_case {
    const uint8_t *bitmap;
    unsigned int nr_bits;
    unsigned int tracing;       /* bit c: CPU c records */
} mask_cases[] = {
    { cpu1_only,       8,       1U << 1 },
    { cpu1_only,       0,       0 },
    { cpu1_and_absent, NR_CPUS, 1U << 1 },
    { eight_cpus,      8,       (1U << MASK_CPUS) - 1 },
};
#define NR_MASK_CASES ARRAY_SIZE(mask_cases)

struct mask_result {
    int boot_rc;
    bool mapped;
    int rc[NR_MASK_CASES];
    bool predicted[NR_MASK_CASES][MASK_CPUS];
    uint32_t bytes[NR_MASK_CASES][MASK_CPUS];
};
static void mask_body(void *result)
{
    struct mask_result *r = result;
    struct tu_buf b[MASK_CPUS];
    unsigned int i, cpu;

    r->boot_rc = boot(&(struct host_config){ .nr_cpus = MASK_CPUS,
                                             .cmdline = "tbuf_size=2" });
    if ( r->boot_rc )
        return;

    for ( cpu = 0; cpu < MASK_CPUS; cpu++ )
        if ( !map_buf(cpu, &b[cpu]) )
            return;
    r->mapped = true;

    for ( i = 0; i < NR_MASK_CASES; i++ )
    {
        r->rc[i] = tu_set_cpu_mask(mask_cases[i].bitmap,
                                   mask_cases[i].nr_bits);
        for ( cpu = 0; cpu < MASK_CPUS; cpu++ )
        {
            struct sweep s;

            r->predicted[i][cpu] = emit_as(cpu, EV_SCHED, cpu);
            sweep(&b[cpu], &s);
            r->bytes[i][cpu] = s.bytes;
        }
    }
}

static void test_cpu_mask(void **state)
{
    struct mask_result r = { 0 };
    unsigned int i, cpu;

    (void)state;
    tu_in_fresh_host(mask_body, &r, sizeof(r));
    assert_int_equal(r.boot_rc, 0);
    assert_true(r.mapped);

    for ( i = 0; i < NR_MASK_CASES; i++ )
    {
        assert_int_equal(r.rc[i], 0);
        for ( cpu = 0; cpu < MASK_CPUS; cpu++ )
        {
            bool tracing = mask_cases[i].tracing & (1U << cpu);

            if ( r.bytes[i][cpu] != (tracing ? REC_BYTES : 0) ||
                 r.predicted[i][cpu] != tracing )
                print_error("mask case %u, CPU %u\n", i, cpu);
            assert_int_equal(r.bytes[i][cpu], tracing ? REC_BYTES : 0);
            assert_int_equal(r.predicted[i][cpu], tracing);
        }
    }
}

/*
 * 6. CPU hotplug
 * ==============
 *
 * Four possible CPUs, two online at boot, two pages each.
 */
#define HP_CPUS    4
#define HP_ONLINE  2
#define HP_PAGES   2
#define HP_CMDLINE "tbuf_size=2"
#define HP_NEW_CPU 2

struct hotplug_result {
    int boot_rc;
    bool mapped;
    uint16_t offset_before, offset_after;
    int up_rc;
    bool buf_mapped;
    struct sweep swept;
};
static void hotplug_body(void *result)
{
    struct hotplug_result *r = result;
    const struct t_info *ti;
    struct tu_buf b;

    r->boot_rc = boot(&(struct host_config){ .nr_cpus = HP_CPUS,
                                             .online_cpus = HP_ONLINE,
                                             .cmdline = HP_CMDLINE });
    if ( r->boot_rc )
        return;

    ti = map_t_info_head();
    r->mapped = ti != NULL;
    if ( !ti )
        return;
    r->offset_before = ti->mfn_offset[HP_NEW_CPU];
    r->up_rc = host_cpu_up(HP_NEW_CPU);
    r->offset_after = ti->mfn_offset[HP_NEW_CPU];

    r->buf_mapped = map_buf(HP_NEW_CPU, &b);
    if ( !r->buf_mapped )
        return;
    emit_as(HP_NEW_CPU, EV_SCHED, 42);
    sweep(&b, &r->swept);
}

static void test_hotplug(void **state)
{
    struct hotplug_result r = { 0 };

    (void)state;
    tu_in_fresh_host(hotplug_body, &r, sizeof(r));
    assert_int_equal(r.boot_rc, 0);
    assert_true(r.mapped);
    assert_int_equal(r.offset_before, 0);
    assert_int_equal(r.up_rc, 0);
    assert_int_equal(r.offset_after,
                     T_INFO_FIRST_OFFSET + HP_NEW_CPU * HP_PAGES);
    assert_true(r.buf_mapped);
    assert_swept_record(&r.swept, EV_SCHED, 42);
}

#define HP_EMITTED 5

/* In: mem_pages.  Out: the rest. */
struct no_memory_result {
    unsigned long mem_pages;
    int boot_rc;
    struct xen_sysctl_tbuf_op info;
    int up_rc;
    bool mapped;
    uint16_t offset_after;
    struct trace_cpu_stats stats;
    char console[1024];
};
static void no_memory_body(void *result)
{
    struct no_memory_result *r = result;
    const struct t_info *ti;
    unsigned int i;

    r->boot_rc = boot(&(struct host_config){ .nr_cpus = HP_CPUS,
                                             .online_cpus = HP_ONLINE,
                                             .mem_pages = r->mem_pages,
                                             .cmdline = HP_CMDLINE });
    if ( r->boot_rc )
        goto out;

    get_info(&r->info);
    r->up_rc = host_cpu_up(HP_NEW_CPU);
    ti = map_t_info_head();
    r->mapped = ti != NULL;
    if ( ti )
        r->offset_after = ti->mfn_offset[HP_NEW_CPU];
    for ( i = 0; i < HP_EMITTED; i++ )
        emit_as(HP_NEW_CPU, EV_SCHED, i);
    trace_cpu_stats(HP_NEW_CPU, &r->stats);
 out:
    save_console(r->console, sizeof(r->console));
}

static unsigned long round_up_pow2(unsigned long n)
{
    unsigned long p = 1;

    while ( p < n )
        p <<= 1;
    return p;
}

static void test_hotplug_no_memory(void **state)
{
    struct no_memory_result r = { 0 };

    (void)state;
    /* MFN 0 (never handed out), t_info's block, the boot CPUs' pages. */
    r.mem_pages = 1 + round_up_pow2(t_info_pages(HP_CPUS, HP_PAGES)) +
                  HP_ONLINE * HP_PAGES;
    tu_in_fresh_host(no_memory_body, &r, sizeof(r));
    assert_int_equal(r.boot_rc, 0);
    assert_int_not_equal(r.info.buffer_mfn, 0);   /* enough for boot */

    assert_int_equal(r.up_rc, 0);
    assert_true(r.mapped);
    assert_int_equal(r.offset_after, 0);
    assert_int_equal(r.stats.unbuffered, HP_EMITTED);
    assert_int_equal(r.stats.records, 0);
    assert_int_equal(r.stats.lost, 0);
    assert_console_count(r.console, "trc#2: no memory for a trace buffer\n",
                         1);
    assert_console_count(r.console, "trc#2: no trace buffer", 1);
}

/*
 * 7. A NULL bitmap
 * ================
 */
struct null_bitmap_result {
    int boot_rc;
    int rc;
    bool mapped;
    struct sweep swept;
};
static void null_bitmap_body(void *result)
{
    struct null_bitmap_result *r = result;
    struct tu_buf b;

    r->boot_rc = boot(&(struct host_config){ .nr_cpus = 2,
                                             .cmdline = "tbuf_size=1" });
    if ( r->boot_rc )
        return;

    r->rc = tu_set_cpu_mask(NULL, 8);
    r->mapped = map_buf(0, &b);
    if ( !r->mapped )
        return;
    emit_as(0, EV_SCHED, 7);
    sweep(&b, &r->swept);
}

/* The copy faults, and the mask in force stays. */
static void test_null_bitmap(void **state)
{
    struct null_bitmap_result r = { 0 };

    (void)state;
    tu_in_fresh_host(null_bitmap_body, &r, sizeof(r));
    assert_int_equal(r.boot_rc, 0);
    assert_int_equal(r.rc, -EFAULT);
    assert_true(r.mapped);
    assert_swept_record(&r.swept, EV_SCHED, 7);
}

/* test_clamp once per row of the table, each under its own name. */
#define CLAMP_TEST(i, name) \
    { name, test_clamp, NULL, NULL, (void *)&clamp_cases[i] }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_size),
        cmocka_unit_test(test_resize),
        CLAMP_TEST(0, "test_clamp_2_cpus"),
        CLAMP_TEST(1, "test_clamp_8_cpus"),
        CLAMP_TEST(2, "test_clamp_16_cpus"),
        CLAMP_TEST(3, "test_clamp_64_cpus"),
        CLAMP_TEST(4, "test_clamp_128_cpus"),
        CLAMP_TEST(5, "test_clamp_256_cpus"),
        cmocka_unit_test(test_boot_tbuf_size),
        cmocka_unit_test(test_boot_tbuf_size_and_mask),
        cmocka_unit_test(test_boot_mask_alone),
        cmocka_unit_test(test_boot_bad_value),
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_no_stale_memory),
        cmocka_unit_test(test_cpu_mask),
        cmocka_unit_test(test_hotplug),
        cmocka_unit_test(test_hotplug_no_memory),
        cmocka_unit_test(test_null_bitmap),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
