/*
 * libFuzzer target: any bytes as a trace for xentrace-dump, compiled in
 * from dump.c: every line it formats, as TSCs and as seconds, in both
 * orders, must be one line no longer than LINE_MAX_BYTES, with no NUL.
 */
#define main xentrace_dump_main
#include "dump.c"
#undef main

#include <fcntl.h>
#include "check_output.h"

static struct out out;

/* The text put_line() added since @from, unless it flushed. */
static void check_line(size_t from)
{
    const char *line = out.buf + from;
    size_t len = out.len - from;

    if ( out.len < from )
        return;
    CHECK(len && len <= LINE_MAX_BYTES && line[len - 1] == '\n');
    CHECK(!memchr(line, '\n', len - 1) && !memchr(line, '\0', len));
}

static void dump(struct xt_reader *r, bool seconds, bool raw, uint64_t hz)
{
    struct dump d = {
        .tsc_high = UINT64_MAX, .seconds = seconds, .raw = raw, .hz = hz,
        .all = raw,
    };
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
        check_line(from);
    }
    model_free(d.model);
    xt_iter_free(it);
    flush_out(&out);
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
    dump(r, false, false, 0);
    dump(r, true, true, cli_tsc_hz(NULL, xt_reader_info(r), NULL));
    dump(r, true, false, 1000);
    xt_reader_close(r);
    return 0;
}
