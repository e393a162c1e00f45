/*
 * What the readers' fuzz targets check of a reader's output: that it is
 * what it claims to be (JSON that parses), with no number printf made of
 * a division by zero.
 */
#ifndef CHECK_OUTPUT_H
#define CHECK_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

/* Abort, saying which check failed, unless @cond holds. */
#define CHECK(cond)                                                        \
    do {                                                                   \
        if ( !(cond) )                                                     \
        {                                                                  \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,         \
                    __LINE__, #cond);                                      \
            abort();                                                       \
        }                                                                  \
    } while ( 0 )

/* @len bytes at @s are one JSON value (RFC 8259), and only white space. */
bool json_valid(const char *s, size_t len);

/* @s holds "nan" or "inf" as a word: a float that is not a number. */
bool has_nan_or_inf(const char *s, size_t len);

/*
 * What a fuzz input's last bytes choose for the reader: 1 to 256 time
 * bins; a TSC frequency of 1 kHz, or the one the reader would take from
 * @r's file (cli_tsc_hz()), which can be anything.
 */
unsigned int fuzz_bins(const uint8_t *data, size_t size);
uint64_t fuzz_hz(struct xt_reader *r, const uint8_t *data, size_t size);

/*
 * A FILE that keeps what is written to it in memory, as open_memstream()
 * does, which output_reset() empties for the next input.
 */
struct output {
    FILE *f;
    char *buf;
    size_t len;
};

void output_open(struct output *o);
void output_reset(struct output *o);

/*
 * Each line of what @o holds, without its '\n', to @check (the first is
 * line 0): every line, the last too, must end.
 */
typedef void line_check(void *arg, const char *line, size_t len,
                        unsigned int n);
void output_lines(struct output *o, line_check *check, void *arg);

/* The one the targets write to, open before the first input. */
extern struct output fuzz_out;

#endif /* CHECK_OUTPUT_H */
