/*
 * libFuzzer target: any bytes as a trace for xentrace-export, both ways,
 * compiled in from export.c.  The Chrome JSON must parse and hold no NaN
 * or infinity; each CTF stream must be one packet that its header sizes
 * exactly, of events whose class is in the metadata and whose timestamps
 * never go back, with the CPU's records, each once.
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

/* Read back CPU @cpu's stream, which must hold @records events. */
static void check_stream(unsigned int cpu, uint64_t records)
{
    static uint8_t buf[1 << 20];
    char path[64];
    uint64_t last = 0, n = 0;
    size_t len, at = CTF_HEADER;
    FILE *f;

    snprintf(path, sizeof(path), "%s/stream_%u", ctf_dir, cpu);
    f = fopen(path, "r");
    CHECK(f);
    len = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    CHECK(len >= CTF_HEADER && len < sizeof(buf));
    CHECK(le32(buf) == CTF_MAGIC);
    CHECK(le64(buf + 20) == len * 8 && le64(buf + 28) == len * 8);
    CHECK(le32(buf + 36) == cpu);
    while ( at < len )
    {
        uint64_t ts;

        /* {class, ts, event, has_tsc, n, data[n]} */
        CHECK(len - at >= 18);
        CHECK(le32(buf + at) < nr_classes);
        ts = le64(buf + at + 4);
        CHECK(ts >= last);
        CHECK(buf[at + 17] <= 7 && len - at >= 18 + 4u * buf[at + 17]);
        last = ts;
        at += 18 + 4 * buf[at + 17];
        n++;
    }
    CHECK(n == records);
    CHECK(!n || (le64(buf + 4) <= le64(buf + 12) && le64(buf + 12) == last));
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
    const struct xt_reader_info *info;
    uint64_t hz;
    unsigned int i;

    if ( !r )
        return 0;
    info = xt_reader_info(r);
    prog_input = "fuzz.bin";
    hz = fuzz_hz(r, data, size);

    export_json(r, fuzz_out.f, "fuzz.json", hz);
    fflush(fuzz_out.f);
    CHECK(json_valid(fuzz_out.buf, fuzz_out.len));
    CHECK(!has_nan_or_inf(fuzz_out.buf, fuzz_out.len));
    output_reset(&fuzz_out);

    export_ctf(r, ctf_dir, hz);
    for ( i = 0; i < info->nr_cpus; i++ )
        check_stream(xt_reader_cpu(r, i)->cpu, xt_reader_cpu(r, i)->records);
    xt_reader_close(r);
    return 0;
}
