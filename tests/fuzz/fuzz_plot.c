/*
 * libFuzzer target: any bytes as a trace for xentrace-plot, compiled in
 * from plot.c: the SVG must be whole, and no coordinate a NaN or an
 * infinity.
 */
#define main xentrace_plot_main
#include "plot.c"
#undef main

#include <string.h>

#include "fuzz_tally.h"


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char head[] = "<?xml version=\"1.0\"", tail[] = "</svg>\n";
    struct tally t;
    struct xt_reader *r = tally_input(&t, data, size);

    if ( !r )
        return 0;
    plot(fuzz_out.f, &t, "fuzz <&> \"trace\"");
    fflush(fuzz_out.f);
    CHECK(fuzz_out.len > sizeof(head) + sizeof(tail));
    CHECK(!memcmp(fuzz_out.buf, head, sizeof(head) - 1));
    CHECK(!memcmp(fuzz_out.buf + fuzz_out.len - (sizeof(tail) - 1), tail,
                  sizeof(tail) - 1));
    CHECK(!has_nan_or_inf(fuzz_out.buf, fuzz_out.len));
    output_reset(&fuzz_out);
    tally_free(&t);
    xt_reader_close(r);
    return 0;
}
