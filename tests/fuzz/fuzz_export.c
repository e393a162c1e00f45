/*
 * libFuzzer target: any bytes as a trace for xentrace-export, as JSON
 * (with --records for odd sizes) and CTF, compiled in from export.c
 * (fuzz_perfetto has the Perfetto export and the filters).  The Chrome JSON must parse and hold no NaN
 * or infinity; each CTF stream must be one packet that its header sizes
 * exactly, of one event per record of its CPU, in order, each of a class
 * in the metadata, with the record's event, TSC flag and words, and
 * timestamps that never go back; each of dom0's lanes' streams likewise
 * of one event per dom0 event of its lane, laid out as its kind's class.
 */
#define _GNU_SOURCE
#define main xentrace_export_main
#include "export.c"
#undef main

#include <ftw.h>
#include <unistd.h>

#include "check_output.h"

static char ctf_dir[] = "/tmp/fuzz_export.XXXXXX";

static uint32_t le32(const uint8_t *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
    return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/*
 * An event's header in a stream: {class, timestamp, event, has_tsc}, then
 * as many words as its class says.
 */
#define EVENT_HEAD  17

/*
 * The number of event classes of Xen's stream class (0) in the metadata,
 * whose ids are 0, 1, ...
 */
static unsigned int metadata_classes(void)
{
    char path[64], line[256];
    unsigned int n = 0, id, stream = UINT32_MAX;
    FILE *f;

    snprintf(path, sizeof(path), "%s/metadata", ctf_dir);
    f = fopen(path, "r");
    CHECK(f);
    while ( fgets(line, sizeof(line), f) )
        if ( line[0] != '\t' )        /* a new declaration */
            stream = UINT32_MAX;
        else if ( sscanf(line, "\tstream_id = %u;", &id) == 1 )
            stream = id;
        else if ( stream == 0 && sscanf(line, "\tid = %u;", &id) == 1 )
            CHECK(id == n++);
    fclose(f);
    return n;
}

static uint8_t buf[1 << 20];

/*
 * Stream file @name@n into buf: one packet of stream class @stream_id,
 * for CPU @n, that its header sizes exactly.  Returns its length.
 */
static size_t read_packet(const char *name, unsigned int n,
                          uint32_t stream_id)
{
    char path[64];
    size_t len;
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s%u", ctf_dir, name, n);
    f = fopen(path, "r");
    CHECK(f);
    len = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    CHECK(len >= CTF_HEADER && len < sizeof(buf));
    CHECK(le32(buf) == CTF_MAGIC && le32(buf + 4) == stream_id);
    CHECK(le64(buf + 24) == len * 8 && le64(buf + 32) == len * 8);
    CHECK(le32(buf + 40) == n);
    return len;
}

/* Read back CPU @cpu's stream of @r against its records and @nr_classes. */
static void check_stream(struct xt_reader *r, unsigned int cpu,
                         unsigned int nr_classes)
{
    struct xt_iter *it = xt_iter_new(r, XT_ORDER_CPU, cpu, 0);
    struct xt_record rec;
    uint64_t last = 0, n = 0;
    size_t len = read_packet("stream_", cpu, 0), at = CTF_HEADER;

    CHECK(it);
    for ( ; at < len; n++ )
    {
        uint64_t ts;
        unsigned int i;

        CHECK(xt_iter_next(it, &rec));
        CHECK(len - at >= EVENT_HEAD + 4 * rec.nr_extra);
        CHECK(le32(buf + at) < nr_classes);
        ts = le64(buf + at + 4);
        CHECK(ts >= last);
        CHECK(le32(buf + at + 12) == rec.event);
        CHECK(buf[at + 16] == rec.has_tsc);
        at += EVENT_HEAD;
        for ( i = 0; i < rec.nr_extra; i++, at += 4 )
            CHECK(le32(buf + at) == rec.extra[i]);
        last = ts;
    }
    CHECK(!xt_iter_next(it, &rec));
    xt_iter_free(it);
    CHECK(!n || (le64(buf + 8) <= le64(buf + 16) && le64(buf + 16) == last));
}

/* A NUL-terminated string at @at of @len: its end. */
static size_t string_end(const uint8_t *buf, size_t at, size_t len)
{
    const uint8_t *nul = memchr(buf + at, 0, len - at);

    CHECK(nul);
    return nul - buf + 1;
}

/* One dom0 event of @kind's class at @at: where the next begins. */
static size_t dom0_event_end(const uint8_t *buf, size_t at, size_t len,
                             uint32_t kind)
{
    switch ( kind )
    {
    case XT_DOM0_SWITCH:
        CHECK(len - at >= 12);
        return string_end(buf, at + 12, len);
    case XT_DOM0_WAKING:
        CHECK(len - at >= 8);
        return string_end(buf, at + 8, len);
    case XT_DOM0_IRQ_ENTRY:
        CHECK(len - at >= 4);
        return string_end(buf, at + 4, len);
    case XT_DOM0_IRQ_EXIT:
        return at + 8;
    case XT_DOM0_EVENT:
        at = string_end(buf, string_end(buf, at, len), len);
        CHECK(len - at >= 1);
        return at + 1 + 4 * buf[at];
    case XT_DOM0_LOST:
        return at + 8;
    default:
        CHECK(kind == XT_DOM0_SOFTIRQ_ENTRY || kind == XT_DOM0_SOFTIRQ_EXIT);
        return at + 4;
    }
}

/* Read back dom0's CPU @lane's stream, of the file's CPU @cpu. */
static void check_dom0_stream(struct xt_reader *r, unsigned int cpu,
                              unsigned int lane)
{
    struct xt_iter *it = xt_iter_new(r, XT_ORDER_CPU, cpu, 0);
    struct xt_dom0_event e;
    struct xt_record rec;
    uint64_t last = 0;
    size_t len = read_packet("dom0_stream_", lane, 1), at = CTF_HEADER;

    CHECK(it);
    while ( xt_iter_next(it, &rec) > 0 )
    {
        if ( rec.event != TRC_XT_DOM0_EVENT ||
             xt_dom0_event_get(rec.extra, rec.nr_extra, &e) )
            continue;
        CHECK(len - at >= 12 && le32(buf + at) == e.kind);
        CHECK(le64(buf + at + 4) >= last);
        last = le64(buf + at + 4);
        at = dom0_event_end(buf, at + 12, len, e.kind);
        CHECK(at <= len);
    }
    CHECK(at == len);
    xt_iter_free(it);
}

static int remove_one(const char *path, const struct stat *st, int flag,
                      struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* The streams of the last input go when the fuzzer ends. */
static void remove_ctf_dir(void)
{
    nftw(ctf_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    CHECK(mkdtemp(ctf_dir));
    atexit(remove_ctf_dir);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct xt_reader *r = xt_reader_open_mem(data, size, 0);
    struct view_filter all = { .classes = VIEW_ALL };
    const struct xt_reader_info *info;
    uint64_t hz;
    unsigned int i;

    if ( !r )
        return 0;
    info = xt_reader_info(r);
    prog_input = "fuzz.bin";
    hz = fuzz_hz(r, data, size);

    export_json(r, fuzz_out.f, &all, hz, size & 1);
    fflush(fuzz_out.f);
    CHECK(json_valid(fuzz_out.buf, fuzz_out.len));
    CHECK(!has_nan_or_inf(fuzz_out.buf, fuzz_out.len));
    output_reset(&fuzz_out);

    /* gzip is streamed, read once: CTF reads each CPU on its own. */
    if ( !info->gzip )
    {
        unsigned int nr_classes;

        export_ctf(r, ctf_dir, hz);
        nr_classes = metadata_classes();
        for ( i = 0; i < info->nr_cpus; i++ )
        {
            unsigned int cpu = xt_reader_cpu(r, i)->cpu;

            if ( xt_reader_is_dom0_lane(r, cpu) )
                check_dom0_stream(r, cpu, cpu - xt_reader_dom0(r)->first_lane);
            else
                check_stream(r, cpu, nr_classes);
        }
    }
    xt_reader_close(r);
    return 0;
}
