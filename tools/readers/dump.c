/*
 * xentrace-dump: print a trace file, one line per record.
 *
 *   xentrace-dump [-afhprs] [-H hz] [--svm] [--xen-version x.y]
 *                 [--domain list] [--vcpu list] [--cpu list]
 *                 [--classes list] [--event list] [--from t] [--to t] [file]
 *
 * Records come in global TSC order (libxtfile's merge), or with -r in the
 * order of the file; -f follows a file being written.  The filters are
 * the summary's and the export's, on the same clock; a record is about a
 * domain or vCPU if its fields name it or it runs on the record's pCPU.
 * A pipe is read as a stream: lines come out as its batches come in.  Each line is the time
 * (TSC, or with -s seconds from the start of the capture), the CPU, and
 * the record decoded with the event catalogue; in TSC order, then what
 * the model of the machine (model.h) adds: the vCPU running on that pCPU
 * for an HVM, PV or Arm trap record, the name of an exit reason, Arm
 * exception class or hypercall, and
 * the length of the interval the record closes.  Lines are formatted by
 * hand into a
 * large buffer written with write(2): this is the tool to read files of
 * gigabytes.  docs/man/xentrace-dump.1 describes the output.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "cli.h"
#include "decimal.h"
#include "model.h"
#include "numbers.h"
#include "relay.h"
#include "tsc.h"
#include "view.h"
#include "xtread.h"

#define OUT_BYTES   (1u << 20)
#define MAX_EVENTS  64              /* --event's list */
#define NR_VCPU_IDS 0x10000u
/* Room for one line: time, -p's pCPUs, CPU, the record, the model's note. */
#define NOTE_MAX_BYTES  96
#define STRIP_MAX       256             /* -p's pCPUs: xenalyze's MAX_CPUS */
#define LINE_MAX_BYTES  (64 + STRIP_MAX + 1 + XT_RECORD_FORMAT_MAX + \
                         NOTE_MAX_BYTES)

struct out {
    char buf[OUT_BYTES];
    size_t len;
};

struct dump {
    struct xt_reader *r;
    bool raw;                   /* -r: file order */
    bool all;                   /* -a: CPU-change and pad records too */
    bool seconds;               /* -s */
    bool strip;                 /* -p: what each pCPU runs */
    uint64_t hz;                /* TSC ticks per second, for -s */
    bool hz_assumed;            /* CLI_DEFAULT_HZ: not in the file */
    uint64_t base_tsc;          /* time 0 for -s */
    uint32_t xen;               /* whose event layouts: XT_XEN_VERSION() */
    const char *xen_from;       /* where that version comes from */
    /* The last TSC's digits above the low 8, which seldom change. */
    uint64_t tsc_high;          /* TSC / 10^8; UINT64_MAX: none yet */
    uint64_t tsc_high_text;     /* as 8 columns (dec8_word_right()) */
    bool svm;                   /* --svm: exit reasons are SVM's */
    struct model *model;        /* in TSC order; NULL with -r */
    struct model_record what;   /* what it says of the record */

    /* The filters; none given, every record is shown. */
    struct view_filter filter;  /* --domain, --cpu, --classes, --from/to */
    bool classes_given;
    uint8_t *vcpus;             /* --vcpu: bitmap by vCPU id; NULL: all */
    uint32_t events[MAX_EVENTS];        /* --event, as the catalogue's
                                           entries (events_keyed()) */
    unsigned int nr_events;
    uint64_t shown;             /* records printed, metadata aside */
    struct batch_seen *batches; /* -a: by the reader's CPU index, */
    size_t nr_batches;          /* room for so many */
};

/*
 * -a: what each CPU's batch held, told at the CPU-change record after it,
 * as xenalyze's --dump-trace-volume-on-lost-record tells each buffer read.
 */
struct batch_seen {
    bool open;                  /* a CPU-change record began one */
    uint32_t bytes;             /* as that record says */
    uint64_t records;           /* since, CPU-change records aside */
    bool has_tsc;               /* one of them carried a TSC: */
    uint64_t first_tsc, last_tsc;
};

static void flush_out(struct out *o)
{
    size_t done = 0;

    while ( done < o->len )
    {
        ssize_t n = write(STDOUT_FILENO, o->buf + done, o->len - done);

        if ( n < 0 && errno == EINTR )
            continue;
        if ( n < 0 )
            err(CLI_EXIT_ERROR, "stdout");
        done += n;
    }
    o->len = 0;
}

/* The TSC right-aligned in 16 columns, or in as many as it needs. */
static char *put_tsc(char *p, struct dump *d, uint64_t tsc)
{
    uint64_t high = tsc / DEC_1E8, low;
    uint32_t rest = tsc % DEC_1E8;

    if ( high >= DEC_1E8 )
        return put_dec(p, tsc);
    if ( high != d->tsc_high )
    {
        d->tsc_high = high;
        d->tsc_high_text = high ? dec8_word_right(high) : DEC_SPACES;
    }
    low = high ? dec8_word(rest) : dec8_word_right(rest);
    memcpy(p, &d->tsc_high_text, 8);
    memcpy(p + 8, &low, 8);
    return p + 16;
}

/* Whether @event is of an Arm guest's trap: it, its details, the return. */
static bool arm_trap_record(uint32_t event)
{
    return event == TRC_ARM_TRAP || event == TRC_ARM_TRAP_HVC ||
           event == TRC_ARM_TRAP_MMIO || event == TRC_ARM_RETURN;
}

/* The name the model's note gives @rec's exit reason or hypercall. */
static const char *note_name(const struct dump *d, const struct xt_record *rec)
{
    uint32_t ev = rec->event;

    if ( !rec->nr_extra )
        return NULL;
    if ( ev == TRC_ARM_TRAP )
        return model_trap_name(rec->extra[0]);
    if ( ev == TRC_ARM_TRAP_HVC )
        return model_hypercall_name(rec->extra[0]);
    if ( (ev >> 16) == TRC_HVM >> 16 )
    {
        ev &= ~TRC_HVM_NESTEDFLAG;
        if ( ev == TRC_HVM_VMEXIT || ev == TRC_HVM_VMEXIT64 )
            return model_exit_name(rec->extra[0], d->svm);
        if ( (ev & ~TRC_64_FLAG) == TRC_HVM_SVM_EXIT )
            return model_exit_name(rec->extra[0], true);
        if ( ev == TRC_HVM_VMMCALL )
            return model_hypercall_name(rec->extra[0]);
        return NULL;
    }
    ev &= ~TRC_64_FLAG;
    if ( ev == TRC_PV_HYPERCALL_V2 || ev == TRC_PV_HYPERCALL_SUBCALL )
        return model_hypercall_name(rec->extra[0] &
                                    ~TRC_PV_HYPERCALL_V2_ARG_MASK);
    if ( ev == TRC_PV_HYPERCALL )       /* eax after the ip */
    {
        unsigned int at = rec->event & TRC_64_FLAG ? 2 : 1;

        return rec->nr_extra > at ? model_hypercall_name(rec->extra[at])
                                  : NULL;
    }
    return NULL;
}

/*
 * " @s" at @p, if it fits before @end (the note's NOTE_MAX_BYTES); the
 * end of what is written.
 */
static char *note_add(char *p, const char *end, const char *s)
{
    size_t len = p + 1 < end ? strnlen(s, end - p - 1) : 0;

    if ( !len )
        return p;
    *p++ = ' ';
    memcpy(p, s, len);
    return p + len;
}

/*
 * The interval a record closes: "1.250us", to the nearest nanosecond, or
 * "3000cyc" where the TSC's frequency is not known.  Formatted by hand,
 * as the rest of the line: printf's floating point cost the dump a
 * quarter of its time.
 */
static const char *interval_text(char buf[48], uint64_t ticks, uint64_t hz)
{
    if ( hz )
        memcpy(tsc_put_us(buf, ticks, hz), "us", 3);
    else
        memcpy(put_dec(buf, ticks), "cyc", 4);
    return buf;
}

/*
 * " | d1v0 IO_INSTRUCTION 1.250us": for an HVM, PV or Arm trap record the
 * vCPU its pCPU runs ("?" if not known), a name, the interval the record
 * closes; cut to NOTE_MAX_BYTES.  Written in place: the line has room
 * for it (LINE_MAX_BYTES).
 */
static char *put_note(char *p, const struct dump *d,
                      const struct xt_record *rec)
{
    uint32_t class = rec->event >> 16;
    bool guest = class == TRC_HVM >> 16 || class == TRC_PV >> 16 ||
                 arm_trap_record(rec->event);
    const char *name, *end = p + NOTE_MAX_BYTES;
    char buf[48];

    if ( !guest && !d->what.closes )
        return p;
    memcpy(p, " |", 2);
    p += 2;
    if ( guest )
        p = note_add(p, end, model_vcpu_name(buf, sizeof(buf),
                                             d->what.domvcpu));
    if ( guest && (name = note_name(d, rec)) )
        p = note_add(p, end, name);
    if ( d->what.closes )
        p = note_add(p, end, interval_text(buf, d->what.ticks, d->hz));
    return p;
}

/*
 * -p: " |-2?", a column for each pCPU (the first STRIP_MAX with records,
 * dom0's lanes aside), what it does after the record: a guest's vCPU
 * runs ('|'), idle ('-', or in C-state N, N), or not known ('?').
 */
static char *put_strip(char *p, const struct dump *d)
{
    unsigned int i, n = model_nr_pcpus(d->model), shown = 0;
    struct model_pcpu pc;

    *p++ = ' ';
    for ( i = 0; i < n && shown < STRIP_MAX; i++ )
    {
        model_pcpu(d->model, i, &pc);
        if ( xt_reader_is_dom0_lane(d->r, pc.cpu) )
            continue;
        shown++;
        if ( pc.domvcpu == MODEL_VCPU_NONE )
            *p++ = '?';
        else if ( pc.domvcpu >> 16 != MODEL_DOMID_IDLE )
            *p++ = '|';
        else if ( pc.in_cstate )
            *p++ = pc.cstate < 10 ? '0' + pc.cstate : '+';
        else
            *p++ = '-';
    }
    return p;
}

static void took(void *arg, const struct xt_record *rec,
                 const struct model_record *what)
{
    struct dump *d = arg;

    (void)rec;
    d->what = *what;
}

/* The dump prints records, not the model's events. */
static void no_event(void *arg, const struct model_event *ev)
{
    (void)arg;
    (void)ev;
}

static const struct model_ops note_ops = { .event = no_event, .record = took };

/*
 * Filters
 * =======
 */

/* The catalogue's entry for @event, or the event itself if none. */
static uint32_t event_key(uint32_t event, uint32_t xen)
{
    const struct xt_event_desc *desc = xt_event_find_xen(event, xen);

    return desc ? desc->id : event & 0x0fffffffu;
}

/* --event's list: names of the catalogue or numbers, comma-separated. */
static void parse_events(struct dump *d, const char *arg)
{
    const char *p = arg, *why;

    while ( *p )
    {
        size_t n = strcspn(p, ",");
        uint32_t event;

        if ( (why = xt_event_parse(p, n, &event)) )
            errx(CLI_EXIT_ERROR, "--event %.*s: %s", (int)n, p, why);
        if ( d->nr_events == MAX_EVENTS )
            errx(CLI_EXIT_ERROR, "--event: at most %u events", MAX_EVENTS);
        d->events[d->nr_events++] = event;
        p += n + (p[n] == ',');
    }
}

/* Is @domvcpu (vcpu XT_VCPU_ANY: the domain) one --domain and --vcpu keep? */
static bool vcpu_kept(const struct dump *d, uint32_t domvcpu)
{
    uint32_t vcpu = domvcpu & 0xffffu;

    if ( domvcpu == MODEL_VCPU_NONE )
        return false;
    if ( d->filter.domains &&
         !num_list_has(d->filter.domains, domvcpu >> 16) )
        return false;
    return !d->vcpus || (vcpu != XT_VCPU_ANY && num_list_has(d->vcpus, vcpu));
}

/*
 * Is @rec about a domain and vCPU the filters keep: one its fields name,
 * or the one that runs on its pCPU (the model's word, after it)?  The
 * trace's own records (TRC_GEN: losses, metadata) are about every one.
 */
static bool about_kept_vcpu(const struct dump *d, const struct xt_record *rec)
{
    uint32_t named[XT_RECORD_VCPUS_MAX];
    unsigned int i, n;

    if ( (rec->event & XT_CLASS_ALL) == XT_CLASS_GEN )
        return true;
    n = xt_record_vcpus(rec, named);
    for ( i = 0; i < n; i++ )
        if ( vcpu_kept(d, named[i]) )
            return true;
    return vcpu_kept(d, d->what.domvcpu);
}

/* --event's, as the catalogue's entries in the layouts of @xen: once. */
static void events_keyed(struct dump *d, uint32_t xen)
{
    unsigned int i;

    for ( i = 0; i < d->nr_events; i++ )
        d->events[i] = event_key(d->events[i], xen);
}

static bool event_listed(const struct dump *d, const struct xt_record *rec)
{
    uint32_t key = event_key(rec->event, rec->xen_version);
    unsigned int i;

    for ( i = 0; i < d->nr_events; i++ )
        if ( d->events[i] == key )
            return true;
    return false;
}

/* Do the filters keep @rec? */
static bool wanted(const struct dump *d, const struct xt_record *rec)
{
    const struct view_filter *f = &d->filter;

    if ( rec->tsc < f->from || (f->to && rec->tsc >= f->to) )
        return false;
    if ( !view_cpu_wanted(f, rec->cpu) )
        return false;
    if ( d->classes_given && !view_record_wanted(f, rec) )
        return false;
    if ( d->nr_events && !event_listed(d, rec) )
        return false;
    return !(f->domains || d->vcpus) || about_kept_vcpu(d, rec);
}

/*
 * A record of dom0's lane, " dom0/cpu1  sched_switch ...": as ftrace
 * prints its event, or the catalogue's fields where it is not one
 * xentrace writes.
 */
static char *put_dom0(char *p, const struct dump *d,
                      const struct xt_record *rec)
{
    struct xt_dom0_event e;
    size_t n;

    memcpy(p, " dom0/cpu", 9);
    p = put_dec(p + 9, rec->cpu - xt_reader_dom0(d->r)->first_lane);
    *p++ = rec->has_tsc ? ' ' : '*';
    *p++ = ' ';
    if ( rec->event != TRC_XT_DOM0_EVENT ||
         xt_dom0_event_get(rec->extra, rec->nr_extra, &e) )
        return p + xt_record_format(rec, p, XT_RECORD_FORMAT_MAX);
    n = xt_dom0_text(&e, e.kind == XT_DOM0_EVENT ?
                         xt_reader_dom0_type(d->r, e.arg) : NULL,
                     p, XT_RECORD_FORMAT_MAX);
    return p + (n < XT_RECORD_FORMAT_MAX ? n : XT_RECORD_FORMAT_MAX - 1);
}

/*
 * -a: @rec into its CPU's batch; at a CPU-change record, the note on the
 * batch before it (" | before: 1204 records, 24612 bytes in 1.250us"),
 * written to @note ("" if none), and a new batch begun.
 */
static void see_batch(struct dump *d, const struct xt_record *rec,
                      char note[NOTE_MAX_BYTES])
{
    struct batch_seen *b;
    char *p = note, span[48];

    *p = '\0';
    /* A stream's CPUs come as it is read. */
    if ( array_fit(&d->batches, &d->nr_batches, rec->cpu_index + 1,
                   sizeof(*d->batches)) )
        errx(CLI_EXIT_ERROR, "%s", strerror(ENOMEM));
    b = &d->batches[rec->cpu_index];
    if ( rec->event != TRC_TRACE_CPU_CHANGE )
    {
        b->records += b->open;
        if ( b->open && rec->has_tsc )
        {
            if ( !b->has_tsc )
                b->first_tsc = rec->tsc;
            b->has_tsc = true;
            b->last_tsc = rec->tsc;
        }
        return;
    }
    if ( b->open )
    {
        memcpy(p, " | before: ", 11);
        p = put_dec(p + 11, b->records);
        memcpy(p, " records, ", 10);
        p = put_dec(p + 10, b->bytes);
        memcpy(p, " bytes", 7);
        /* Metadata carry no TSC: such a batch has no span. */
        if ( b->has_tsc )
        {
            interval_text(span, b->last_tsc - b->first_tsc, d->hz);
            memcpy(p + 6, " in ", 4);
            memcpy(p + 10, span, strlen(span) + 1);
        }
    }
    *b = (struct batch_seen){
        .open = true, .bytes = rec->nr_extra >= 2 ? rec->extra[1] : 0,
    };
}

static void put_line(struct out *o, struct dump *d,
                     const struct xt_record *rec)
{
    char *p = o->buf + o->len, *time_start = p, batch_note[NOTE_MAX_BYTES];

    if ( d->model )
    {
        d->what = (struct model_record){ .domvcpu = MODEL_VCPU_NONE };
        if ( model_feed(d->model, rec) )
            errx(CLI_EXIT_ERROR, "%s", strerror(ENOMEM));
    }
    if ( d->all )
        see_batch(d, rec, batch_note);
    if ( !wanted(d, rec) )
        return;
    d->shown += !xt_is_metadata(rec->event);
    if ( d->seconds )
    {
        /* Right-aligned in 14 columns, as the TSC is in 16. */
        char tmp[48];
        /* No TSC yet on its CPU (the metadata): at the start. */
        uint64_t tsc = rec->tsc || rec->has_tsc ? rec->tsc : d->base_tsc;
        size_t len = tsc_put_seconds(tmp, tsc, d->base_tsc, d->hz) - tmp;

        while ( len + (p - time_start) < 14 )
            *p++ = ' ';
        memcpy(p, tmp, len);
        p += len;
    }
    else
        p = put_tsc(p, d, rec->tsc);
    if ( d->strip )
        p = put_strip(p, d);
    if ( xt_reader_is_dom0_lane(d->r, rec->cpu) )
        p = put_dom0(p, d, rec);
    else
    {
        memcpy(p, " cpu", 4);
        p = put_dec(p + 4, rec->cpu);
        *p++ = rec->has_tsc ? ' ' : '*';
        *p++ = ' ';
        p += xt_record_format(rec, p, XT_RECORD_FORMAT_MAX);
    }
    if ( d->model )
        p = put_note(p, d, rec);
    if ( d->all && *batch_note )
        p = stpcpy(p, batch_note);
    *p++ = '\n';
    o->len = p - o->buf;
    if ( o->len > OUT_BYTES - LINE_MAX_BYTES )
        flush_out(o);
}

/* What a dump holds besides its reader. */
static void dump_free(struct dump *d)
{
    model_free(d->model);
    view_filter_free(&d->filter);
    free(d->vcpus);
    free(d->batches);
}

/* A file's records to their lines, read on a thread of their own. */
struct dump_run {
    struct out *out;
    struct dump *d;
};

static int take_line(void *arg, const struct xt_record *rec)
{
    struct dump_run *run = arg;

    put_line(run->out, run->d, rec);
    return 0;
}

static int next_record(void *it, struct xt_record *rec)
{
    return xt_iter_next(it, rec);
}

static void put_text(struct out *o, const char *s)
{
    size_t n = strlen(s);

    if ( o->len + n > OUT_BYTES )
        flush_out(o);
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}

/* "# ..." lines of the counts: at the start, or streamed at the end. */
static void put_counts(struct out *o, const struct xt_reader_info *in,
                       const struct dump *d)
{
    unsigned int i, lanes = 0;
    char line[256];

    for ( i = 0; i < in->nr_cpus; i++ )
        lanes += xt_reader_is_dom0_lane(d->r, xt_reader_cpu(d->r, i)->cpu);
    snprintf(line, sizeof(line), "# %u CPUs with records (%s%" PRIu32
             " possible), TSC %" PRIu64 " Hz%s\n", in->nr_cpus - lanes,
             in->has_nr_cpus ? "" : "? ", in->meta.nr_cpus, d->hz,
             d->hz_assumed ? " (assumed)" : "");
    put_text(o, line);
    snprintf(line, sizeof(line), "# %" PRIu64 " records, %" PRIu64
             " lost in %" PRIu64 " gaps\n", in->records, in->lost_records,
             in->lost_markers);
    put_text(o, line);
    if ( !lanes )
        return;
    snprintf(line, sizeof(line), "# dom0's kernel events on %u CPUs: %"
             PRIu64 ", %" PRIu64 " lost\n", lanes, in->dom0_events,
             in->dom0_lost);
    put_text(o, line);
}

/* "# ..." lines: what the file says about itself. */
static void put_header(struct out *o, const struct xt_reader_info *in,
                       const struct dump *d)
{
    char line[256];

    if ( in->has_meta )
    {
        snprintf(line, sizeof(line), "# trace format %" PRIu32
                 ", written by xentrace-ng %" PRIu32 ".%" PRIu32 ".%" PRIu32
                 "\n", in->format_version, in->tool_version[0],
                 in->tool_version[1], in->tool_version[2]);
        put_text(o, line);
    }
    if ( in->has_start )
    {
        time_t t = in->meta.start_sec;
        struct tm tm;
        char when[64] = "?";

        if ( gmtime_r(&t, &tm) )
            strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
        snprintf(line, sizeof(line), "# started %s.%09" PRIu32
                 " UTC at TSC %" PRIu64 "\n", when, in->meta.start_nsec,
                 in->meta.start_tsc);
        put_text(o, line);
    }
    snprintf(line, sizeof(line), "# event layouts of Xen %" PRIu32 ".%" PRIu32
             " (%s)\n", d->xen >> 16, d->xen & 0xffff, d->xen_from);
    put_text(o, line);
    if ( in->streamed )
        return;
    put_counts(o, in, d);
}

/* Add "--opt arg" to @text, the filters given, for a message. */
static void note_filter(char *text, size_t size, const char *opt,
                        const char *arg)
{
    size_t len = strlen(text);

    snprintf(text + len, size - len, "%s%s %s", len ? " " : "", opt, arg);
}

static void parse_vcpus(struct dump *d, const char *arg)
{
    char why[NUM_WHY_SIZE];

    if ( !d->vcpus && !(d->vcpus = calloc(NR_VCPU_IDS / 8, 1)) )
        err(CLI_EXIT_ERROR, "memory");
    if ( num_parse_list(arg, NR_VCPU_IDS - 1, "vCPUs", d->vcpus, why,
                        sizeof(why)) )
        errx(CLI_EXIT_ERROR, "--vcpu %s: %s", arg, why);
}

int main(int argc, char *argv[])
{
    enum { OPT_SVM = CLI_LONG_ONLY, OPT_DOMAIN, OPT_VCPU, OPT_CPU,
           OPT_CLASSES, OPT_EVENT };
    static const struct cli_option options[] = {
        { 'a', "all", NULL, "also the CPU-change and padding records" },
        CLI_FOLLOW_OPTION,
        { 'p', "pcpus", NULL, "a column per pCPU: | a guest runs, - idle "
          "(or its C-state), ? not known" },
        { 'r', "raw", NULL, "in the order of the file, not merged by TSC" },
        { 's', "seconds", NULL, "the time in seconds from the start" },
        { OPT_SVM, "svm", NULL, "exit reasons are SVM's, not VMX's" },
        { OPT_DOMAIN, "domain", "list",
          "only records about these domains: 0,2-3,web-01" },
        { OPT_VCPU, "vcpu", "list",
          "only records about these vCPUs (of those domains): 0,2-3" },
        { OPT_CPU, "cpu", "list", "only these pCPUs' records: 0,2-3" },
        { OPT_CLASSES, "classes", "list",
          "only these classes: gen,sched,dom0op,hvm,mem,pv,shadow,hw,guest" },
        { OPT_EVENT, "event", "list",
          "only these events: names of the catalogue, or numbers" },
        CLI_WINDOW_OPTIONS,
        CLI_XEN_VERSION_OPTION,
        CLI_THREADS_OPTION,
        { 0, NULL, NULL, NULL },
    };
    struct cli cli = {
        .options = options, .operands = "[file]", .max_operands = 1,
    };
    static struct out out;
    struct dump d = { .tsc_high = UINT64_MAX };
    struct dump_run run = { .out = &out, .d = &d };
    const struct relay_ops ops = { .take = take_line, .take_arg = &run };
    const struct xt_reader_info *in;
    const char *path, *domains[VIEW_MAX_DOMAIN_OPTIONS];
    unsigned int nr_domains = 0;
    char filters[256] = "", why[128];
    bool first = true;
    int got;
    struct xt_reader *r;
    struct xt_iter *it;
    struct xt_record rec;
    int ch;

    while ( (ch = cli_getopt(&cli, argc, argv)) != -1 )
        switch ( ch )
        {
        case 'a':
            d.all = true;
            break;
        case 'p':
            d.strip = true;
            break;
        case 'r':
            d.raw = true;
            break;
        case 's':
            d.seconds = true;
            break;
        case OPT_SVM:
            d.svm = true;
            break;
        case OPT_DOMAIN:
            if ( nr_domains == VIEW_MAX_DOMAIN_OPTIONS )
                cli_usage_error("--domain: at most %u of them",
                                VIEW_MAX_DOMAIN_OPTIONS);
            domains[nr_domains++] = optarg;     /* names need the file */
            note_filter(filters, sizeof(filters), "--domain", optarg);
            break;
        case OPT_VCPU:
            parse_vcpus(&d, optarg);
            note_filter(filters, sizeof(filters), "--vcpu", optarg);
            break;
        case OPT_CPU:
            if ( !view_parse_cpus(&d.filter, optarg, why, sizeof(why)) )
                errx(CLI_EXIT_ERROR, "--cpu %s: %s", optarg, why);
            note_filter(filters, sizeof(filters), "--cpu", optarg);
            break;
        case OPT_CLASSES:
            if ( !view_parse_classes(&d.filter, optarg, VIEW_RECORD_CLASSES,
                                     why, sizeof(why)) )
                errx(CLI_EXIT_ERROR, "%s", why);
            d.classes_given = true;
            note_filter(filters, sizeof(filters), "--classes", optarg);
            break;
        case OPT_EVENT:
            parse_events(&d, optarg);
            note_filter(filters, sizeof(filters), "--event", optarg);
            break;
        }
    if ( d.raw && (nr_domains || d.vcpus || d.strip) )
        cli_usage_error("--domain, --vcpu and -p need the records in TSC "
                        "order, not -r: what a pCPU runs is known in it");
    path = optind < argc ? argv[optind] : "-";

    r = d.r = cli_open(&cli, path, 0);
    in = xt_reader_info(r);
    d.hz = cli_tsc_hz(&cli, in, &d.hz_assumed);
    d.xen = xt_reader_xen_version(r);
    d.xen_from = cli.xen_version ? "--xen-version" :
                 in->meta.xen_version ? "the file's hypervisor" :
                 "not in the file: the default";
    d.base_tsc = cli_origin(r);
    view_parse_domain_names(&d.filter, r, domains, nr_domains);
    events_keyed(&d, d.xen);
    cli_window(&cli, r, d.hz, &d.filter.from, &d.filter.to);
    it = xt_iter_new(r, d.raw ? XT_ORDER_FILE : XT_ORDER_TSC, 0,
                     (d.all ? XT_ITER_SPECIAL : 0) | XT_ITER_NOWAIT);
    if ( !it )
        err(CLI_EXIT_ERROR, "%s", cli_input_name(path));
    /* The model takes records in TSC order only. */
    if ( !d.raw && !(d.model = model_new(r, NULL, &note_ops, &d)) )
        err(CLI_EXIT_ERROR, "%s", cli_input_name(path));
    put_header(&out, in, &d);
    if ( !in->streamed &&
         relay_run(r, next_record, it, cli.threads, &ops) )
        err(CLI_EXIT_ERROR, "%s", cli_input_name(path));
    /* A stream's records, as they come: its pauses flush the lines. */
    while ( in->streamed && (got = xt_iter_next(it, &rec)) != 0 )
    {
        if ( got < 0 && errno == EAGAIN )
        {
            /* The input pauses: what came so far goes out now. */
            flush_out(&out);
            continue;
        }
        if ( got < 0 )
            err(CLI_EXIT_ERROR, "%s", cli_input_name(path));
        if ( first && in->streamed && !in->has_start && !d.base_tsc )
            d.base_tsc = rec.tsc;
        first = false;
        put_line(&out, &d, &rec);
    }
    if ( in->streamed )
        put_counts(&out, in, &d);
    flush_out(&out);
    if ( *filters && !d.shown )
        warnx("%s: no record matches: nothing to show", filters);
    xt_iter_free(it);
    dump_free(&d);
    return cli_close(r, path);
}
