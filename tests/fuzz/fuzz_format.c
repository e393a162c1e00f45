/*
 * libFuzzer target: any bytes as a formats file and a trace for
 * xentrace_format, compiled in from xentrace_format.c.  The input is a
 * 16-bit length (little-endian), that many bytes of formats file, and the
 * trace.  The rules must be read or refused with one line, and the trace
 * formatted with them, without a crash, a leak or a hang: its output is
 * counted and cut at OUTPUT_MAX bytes (the stop a signal gives), since
 * rules of many wide conversions make output that is long, not wrong.
 */
#define main xentrace_format_main
#include "xentrace_format.c"
#undef main

#define OUTPUT_MAX  (64u << 20)

static size_t output_bytes;

static ssize_t count_write(void *cookie, const char *buf, size_t len)
{
    (void)cookie;
    (void)buf;
    output_bytes += len;
    if ( output_bytes > OUTPUT_MAX )
        interrupted = 1;
    return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *out;
    struct rules rules = { 0 };
    struct state st = { 0 };
    size_t rules_len;
    FILE *f;

    if ( size < 2 )
        return 0;
    if ( !out && !(out = fopencookie(NULL, "w", (cookie_io_functions_t){
                       .write = count_write })) )
        abort();
    rules_len = data[0] | data[1] << 8;
    if ( rules_len > size - 2 )
        rules_len = size - 2;
    f = rules_len ? fmemopen((void *)(data + 2), rules_len, "r")
                  : fopen("/dev/null", "r");
    if ( !f )
        abort();
    if ( !read_rules(f, "fuzz.formats", &rules) )
    {
        fclose(f);
        return 0;
    }
    fclose(f);
    st.r = xt_reader_open_mem(data + 2 + rules_len, size - 2 - rules_len, 0);
    if ( st.r )
    {
        output_bytes = 0;
        interrupted = 0;
        /* Seconds at a frequency the input picks, or the TSC. */
        if ( !format_trace(out, &rules, &st,
                           rules_len & 1 ? 1000 + rules_len : 0) )
            abort();
        fflush(out);
        xt_reader_close(st.r);
    }
    free(st.cpus);
    free_rules(&rules);
    return 0;
}
