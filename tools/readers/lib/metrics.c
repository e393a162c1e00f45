/*
 * metrics: the intervals' figures as OpenMetrics, served over HTTP
 * (metrics.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "hashtab.h"
#include "metrics.h"
#include "numbers.h"
#include "tsc.h"

#define TABLE_ROWS      4096    /* analysis.c's keys per table */
#define LABELS_MAX      160

enum family_id {
    EXITS, EXIT_SECONDS, HYPERCALLS, INJECTED, RUNSTATES, WAITS, LOST,
    TRACE_SECONDS, INTERVALS, DOMAINS, NR_FAMILIES
};

static const struct family {
    const char *name, *type, *unit, *help;
} families[NR_FAMILIES] = {
    [EXITS] = { "xen_vcpu_exits", "counter", NULL,
                "HVM exits and Arm traps, by domain and reason" },
    [EXIT_SECONDS] = { "xen_vcpu_exit_seconds", "counter", "seconds",
                       "Time Xen spent in HVM exits and Arm traps (not "
                       "a halted vCPU's)" },
    [HYPERCALLS] = { "xen_hypercalls", "counter", NULL,
                     "PV hypercalls and HVM VMCALL exits, by hypercall" },
    [INJECTED] = { "xen_interrupts_injected", "counter", NULL,
                   "Interrupts injected into the domain's vCPUs" },
    [RUNSTATES] = { "xen_runstate_seconds", "counter", "seconds",
                    "vCPU time in each runstate, summed over the domain" },
    [WAITS] = { "xen_runnable_wait_seconds", "summary", "seconds",
                "Runnable to running; quantiles of the last interval" },
    [LOST] = { "xen_lost_records", "counter", NULL,
               "Trace records Xen lost, by pCPU" },
    [TRACE_SECONDS] = { "xen_trace_seconds", "counter", "seconds",
                        "Trace time the intervals cover" },
    [INTERVALS] = { "xen_trace_intervals", "counter", NULL,
                    "Intervals added" },
    [DOMAINS] = { "xen_domain", "info", NULL,
                  "A domain's name and UUID, as the trace last told them" },
};

/*
 * One series of a family: its labels as written, and its value (a
 * summary's: p50, p99, sum, count).
 */
struct series {
    char labels[LABELS_MAX];
    double v[4];
};

struct family_series {
    struct series *s;
    unsigned int n;
    size_t cap;
    struct hashtab index;       /* labels -> index in s */
};

/* A domain's info series: its labels replaced when it is renamed. */
struct named_domain {
    uint32_t domid;
    char labels[LABELS_MAX];
};

struct metrics {
    struct family_series f[NR_FAMILIES];    /* DOMAINS's in named */
    struct named_domain *named;
    unsigned int nr_named;
    size_t cap_named;
    struct analysis_count *rows;    /* room for one table's */
};

struct metrics *metrics_new(void)
{
    struct metrics *m = calloc(1, sizeof(*m));

    if ( m && !(m->rows = calloc(TABLE_ROWS, sizeof(*m->rows))) )
    {
        free(m);
        return NULL;
    }
    return m;
}

void metrics_free(struct metrics *m)
{
    unsigned int i;

    if ( !m )
        return;
    for ( i = 0; i < NR_FAMILIES; i++ )
    {
        free(m->f[i].s);
        hashtab_free(&m->f[i].index);
    }
    free(m->named);
    free(m->rows);
    free(m);
}

static uint64_t series_hash(const void *base, unsigned int i)
{
    return hashtab_hash_string(((const struct series *)base)[i].labels);
}

static bool series_match(const void *base, unsigned int i, const void *key)
{
    return !strcmp(((const struct series *)base)[i].labels, key);
}

/* The series of @labels in family @f, added at 0 if new; NULL (ENOMEM). */
static struct series *series_of(struct metrics *m, enum family_id f,
                                const char *labels)
{
    struct family_series *fs = &m->f[f];
    unsigned int s;

    if ( hashtab_fit(&fs->index, fs->n + 1, fs->s, series_hash) )
        return NULL;
    s = hashtab_probe(&fs->index, hashtab_hash_string(labels), labels, fs->s,
                      series_match);
    if ( hashtab_index(&fs->index, s) )
        return &fs->s[hashtab_index(&fs->index, s) - 1];
    if ( array_fit(&fs->s, &fs->cap, fs->n + 1, sizeof(*fs->s)) )
        return NULL;
    fs->s[fs->n] = (struct series){ .v = { 0 } };
    snprintf(fs->s[fs->n].labels, LABELS_MAX, "%s", labels);
    hashtab_set(&fs->index, s, fs->n);
    return &fs->s[fs->n++];
}

/* A label's value as OpenMetrics quotes it: \\, \" and \n escaped. */
static void quote(char *out, size_t size, const char *value)
{
    size_t n = 0;

    for ( ; *value && n + 3 < size; value++ )
    {
        if ( *value == '\\' || *value == '"' || *value == '\n' )
            out[n++] = '\\';
        out[n++] = *value == '\n' ? 'n' : *value;
    }
    out[n] = '\0';
}

/* The series of labels domain=@dom and, if @name, @name=@value. */
static struct series *series_for(struct metrics *m, enum family_id f,
                                 const char *dom, const char *name,
                                 const char *value)
{
    char labels[LABELS_MAX], quoted[64];

    if ( name )
    {
        quote(quoted, sizeof(quoted), value);
        snprintf(labels, sizeof(labels), "%s=\"%s\",%s=\"%s\"",
                 f == LOST ? "pcpu" : "domain", dom, name, quoted);
    }
    else if ( dom )
        snprintf(labels, sizeof(labels), "%s=\"%s\"",
                 f == LOST ? "pcpu" : "domain", dom);
    else
        labels[0] = '\0';
    return series_of(m, f, labels);
}

/* Add @by to the counter of those labels; 0, or -1 (ENOMEM). */
static int add(struct metrics *m, enum family_id f, const char *dom,
               const char *name, const char *value, double by)
{
    struct series *s = series_for(m, f, dom, name, value);

    if ( !s )
        return -1;
    s->v[0] += by;
    return 0;
}

/* A table of a domain's row: its counts (and for exits, seconds). */
static int add_table(struct metrics *m, struct analysis *a,
                     const struct analysis_row *r, const char *dom,
                     enum analysis_table t, enum family_id f,
                     const char *label, uint64_t hz)
{
    uint64_t total, counted = 0;
    unsigned int n = analysis_row_table(a, r, t, m->rows, TABLE_ROWS, &total);
    unsigned int i;
    int ret = 0;

    for ( i = 0; i < n; i++ )
    {
        counted += m->rows[i].count;
        ret |= add(m, f, dom, label, m->rows[i].name, m->rows[i].count);
        if ( f == EXITS )
            ret |= add(m, EXIT_SECONDS, dom, label, m->rows[i].name,
                       tsc_seconds(analysis_count_in_xen(&m->rows[i]), hz));
    }
    /* What the analysis had no room for is counted, as "other". */
    if ( total > counted )
        ret |= add(m, f, dom, label, "other", total - counted);
    return ret;
}

/*
 * The wait's summary: the interval's quantiles (NaN if it had no wait),
 * and the count and sum of them all.
 */
static int add_waits(struct metrics *m, const struct analysis_row *r,
                     const char *dom, uint64_t hz)
{
    struct series *s = series_for(m, WAITS, dom, NULL, NULL);
    struct analysis_dist d;

    if ( !s || analysis_row_wait(r, &d) )
        return -1;
    s->v[0] = d.count ? tsc_seconds(d.p50, hz) : NAN;
    s->v[1] = d.count ? tsc_seconds(d.p99, hz) : NAN;
    s->v[2] += tsc_seconds(d.mean, hz) * d.count;
    s->v[3] += d.count;
    return 0;
}

/* Domain @dom's info series, with the name and UUID its trace tells. */
static int name_domain(struct metrics *m, const struct analysis *a,
                       uint32_t dom)
{
    const struct xt_domain_info *d = analysis_domain(a, dom);
    char labels[LABELS_MAX], quoted[2 * XT_DOMAIN_NAME_MAX + 1];
    char uuid[XT_UUID_TEXT];
    unsigned int i;

    if ( !d || !d->domain.name[0] )
        return 0;
    quote(quoted, sizeof(quoted), d->domain.name);
    snprintf(labels, sizeof(labels), "domain=\"%u\",name=\"%s\","
             "uuid=\"%s\"", dom, quoted, xt_uuid_text(d->domain.uuid, uuid));
    for ( i = 0; i < m->nr_named && m->named[i].domid != dom; i++ )
        ;
    if ( i == m->nr_named &&
         array_fit(&m->named, &m->cap_named, i + 1, sizeof(*m->named)) )
        return -1;
    m->named[i].domid = dom;
    memcpy(m->named[i].labels, labels, sizeof(labels));
    m->nr_named += i == m->nr_named;
    return 0;
}

static int add_domain(struct metrics *m, struct analysis *a,
                      const struct analysis_row *r, uint64_t hz)
{
    uint32_t dom = analysis_row_domvcpu(r) >> 16;
    char name[16];
    unsigned int st;
    int ret = 0;

    if ( dom == MODEL_DOMID_IDLE )
        snprintf(name, sizeof(name), "idle");
    else
        snprintf(name, sizeof(name), "%u", dom);
    for ( st = 0; st < MODEL_STATES; st++ )
        ret |= add(m, RUNSTATES, name, "state", model_state_name(st),
                   tsc_seconds(analysis_row_state(r, st), hz));
    ret |= add_table(m, a, r, name, ANALYSIS_EXITS, EXITS, "reason", hz);
    ret |= add_table(m, a, r, name, ANALYSIS_HYPERCALLS, HYPERCALLS,
                     "hypercall", hz);
    ret |= add_table(m, a, r, name, ANALYSIS_INJECTED, INJECTED, "vector",
                     hz);
    ret |= name_domain(m, a, dom);
    return ret | add_waits(m, r, name, hz);
}

int metrics_add(struct metrics *m, struct analysis *interval, uint64_t hz)
{
    struct analysis_rows rows;
    struct analysis_lost l;
    char cpu[16];
    unsigned int i;
    int ret = analysis_rows(interval, &rows);

    for ( i = 0; !ret && i < rows.nr_domains; i++ )
        ret = add_domain(m, interval, rows.domains[i], hz);
    analysis_rows_free(&rows);
    for ( i = 0; !ret && i < analysis_nr_pcpus(interval); i++ )
    {
        analysis_pcpu_lost(interval, i, &l);
        snprintf(cpu, sizeof(cpu), "%u", l.cpu);
        ret = add(m, LOST, cpu, NULL, NULL, l.records);
    }
    if ( !ret )
        ret = add(m, TRACE_SECONDS, NULL, NULL, NULL,
                  tsc_seconds(analysis_span(interval), hz)) |
              add(m, INTERVALS, NULL, NULL, NULL, 1);
    if ( ret )
        errno = ENOMEM;
    return ret ? -1 : 0;
}

/* A sample: the family's @name@suffix, its labels (and @more), a value. */
static void sample(FILE *f, const char *name, const char *suffix,
                   const char *labels, const char *more, double v)
{
    const char *sep = *labels && more ? "," : "";

    fprintf(f, "%s%s", name, suffix);
    if ( *labels || more )
        fprintf(f, "{%s%s%s}", labels, sep, more ? more : "");
    if ( isnan(v) )
        fprintf(f, " NaN\n");
    else
        fprintf(f, " %.17g\n", v);
}

void metrics_write(const struct metrics *m, FILE *f)
{
    unsigned int i, k;

    for ( i = 0; i < NR_FAMILIES; i++ )
    {
        const struct family *fam = &families[i];
        const struct family_series *fs = &m->f[i];

        fprintf(f, "# TYPE %s %s\n", fam->name, fam->type);
        if ( fam->unit )
            fprintf(f, "# UNIT %s %s\n", fam->name, fam->unit);
        fprintf(f, "# HELP %s %s.\n", fam->name, fam->help);
        for ( k = 0; i == DOMAINS && k < m->nr_named; k++ )
            sample(f, fam->name, "_info", m->named[k].labels, NULL, 1);
        for ( k = 0; k < fs->n; k++ )
        {
            const struct series *s = &fs->s[k];

            if ( i != WAITS )
            {
                sample(f, fam->name, "_total", s->labels, NULL, s->v[0]);
                continue;
            }
            sample(f, fam->name, "", s->labels, "quantile=\"0.5\"", s->v[0]);
            sample(f, fam->name, "", s->labels, "quantile=\"0.99\"", s->v[1]);
            sample(f, fam->name, "_sum", s->labels, NULL, s->v[2]);
            sample(f, fam->name, "_count", s->labels, NULL, s->v[3]);
        }
    }
    fprintf(f, "# EOF\n");
}

/*
 * The server
 */

#define CONTENT_TYPE "application/openmetrics-text; version=1.0.0; " \
                     "charset=utf-8"

struct metrics_server {
    struct MHD_Daemon *d;
    pthread_mutex_t lock;       /* of text and len, which the server's */
    char *text;                 /* thread reads */
    size_t len;
};

static enum MHD_Result answer(void *cls, struct MHD_Connection *c,
                              const char *url, const char *method,
                              const char *version, const char *upload,
                              size_t *upload_size, void **req)
{
    static const char not_found[] = "only /metrics is here\n";
    struct metrics_server *s = cls;
    struct MHD_Response *resp;
    enum MHD_Result ret;
    bool found = !strcmp(url, "/metrics") || !strcmp(url, "/");

    (void)version; (void)upload; (void)upload_size; (void)req;
    if ( strcmp(method, "GET") && strcmp(method, "HEAD") )
        return MHD_NO;
    pthread_mutex_lock(&s->lock);
    resp = found ? MHD_create_response_from_buffer(s->len, s->text,
                                                   MHD_RESPMEM_MUST_COPY)
                 : MHD_create_response_from_buffer(sizeof(not_found) - 1,
                                                   (void *)not_found,
                                                   MHD_RESPMEM_PERSISTENT);
    pthread_mutex_unlock(&s->lock);
    if ( !resp )
        return MHD_NO;
    if ( found )
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
                                CONTENT_TYPE);
    ret = MHD_queue_response(c, found ? MHD_HTTP_OK : MHD_HTTP_NOT_FOUND,
                             resp);
    MHD_destroy_response(resp);
    return ret;
}

/* "[ADDR:]PORT" into @sa; NULL, or why not. */
static const char *parse_where(const char *where, struct sockaddr_in *sa)
{
    const char *colon = strrchr(where, ':'), *port = colon ? colon + 1 : where;
    unsigned long long n;
    char addr[INET_ADDRSTRLEN];
    const char *why;

    *sa = (struct sockaddr_in){ .sin_family = AF_INET,
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    if ( (why = num_parse(port, 0, 65535, &n)) )
        return why[0] == 'i' ? "invalid port" : "port out of range";
    sa->sin_port = htons(n);
    if ( !colon )
        return NULL;
    if ( (size_t)(colon - where) >= sizeof(addr) )
        return "invalid address";
    memcpy(addr, where, colon - where);
    addr[colon - where] = '\0';
    if ( inet_pton(AF_INET, addr, &sa->sin_addr) != 1 )
        return "invalid address (an IPv4 address, e.g. 127.0.0.1)";
    return NULL;
}

struct metrics_server *metrics_serve(const char *where, char *why,
                                     unsigned int size)
{
    struct metrics_server *s = calloc(1, sizeof(*s));
    struct sockaddr_in sa;
    const char *bad;

    if ( !s )
    {
        snprintf(why, size, "%s", strerror(ENOMEM));
        return NULL;
    }
    if ( (bad = parse_where(where, &sa)) )
    {
        snprintf(why, size, "%s", bad);
        free(s);
        return NULL;
    }
    if ( !(s->text = strdup("# EOF\n")) )
    {
        snprintf(why, size, "%s", strerror(ENOMEM));
        free(s);
        return NULL;
    }
    s->len = strlen(s->text);
    pthread_mutex_init(&s->lock, NULL);
    errno = 0;
    s->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL,
                            answer, s, MHD_OPTION_SOCK_ADDR, &sa,
                            MHD_OPTION_END);
    if ( !s->d )
    {
        snprintf(why, size, "%s", errno ? strerror(errno)
                                        : "cannot listen there");
        pthread_mutex_destroy(&s->lock);
        free(s->text);
        free(s);
        return NULL;
    }
    return s;
}

unsigned int metrics_port(const struct metrics_server *s)
{
    const union MHD_DaemonInfo *i =
        MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);

    return i ? i->port : 0;
}

int metrics_publish(struct metrics_server *s, const struct metrics *m)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    if ( !f )
        return -1;
    metrics_write(m, f);
    if ( fclose(f) )
    {
        free(text);
        return -1;
    }
    pthread_mutex_lock(&s->lock);
    free(s->text);
    s->text = text;
    s->len = len;
    pthread_mutex_unlock(&s->lock);
    return 0;
}

void metrics_stop(struct metrics_server *s)
{
    if ( !s )
        return;
    MHD_stop_daemon(s->d);
    pthread_mutex_destroy(&s->lock);
    free(s->text);
    free(s);
}
