/*
 * crossing: from Xen's wake of a dom0 vCPU to the dom0 task its
 * interrupt woke running (crossing.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "crossing.h"
#include "sketch.h"
#include "tsc.h"

enum stage { IDLE, RUNNING, IN_IRQ };
enum { WAKE_RUN, RUN_IRQ, IRQ_TASK, TOTAL, NR_SPANS };

static const char *const span_names[NR_SPANS] = {
    "wake_to_run", "run_to_irq", "irq_to_task", "total",
};

/* A chain under way on a dom0 vCPU, or a task it woke that waits to run. */
struct chain {
    enum stage stage;
    uint64_t tsc[IRQ_TASK + 1];         /* wake, run, irq entry */
    char irq[XT_DOM0_IRQ_NAME + 1];
    uint32_t pid;                       /* the task woken; 0: none */
    char comm[XT_DOM0_COMM + 1];
};

struct row {
    char irq[XT_DOM0_IRQ_NAME + 1];
    char comm[XT_DOM0_COMM + 1];
    struct sketch span[NR_SPANS];
};

struct crossing {
    const struct xt_dom0_info *dom0;
    unsigned int lanes;
    struct chain *chain;                /* [lanes]: under way */
    struct chain *waiting;              /* [lanes]: their task woken */
    struct row *rows;                   /* the last one: "other" */
    unsigned int nr_rows;
    uint64_t dropped;                   /* chains that did not finish */
    bool failed;
};

struct crossing *crossing_new(const struct xt_reader *r)
{
    struct crossing *c = calloc(1, sizeof(*c));

    if ( !c )
        return NULL;
    c->dom0 = xt_reader_dom0(r);
    c->lanes = c->dom0->lanes;
    c->chain = calloc(c->lanes ? c->lanes : 1, sizeof(*c->chain));
    c->waiting = calloc(c->lanes ? c->lanes : 1, sizeof(*c->waiting));
    c->rows = calloc(CROSSING_ROWS, sizeof(*c->rows));
    if ( !c->chain || !c->waiting || !c->rows )
    {
        crossing_free(c);
        errno = ENOMEM;
        return NULL;
    }
    return c;
}

void crossing_free(struct crossing *c)
{
    unsigned int i, s;

    if ( !c )
        return;
    for ( i = 0; c->rows && i < c->nr_rows; i++ )
        for ( s = 0; s < NR_SPANS; s++ )
            sketch_free(&c->rows[i].span[s]);
    free(c->rows);
    free(c->chain);
    free(c->waiting);
    free(c);
}

/* A chain that stops short: counted, and the vCPU's starts afresh. */
static void drop(struct crossing *c, struct chain *ch)
{
    c->dropped += ch->stage != IDLE;
    ch->stage = IDLE;
}

/* Dom0's vCPU @domvcpu's CPU, as dom0 numbers them; -1 if not dom0's. */
static int dom0_cpu(const struct crossing *c, uint32_t domvcpu)
{
    return domvcpu != MODEL_VCPU_NONE && !(domvcpu >> 16) &&
           (domvcpu & 0xffff) < c->lanes ? (int)(domvcpu & 0xffff) : -1;
}

int crossing_event(struct crossing *c, const struct model_event *ev)
{
    struct chain *ch;
    int cpu;

    if ( ev->type != MODEL_EV_RUNSTATE || ev->goes_on ||
         (cpu = dom0_cpu(c, ev->domvcpu)) < 0 )
        return 0;
    ch = &c->chain[cpu];
    /* The summary's wait, from the wake: wake and run at once. */
    if ( model_is_wait(ev) &&
         ev->u.runstate.cause == MODEL_CAUSE_WOKEN )
    {
        drop(c, ch);
        ch->stage = RUNNING;
        ch->tsc[WAKE_RUN] = ev->start;
        ch->tsc[RUN_IRQ] = ev->end;
    }
    /* It blocked, or what it did is lost: its chain came to nothing.
       Preempted, it goes on when it runs again. */
    else if ( ev->u.runstate.state == MODEL_RUNNING &&
              (ev->u.runstate.end_by != MODEL_END_RECORD ||
               ev->u.runstate.next == MODEL_BLOCKED ||
               ev->u.runstate.next == MODEL_OFFLINE) )
        drop(c, ch);
    return c->failed ? -1 : 0;
}

/* The row of @irq and @comm, made if new; the last is the rest's. */
static struct row *row_of(struct crossing *c, const char *irq,
                          const char *comm)
{
    struct row *r;
    unsigned int i;

    for ( i = 0; i < c->nr_rows; i++ )
        if ( !strcmp(c->rows[i].irq, irq) && !strcmp(c->rows[i].comm, comm) )
            return &c->rows[i];
    if ( c->nr_rows == CROSSING_ROWS )
    {
        r = &c->rows[CROSSING_ROWS - 1];
        strcpy(r->irq, "other");
        strcpy(r->comm, "other");
        return r;
    }
    r = &c->rows[c->nr_rows++];
    strcpy(r->irq, irq);
    strcpy(r->comm, comm);
    return r;
}

/* Task @w, woken in a chain, runs at @tsc: the chain is whole. */
static void finish(struct crossing *c, struct chain *w, uint64_t tsc)
{
    struct row *r = row_of(c, w->irq, w->comm);
    const uint64_t end[NR_SPANS] = { w->tsc[RUN_IRQ], w->tsc[IRQ_TASK], tsc,
                                     tsc };
    const uint64_t from[NR_SPANS] = { w->tsc[WAKE_RUN], w->tsc[RUN_IRQ],
                                      w->tsc[IRQ_TASK], w->tsc[WAKE_RUN] };
    unsigned int s;

    for ( s = 0; s < NR_SPANS; s++ )
        if ( sketch_add(&r->span[s], end[s] - from[s]) )
            c->failed = true;
    w->stage = IDLE;
}

/* A switch on any dom0 CPU to @pid: the tasks waiting for it run. */
static void task_runs(struct crossing *c, uint32_t pid, uint64_t tsc)
{
    unsigned int i;

    for ( i = 0; i < c->lanes; i++ )
        if ( c->waiting[i].stage != IDLE && c->waiting[i].pid == pid )
            finish(c, &c->waiting[i], tsc);
}

int crossing_dom0(struct crossing *c, const struct xt_record *rec)
{
    unsigned int cpu = rec->cpu - c->dom0->first_lane;
    struct xt_dom0_event e;
    struct chain *ch;

    if ( cpu >= c->lanes || rec->event != TRC_XT_DOM0_EVENT ||
         xt_dom0_event_get(rec->extra, rec->nr_extra, &e) )
        return 0;
    ch = &c->chain[cpu];
    switch ( e.kind )
    {
    case XT_DOM0_IRQ_ENTRY:
        /* The first after the run; a later one starts no chain. */
        if ( ch->stage != RUNNING )
            break;
        ch->stage = IN_IRQ;
        ch->tsc[IRQ_TASK] = rec->tsc;
        strcpy(ch->irq, e.text);
        break;
    case XT_DOM0_WAKING:
        if ( ch->stage != IN_IRQ || !e.v[0] )
            break;
        drop(c, &c->waiting[cpu]);
        c->waiting[cpu] = *ch;
        c->waiting[cpu].pid = e.v[0];
        strcpy(c->waiting[cpu].comm, e.text);
        ch->stage = IDLE;
        break;
    case XT_DOM0_SWITCH:
        task_runs(c, e.v[1], rec->tsc);
        break;
    case XT_DOM0_LOST:
        /* What the lost events held is not known: start afresh. */
        drop(c, ch);
        drop(c, &c->waiting[cpu]);
        break;
    }
    return c->failed ? -1 : 0;
}

/*
 * Output
 * ======
 */

static int by_chains(const void *a, const void *b)
{
    uint64_t x = (*(const struct row *const *)a)->span[TOTAL].count;
    uint64_t y = (*(const struct row *const *)b)->span[TOTAL].count;

    return x < y ? 1 : x > y ? -1 : 0;
}

/* The rows, most chains first; NULL without memory. */
static const struct row **sorted(const struct crossing *c)
{
    const struct row **r = malloc((c->nr_rows ? c->nr_rows : 1) * sizeof(*r));
    unsigned int i;

    if ( !r )
        return NULL;
    for ( i = 0; i < c->nr_rows; i++ )
        r[i] = &c->rows[i];
    qsort(r, c->nr_rows, sizeof(*r), by_chains);
    return r;
}

static double us(uint64_t ticks, uint64_t hz)
{
    return tsc_seconds(ticks, hz) * 1e6;
}

void crossing_text(FILE *f, const struct crossing *c, uint64_t hz)
{
    const struct row **r;
    unsigned int i;

    if ( !c )
        return;
    fprintf(f, "\nacross to dom0: Xen wakes d0vN, runs it, dom0's CPU N takes "
            "an IRQ, the task it woke runs (us)\n%-20s %-16s %7s %9s %9s %9s "
            "%9s %9s %9s\n", "irq", "task", "chains", "wake-run", "run-irq",
            "irq-task", "p50", "p99", "max");
    if ( !(r = sorted(c)) )
        return;
    for ( i = 0; i < c->nr_rows; i++ )
    {
        const struct sketch *s = r[i]->span;

        fprintf(f, "%-20s %-16s %7" PRIu64 " %9.1f %9.1f %9.1f %9.1f %9.1f "
                "%9.1f\n", r[i]->irq, r[i]->comm, s[TOTAL].count,
                us(sketch_quantile(&s[WAKE_RUN], 0.5), hz),
                us(sketch_quantile(&s[RUN_IRQ], 0.5), hz),
                us(sketch_quantile(&s[IRQ_TASK], 0.5), hz),
                us(sketch_quantile(&s[TOTAL], 0.5), hz),
                us(sketch_quantile(&s[TOTAL], 0.99), hz),
                us(s[TOTAL].max, hz));
    }
    fprintf(f, "chains that stopped short (blocked, woken again, lost): %"
            PRIu64 "\n", c->dropped);
    free(r);
}

void crossing_json(FILE *f, const struct crossing *c, uint64_t hz)
{
    const struct row **r;
    unsigned int i, s;

    if ( !c || !(r = sorted(c)) )
    {
        fprintf(f, ",\"crossing\":null");
        return;
    }
    fprintf(f, ",\"crossing\":{\"dropped\":%" PRIu64 ",\"rows\":[",
            c->dropped);
    for ( i = 0; i < c->nr_rows; i++ )
    {
        /* Names are printable, no '"' or '\\' (xt_dom0_event_get()) */
        fprintf(f, "%s{\"irq\":\"%s\",\"task\":\"%s\",\"chains\":%" PRIu64,
                i ? "," : "", r[i]->irq, r[i]->comm, r[i]->span[TOTAL].count);
        for ( s = 0; s < NR_SPANS; s++ )
            fprintf(f, ",\"%s_us\":{\"p50\":%.3f,\"p99\":%.3f,\"max\":%.3f}",
                    span_names[s],
                    us(sketch_quantile(&r[i]->span[s], 0.5), hz),
                    us(sketch_quantile(&r[i]->span[s], 0.99), hz),
                    us(r[i]->span[s].max, hz));
        fprintf(f, "}");
    }
    fprintf(f, "]}");
    free(r);
}
