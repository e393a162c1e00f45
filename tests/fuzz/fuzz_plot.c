/*
 * libFuzzer target: any bytes as a trace for xentrace-plot, compiled in
 * from plot.c: the rate's SVG and one --scatter kind's (by the input's
 * size) must be whole, no coordinate a NaN or an infinity, and each line
 * of the scatter's CSV must have its header's columns.
 */
#define main xentrace_plot_main
#include "plot.c"
#undef main

#include <string.h>

#include "fuzz_tally.h"


/* The picture in fuzz_out is whole, with no NaN or infinity. */
static void check_svg(void)
{
    static const char head[] = "<?xml version=\"1.0\"", tail[] = "</svg>\n";

    fflush(fuzz_out.f);
    CHECK(fuzz_out.len > sizeof(head) + sizeof(tail));
    CHECK(!memcmp(fuzz_out.buf, head, sizeof(head) - 1));
    CHECK(!memcmp(fuzz_out.buf + fuzz_out.len - (sizeof(tail) - 1), tail,
                  sizeof(tail) - 1));
    CHECK(!has_nan_or_inf(fuzz_out.buf, fuzz_out.len));
    output_reset(&fuzz_out);
}

/* Each line has as many commas as the first, the header. */
static void csv_line(void *arg, const char *line, size_t len, unsigned int n)
{
    unsigned int *columns = arg, commas = 0;
    size_t i;

    for ( i = 0; i < len; i++ )
        commas += line[i] == ',';
    if ( n == 0 )
        *columns = commas;
    CHECK(commas == *columns);
}

/*
 * --scatter @kind of @r, in @bins bins: as CSV, every line with the
 * header's columns; then as a picture.
 */
static void check_scatter(struct xt_reader *r, uint64_t hz,
                          enum scatter_kind kind, unsigned int bins)
{
    struct scatter_options o = {
        .kind = kind, .bins = bins, .hz = hz, .origin = cli_origin(r),
        .csv = fuzz_out.f, .reader = r,
    };
    struct scatter *s = scatter_new(&o);
    unsigned int columns = 0;

    if ( !s || scatter_run(r, s, 1) )
        abort();        /* out of memory: over -rss_limit_mb */
    fflush(fuzz_out.f);
    CHECK(!has_nan_or_inf(fuzz_out.buf, fuzz_out.len));
    output_lines(&fuzz_out, csv_line, &columns);
    output_reset(&fuzz_out);
    scatter_free(s);
    o.csv = NULL;
    if ( !(s = scatter_new(&o)) || scatter_run(r, s, 1) )
        abort();
    scatter_svg(fuzz_out.f, s, "fuzz <&> \"trace\"");
    check_svg();
    scatter_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tally t;
    struct xt_reader *r = tally_input(&t, data, size);

    if ( !r )
        return 0;
    plot(fuzz_out.f, &t, "fuzz <&> \"trace\"");
    check_svg();
    check_scatter(r, t.hz, size % SCATTER_KINDS, 1 + size % 7);
    tally_free(&t);
    xt_reader_close(r);
    return 0;
}
