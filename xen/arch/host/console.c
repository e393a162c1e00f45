/*
 * Host environment: printk() and the console.  Lines go to the embedder's
 * console hook, or to stderr as "(XEN) ...", whole lines at a time.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <host.h>
#include <xen/lib.h>

static void (*console_hook)(const char *line);
static pthread_mutex_t console_lock = PTHREAD_MUTEX_INITIALIZER;

void host_set_console(void (*write_line)(const char *line))
{
    pthread_mutex_lock(&console_lock);
    console_hook = write_line;
    pthread_mutex_unlock(&console_lock);
}

/* Xen's log levels are "<n>" prefixes; the host console drops them. */
static const char *skip_level(const char *s)
{
    if ( s[0] == '<' && s[1] >= '0' && s[1] <= '9' && s[2] == '>' )
        return s + 3;
    return s;
}

void printk(const char *fmt, ...)
{
    char line[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);

    pthread_mutex_lock(&console_lock);
    if ( console_hook )
        console_hook(skip_level(line));
    else
        fprintf(stderr, "(XEN) %s", skip_level(line));
    pthread_mutex_unlock(&console_lock);
}

void host_assert_failed(const char *what, const char *file, int line)
{
    fprintf(stderr, "(XEN) Assertion '%s' failed at %s:%d\n", what, file,
            line);
    abort();
}
