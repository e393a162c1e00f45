/*
 * host: a reader's records from a xentrace of its own (host.h).
 */
#define _GNU_SOURCE             /* memfd_create, pipe2 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host.h"

extern char **environ;

static pid_t xentrace_pid;      /* 0: none started */
static bool reaped;
static int ended_badly;         /* host_stop()'s answer, once reaped */
static int said_fd = -1;        /* xentrace's standard error, kept */
static char xentrace_path[PATH_MAX];

/* $XENTRACE, or the xentrace beside this program (host.h). */
static const char *find_xentrace(void)
{
    static const char *const beside[] = {
        "/../xentrace/xentrace", "/../sbin/xentrace",
    };
    const char *env = getenv("XENTRACE");
    char self[PATH_MAX], *slash;
    ssize_t n;
    unsigned int i;

    if ( env && *env )
        return env;
    n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if ( n <= 0 )
        err(CLI_EXIT_ERROR, "/proc/self/exe");
    self[n] = '\0';
    if ( (slash = strrchr(self, '/')) )
        *slash = '\0';
    for ( i = 0; i < sizeof(beside) / sizeof(beside[0]); i++ )
        if ( snprintf(xentrace_path, sizeof(xentrace_path), "%s%s", self,
                      beside[i]) < (int)sizeof(xentrace_path) &&
             !access(xentrace_path, X_OK) )
            return xentrace_path;
    errx(CLI_EXIT_ERROR, "no xentrace beside %s (..%s or ..%s): set "
         "XENTRACE to xentrace-ng's", self, beside[0] + 3, beside[1] + 3);
}

static void pass_on(int sig)
{
    (void)sig;
    kill(xentrace_pid, SIGTERM);
}

static void stop_at_exit(void)
{
    host_stop(true);
}

void host_start(const char *const options[], bool keep_stderr)
{
    const char *path = find_xentrace();
    char *argv[HOST_OPTIONS + 2];
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none;
    unsigned int n;
    int out[2];

    argv[0] = (char *)path;
    for ( n = 0; options[n]; n++ )
    {
        if ( n == HOST_OPTIONS )
            errx(CLI_EXIT_ERROR, "more than %u options for xentrace",
                 HOST_OPTIONS);
        argv[n + 1] = (char *)options[n];
    }
    argv[n + 1] = NULL;
    if ( pipe2(out, O_CLOEXEC) ||
         (keep_stderr &&
          (said_fd = memfd_create("xentrace stderr", MFD_CLOEXEC)) < 0) )
        err(CLI_EXIT_ERROR, "xentrace");
    sigemptyset(&none);
    if ( (errno = posix_spawn_file_actions_init(&fa)) ||
         (errno = posix_spawn_file_actions_addopen(&fa, STDIN_FILENO,
                                                   "/dev/null", O_RDONLY,
                                                   0)) ||
         (errno = posix_spawn_file_actions_adddup2(&fa, out[1],
                                                   STDOUT_FILENO)) ||
         (said_fd >= 0 &&
          (errno = posix_spawn_file_actions_adddup2(&fa, said_fd,
                                                    STDERR_FILENO))) ||
         (errno = posix_spawnattr_init(&attr)) ||
         (errno = posix_spawnattr_setsigmask(&attr, &none)) ||
         (errno = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK)) )
        err(CLI_EXIT_ERROR, "xentrace");
    if ( (errno = posix_spawn(&xentrace_pid, path, &fa, &attr, argv,
                              environ)) )
        err(CLI_EXIT_ERROR, "%s", path);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if ( dup2(out[0], STDIN_FILENO) < 0 )
        err(CLI_EXIT_ERROR, "xentrace");
    close(out[0]);
    close(out[1]);
    cli_on_end_signals(pass_on);
    atexit(stop_at_exit);
}

struct xt_reader *host_open(const struct cli *c)
{
    struct xt_reader *r = cli_try_open(c, "-", 0);
    int why = errno;

    if ( r )
        return r;
    if ( host_stop(true) )
        exit(CLI_EXIT_ERROR);   /* after xentrace's own line */
    errx(CLI_EXIT_ERROR, "xentrace: %s", xt_reader_strerror(why));
}

/* Read the rest of the stream, and throw it away. */
static void drain_stream(void)
{
    static char buf[1 << 16];
    ssize_t n;

    while ( (n = read(STDIN_FILENO, buf, sizeof(buf))) > 0 ||
            (n < 0 && errno == EINTR) )
        continue;
}

/* What xentrace said while the screen held the terminal. */
static void write_out_what_it_said(void)
{
    char buf[4096];
    ssize_t n;

    if ( said_fd < 0 || lseek(said_fd, 0, SEEK_SET) )
        return;
    while ( (n = read(said_fd, buf, sizeof(buf))) > 0 )
        if ( write(STDERR_FILENO, buf, n) != n )
            break;
    close(said_fd);
    said_fd = -1;
}

int host_stop(bool drain)
{
    pid_t ended;
    int status;

    if ( !xentrace_pid || reaped )
        return ended_badly;
    if ( !(ended = waitpid(xentrace_pid, &status, WNOHANG)) )
    {
        kill(xentrace_pid, SIGTERM);
        if ( drain )
            drain_stream();
        while ( (ended = waitpid(xentrace_pid, &status, 0)) < 0 &&
                errno == EINTR )
            continue;
    }
    reaped = true;
    write_out_what_it_said();
    if ( ended < 0 )
    {
        warn("xentrace");
        return ended_badly = 1;
    }
    if ( WIFSIGNALED(status) )
        warnx("xentrace: killed by signal %d (%s)", WTERMSIG(status),
              strsignal(WTERMSIG(status)));
    ended_badly = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    return ended_badly;
}
