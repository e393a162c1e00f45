/*
 * Checks of the readers' output for their fuzz targets (check_output.h).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "check_output.h"

#define MAX_DEPTH   64

struct json {
    const char *s, *end;
    unsigned int depth;
};

static void skip_space(struct json *j)
{
    while ( j->s < j->end && strchr(" \t\r\n", *j->s) && *j->s )
        j->s++;
}

static bool take(struct json *j, char ch)
{
    skip_space(j);
    if ( j->s == j->end || *j->s != ch )
        return false;
    j->s++;
    return true;
}

static bool json_string(struct json *j)
{
    if ( !take(j, '"') )
        return false;
    while ( j->s < j->end && *j->s != '"' )
    {
        unsigned char c = *j->s++;

        if ( c < 0x20 )
            return false;
        if ( c != '\\' )
            continue;
        if ( j->s == j->end )
            return false;
        c = *j->s++;
        if ( c == 'u' )
        {
            unsigned int i;

            for ( i = 0; i < 4; i++, j->s++ )
                if ( j->s == j->end || !isxdigit((unsigned char)*j->s) )
                    return false;
        }
        else if ( !strchr("\"\\/bfnrt", c) || !c )
            return false;
    }
    return j->s++ < j->end;
}

static bool digits(struct json *j)
{
    const char *start = j->s;

    while ( j->s < j->end && isdigit((unsigned char)*j->s) )
        j->s++;
    return j->s > start;
}

static bool json_number(struct json *j)
{
    if ( j->s < j->end && *j->s == '-' )
        j->s++;
    if ( j->s < j->end && *j->s == '0' )
        j->s++;
    else if ( !digits(j) )
        return false;
    if ( j->s < j->end && *j->s == '.' )
    {
        j->s++;
        if ( !digits(j) )
            return false;
    }
    if ( j->s < j->end && (*j->s == 'e' || *j->s == 'E') )
    {
        j->s++;
        if ( j->s < j->end && (*j->s == '+' || *j->s == '-') )
            j->s++;
        if ( !digits(j) )
            return false;
    }
    return true;
}

static bool json_word(struct json *j, const char *w)
{
    size_t n = strlen(w);

    if ( (size_t)(j->end - j->s) < n || memcmp(j->s, w, n) )
        return false;
    j->s += n;
    return true;
}

static bool json_value(struct json *j);

/* The members or elements of an object or array, up to @close. */
static bool json_items(struct json *j, char close, bool object)
{
    if ( ++j->depth > MAX_DEPTH )
        return false;
    if ( take(j, close) )
    {
        j->depth--;
        return true;
    }
    do
    {
        if ( object && (!json_string(j) || !take(j, ':')) )
            return false;
        if ( !json_value(j) )
            return false;
    } while ( take(j, ',') );
    j->depth--;
    return take(j, close);
}

static bool json_value(struct json *j)
{
    skip_space(j);
    if ( j->s == j->end )
        return false;
    switch ( *j->s )
    {
    case '{':
        j->s++;
        return json_items(j, '}', true);
    case '[':
        j->s++;
        return json_items(j, ']', false);
    case '"':
        return json_string(j);
    case 't':
        return json_word(j, "true");
    case 'f':
        return json_word(j, "false");
    case 'n':
        return json_word(j, "null");
    }
    return json_number(j);
}

bool json_valid(const char *s, size_t len)
{
    struct json j = { .s = s, .end = s + len };

    if ( !json_value(&j) )
        return false;
    skip_space(&j);
    return j.s == j.end;
}

bool has_nan_or_inf(const char *s, size_t len)
{
    size_t i;

    for ( i = 0; i + 3 <= len; i++ )
        if ( (!i || !isalnum((unsigned char)s[i - 1])) &&
             (!memcmp(s + i, "nan", 3) || !memcmp(s + i, "inf", 3)) &&
             (i + 3 == len || !isalnum((unsigned char)s[i + 3])) )
            return true;
    return false;
}

void output_open(struct output *o)
{
    o->f = open_memstream(&o->buf, &o->len);
    if ( !o->f )
        abort();
}

struct output fuzz_out;

static void __attribute__((constructor)) open_fuzz_out(void)
{
    output_open(&fuzz_out);
}

void output_reset(struct output *o)
{
    fclose(o->f);
    free(o->buf);
    output_open(o);
}

void output_lines(struct output *o, line_check *check, void *arg)
{
    const char *line, *end;
    unsigned int n = 0;

    fflush(o->f);
    for ( line = o->buf; line < o->buf + o->len; line = end + 1 )
    {
        end = memchr(line, '\n', o->buf + o->len - line);
        CHECK(end);
        check(arg, line, end - line, n++);
    }
}

unsigned int fuzz_bins(const uint8_t *data, size_t size)
{
    return size ? data[size - 1] + 1 : 1;
}

uint64_t fuzz_hz(struct xt_reader *r, const uint8_t *data, size_t size)
{
    if ( size > 1 && data[size - 2] & 1 )
        return 1000;
    return cli_tsc_hz(NULL, xt_reader_info(r), NULL);
}
