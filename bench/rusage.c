/*
 * rusage: run a command and append its wall-clock and CPU seconds to a
 * file, as "wall user sys".  Benchmarks wrap a tracer in it to learn what
 * the tracer alone cost.  With -w, a fourth figure: the command's
 * voluntary context switches (ru_nvcsw, every thread's), each a time it
 * went to sleep: its wake-ups.
 *
 *   rusage [-w] OUTFILE COMMAND [ARG ...]
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

int main(int argc, char *argv[])
{
    struct timespec start, end;
    bool wakeups = argc > 1 && !strcmp(argv[1], "-w");
    struct rusage ru;
    FILE *out;
    pid_t pid;
    int status;

    argc -= wakeups;
    argv += wakeups;
    if ( argc < 3 )
        errx(1, "usage: rusage [-w] OUTFILE COMMAND [ARG ...]");
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid = fork();
    if ( pid < 0 )
        err(1, "fork");
    if ( pid == 0 )
    {
        execvp(argv[2], argv + 2);
        err(127, "%s", argv[2]);
    }
    if ( wait4(pid, &status, 0, &ru) != pid )
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
    fputc('\n', out);
    fclose(out);

    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
