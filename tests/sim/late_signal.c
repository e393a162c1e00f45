/*
 * late-signal: an LD_PRELOAD shim for test_sim_faults.  The first time
 * its program waits in ppoll(2) for a second or more, it raises SIGTERM
 * just before the wait: so the signal lands after the program last
 * looked at whether it was told to stop, and before it waits, the window
 * that a tracer waiting for -s must not lose a signal in.  Says so on
 * stderr, so that a test knows the window was hit.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

typedef int ppoll_fn(struct pollfd *, nfds_t, const struct timespec *,
                     const sigset_t *);

int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout,
          const sigset_t *sigmask)
{
    static const char said[] = "late-signal: SIGTERM before the wait\n";
    static ppoll_fn *real;
    static int raised;

    if ( !real && !(real = (ppoll_fn *)dlsym(RTLD_NEXT, "ppoll")) )
        _exit(126);
    if ( !raised && timeout && timeout->tv_sec >= 1 )
    {
        raised = 1;
        if ( write(STDERR_FILENO, said, strlen(said)) < 0 )
            _exit(126);
        raise(SIGTERM);
    }
    return real(fds, nfds, timeout, sigmask);
}
