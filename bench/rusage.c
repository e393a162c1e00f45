/*
 * rusage: run a command and append its wall-clock and CPU seconds to a
 * file, as "wall user sys".  Benchmarks wrap a tracer in it to learn what
 * the tracer alone cost.
 *
 *   rusage [-w] [-m] OUTFILE COMMAND [ARG ...]
 *
 * With -w, one more figure: the command's voluntary context switches
 * (ru_nvcsw, every thread's), each a time it went to sleep: its wake-ups.
 * With -m, two more figures (after -w's): the command's peak resident set in KiB
 * (ru_maxrss: the pages of files it mapped included), and the largest
 * anonymous resident set seen in its /proc/PID/status (RssAnon: its heap
 * and stacks, not the files it maps), which is looked at every
 * millisecond while it runs, so that a run with -m is one for memory,
 * not for time: "wall user sys [wake-ups] maxrss anon".
 */
#include <err.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(struct timeval tv)
{
    return tv.tv_sec + tv.tv_usec / 1e6;
}

/* @pid's RssAnon in KiB, or 0 if it cannot be read. */
static long rss_anon(pid_t pid)
{
    char path[64], line[256];
    long kib = 0;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    if ( !(f = fopen(path, "r")) )
        return 0;
    while ( fgets(line, sizeof(line), f) )
        if ( sscanf(line, "RssAnon: %ld", &kib) == 1 )
            break;
    fclose(f);
    return kib;
}

int main(int argc, char *argv[])
{
    static const struct timespec ms = { .tv_nsec = 1000000 };
    struct timespec start, end;
    struct rusage ru;
    bool memory = false, wakeups = false;
    long anon = 0;
    FILE *out;
    pid_t pid, got;
    int status, opt;

    while ( (opt = getopt(argc, argv, "+mw")) != -1 )
        if ( opt == 'm' )
            memory = true;
        else if ( opt == 'w' )
            wakeups = true;
        else
            argc = 0;
    argv += optind - 1;
    argc -= optind - 1;
    if ( argc < 3 )
        errx(1, "usage: rusage [-w] [-m] OUTFILE COMMAND [ARG ...]");
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid = fork();
    if ( pid < 0 )
        err(1, "fork");
    if ( pid == 0 )
    {
        execvp(argv[2], argv + 2);
        err(127, "%s", argv[2]);
    }
    while ( (got = wait4(pid, &status, memory ? WNOHANG : 0, &ru)) == 0 )
    {
        long now = rss_anon(pid);

        if ( now > anon )
            anon = now;
        nanosleep(&ms, NULL);
    }
    if ( got != pid )
        err(1, "wait4");
    clock_gettime(CLOCK_MONOTONIC, &end);

    out = fopen(argv[1], "a");
    if ( !out )
        err(1, "%s", argv[1]);
    fprintf(out, "%.3f %.3f %.3f",
            end.tv_sec - start.tv_sec + (end.tv_nsec - start.tv_nsec) / 1e9,
            seconds(ru.ru_utime), seconds(ru.ru_stime));
    if ( wakeups )
        fprintf(out, " %ld", ru.ru_nvcsw);
    if ( memory )
        fprintf(out, " %ld %ld", ru.ru_maxrss, anon);
    fprintf(out, "\n");
    fclose(out);

    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
