/*
 * libFuzzer target: any bytes as a trace for xentrace-dump, compiled in
 * from dump.c: every line it formats, as TSCs and as seconds (with -p's
 * pCPU columns), in both orders, and through every filter, must be one
 * line no longer than LINE_MAX_BYTES, with no NUL.
 */
#define main xentrace_dump_main
#include "dump.c"
#undef main

#include <fcntl.h>
#include "check_output.h"

static struct out out;

/*
 * The text put_line() added since @from, unless it flushed: one line, or
 * with @filtered none.
 */
static void check_line(size_t from, bool filtered)
{
    const char *line = out.buf + from;
    size_t len = out.len - from;

    if ( out.len < from || (filtered && !len) )
        return;
    CHECK(len && len <= LINE_MAX_BYTES && line[len - 1] == '\n');
    CHECK(!memchr(line, '\n', len - 1) && !memchr(line, '\0', len));
}

/* The filters, on records of domains 0 and 1 and their vCPU 0. */
static void filter(struct dump *d)
{
    char why[128];

    if ( !view_parse_domains(&d->filter, "0-1", why, sizeof(why)) ||
         !view_parse_cpus(&d->filter, "0,2-", why, sizeof(why)) ||
         !view_parse_classes(&d->filter, "gen,sched,hvm,pv",
                             VIEW_RECORD_CLASSES, why, sizeof(why)) )
        abort();
    d->classes_given = true;
    parse_vcpus(d, "0");
    parse_events(d, "TRC_SCHED_SWITCH,TRC_SCHED_RUNSTATE_CHANGE,0x82001,"
                 "TRC_LOST_RECORDS,TRC_PV_HYPERCALL_V2");
    d->filter.from = 1000;
    d->filter.to = UINT64_MAX / 2;
}

static void dump(struct xt_reader *r, bool seconds, bool raw, uint64_t hz,
                 bool filtered)
{
    struct dump d = {
        .r = r, .tsc_high = UINT64_MAX, .seconds = seconds, .raw = raw,
        .hz = hz, .all = raw, .strip = seconds && !raw,
    };

    if ( filtered )
    {
        filter(&d);
        events_keyed(&d, xt_reader_xen_version(r));
    }
    struct xt_iter *it = xt_iter_new(r, raw ? XT_ORDER_FILE : XT_ORDER_TSC,
                                     0, d.all ? XT_ITER_SPECIAL : 0);
    struct xt_record rec;

    if ( !it )
        abort();
    d.base_tsc = cli_origin(r);
    /* As main() does: the model's notes in TSC order. */
    if ( !raw && !(d.model = model_new(r, NULL, &note_ops, &d)) )
        abort();        /* out of memory: over -rss_limit_mb */
    put_header(&out, xt_reader_info(r), &d);
    while ( xt_iter_next(it, &rec) > 0 )
    {
        size_t from = out.len;

        put_line(&out, &d, &rec);
        check_line(from, filtered);
    }
    xt_iter_free(it);
    flush_out(&out);
    dump_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct xt_reader *r = xt_reader_open_mem(data, size, 0);
    static bool quiet;

    if ( !r )
        return 0;
    /* What flush_out() writes goes nowhere. */
    if ( !quiet )
    {
        if ( dup2(open("/dev/null", O_WRONLY), STDOUT_FILENO) < 0 )
            abort();
        quiet = true;
    }
    dump(r, false, false, 0, false);
    dump(r, true, true, cli_tsc_hz(NULL, xt_reader_info(r), NULL), false);
    dump(r, true, false, 1000, false);
    dump(r, false, false, 0, true);
    xt_reader_close(r);
    return 0;
}
