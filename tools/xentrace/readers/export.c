/*
 * xentrace-export: a trace file in formats other tools read.
 *
 *   xentrace-export [--ctf dir] [--json file] [-H hz] trace
 *
 * --ctf writes a CTF 1.8 trace (babeltrace2, Trace Compass): a TSDL
 * "metadata" file and one stream file per CPU, each a single packet.
 * --json writes Chrome's trace-event JSON (Perfetto UI, chrome://tracing):
 * one track per CPU, every record an instant event on it, and the vCPUs'
 * runs (from the scheduler's runstate changes) as slices.  See
 * xentrace-export(1).
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "xtread.h"

#define DEFAULT_HZ      2400000000ULL   /* xenalyze's default */
#define CTF_MAGIC       0xc1fc1fc1u
#define CTF_CONTEXT_AT  4               /* the packet context's offset */
#define CTF_HEADER      40              /* packet header and context */
#define MAX_CLASSES     (1u << 16)

static const char *prog_input;      /* the trace, for messages */

/*
 * CTF event classes: one per distinct event and payload length, numbered
 * as first met; a class's key is the event | words << 28.
 */
#define CLASS_KEY(event, words) ((event) | (uint32_t)(words) << 28)
#define KEY_EVENT(key)          ((key) & 0x0fffffffu)
#define KEY_WORDS(key)          ((key) >> 28)
static uint32_t *class_ids;
static unsigned int nr_classes;
static uint32_t *class_slot;        /* hash: event -> class + 1 */
static unsigned int class_slots;

static uint64_t tsc_hz(const struct xt_reader_info *info, uint64_t hz)
{
    if ( hz )
        return hz;
    return info->has_tsc_hz && info->meta.tsc_hz ? info->meta.tsc_hz
                                                  : DEFAULT_HZ;
}

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

static unsigned int class_hash(uint32_t id, unsigned int slots)
{
    return (id * 0x9e3779b1u) & (slots - 1);
}

static unsigned int class_of(uint32_t id)
{
    unsigned int i = class_hash(id, class_slots);

    while ( class_slot[i] && class_ids[class_slot[i] - 1] != id )
        i = (i + 1) & (class_slots - 1);
    if ( class_slot[i] )
        return class_slot[i] - 1;
    if ( nr_classes == MAX_CLASSES / 2 )
        errx(1, "%s: more than %u distinct events", prog_input,
             MAX_CLASSES / 2);
    class_ids[nr_classes] = id;
    class_slot[i] = ++nr_classes;
    return nr_classes - 1;
}

struct le_buf {
    uint8_t b[64];
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

/* Packet header and context: written last, once the sizes are known. */
static void ctf_packet_header(FILE *f, const char *path, unsigned int cpu,
                              uint64_t begin, uint64_t end, uint64_t bytes)
{
    struct le_buf p = { .n = 0 };

    put32(&p, CTF_MAGIC);
    put64(&p, begin);
    put64(&p, end);
    put64(&p, bytes * 8);       /* content_size, bits */
    put64(&p, bytes * 8);       /* packet_size */
    put32(&p, cpu);
    if ( fseek(f, 0, SEEK_SET) || fwrite(p.b, p.n, 1, f) != 1 )
        err(1, "%s", path);
}

/*
 * One CPU's stream: its records in file order, each an event of its
 * class, {class, tsc, event, has_tsc, words...}.  Timestamps must not go back
 * in a stream; a record whose TSC does (a host whose TSC stepped) takes
 * its predecessor's.
 */
static void ctf_stream(struct xt_reader *r, const char *dir, unsigned int cpu)
{
    struct xt_iter *it = xt_iter_new(r, XT_ORDER_CPU, cpu, 0);
    struct xt_record rec;
    uint64_t bytes = CTF_HEADER, first = 0, last = 0;
    bool any = false;
    char path[4096];
    FILE *f;
    unsigned int i;

    if ( !it )
        err(1, "%s", prog_input);
    snprintf(path, sizeof(path), "%s/stream_%u", dir, cpu);
    f = fopen(path, "w");
    if ( !f )
        err(1, "%s", path);
    ctf_packet_header(f, path, cpu, 0, 0, 0);
    while ( xt_iter_next(it, &rec) > 0 )
    {
        struct le_buf p = { .n = 0 };
        uint64_t ts = any && rec.tsc < last ? last : rec.tsc;

        if ( !any )
            first = ts;
        any = true;
        last = ts;
        put32(&p, class_of(CLASS_KEY(rec.event, rec.nr_extra)));
        put64(&p, ts);
        put32(&p, rec.event);
        put8(&p, rec.has_tsc);
        for ( i = 0; i < rec.nr_extra; i++ )
            put32(&p, rec.extra[i]);
        if ( fwrite(p.b, p.n, 1, f) != 1 )
            err(1, "%s", path);
        bytes += p.n;
    }
    xt_iter_free(it);
    ctf_packet_header(f, path, cpu, first, last, bytes);
    if ( fclose(f) )
        err(1, "%s", path);
}

static void ctf_clock(FILE *f, const struct xt_reader_info *info, uint64_t hz)
{
    uint64_t offset_s = 0, offset = 0;

    /* Wall-clock time of TSC 0, from the capture's start. */
    if ( info->has_start && info->meta.start_sec >= 0 )
    {
        uint64_t start_ticks = info->meta.start_tsc;
        uint64_t back_s = start_ticks / hz, back = start_ticks % hz;
        uint64_t nsec_ticks = (uint64_t)info->meta.start_nsec * hz /
                              1000000000u;

        offset_s = info->meta.start_sec;
        offset = nsec_ticks;
        if ( offset < back )
        {
            offset += hz;
            offset_s--;
        }
        offset -= back;
        offset_s = offset_s >= back_s ? offset_s - back_s : 0;
    }
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

    fprintf(f, "event {\n\tid = %u;\n", c);
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
            fprintf(f, "\t\t%s %s;\n", ctf_type(d->fields[i].kind),
                    d->fields[i].name);
        raw = words - d->words;
    }
    if ( raw )
        fprintf(f, "\t\tx32_t data[%u];\n", raw);
    fprintf(f, "\t};\n};\n\n");
}

static void ctf_metadata(const char *dir, const struct xt_reader_info *info,
                         uint64_t hz)
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
            "base = hex; } := x64_t;\n\n"
            "trace {\n"
            "\tmajor = 1;\n"
            "\tminor = 8;\n"
            "\tbyte_order = le;\n"
            "\tpacket.header := struct { uint32_t magic; };\n"
            "};\n\n"
            "env {\n"
            "\tdomain = \"xen\";\n"
            "\ttracer_name = \"xentrace-ng\";\n"
            "};\n\n");
    ctf_clock(f, info, hz);
    fprintf(f,
            "typealias integer { size = 64; align = 8; signed = false; "
            "map = clock.tsc.value; } := tsc_t;\n\n"
            "stream {\n"
            "\tpacket.context := struct {\n"
            "\t\ttsc_t timestamp_begin;\n"
            "\t\ttsc_t timestamp_end;\n"
            "\t\tuint64_t content_size;\n"
            "\t\tuint64_t packet_size;\n"
            "\t\tuint32_t cpu_id;\n"
            "\t};\n"
            "\tevent.header := struct { uint32_t id; tsc_t timestamp; };\n"
            "};\n\n");
    for ( c = 0; c < nr_classes; c++ )
        ctf_event_class(f, c, class_ids[c]);
    if ( fclose(f) )
        err(1, "%s", path);
}

static void export_ctf(struct xt_reader *r, const char *dir, uint64_t hz)
{
    const struct xt_reader_info *info = xt_reader_info(r);
    unsigned int i;

    if ( mkdir(dir, 0755) && errno != EEXIST )
        err(1, "%s", dir);
    class_slots = MAX_CLASSES;
    class_ids = calloc(MAX_CLASSES / 2, sizeof(*class_ids));
    class_slot = calloc(class_slots, sizeof(*class_slot));
    if ( !class_ids || !class_slot )
        err(1, "calloc");
    for ( i = 0; i < info->nr_cpus; i++ )
        ctf_stream(r, dir, xt_reader_cpu(r, i)->cpu);
    ctf_metadata(dir, info, tsc_hz(info, hz));
    free(class_ids);
    free(class_slot);
}

/*
 * Chrome trace-event JSON
 * =======================
 */

/* The vCPU running on each CPU, and since when: a slice to close. */
struct run {
    uint32_t domvcpu;
    uint64_t since;
    bool open;
};

struct json_out {
    FILE *f;
    const char *path;
    uint64_t hz;
    uint64_t t0;                /* TSC of time 0 */
    struct run *runs;           /* by CPU number */
};

static double json_us(const struct json_out *j, uint64_t tsc)
{
    return tsc > j->t0 ? (double)(tsc - j->t0) * 1e6 / j->hz : 0;
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for ( ; *s; s++ )
    {
        if ( *s == '"' || *s == '\\' )
            fprintf(f, "\\%c", *s);
        else if ( (unsigned char)*s < 0x20 )
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void json_slice(struct json_out *j, unsigned int cpu, uint64_t end)
{
    struct run *run = &j->runs[cpu];

    fprintf(j->f, ",\n{\"ph\":\"X\",\"cat\":\"vcpu\",\"pid\":0,\"tid\":%u,"
            "\"name\":\"d%uv%u\",\"ts\":%.3f,\"dur\":%.3f}", cpu,
            run->domvcpu >> 16, run->domvcpu & 0xffff,
            json_us(j, run->since), json_us(j, end) - json_us(j, run->since));
    run->open = false;
}

/* Slices: a vCPU runs on a CPU from its change to running to the next. */
static void json_runstate(struct json_out *j, const struct xt_record *rec)
{
    struct run *run = &j->runs[rec->cpu];
    unsigned int old = xt_runstate_old(rec->event);
    unsigned int new = xt_runstate_new(rec->event);
    uint32_t domvcpu = rec->extra[0];

    if ( old == XT_RUNSTATE_RUNNING && run->open && run->domvcpu == domvcpu )
        json_slice(j, rec->cpu, rec->tsc);
    if ( new == XT_RUNSTATE_RUNNING && domvcpu >> 16 != XT_DOMID_IDLE )
    {
        if ( run->open )
            json_slice(j, rec->cpu, rec->tsc);
        *run = (struct run){ .domvcpu = domvcpu, .since = rec->tsc,
                             .open = true };
    }
}

/* Field @fl of the words at @w, as a JSON value: numbers, hex as text. */
static void json_field(FILE *f, const struct xt_field *fl, const uint32_t *w)
{
    uint64_t v64 = fl->kind == XT_FIELD_U64 || fl->kind == XT_FIELD_X64 ?
                   w[0] | (uint64_t)w[1] << 32 : 0;

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
            word += d->fields[i].kind == XT_FIELD_U64 ||
                    d->fields[i].kind == XT_FIELD_X64 ? 2 : 1;
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

static void json_record(struct json_out *j, const struct xt_record *rec)
{
    const char *name = event_name(rec->event);

    fprintf(j->f, ",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"%s\",\"pid\":0,"
            "\"tid\":%u,\"ts\":%.3f,\"name\":", xt_event_class(rec->event),
            rec->cpu, json_us(j, rec->tsc));
    if ( name )
        json_string(j->f, name);
    else
        fprintf(j->f, "\"0x%08" PRIx32 "\"", rec->event);
    json_args(j->f, rec);
    fputc('}', j->f);
    if ( xt_is_runstate_change(rec->event) && rec->nr_extra )
        json_runstate(j, rec);
}

static void json_tracks(struct json_out *j, struct xt_reader *r)
{
    const struct xt_reader_info *info = xt_reader_info(r);
    unsigned int i;

    fprintf(j->f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
            "{\"ph\":\"M\",\"pid\":0,\"name\":\"process_name\","
            "\"args\":{\"name\":\"Xen\"}}");
    for ( i = 0; i < info->nr_cpus; i++ )
    {
        unsigned int cpu = xt_reader_cpu(r, i)->cpu;

        fprintf(j->f, ",\n{\"ph\":\"M\",\"pid\":0,\"tid\":%u,"
                "\"name\":\"thread_name\",\"args\":{\"name\":\"CPU %u\"}}",
                cpu, cpu);
        fprintf(j->f, ",\n{\"ph\":\"M\",\"pid\":0,\"tid\":%u,"
                "\"name\":\"thread_sort_index\","
                "\"args\":{\"sort_index\":%u}}", cpu, cpu);
    }
}

/* The trace's first and last TSC, over every CPU. */
static void tsc_range(struct xt_reader *r, uint64_t *first, uint64_t *last)
{
    const struct xt_reader_info *info = xt_reader_info(r);
    bool any = false;
    unsigned int i;

    *first = *last = 0;
    for ( i = 0; i < info->nr_cpus; i++ )
    {
        const struct xt_cpu_info *ci = xt_reader_cpu(r, i);

        if ( !ci->has_tsc )
            continue;
        if ( !any || ci->first_tsc < *first )
            *first = ci->first_tsc;
        if ( !any || ci->last_tsc > *last )
            *last = ci->last_tsc;
        any = true;
    }
}

static void export_json(struct xt_reader *r, const char *path, uint64_t hz)
{
    const struct xt_reader_info *info = xt_reader_info(r);
    struct json_out j = { .path = path, .hz = tsc_hz(info, hz) };
    struct xt_iter *it = xt_iter_new(r, XT_ORDER_FILE, 0, 0);
    struct xt_record rec;
    uint64_t end;
    unsigned int cpu;
    bool failed;

    if ( !it )
        err(1, "%s", prog_input);
    j.f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    j.runs = calloc(info->max_cpu + 1, sizeof(*j.runs));
    if ( !j.f )
        err(1, "%s", path);
    if ( !j.runs )
        err(1, "calloc");
    tsc_range(r, &j.t0, &end);

    json_tracks(&j, r);
    while ( xt_iter_next(it, &rec) > 0 )
        json_record(&j, &rec);
    xt_iter_free(it);
    for ( cpu = 0; cpu <= info->max_cpu; cpu++ )
        if ( j.runs[cpu].open )
            json_slice(&j, cpu, end);
    fprintf(j.f, "\n]}\n");
    failed = ferror(j.f);
    if ( (j.f == stdout ? fflush(j.f) : fclose(j.f)) || failed )
        err(1, "%s", path);
    free(j.runs);
}

/*
 * Options
 * =======
 */

static void usage(void)
{
    fprintf(stderr, "usage: xentrace-export [--ctf dir] [--json file] "
            "[-H hz] [--xen-version x.y] trace\n");
    exit(1);
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "ctf", required_argument, NULL, 'c' },
        { "cpu-hz", required_argument, NULL, 'H' },
        { "json", required_argument, NULL, 'j' },
        { "xen-version", required_argument, NULL, 'X' },
        { NULL, 0, NULL, 0 },
    };
    const char *ctf_dir = NULL, *json_path = NULL;
    unsigned long long hz = 0;
    struct xt_reader *r;
    char damage[256];
    char *end;
    int opt;

    while ( (opt = getopt_long(argc, argv, "H:", longopts, NULL)) != -1 )
    {
        switch ( opt )
        {
        case 'c':
            ctf_dir = optarg;
            break;
        case 'H':
            errno = 0;
            hz = strtoull(optarg, &end, 10);
            if ( errno || end == optarg || *end || !hz || optarg[0] == '-' )
                errx(1, "bad TSC frequency: %s", optarg);
            break;
        case 'j':
            json_path = optarg;
            break;
        case 'X':
            if ( xt_xen_version_parse(optarg, &xen_version) )
                errx(1, "bad Xen version: %s (4.17, 4.20...)", optarg);
            break;
        default:
            usage();
        }
    }
    if ( optind != argc - 1 || (!ctf_dir && !json_path) )
        usage();
    prog_input = argv[optind];

    r = xt_reader_open(prog_input, 0);
    if ( !r )
        errx(1, "%s: %s", prog_input, xt_reader_strerror(errno));
    xt_reader_set_xen_version(r, xen_version);
    xen_version = xt_reader_xen_version(r);
    if ( xt_reader_damage(r, damage, sizeof(damage)) )
        warnx("%s: %s", prog_input, damage);
    if ( ctf_dir )
        export_ctf(r, ctf_dir, hz);
    if ( json_path )
        export_json(r, json_path, hz);
    xt_reader_close(r);
    return 0;
}
