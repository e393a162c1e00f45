/*
 * The model's parts on their own: the sketch's percentiles keep their
 * error bound and merge; --longest's heap keeps the longest, whatever
 * the order they come in; the merge gives the scheduler's records in the
 * reader's TSC order and every CPU's records in its own order; the model
 * books a loss as lost, for the vCPU its pCPU ran and every one not
 * running, and closes an exit when its vCPU turns runnable.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "longest.h"
#include "merge.h"
#include "model.h"
#include "sketch.h"

/* ---- The longest ----------------------------------------------------- */

/* longest.c's order: longer, then earlier, then by vCPU and pCPU. */
static int by_longest(const void *pa, const void *pb)
{
    const struct longest_item *a = pa, *b = pb;

    if ( a->ticks != b->ticks )
        return a->ticks > b->ticks ? -1 : 1;
    if ( a->start != b->start )
        return a->start < b->start ? -1 : 1;
    if ( a->domvcpu != b->domvcpu )
        return a->domvcpu < b->domvcpu ? -1 : 1;
    return (a->pcpu > b->pcpu) - (a->pcpu < b->pcpu);
}

/*
 * The N longest of 5000 intervals with many equal lengths and starts,
 * fed forward and backward, are the first N of all of them sorted.
 */
static void test_longest_keeps_the_longest(void **state)
{
    enum { ITEMS = 5000 };
    static const unsigned int caps[] = { 1, 7, 100, ITEMS, ITEMS + 1 };
    static struct longest_item all[ITEMS], sorted[ITEMS];
    uint64_t x = 88172645463325252ull;
    unsigned int i, c, dir, n;

    (void)state;
    for ( i = 0; i < ITEMS; i++ )
    {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        all[i] = (struct longest_item){
            .ticks = x % 50, .start = (x >> 8) % 300,
            .domvcpu = (x >> 20) % 4, .pcpu = i, .what = i,
        };
    }
    memcpy(sorted, all, sizeof(all));
    qsort(sorted, ITEMS, sizeof(*sorted), by_longest);
    for ( c = 0; c < sizeof(caps) / sizeof(caps[0]); c++ )
        for ( dir = 0; dir < 2; dir++ )
        {
            struct longest l;
            const struct longest_item *got;

            assert_int_equal(longest_init(&l, caps[c]), 0);
            for ( i = 0; i < ITEMS; i++ )
                longest_add(&l, &all[dir ? ITEMS - 1 - i : i]);
            got = longest_sorted(&l, &n);
            assert_int_equal(n, caps[c] < ITEMS ? caps[c] : ITEMS);
            for ( i = 0; i < n; i++ )
                assert_int_equal(got[i].what, sorted[i].what);
            /* Sorted once: again, the same; and nothing is added after. */
            longest_add(&l, &sorted[0]);
            assert_ptr_equal(longest_sorted(&l, &i), got);
            assert_int_equal(i, n);
            assert_int_equal(got[0].what, sorted[0].what);
            longest_free(&l);
        }
}

/* ---- The sketch ------------------------------------------------------ */

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

static void test_sketch_error_bound(void **state)
{
    enum { N = 20000 };
    static uint64_t v[N];
    static const double qs[] = { 0.01, 0.5, 0.9, 0.99, 1 };
    struct sketch s = { 0 }, half1 = { 0 }, half2 = { 0 };
    unsigned int i, k;
    uint64_t x = 88172645463325252ull;

    (void)state;
    for ( i = 0; i < N; i++ )
    {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        v[i] = (x % 1000000) * (1 + i % 7) + i % 50;    /* 0 to ~7M */
        assert_int_equal(sketch_add(&s, v[i]), 0);
        assert_int_equal(sketch_add(i % 2 ? &half1 : &half2, v[i]), 0);
    }
    assert_int_equal(sketch_merge(&half1, &half2), 0);
    qsort(v, N, sizeof(v[0]), by_value);
    for ( k = 0; k < sizeof(qs) / sizeof(qs[0]); k++ )
    {
        uint64_t exact = v[(size_t)(qs[k] * N + 0.5) - 1];
        uint64_t got = sketch_quantile(&s, qs[k]);
        double err = exact ? (double)(got > exact ? got - exact
                                                  : exact - got) / exact : 0;

        assert_true(err <= 1.0 / (2 * SKETCH_SUB));
        /* Merged halves: the same buckets, the same answer. */
        assert_int_equal(sketch_quantile(&half1, qs[k]), got);
    }
    assert_int_equal(s.count, N);
    assert_int_equal(half1.count, N);
    assert_int_equal(half1.sum, s.sum);
    assert_int_equal(sketch_quantile(&s, 1), v[N - 1]);
    sketch_free(&s);
    sketch_free(&half1);
    sketch_free(&half2);
}

static void test_sketch_small_values_exact(void **state)
{
    struct sketch s = { 0 };
    unsigned int i;

    (void)state;
    for ( i = 0; i < SKETCH_SUB; i++ )
        assert_int_equal(sketch_add(&s, i), 0);
    assert_int_equal(sketch_quantile(&s, 0.5), SKETCH_SUB / 2 - 1);
    assert_int_equal(sketch_quantile(&s, 0), 0);
    sketch_free(&s);
    assert_int_equal(sketch_quantile(&s, 0.5), 0);
}

/* ---- Files ----------------------------------------------------------- */

struct file {
    uint32_t *w;
    size_t n, cap, batch;       /* batch: index of its CPU-change record */
};

static void put(struct file *f, uint32_t word)
{
    if ( f->n == f->cap )
    {
        f->cap = f->cap ? f->cap * 2 : 256;
        f->w = realloc(f->w, f->cap * sizeof(*f->w));
        assert_non_null(f->w);
    }
    f->w[f->n++] = word;
}

static void end_batch(struct file *f)
{
    if ( f->n )
        f->w[f->batch + 2] = (f->n - f->batch - 3) * 4;
}

static void batch(struct file *f, unsigned int cpu)
{
    end_batch(f);
    f->batch = f->n;
    put(f, 0x0001f003u | 2u << 28);     /* TRC_TRACE_CPU_CHANGE */
    put(f, cpu);
    put(f, 0);
}

/* A record with a TSC and @n extra words. */
static void rec(struct file *f, uint32_t event, uint64_t tsc, unsigned int n,
                ...)
{
    va_list ap;
    unsigned int i;

    put(f, event | n << 28 | 0x80000000u);
    put(f, tsc);
    put(f, tsc >> 32);
    va_start(ap, n);
    for ( i = 0; i < n; i++ )
        put(f, va_arg(ap, uint32_t));
    va_end(ap);
}

#define RUNSTATE(o, n)  (0x00021001u | (o) << 8 | (n) << 4)
#define CONTINUE        0x00021002u    /* TRC_SCHED_CONTINUE_RUNNING */
#define SWITCH          0x0002800au
#define VMEXIT          0x00081002u
#define VMENTRY         0x00081001u
#define LOST            0x0001f001u
#define DV(d, v)        ((uint32_t)(d) << 16 | (v))

/* ---- The merge --------------------------------------------------------- */

static bool is_sched(uint32_t event)
{
    return (event & 0x0ffff000u) == 0x00021000u ||
           (event & 0x0ffff000u) == 0x00028000u || event == LOST;
}

static const struct merge_sync sync_list[] = {
    { 0x0ffff000u, 0x00021000u }, { 0x0ffff000u, 0x00028000u },
    { 0x0fffffffu, LOST }, { 0, 0 },
};

/* Interleaved CPUs: the sync records by TSC, each CPU's in its order. */
static void test_merge_order(void **state)
{
    struct file f = { 0 };
    struct xt_reader *r;
    struct xt_iter *it;
    struct merge *g;
    struct xt_record a, b;
    uint64_t t;
    unsigned int cpu, sync_a = 0, sync_b = 0;
    uint64_t seen_a[2] = { 0 }, seen_b[2] = { 0 };
    static struct xt_record sa[64], sb[64];

    (void)state;
    for ( cpu = 0; cpu < 2; cpu++ )
    {
        batch(&f, cpu);
        for ( t = 1; t <= 20; t++ )
            rec(&f, t % 5 ? 0x00082012u : SWITCH, 10 * t + cpu, 4, cpu,
                (uint32_t)t, 0u, 0u);
    }
    end_batch(&f);
    r = xt_reader_open_mem(f.w, f.n * 4, 0);
    assert_non_null(r);
    g = merge_new(r, sync_list);
    assert_non_null(g);
    while ( merge_next(g, &a) > 0 )
    {
        /* A CPU's records come in its order: extra[1] counts up. */
        assert_true(a.extra[1] > seen_a[a.cpu]);
        seen_a[a.cpu] = a.extra[1];
        if ( is_sched(a.event) )
            sa[sync_a++] = a;
    }
    merge_free(g);
    xt_reader_close(r);
    r = xt_reader_open_mem(f.w, f.n * 4, 0);
    it = xt_iter_new(r, XT_ORDER_TSC, 0, 0);
    while ( xt_iter_next(it, &b) > 0 )
    {
        seen_b[b.cpu] = b.extra[1];
        if ( is_sched(b.event) )
            sb[sync_b++] = b;
    }
    xt_iter_free(it);
    xt_reader_close(r);
    assert_int_equal(sync_a, 8);
    assert_int_equal(sync_a, sync_b);
    assert_memory_equal(seen_a, seen_b, sizeof(seen_a));
    for ( cpu = 0; cpu < sync_a; cpu++ )
    {
        assert_int_equal(sa[cpu].tsc, sb[cpu].tsc);
        assert_int_equal(sa[cpu].cpu, sb[cpu].cpu);
    }
    free(f.w);
}

/* ---- The model -------------------------------------------------------- */

struct seen {
    uint64_t ticks[MODEL_STATES];       /* of d1v0 */
    uint64_t other_lost;                /* d2v0's lost ticks */
    unsigned int exits;
    uint64_t exit_ticks;
    uint64_t exit_halted;
    bool exit_arm;
    unsigned int losses;
    unsigned int injections;            /* Arm's injection latencies */
    uint64_t inject_ticks;
};

static void take(void *arg, const struct model_event *ev)
{
    struct seen *s = arg;

    if ( ev->type == MODEL_EV_RUNSTATE && ev->domvcpu == DV(1, 0) )
        s->ticks[ev->u.runstate.state] += ev->end - ev->start;
    if ( ev->type == MODEL_EV_RUNSTATE && ev->domvcpu == DV(2, 0) &&
         ev->u.runstate.state == MODEL_LOST )
        s->other_lost += ev->end - ev->start;
    if ( ev->type == MODEL_EV_EXIT )
    {
        s->exits++;
        s->exit_ticks = ev->end - ev->start;
        s->exit_halted = ev->u.exit.halted;
        s->exit_arm = ev->u.exit.arm;
    }
    if ( ev->type == MODEL_EV_INJECT_LATENCY )
    {
        s->injections++;
        s->inject_ticks = ev->end - ev->start;
    }
    if ( ev->type == MODEL_EV_LOST )
        s->losses++;
}

/* The model over @f's records, with @ops. */
static void run_with(struct file *f, const struct model_ops *ops, void *arg)
{
    struct xt_reader *r;
    struct model *m;

    end_batch(f);
    r = xt_reader_open_mem(f->w, f->n * 4, 0);
    assert_non_null(r);
    m = model_new(r, NULL, ops, arg);
    assert_non_null(m);
    assert_int_equal(model_run(m), 0);
    model_free(m);
    xt_reader_close(r);
}

static void run_model(struct file *f, struct seen *s)
{
    static const struct model_ops ops = { .event = take };

    memset(s, 0, sizeof(*s));
    run_with(f, &ops, s);
}

/*
 * d1v0 runs on pCPU 0 from 100; records 200 to 300 are lost there; it is
 * lost from 200 until its next change at 400.  d2v0, blocked, is lost
 * too (it might have run on pCPU 0 in the gap).  Every state sums to the
 * span, 50 to 500.
 */
static void test_loss_is_lost(void **state)
{
    struct file f = { 0 };
    struct seen s;
    uint64_t sum = 0;
    unsigned int i;

    (void)state;
    batch(&f, 0);
    rec(&f, RUNSTATE(2, 0), 50, 1, DV(2, 0));   /* d2v0 ran, */
    rec(&f, RUNSTATE(0, 2), 60, 1, DV(2, 0));   /* then blocked */
    rec(&f, SWITCH, 100, 4, 2u, 0u, 1u, 0u);
    rec(&f, RUNSTATE(1, 0), 100, 1, DV(1, 0));
    rec(&f, LOST, 300, 4, 5u, DV(1, 0), 200u, 0u);
    rec(&f, RUNSTATE(0, 2), 400, 1, DV(1, 0));
    rec(&f, 0x00081001u, 500, 0);
    run_model(&f, &s);
    assert_int_equal(s.losses, 1);
    assert_int_equal(s.ticks[MODEL_UNKNOWN], 100 - 50);
    assert_int_equal(s.ticks[MODEL_RUNNING], 200 - 100);
    assert_int_equal(s.ticks[MODEL_LOST], 400 - 200);
    assert_int_equal(s.ticks[MODEL_BLOCKED], 500 - 400);
    assert_int_equal(s.other_lost, 500 - 200);
    for ( i = 0; i < MODEL_STATES; i++ )
        sum += s.ticks[i];
    assert_int_equal(sum, 500 - 50);
    free(f.w);
}

/*
 * A vCPU preempted on pCPU 0 at 20 and found running at 80 by pCPU 1's
 * first scheduler record, a continue-running, whose records begin at 50:
 * it was switched in there before them, so it runs from 50 (xenalyze's
 * vcpu_start takes the pCPU's first TSC too), and waited from 20 to 50.
 */
static void test_continue_on_fresh_pcpu(void **state)
{
    struct file f = { 0 };
    struct seen s;

    (void)state;
    batch(&f, 0);
    rec(&f, SWITCH, 10, 4, 0x7fffu, 0u, 1u, 0u);
    rec(&f, RUNSTATE(1, 0), 10, 1, DV(1, 0));
    rec(&f, RUNSTATE(0, 1), 20, 1, DV(1, 0));   /* preempted */
    batch(&f, 1);
    rec(&f, VMENTRY, 50, 0);                    /* pCPU 1's first */
    rec(&f, CONTINUE, 80, 1, DV(1, 0));
    rec(&f, VMENTRY, 100, 0);
    run_model(&f, &s);
    assert_int_equal(s.ticks[MODEL_RUNNING], (20 - 10) + (100 - 50));
    assert_int_equal(s.ticks[MODEL_RUNNABLE], 50 - 20);
    assert_int_equal(s.ticks[MODEL_UNKNOWN], 0);
    free(f.w);
}

/*
 * An exit that blocks ends when its vCPU is woken, not at VMENTRY; its
 * time blocked is halted, not Xen's.
 */
static void test_exit_closes_at_wake(void **state)
{
    struct file f = { 0 };
    struct seen s;

    (void)state;
    batch(&f, 0);
    rec(&f, SWITCH, 10, 4, 0x7fffu, 0u, 1u, 0u);
    rec(&f, RUNSTATE(1, 0), 10, 1, DV(1, 0));
    rec(&f, VMEXIT, 20, 2, 12u, 0x1000u);       /* HLT */
    rec(&f, RUNSTATE(0, 2), 30, 1, DV(1, 0));   /* blocks */
    batch(&f, 1);
    rec(&f, RUNSTATE(2, 1), 70, 1, DV(1, 0));   /* woken on pCPU 1 */
    rec(&f, SWITCH, 90, 4, 0x7fffu, 1u, 1u, 0u);
    rec(&f, RUNSTATE(1, 0), 90, 1, DV(1, 0));
    rec(&f, VMENTRY, 95, 0);
    run_model(&f, &s);
    assert_int_equal(s.exits, 1);
    assert_int_equal(s.exit_ticks, 70 - 20);
    assert_int_equal(s.exit_halted, 70 - 30);
    free(f.w);
}

/*
 * An Arm injection's latency runs from the physical IRQ its pCPU was
 * handling (the last it took) to the vCPU's entry; an injection outside
 * an IRQ's handling has none, and a loss drops one pending.  A trap is an
 * exit to the return.
 */
static void test_arm_injection_latency(void **state)
{
    struct file f = { 0 };
    struct seen s;

    (void)state;
    batch(&f, 0);
    rec(&f, SWITCH, 10, 4, 0x7fffu, 0u, 1u, 0u);
    rec(&f, RUNSTATE(1, 0), 10, 1, DV(1, 0));
    rec(&f, TRC_ARM_IRQ, 15, 1, 30u);           /* injects nothing */
    rec(&f, TRC_ARM_IRQ, 20, 1, 27u);
    rec(&f, TRC_ARM_VIRQ_INJECT, 22, 2, DV(1, 0), 27u);
    rec(&f, TRC_ARM_RETURN, 30, 0);             /* 10 after the IRQ */
    rec(&f, TRC_ARM_VIRQ_INJECT, 40, 2, DV(1, 0), 1u);  /* in no IRQ */
    rec(&f, TRC_ARM_TRAP, 41, 4, 0x18u, 0u, 0x1000u, 0u);
    rec(&f, TRC_ARM_RETURN, 50, 0);
    rec(&f, TRC_ARM_IRQ, 60, 1, 27u);
    rec(&f, TRC_ARM_VIRQ_INJECT, 61, 2, DV(1, 0), 27u);
    rec(&f, LOST, 70, 4, 1u, DV(1, 0), 65u, 0u);
    rec(&f, RUNSTATE(1, 0), 75, 1, DV(1, 0));
    rec(&f, TRC_ARM_RETURN, 80, 0);
    run_model(&f, &s);
    assert_int_equal(s.injections, 1);
    assert_int_equal(s.inject_ticks, 30 - 20);
    assert_int_equal(s.exits, 1);
    assert_true(s.exit_arm);
    assert_int_equal(s.exit_ticks, 50 - 41);
    free(f.w);
}

/* Xen 4.19's SVM exits are named as SVM's. */
struct named {
    bool svm;
    const char *name;
};

static void take_name(void *arg, const struct model_event *ev)
{
    struct named *n = arg;

    if ( ev->type != MODEL_EV_EXIT )
        return;
    n->svm = ev->u.exit.svm;
    n->name = model_exit_name(ev->u.exit.reason, ev->u.exit.svm);
}

static void test_svm_exit_named(void **state)
{
    static const struct model_ops ops = { .event = take_name };
    struct file f = { 0 };
    struct named n = { 0 };

    (void)state;
    batch(&f, 0);
    rec(&f, SWITCH, 10, 4, 0x7fffu, 0u, 1u, 0u);
    rec(&f, TRC_HVM_SVM_EXIT | 0x100u, 20, 3, 0x72u, 0x1000u, 0u);
    rec(&f, VMENTRY, 30, 0);
    run_with(&f, &ops, &n);
    assert_true(n.svm);
    assert_string_equal(n.name, "CPUID");
    free(f.w);
}

/* The memory operations the model saw: their vCPU, domain and order. */
struct mems {
    unsigned int n;
    struct { uint32_t domvcpu, event, dom, order; } op[4];
};

static void take_mem(void *arg, const struct model_event *ev)
{
    struct mems *s = arg;

    if ( ev->type == MODEL_EV_MEM && s->n < 4 )
    {
        s->op[s->n].domvcpu = ev->domvcpu;
        s->op[s->n].event = ev->u.mem.event;
        s->op[s->n].dom = ev->u.mem.dom;
        s->op[s->n++].order = ev->u.mem.order;
    }
}

/*
 * A memory operation is the running vCPU's, for the domain its record
 * names, with its order in each Xen's layout: 4.17 packs the domain and
 * the order in one word, 4.18 gives each its own.
 */
static void test_memory_operations(void **state)
{
    static const struct model_ops ops = { .event = take_mem };
    static const uint32_t versions[] = { 4 << 16 | 17, 4 << 16 | 18 };
    unsigned int i;

    (void)state;
    for ( i = 0; i < 2; i++ )
    {
        struct file f = { 0 };
        struct mems s = { 0 };

        batch(&f, 0);
        rec(&f, TRC_XT_XEN_VERSION, 0, 1, versions[i]);
        batch(&f, 0);
        rec(&f, SWITCH, 10, 4, 0x7fffu, 0u, 0u, 1u);
        rec(&f, TRC_MEM_PAGE_GRANT_MAP, 20, 1, 3u);
        if ( i == 0 )           /* gfn, mfn, dom | order << 16, pad */
            rec(&f, TRC_MEM_POD_POPULATE, 30, 6, 0x1000u, 0u, 0x2000u, 0u,
                2u | 9u << 16, 0u);
        else                    /* gfn, mfn, dom, order */
            rec(&f, TRC_MEM_POD_POPULATE, 30, 6, 0x1000u, 0u, 0x2000u, 0u,
                2u, 9u);
        run_with(&f, &ops, &s);
        assert_int_equal(s.n, 2);
        assert_int_equal(s.op[0].domvcpu, DV(0, 1));
        assert_int_equal(s.op[0].event, TRC_MEM_PAGE_GRANT_MAP);
        assert_int_equal(s.op[0].dom, 3);
        assert_int_equal(s.op[0].order, UINT32_MAX);
        assert_int_equal(s.op[1].domvcpu, DV(0, 1));
        assert_int_equal(s.op[1].event, TRC_MEM_POD_POPULATE);
        assert_int_equal(s.op[1].dom, 2);
        assert_int_equal(s.op[1].order, 9);
        free(f.w);
    }
}

/* The times to the halt the model saw. */
struct halts {
    unsigned int n;
    struct { uint32_t vector; bool wake, alone; uint64_t start, end; } h[4];
};

static void take_halt(void *arg, const struct model_event *ev)
{
    struct halts *s = arg;

    if ( ev->type == MODEL_EV_TO_HALT && s->n < 4 )
    {
        s->h[s->n].vector = ev->u.to_halt.vector;
        s->h[s->n].wake = ev->u.to_halt.wake;
        s->h[s->n].alone = ev->u.to_halt.alone;
        s->h[s->n].start = ev->start;
        s->h[s->n++].end = ev->end;
    }
}

#define INJ_VIRQ        0x00082004u

/*
 * d1v0, HVM, is woken at 20: 0xec, injected before its entry at 40, is
 * the wake's, from 40 to the halt at 100; 0xfb, injected in an exit and
 * entered at 70, from 70; 0x30, injected just before the halt and never
 * entered, lasted nothing.  A halt with one vector alone is "alone".
 */
static void test_to_halt(void **state)
{
    static const struct model_ops ops = { .event = take_halt };
    struct file f = { 0 };
    struct halts s = { 0 };

    (void)state;
    batch(&f, 0);
    rec(&f, SWITCH, 4, 4, 0x7fffu, 0u, 1u, 0u);
    rec(&f, VMEXIT, 5, 2, 12u, 0u);         /* it is HVM */
    rec(&f, RUNSTATE(0, 2), 10, 1, DV(1, 0));
    rec(&f, RUNSTATE(2, 1), 20, 1, DV(1, 0));
    rec(&f, RUNSTATE(1, 0), 30, 1, DV(1, 0));
    rec(&f, SWITCH, 30, 4, 0x7fffu, 0u, 1u, 0u);
    rec(&f, INJ_VIRQ, 35, 2, 0xecu, 0u);
    rec(&f, VMENTRY, 40, 0);
    rec(&f, VMEXIT, 60, 2, 1u, 0u);
    rec(&f, INJ_VIRQ, 65, 2, 0xfbu, 0u);
    rec(&f, VMENTRY, 70, 0);
    rec(&f, VMEXIT, 90, 2, 12u, 0u);
    rec(&f, INJ_VIRQ, 95, 2, 0x30u, 0u);
    rec(&f, RUNSTATE(0, 2), 100, 1, DV(1, 0));
    /* Woken again: its one vector alone to the next halt. */
    rec(&f, RUNSTATE(2, 1), 110, 1, DV(1, 0));
    rec(&f, RUNSTATE(1, 0), 120, 1, DV(1, 0));
    rec(&f, INJ_VIRQ, 125, 2, 0xecu, 0u);
    rec(&f, VMENTRY, 130, 0);
    rec(&f, VMEXIT, 150, 2, 12u, 0u);
    rec(&f, RUNSTATE(0, 2), 160, 1, DV(1, 0));
    run_with(&f, &ops, &s);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.h[0].vector, 0xec);
    assert_true(s.h[0].wake && !s.h[0].alone);
    assert_int_equal(s.h[0].start, 40);
    assert_int_equal(s.h[0].end, 100);
    assert_int_equal(s.h[1].vector, 0xfb);
    assert_true(!s.h[1].wake && !s.h[1].alone);
    assert_int_equal(s.h[1].start, 70);
    assert_int_equal(s.h[2].vector, 0xec);
    assert_true(s.h[2].wake && s.h[2].alone);
    assert_int_equal(s.h[2].start, 130);
    assert_int_equal(s.h[2].end, 160);
    free(f.w);
}

/* Every reader names a reason or an op it does not know one way, as one word. */
static void test_unknown_names(void **state)
{
    char buf[32];

    (void)state;
    assert_string_equal(model_exit_label(buf, sizeof(buf), 0x30, false),
                        "EPT_VIOLATION");
    assert_string_equal(model_trap_label(buf, sizeof(buf), 0x24), "DABT");
    assert_string_equal(model_trap_label(buf, sizeof(buf), 0x2a), "ec_0x2a");
    assert_string_equal(model_exit_label(buf, sizeof(buf), 0xfff, false),
                        "exit_0xfff");
    assert_string_equal(model_hypercall_label(buf, sizeof(buf), 12),
                        "memory_op");
    assert_string_equal(model_hypercall_label(buf, sizeof(buf), 999),
                        "hypercall_999");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sketch_error_bound),
        cmocka_unit_test(test_sketch_small_values_exact),
        cmocka_unit_test(test_merge_order),
        cmocka_unit_test(test_loss_is_lost),
        cmocka_unit_test(test_continue_on_fresh_pcpu),
        cmocka_unit_test(test_exit_closes_at_wake),
        cmocka_unit_test(test_arm_injection_latency),
        cmocka_unit_test(test_svm_exit_named),
        cmocka_unit_test(test_unknown_names),
        cmocka_unit_test(test_longest_keeps_the_longest),
        cmocka_unit_test(test_memory_operations),
        cmocka_unit_test(test_to_halt),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
