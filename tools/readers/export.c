/*
 * xentrace-export: a trace file in formats other tools read.
 *
 *   xentrace-export [-h] [-H hz] [--ctf dir] [--perfetto file] [--json file]
 *                   [--records] [--domain list] [--cpu list] [--from s]
 *                   [--to s] [--classes list] [--xen-version x.y] [trace]
 *
 * --ctf writes a CTF 1.8 trace (babeltrace2, Trace Compass): a TSDL
 * "metadata" file and one stream file per CPU, each a single packet, every
 * record an event.  --perfetto writes Perfetto's native trace (perfetto.c)
 * and --json Chrome's trace-event JSON with the same structure: the
 * machine as the model (model.h) rebuilds it, vCPUs on pCPUs, their
 * exits, hypercalls and losses; the filters (view.h) cut those two, and
 * --records adds every record to the JSON as an instant.  See
 * xentrace-export(1).
 */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "model.h"
#include "perfetto.h"
#include "tsc.h"
#include "view.h"
#include "xtread.h"

#define CTF_MAGIC       0xc1fc1fc1u
#define CTF_HEADER      44              /* packet header and context */
#define MAX_CLASSES     (1u << 15)

static const char *prog_input;      /* the trace, for messages */

/*
 * CTF event classes: one per distinct event and payload length, numbered
 * as first met; a class's key is the event | words << 28.
 */
#define CLASS_KEY(event, words) ((event) | (uint32_t)(words) << 28)
#define KEY_EVENT(key)          ((key) & 0x0fffffffu)
#define KEY_WORDS(key)          ((key) >> 28)
static struct view_set classes;     /* their keys, by class */

/* Whose event layouts and names the file has (xt_reader_xen_version()). */
static uint32_t xen_version;

static const char *event_name(uint32_t id)
{
    const struct xt_event_desc *d = xt_event_find_xen(id, xen_version);

    return d ? d->name : NULL;
}

/*
 * CTF
 * ===
 */

static unsigned int class_of(uint32_t key)
{
    bool added;
    int32_t c = view_set_add(&classes, key, &added);

    if ( c < 0 )
        err(1, "malloc");
    if ( added && c == MAX_CLASSES )
        errx(1, "%s: more than %u distinct events", prog_input,
             MAX_CLASSES);
    return c;
}

struct le_buf {
    uint8_t b[1024];
    unsigned int n;
};

static void put8(struct le_buf *p, uint8_t v)
{
    p->b[p->n++] = v;
}

static void put32(struct le_buf *p, uint32_t v)
{
    put8(p, v);
    put8(p, v >> 8);
    put8(p, v >> 16);
    put8(p, v >> 24);
}

static void put64(struct le_buf *p, uint64_t v)
{
    put32(p, v);
    put32(p, v >> 32);
}

/* A string, NUL-terminated, of at most @max bytes before the NUL. */
static void put_string(struct le_buf *p, const char *s, size_t max)
{
    size_t n = strnlen(s, max);

    memcpy(p->b + p->n, s, n);
    p->n += n;
    put8(p, 0);
}

/*
 * A stream file: one packet, its header and context written last, once
 * the sizes are known.  Timestamps must not go back in a stream: an event
 * whose TSC does (a host whose TSC stepped) takes its predecessor's.
 */
struct ctf_out {
    FILE *f;
    char path[4096];
    uint64_t bytes, first, last;
    bool any;
};

static void ctf_header(struct ctf_out *o, uint32_t stream_id, uint32_t cpu)
{
    struct le_buf p = { .n = 0 };

    put32(&p, CTF_MAGIC);
    put32(&p, stream_id);
    put64(&p, o->first);
    put64(&p, o->last);
    put64(&p, o->bytes * 8);    /* content_size, bits */
    put64(&p, o->bytes * 8);    /* packet_size */
    put32(&p, cpu);
    if ( fseek(o->f, 0, SEEK_SET) || fwrite(p.b, p.n, 1, o->f) != 1 )
        err(1, "%s", o->path);
}

static void ctf_open(struct ctf_out *o, const char *dir, const char *name,
                     uint32_t cpu)
{
    *o = (struct ctf_out){ .bytes = CTF_HEADER };
    snprintf(o->path, sizeof(o->path), "%s/%s%u", dir, name, cpu);
    if ( !(o->f = fopen(o->path, "w")) )
        err(1, "%s", o->path);
    ctf_header(o, 0, 0);
}

/* Event class @id at @tsc, its fields @p.  */
static void ctf_event(struct ctf_out *o, uint32_t id, uint64_t tsc,
                      const struct le_buf *p)
{
    struct le_buf h = { .n = 0 };
    uint64_t ts = o->any && tsc < o->last ? o->last : tsc;

    if ( !o->any )
        o->first = ts;
    o->any = true;
    o->last = ts;
    put32(&h, id);
    put64(&h, ts);
    if ( fwrite(h.b, h.n, 1, o->f) != 1 || fwrite(p->b, p->n, 1, o->f) != 1 )
        err(1, "%s", o->path);
    o->bytes += h.n + p->n;
}

static void ctf_close(struct ctf_out *o, uint32_t stream_id, uint32_t cpu)
{
    ctf_header(o, stream_id, cpu);
    if ( fclose(o->f) )
        err(1, "%s", o->path);
}

/*
 * One CPU's stream (stream class 0): its records in file order, each an
 * event of its class, {event, has_tsc, words...}.  One before any TSC on
 * its CPU (the metadata) is at @origin, as in xentrace-dump -s.
 */
static void ctf_stream(struct xt_reader *r, const char *dir, unsigned int cpu,
                       uint64_t origin)
{
    struct xt_iter *it = xt_iter_new(r, XT_ORDER_CPU, cpu, 0);
    struct xt_record rec;
    struct ctf_out o;
    unsigned int i;

    if ( !it )
        errx(1, "%s: %s", prog_input, xt_reader_strerror(errno));
    ctf_open(&o, dir, "stream_", cpu);
    while ( xt_iter_next(it, &rec) > 0 )
    {
        struct le_buf p = { .n = 0 };

        put32(&p, rec.event);
        put8(&p, rec.has_tsc);
        for ( i = 0; i < rec.nr_extra; i++ )
            put32(&p, rec.extra[i]);
        ctf_event(&o, class_of(CLASS_KEY(rec.event, rec.nr_extra)),
                  rec.tsc || rec.has_tsc ? rec.tsc : origin, &p);
    }
    xt_iter_free(it);
    ctf_close(&o, 0, cpu);
}

/*
 * dom0's events (xentrace --dom0), stream class 1: an event class per
 * kind, id the kind (xtfile.h, "Dom0's kernel events"), named
 * "dom0:sched_switch" and so on; generic events by their type's names.
 */
static const char *const dom0_fields[XT_DOM0_KINDS] = {
    [XT_DOM0_SWITCH] = "uint32_t prev_pid; uint32_t prev_state; "
                       "uint32_t next_pid; string next_comm;",
    [XT_DOM0_WAKING] = "uint32_t pid; uint32_t target_cpu; string comm;",
    [XT_DOM0_IRQ_ENTRY] = "uint32_t irq; string name;",
    [XT_DOM0_IRQ_EXIT] = "uint32_t irq; uint32_t ret;",
    [XT_DOM0_SOFTIRQ_ENTRY] = "uint32_t vec;",
    [XT_DOM0_SOFTIRQ_EXIT] = "uint32_t vec;",
    [XT_DOM0_EVENT] = "string name; string field_names; uint8_t nr; "
                      "uint32_t values[nr];",
    [XT_DOM0_LOST] = "uint64_t count;",
};

/* @e's fields, as dom0_fields[] lays them out. */
static void put_dom0(struct le_buf *p, const struct xt_reader *r,
                     const struct xt_dom0_event *e)
{
    const struct xt_dom0_type *t = xt_reader_dom0_type(r, e->arg);
    char fields[XT_DOM0_FIELDS * (XT_DOM0_NAME_MAX + 1) + 1] = "";
    unsigned int i;

    switch ( e->kind )
    {
    case XT_DOM0_SWITCH:
        put32(p, e->v[0]);
        put32(p, e->arg);
        put32(p, e->v[1]);
        put_string(p, e->text, XT_DOM0_COMM);
        break;
    case XT_DOM0_WAKING:
        put32(p, e->v[0]);
        put32(p, e->arg);
        put_string(p, e->text, XT_DOM0_COMM);
        break;
    case XT_DOM0_IRQ_ENTRY:
        put32(p, e->v[0]);
        put_string(p, e->text, XT_DOM0_IRQ_NAME);
        break;
    case XT_DOM0_IRQ_EXIT:
        put32(p, e->v[0]);
        put32(p, e->arg);
        break;
    case XT_DOM0_EVENT:
        put_string(p, t ? t->name : "", XT_DOM0_NAME_MAX);
        for ( i = 0; t && i < e->nr; i++ )
            snprintf(fields + strlen(fields), sizeof(fields) - strlen(fields),
                     "%s%s", i ? "," : "", t->field[i]);
        put_string(p, fields, sizeof(fields) - 1);
        put8(p, e->nr);
        for ( i = 0; i < e->nr; i++ )
            put32(p, e->v[i]);
        break;
    case XT_DOM0_LOST:
        put64(p, e->v[0] | (uint64_t)e->v[1] << 32);
        break;
    default:                    /* softirqs */
        put32(p, e->arg);
    }
}

/* dom0's CPU @lane's stream, of the file's CPU @cpu: its events. */
static void ctf_dom0_stream(struct xt_reader *r, const char *dir,
                            unsigned int cpu, unsigned int lane)
{
    struct xt_iter *it = xt_iter_new(r, XT_ORDER_CPU, cpu, 0);
    struct xt_dom0_event e;
    struct xt_record rec;
    struct ctf_out o;

    if ( !it )
        errx(1, "%s: %s", prog_input, xt_reader_strerror(errno));
    ctf_open(&o, dir, "dom0_stream_", lane);
    while ( xt_iter_next(it, &rec) > 0 )
    {
        struct le_buf p = { .n = 0 };

        /* Its pairs are the summary's; an event not of ours, left out. */
        if ( rec.event != TRC_XT_DOM0_EVENT ||
             xt_dom0_event_get(rec.extra, rec.nr_extra, &e) )
            continue;
        put_dom0(&p, r, &e);
        ctf_event(&o, e.kind, rec.tsc, &p);
    }
    xt_iter_free(it);
    ctf_close(&o, 1, lane);
}

static void ctf_clock(FILE *f, const struct xt_reader_info *info, uint64_t hz)
{
    unsigned __int128 wall = 0;         /* ticks from the epoch to TSC 0 */
    uint64_t offset_s, offset;

    /* Wall-clock time of TSC 0, from the capture's start. */
    if ( info->has_start && info->meta.start_sec >= 0 )
    {
        wall = (unsigned __int128)info->meta.start_sec * hz +
               tsc_from_ns(info->meta.start_nsec, hz);
        wall = wall > info->meta.start_tsc ? wall - info->meta.start_tsc : 0;
    }
    offset_s = wall / hz;
    offset = wall % hz;
    fprintf(f,
            "clock {\n"
            "\tname = tsc;\n"
            "\tdescription = \"the TSC of the host that Xen ran on\";\n"
            "\tfreq = %" PRIu64 ";\n"
            "\toffset_s = %" PRIu64 ";\n"
            "\toffset = %" PRIu64 ";\n"
            "\tabsolute = %s;\n"
            "};\n\n", hz, offset_s, offset, info->has_start ? "true" : "false");
}

/* The CTF type of a catalogue field of @kind. */
static const char *ctf_type(enum xt_field_kind kind)
{
    switch ( kind )
    {
    case XT_FIELD_U32:      return "uint32_t";
    case XT_FIELD_X32:      return "x32_t";
    case XT_FIELD_S32:      return "int32_t";
    case XT_FIELD_U64:      return "uint64_t";
    case XT_FIELD_X64:      return "x64_t";
    /* The word's halves, low first (little-endian). */
    case XT_FIELD_DOMVCPU:  return "struct { uint16_t vcpu; uint16_t dom; }";
    case XT_FIELD_VCPUDOM:  return "struct { uint16_t dom; uint16_t vcpu; }";
    case XT_FIELD_TEXT20:   return "utf8_t";    /* XT_TEXT_FIELD of them */
    }
    return "x32_t";
}

/*
 * Class @c, of records of event @key's words: a field per catalogue field,
 * the words past them as data[]; an event the catalogue lacks, or a
 * record too short for its fields, all as data[].
 */
static void ctf_event_class(FILE *f, unsigned int c, uint32_t key)
{
    const struct xt_event_desc *d = xt_event_find(KEY_EVENT(key));
    unsigned int i, words = KEY_WORDS(key), raw = words;

    fprintf(f, "event {\n\tstream_id = 0;\n\tid = %u;\n", c);
    if ( d )
        fprintf(f, "\tname = \"%s\";\n", d->name);
    else
        fprintf(f, "\tname = \"event_0x%08" PRIx32 "\";\n", KEY_EVENT(key));
    fprintf(f, "\tfields := struct {\n"
               "\t\tx32_t xen_event;\n"
               "\t\tuint8_t has_tsc;\n");
    if ( d && words >= d->words )
    {
        for ( i = 0; i < d->nr_fields; i++ )
            if ( d->fields[i].kind == XT_FIELD_TEXT20 )
                fprintf(f, "\t\t%s %s[%u];\n", ctf_type(d->fields[i].kind),
                        d->fields[i].name, XT_TEXT_FIELD);
            else
                fprintf(f, "\t\t%s %s;\n", ctf_type(d->fields[i].kind),
                        d->fields[i].name);
        raw = words - d->words;
    }
    if ( raw )
        fprintf(f, "\t\tx32_t data[%u];\n", raw);
    fprintf(f, "\t};\n};\n\n");
}

/* Stream class 1, dom0's CPUs (cpu_id: dom0's), and its event classes. */
static void ctf_dom0_classes(FILE *f)
{
    unsigned int k;

    fprintf(f, "stream {\n"
               "\tid = 1;\n"
               "\tpacket.context := packet_context_t;\n"
               "\tevent.header := struct { uint32_t id; tsc_t timestamp; };\n"
               "};\n\n");
    for ( k = 1; k < XT_DOM0_KINDS; k++ )
        fprintf(f, "event {\n\tstream_id = 1;\n\tid = %u;\n"
                "\tname = \"dom0:%s\";\n\tfields := struct { %s };\n};\n\n",
                k, xt_dom0_kind_name(k), dom0_fields[k]);
}

static void ctf_metadata(const char *dir, const struct xt_reader_info *info,
                         uint64_t hz, bool dom0)
{
    char path[4096];
    unsigned int c;
    FILE *f;

    snprintf(path, sizeof(path), "%s/metadata", dir);
    f = fopen(path, "w");
    if ( !f )
        err(1, "%s", path);
    fprintf(f,
            "/* CTF 1.8 */\n\n"
            "typealias integer { size = 8; align = 8; signed = false; } "
            ":= uint8_t;\n"
            "typealias integer { size = 32; align = 8; signed = false; } "
            ":= uint32_t;\n"
            "typealias integer { size = 32; align = 8; signed = false; "
            "base = hex; } := x32_t;\n"
            "typealias integer { size = 64; align = 8; signed = false; } "
            ":= uint64_t;\n"
            "typealias integer { size = 16; align = 8; signed = false; } "
            ":= uint16_t;\n"
            "typealias integer { size = 32; align = 8; signed = true; } "
            ":= int32_t;\n"
            "typealias integer { size = 64; align = 8; signed = false; "
            "base = hex; } := x64_t;\n"
            "typealias integer { size = 8; align = 8; signed = false; "
            "encoding = UTF8; } := utf8_t;\n\n"
            "trace {\n"
            "\tmajor = 1;\n"
            "\tminor = 8;\n"
            "\tbyte_order = le;\n"
            "\tpacket.header := struct { uint32_t magic; "
            "uint32_t stream_id; };\n"
            "};\n\n"
            "env {\n"
            "\tdomain = \"xen\";\n"
            "\ttracer_name = \"xentrace-ng\";\n"
            "};\n\n");
    ctf_clock(f, info, hz);
    fprintf(f,
            "typealias integer { size = 64; align = 8; signed = false; "
            "map = clock.tsc.value; } := tsc_t;\n\n"
            "typealias struct {\n"
            "\ttsc_t timestamp_begin;\n"
            "\ttsc_t timestamp_end;\n"
            "\tuint64_t content_size;\n"
            "\tuint64_t packet_size;\n"
            "\tuint32_t cpu_id;\n"
            "} := packet_context_t;\n\n"
            "stream {\n"
            "\tid = 0;\n"
            "\tpacket.context := packet_context_t;\n"
            "\tevent.header := struct { uint32_t id; tsc_t timestamp; };\n"
            "};\n\n");
    for ( c = 0; c < classes.nr; c++ )
        ctf_event_class(f, c, classes.keys[c]);
    if ( dom0 )
        ctf_dom0_classes(f);
    if ( fclose(f) )
        err(1, "%s", path);
}

/*
 * Whether @name is a file of a CTF export: "metadata", "stream_N" or
 * "dom0_stream_N".
 */
static bool ctf_file(const char *name)
{
    if ( !strcmp(name, "metadata") )
        return true;
    if ( !strncmp(name, "dom0_", 5) )
        name += 5;
    if ( strncmp(name, "stream_", 7) )
        return false;
    name += 7;
    return *name && strspn(name, "0123456789") == strlen(name);
}

/*
 * @dir for a CTF export: made, or emptied of an older export's files,
 * whose streams of CPUs this one lacks would otherwise stay beside it
 * (and babeltrace2 read them as part of it).  A directory that holds
 * anything else is not ours to empty: refused.
 */
static void make_ctf_dir(const char *dir)
{
    struct dirent *e;
    char path[4096];
    DIR *d;

    if ( !mkdir(dir, 0755) )
        return;
    if ( errno != EEXIST || !(d = opendir(dir)) )
        err(1, "%s", dir);
    while ( (errno = 0, e = readdir(d)) )
        if ( strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
             !ctf_file(e->d_name) )
            errx(1, "%s: holds %s, which is not a CTF export's: not "
                 "writing into it", dir, e->d_name);
    if ( errno )
        err(1, "%s", dir);
    rewinddir(d);
    while ( (e = readdir(d)) )
        if ( ctf_file(e->d_name) )
        {
            snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
            if ( unlink(path) )
                err(1, "%s", path);
        }
    closedir(d);
}

static void export_ctf(struct xt_reader *r, const char *dir, uint64_t hz)
{
    const struct xt_reader_info *info = xt_reader_info(r);
    const struct xt_dom0_info *dom0 = xt_reader_dom0(r);
    unsigned int i;

    make_ctf_dir(dir);
    for ( i = 0; i < info->nr_cpus; i++ )
    {
        unsigned int cpu = xt_reader_cpu(r, i)->cpu;

        if ( xt_reader_is_dom0_lane(r, cpu) )
            ctf_dom0_stream(r, dir, cpu, cpu - dom0->first_lane);
        else
            ctf_stream(r, dir, cpu, cli_origin(r));
    }
    ctf_metadata(dir, info, hz, dom0->lanes);
    view_set_free(&classes);
}

/*
 * Chrome trace-event JSON
 * =======================
 *
 * The Perfetto export's structure (perfetto.c), in what Chrome's format
 * can say: a process per domain and a thread per vCPU (view.h's pids and
 * tids) with its exits as slices and its hypercalls, PV events and
 * injections as instants; Xen's process with a thread per pCPU and the
 * vCPUs' runs on it as slices, its losses and interrupts; a C-state
 * counter per pCPU.  Times in microseconds from cli_origin().
 */

struct json_out {
    FILE *f;
    const struct view_filter *filter;
    const struct xt_reader *reader;     /* the domains' names */
    uint64_t hz;
    uint64_t origin;
    struct view_set domains, vcpus, pcpus;  /* declared */
    bool failed;                    /* out of memory */
};

static double json_us(const struct json_out *j, uint64_t tsc)
{
    return tsc >= j->origin ? tsc_us(tsc - j->origin, j->hz)
                            : -tsc_us(j->origin - tsc, j->hz);
}

static void json_meta(struct json_out *j, uint32_t pid, uint32_t tid,
                      const char *what, const char *name)
{
    fprintf(j->f, ",\n{\"ph\":\"M\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
            ",\"name\":\"%s\",\"args\":{\"name\":", pid, tid, what);
    cli_json_string(j->f, name);
    fprintf(j->f, "}}");
}

/* The thread an event goes on, declared if new: a vCPU's, or a pCPU's. */
static bool json_thread(struct json_out *j, uint32_t domvcpu, uint32_t pcpu,
                        uint32_t *pid, uint32_t *tid)
{
    char name[MODEL_NAME_MAX];
    bool added;

    if ( domvcpu != MODEL_VCPU_NONE && domvcpu >> 16 != MODEL_DOMID_IDLE )
    {
        *pid = view_pid(domvcpu);
        *tid = view_tid(domvcpu);
        if ( view_set_add(&j->vcpus, domvcpu, &added) < 0 )
            j->failed = true;
        if ( added )
        {
            model_domain_name(name, sizeof(name), j->reader, domvcpu >> 16);
            if ( view_set_add(&j->domains, domvcpu >> 16, &added) < 0 )
                j->failed = true;
            if ( added )
                json_meta(j, *pid, *pid, "process_name", name);
            json_meta(j, *pid, *tid, "thread_name",
                      model_vcpu_name(name, sizeof(name), domvcpu));
        }
        return true;
    }
    if ( pcpu == MODEL_CPU_NONE )
        return false;
    *pid = VIEW_XEN_PID;
    *tid = pcpu;
    if ( view_set_add(&j->pcpus, pcpu, &added) < 0 )
        j->failed = true;
    if ( added )
    {
        snprintf(name, sizeof(name), "pCPU %u", pcpu);
        json_meta(j, *pid, *tid, "thread_name", name);
        fprintf(j->f, ",\n{\"ph\":\"M\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
                ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":"
                "%" PRIu32 "}}", *pid, *tid, pcpu);
    }
    return true;
}

/* An event's head: {"ph":..,"cat":..,"pid":..,"tid":..,"ts":..,"name":.. */
static bool json_head(struct json_out *j, const char *ph, const char *cat,
                      uint32_t domvcpu, uint32_t pcpu, uint64_t tsc,
                      const char *name)
{
    uint32_t pid, tid;

    if ( !json_thread(j, domvcpu, pcpu, &pid, &tid) )
        return false;
    fprintf(j->f, ",\n{\"ph\":\"%s\",\"cat\":\"%s\",\"pid\":%" PRIu32
            ",\"tid\":%" PRIu32 ",\"ts\":%.3f,\"name\":", ph, cat, pid, tid,
            json_us(j, tsc));
    cli_json_string(j->f, name);
    if ( *ph == 'i' )
        fprintf(j->f, ",\"s\":\"t\"");
    return true;
}

/* A slice's head and duration: false if it has no thread to go on. */
static bool json_slice(struct json_out *j, const char *cat, uint32_t domvcpu,
                       const struct model_event *ev, const char *name)
{
    if ( !json_head(j, "X", cat, domvcpu, ev->pcpu, ev->start, name) )
        return false;
    fprintf(j->f, ",\"dur\":%.3f", json_us(j, ev->end) - json_us(j, ev->start));
    return true;
}

/* Field @fl of the words at @w, as a JSON value: numbers, hex as text. */
static void json_field(FILE *f, const struct xt_field *fl, const uint32_t *w)
{
    uint64_t v64 = xt_field_words(fl->kind) == 2 ?
                   w[0] | (uint64_t)w[1] << 32 : 0;
    char text[XT_TEXT_FIELD + 1] = "";

    fprintf(f, "\"%s\":", fl->name);
    switch ( fl->kind )
    {
    case XT_FIELD_U32:
        fprintf(f, "%" PRIu32, w[0]);
        break;
    case XT_FIELD_S32:
        fprintf(f, "%" PRId32, (int32_t)w[0]);
        break;
    case XT_FIELD_U64:
        fprintf(f, "%" PRIu64, v64);
        break;
    case XT_FIELD_X64:
        fprintf(f, "\"0x%" PRIx64 "\"", v64);
        break;
    case XT_FIELD_DOMVCPU:
        fprintf(f, "\"d%" PRIu32 "v%" PRIu32 "\"", w[0] >> 16, w[0] & 0xffff);
        break;
    case XT_FIELD_VCPUDOM:
        fprintf(f, "\"d%" PRIu32 "v%" PRIu32 "\"", w[0] & 0xffff, w[0] >> 16);
        break;
    case XT_FIELD_TEXT20:
        memcpy(text, w, XT_TEXT_FIELD);
        xt_text_printable(text);
        fprintf(f, "\"%s\"", text);
        break;
    case XT_FIELD_X32:
    default:
        fprintf(f, "\"0x%" PRIx32 "\"", w[0]);
        break;
    }
}

/*
 * A record's payload as "args": a member per catalogue field, and the
 * words past them (or all of an event the catalogue lacks, or of a record
 * too short for its fields) as "data".
 */
static void json_args(FILE *f, const struct xt_record *rec)
{
    const struct xt_event_desc *d = xt_event_find(rec->event);
    unsigned int i, word = 0, n = rec->nr_extra;
    const char *sep = "";

    fputs(",\"args\":{", f);
    if ( d && n >= d->words )
    {
        for ( i = 0; i < d->nr_fields; i++ )
        {
            fputs(sep, f);
            json_field(f, &d->fields[i], rec->extra + word);
            word += xt_field_words(d->fields[i].kind);
            sep = ",";
        }
    }
    if ( word < n )
    {
        fprintf(f, "%s\"data\":[", sep);
        for ( i = word; i < n; i++ )
            fprintf(f, "%s\"0x%" PRIx32 "\"", i > word ? "," : "",
                    rec->extra[i]);
        fputc(']', f);
    }
    fputc('}', f);
}

/*
 * With --records, a record as an instant on its pCPU's thread, named by
 * its event, with its fields as arguments.
 */
static void json_record(void *arg, const struct xt_record *rec,
                        const struct model_record *what)
{
    struct json_out *j = arg;
    const char *name = event_name(rec->event);
    char hex[16];

    (void)what;
    if ( !view_record_wanted(j->filter, rec) )
        return;
    snprintf(hex, sizeof(hex), "0x%08" PRIx32, rec->event);
    if ( !json_head(j, "i", xt_event_class(rec->event), MODEL_VCPU_NONE,
                    rec->cpu, rec->tsc, name ? name : hex) )
        return;
    json_args(j->f, rec);
    fputc('}', j->f);
}

/*
 * An exit, or an Arm trap: its RIP (pc) and how many handler records (the
 * details: Perfetto).
 */
static void json_exit(struct json_out *j, const struct model_event *ev)
{
    char name[64];

    if ( json_slice(j, ev->u.exit.arm ? "arm" : "hvm", ev->domvcpu, ev,
                    model_exit_event_label(name, sizeof(name), ev)) )
        fprintf(j->f, ",\"args\":{\"rip\":\"0x%" PRIx64 "\",\"handlers\":%u}}",
                ev->u.exit.rip, ev->u.exit.nr_handlers);
}

static void json_point(struct json_out *j, const struct model_event *ev)
{
    const char *cat = "hvm";
    char name[64];

    if ( ev->type == MODEL_EV_PV ||
         (ev->type == MODEL_EV_HYPERCALL && !ev->u.hypercall.hvm) )
        cat = "pv";
    else if ( ev->type == MODEL_EV_GUEST )
        cat = "guest";
    else if ( ev->type == MODEL_EV_INJECT && ev->u.inject.arm )
        cat = "arm";
    view_point_name(name, sizeof(name), ev);
    if ( json_head(j, "i", cat, ev->domvcpu, ev->pcpu, ev->start, name) )
        fputc('}', j->f);
}

static void json_event(void *arg, const struct model_event *ev)
{
    struct json_out *j = arg;
    char name[64];

    if ( !view_wants(j->filter, ev) )
        return;
    switch ( ev->type )
    {
    case MODEL_EV_RUNSTATE:
        if ( ev->u.runstate.state == MODEL_LOST &&
             json_slice(j, "lost", ev->domvcpu, ev, "lost") )
            fputc('}', j->f);
        else if ( ev->u.runstate.state == MODEL_RUNNING &&
                  ev->domvcpu >> 16 != MODEL_DOMID_IDLE &&
                  view_cpu_wanted(j->filter, ev->pcpu) &&
                  json_slice(j, "sched", MODEL_VCPU_NONE, ev,
                             model_vcpu_name(name, sizeof(name),
                                             ev->domvcpu)) )
            fputc('}', j->f);
        break;
    case MODEL_EV_EXIT:
        json_exit(j, ev);
        break;
    case MODEL_EV_LOST:
        snprintf(name, sizeof(name), "lost %" PRIu64 " records",
                 ev->u.lost.count);
        if ( json_slice(j, "lost", MODEL_VCPU_NONE, ev, name) )
            fprintf(j->f, ",\"args\":{\"count\":%" PRIu64 "}}",
                    ev->u.lost.count);
        break;
    case MODEL_EV_IRQ:
        view_irq_name(name, sizeof(name), ev->u.irq.vector, ev->u.irq.irq);
        if ( ev->end > ev->start ?
             json_slice(j, "hw", MODEL_VCPU_NONE, ev, name) :
             json_head(j, "i", "hw", MODEL_VCPU_NONE, ev->pcpu, ev->start,
                       name) )
            fputc('}', j->f);
        break;
    case MODEL_EV_CSTATE:
        if ( ev->pcpu == MODEL_CPU_NONE )
            break;
        snprintf(name, sizeof(name), "pCPU %u C-state", ev->pcpu);
        fprintf(j->f, ",\n{\"ph\":\"C\",\"pid\":%u,\"ts\":%.3f,\"name\":"
                "\"%s\",\"args\":{\"C\":%" PRIu32 "}}", VIEW_XEN_PID,
                json_us(j, ev->start), name, ev->u.cstate.cstate);
        fprintf(j->f, ",\n{\"ph\":\"C\",\"pid\":%u,\"ts\":%.3f,\"name\":"
                "\"%s\",\"args\":{\"C\":0}}", VIEW_XEN_PID,
                json_us(j, ev->end), name);
        break;
    case MODEL_EV_HYPERCALL:
    case MODEL_EV_PV:
    case MODEL_EV_GUEST:
    case MODEL_EV_INJECT:
        if ( ev->domvcpu != MODEL_VCPU_NONE )
            json_point(j, ev);
        break;
    case MODEL_EV_SWITCH:
    case MODEL_EV_WAKE:
    case MODEL_EV_INJECT_LATENCY:
    case MODEL_EV_DOMAIN:
    case MODEL_EV_MEM:
    case MODEL_EV_TO_HALT:
        break;                  /* the runs say it; the summary's figures */
    }
}

/* @r as Chrome's JSON to @out, keeping what @f keeps. */
static void export_json(struct xt_reader *r, FILE *out,
                        const struct view_filter *f, uint64_t hz, bool records)
{
    const struct model_ops ops = { .event = json_event,
                                   .record = records ? json_record : NULL };
    const struct model_options mo = { .from = f->from, .to = f->to };
    struct json_out j = { .f = out, .filter = f, .reader = r, .hz = hz,
                          .origin = cli_origin(r) };
    struct model *m;

    m = model_new(r, &mo, &ops, &j);
    if ( !m )
        err(1, "%s", prog_input);
    fprintf(j.f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
            "{\"ph\":\"M\",\"pid\":%u,\"name\":\"process_name\","
            "\"args\":{\"name\":\"xen\"}}", VIEW_XEN_PID);
    if ( model_run(m) || j.failed )
        err(1, "%s", prog_input);
    model_free(m);
    view_set_free(&j.domains);
    view_set_free(&j.vcpus);
    view_set_free(&j.pcpus);
    fprintf(j.f, "\n]}\n");
}

/*
 * Perfetto
 * ========
 */

/* @r as a Perfetto trace to @out, named @path in messages. */
static void export_perfetto(struct xt_reader *r, FILE *out, const char *path,
                            const struct view_filter *f, uint64_t hz)
{
    if ( perfetto_export(r, out, f, hz) )
        err(CLI_EXIT_ERROR, "%s", ferror(out) ? path : prog_input);
}

/* @path ("-": the standard output) to write, or exit 1. */
static FILE *output(const char *path)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;

    if ( !f )
        err(CLI_EXIT_ERROR, "%s", path);
    return f;
}

/*
 * Options
 * =======
 */

int main(int argc, char **argv)
{
    enum { OPT_CTF = CLI_LONG_ONLY, OPT_JSON, OPT_PERFETTO, OPT_RECORDS,
           OPT_DOMAIN, OPT_CPU, OPT_CLASSES };
    static const struct cli_option options[] = {
        { OPT_CTF, "ctf", "dir", "write a CTF trace into dir" },
        { OPT_PERFETTO, "perfetto", "file", "write a Perfetto trace to file" },
        { OPT_JSON, "json", "file",
          "write Chrome's trace-event JSON to file" },
        { OPT_RECORDS, "records", NULL,
          "with --json, every record as an instant too" },
        { OPT_DOMAIN, "domain", "list", "only these domains: 0,2-3,web-01" },
        { OPT_CPU, "cpu", "list", "only these pCPUs: 0,2-3" },
        CLI_WINDOW_OPTIONS,
        { OPT_CLASSES, "classes", "list",
          "only these classes: sched,hvm,pv,hw,guest" },
        CLI_XEN_VERSION_OPTION,
        { 0, NULL, NULL, NULL },
    };
    struct cli cli = {
        .options = options, .operands = "[trace]", .max_operands = 1,
    };
    const char *ctf_dir = NULL, *json_path = NULL, *perfetto_path = NULL;
    const char *path, *domains[VIEW_MAX_DOMAIN_OPTIONS];
    unsigned int nr_domains = 0;
    struct view_filter filter = { .classes = VIEW_ALL };
    bool records = false;
    struct xt_reader *r;
    char why[128];
    uint64_t hz;
    FILE *f;
    int opt;

    while ( (opt = cli_getopt(&cli, argc, argv)) != -1 )
        switch ( opt )
        {
        case OPT_CTF:
            ctf_dir = optarg;
            break;
        case OPT_JSON:
            json_path = optarg;
            break;
        case OPT_PERFETTO:
            perfetto_path = optarg;
            break;
        case OPT_DOMAIN:
            if ( nr_domains == VIEW_MAX_DOMAIN_OPTIONS )
                cli_usage_error("--domain: at most %u of them",
                                VIEW_MAX_DOMAIN_OPTIONS);
            domains[nr_domains++] = optarg;     /* names need the file */
            break;
        case OPT_CPU:
            if ( !view_parse_cpus(&filter, optarg, why, sizeof(why)) )
                errx(CLI_EXIT_ERROR, "--cpu %s: %s", optarg, why);
            break;
        case OPT_CLASSES:
            if ( !view_parse_classes(&filter, optarg, VIEW_ALL, why,
                                     sizeof(why)) )
                errx(CLI_EXIT_ERROR, "%s", why);
            break;
        case OPT_RECORDS:
            records = true;
            break;
        }
    if ( !ctf_dir && !json_path && !perfetto_path )
        cli_usage_error("--ctf, --perfetto or --json is needed");
    path = optind < argc ? argv[optind] : "-";
    prog_input = cli_input_name(path);

    r = cli_open(&cli, path, 0);
    view_parse_domain_names(&filter, r, domains, nr_domains);
    xen_version = xt_reader_xen_version(r);
    hz = cli_tsc_hz(&cli, xt_reader_info(r), NULL);
    cli_window(&cli, r, hz, &filter.from, &filter.to);
    if ( ctf_dir )
        export_ctf(r, ctf_dir, hz);
    if ( json_path )
    {
        f = output(json_path);
        export_json(r, f, &filter, hz, records);
        cli_close_output(f, json_path);
    }
    if ( perfetto_path )
    {
        f = output(perfetto_path);
        export_perfetto(r, f, perfetto_path, &filter, hz);
        cli_close_output(f, perfetto_path);
    }
    view_filter_free(&filter);
    return cli_close(r, path);
}
