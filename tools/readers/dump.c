/*
 * xentrace-dump: print a trace file, one line per record.
 *
 *   xentrace-dump [-afhrs] [-H hz] [--svm] [--xen-version x.y] [file]
 *
 * Records come in global TSC order (libxtfile's merge), or with -r in the
 * order of the file; -f follows a file being written.  A pipe is read as
 * a stream: lines come out as its batches come in.  Each line is the time
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

#include "cli.h"
#include "decimal.h"
#include "model.h"
#include "tsc.h"
#include "view.h"
#include "xtread.h"

#define OUT_BYTES   (1u << 20)
/* Room for one line: time, CPU, the record, the model's note. */
#define NOTE_MAX_BYTES  96
#define LINE_MAX_BYTES  (64 + XT_RECORD_FORMAT_MAX + NOTE_MAX_BYTES)

struct out {
    char buf[OUT_BYTES];
    size_t len;
};

struct dump {
    bool raw;                   /* -r: file order */
    bool all;                   /* -a: CPU-change and pad records too */
    bool seconds;               /* -s */
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

/* Ticks from the base as seconds: "12.000345678", "-0.000000100". */
static char *put_seconds(char *p, const struct dump *d, uint64_t tsc)
{
    bool before = tsc < d->base_tsc;
    uint64_t ticks = before ? d->base_tsc - tsc : tsc - d->base_tsc;
    uint64_t sec;
    uint32_t ns;

    tsc_split(ticks, d->hz, &sec, &ns);

    if ( before )
        *p++ = '-';
    p = put_dec(p, sec);
    *p++ = '.';
    p = put_dec9(p, ns);
    return p;
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

/* What snprintf(3) put in @room bytes, when it said @k. */
static size_t written(int k, size_t room)
{
    return k < 0 ? 0 : (size_t)k < room ? (size_t)k : room - 1;
}

/*
 * " | d1v0 IO_INSTRUCTION 1.250us": for an HVM, PV or Arm trap record the
 * vCPU its pCPU runs ("?" if not known), a name, the interval the record
 * closes; cut to NOTE_MAX_BYTES.
 */
static char *put_note(char *p, const struct dump *d,
                      const struct xt_record *rec)
{
    uint32_t class = rec->event >> 16;
    bool guest = class == TRC_HVM >> 16 || class == TRC_PV >> 16 ||
                 arm_trap_record(rec->event);
    const char *name;
    char note[NOTE_MAX_BYTES], buf[32];
    size_t n = 2;

    if ( !guest && !d->what.closes )
        return p;
    memcpy(note, " |", 2);
    if ( guest )
        n += written(snprintf(note + n, sizeof(note) - n, " %s",
                              model_vcpu_name(buf, sizeof(buf),
                                              d->what.domvcpu)),
                     sizeof(note) - n);
    if ( guest && (name = note_name(d, rec)) )
        n += written(snprintf(note + n, sizeof(note) - n, " %s", name),
                     sizeof(note) - n);
    if ( d->what.closes && d->hz )
        n += written(snprintf(note + n, sizeof(note) - n, " %.3fus",
                              tsc_seconds(d->what.ticks, d->hz) * 1e6),
                     sizeof(note) - n);
    else if ( d->what.closes )
        n += written(snprintf(note + n, sizeof(note) - n, " %" PRIu64 "cyc",
                              d->what.ticks), sizeof(note) - n);
    memcpy(p, note, n);
    return p + n;
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

static void put_line(struct out *o, struct dump *d,
                     const struct xt_record *rec)
{
    char *p = o->buf + o->len, *time_start = p;

    if ( d->seconds )
    {
        /* Right-aligned in 14 columns, as the TSC is in 16. */
        char tmp[48];
        /* No TSC yet on its CPU (the metadata): at the start. */
        uint64_t tsc = rec->tsc || rec->has_tsc ? rec->tsc : d->base_tsc;
        size_t len = put_seconds(tmp, d, tsc) - tmp;

        while ( len + (p - time_start) < 14 )
            *p++ = ' ';
        memcpy(p, tmp, len);
        p += len;
    }
    else
        p = put_tsc(p, d, rec->tsc);
    memcpy(p, " cpu", 4);
    p = put_dec(p + 4, rec->cpu);
    *p++ = rec->has_tsc ? ' ' : '*';
    *p++ = ' ';
    p += xt_record_format(rec, p, XT_RECORD_FORMAT_MAX);
    if ( d->model )
    {
        d->what = (struct model_record){ .domvcpu = MODEL_VCPU_NONE };
        if ( model_feed(d->model, rec) )
            errx(CLI_EXIT_ERROR, "%s", strerror(ENOMEM));
        p = put_note(p, d, rec);
    }
    *p++ = '\n';
    o->len = p - o->buf;
    if ( o->len > OUT_BYTES - LINE_MAX_BYTES )
        flush_out(o);
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
    char line[256];

    snprintf(line, sizeof(line), "# %u CPUs with records (%s%" PRIu32
             " possible), TSC %" PRIu64 " Hz%s\n", in->nr_cpus,
             in->has_nr_cpus ? "" : "? ", in->meta.nr_cpus, d->hz,
             d->hz_assumed ? " (assumed)" : "");
    put_text(o, line);
    snprintf(line, sizeof(line), "# %" PRIu64 " records, %" PRIu64
             " lost in %" PRIu64 " gaps\n", in->records, in->lost_records,
             in->lost_markers);
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

int main(int argc, char *argv[])
{
    enum { OPT_SVM = CLI_LONG_ONLY };
    static const struct cli_option options[] = {
        { 'a', "all", NULL, "also the CPU-change and padding records" },
        CLI_FOLLOW_OPTION,
        { 'r', "raw", NULL, "in the order of the file, not merged by TSC" },
        { 's', "seconds", NULL, "the time in seconds from the start" },
        { OPT_SVM, "svm", NULL, "exit reasons are SVM's, not VMX's" },
        CLI_XEN_VERSION_OPTION,
        { 0, NULL, NULL, NULL },
    };
    struct cli cli = {
        .options = options, .operands = "[file]", .max_operands = 1,
    };
    static struct out out;
    struct dump d = { .tsc_high = UINT64_MAX };
    const struct xt_reader_info *in;
    const char *path;
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
        case 'r':
            d.raw = true;
            break;
        case 's':
            d.seconds = true;
            break;
        case OPT_SVM:
            d.svm = true;
            break;
        }
    path = optind < argc ? argv[optind] : "-";

    r = cli_open(&cli, path, 0);
    in = xt_reader_info(r);
    d.hz = cli_tsc_hz(&cli, in, &d.hz_assumed);
    d.xen = xt_reader_xen_version(r);
    d.xen_from = cli.xen_version ? "--xen-version" :
                 in->meta.xen_version ? "the file's hypervisor" :
                 "not in the file: the default";
    d.base_tsc = cli_origin(r);
    it = xt_iter_new(r, d.raw ? XT_ORDER_FILE : XT_ORDER_TSC, 0,
                     (d.all ? XT_ITER_SPECIAL : 0) | XT_ITER_NOWAIT);
    if ( !it )
        err(CLI_EXIT_ERROR, "%s", cli_input_name(path));
    /* The model takes records in TSC order only. */
    if ( !d.raw && !(d.model = model_new(r, NULL, &note_ops, &d)) )
        err(CLI_EXIT_ERROR, "%s", cli_input_name(path));
    put_header(&out, in, &d);
    while ( (got = xt_iter_next(it, &rec)) != 0 )
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
    model_free(d.model);
    xt_iter_free(it);
    return cli_close(r, path);
}
