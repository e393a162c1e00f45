/*
 * xentrace-ctl: steer a running xentrace through its control socket
 * (xentrace --control PATH; control.h has the protocol).  One request a
 * run: it sends it, prints the answer, and exits 0 if it was carried
 * out.  The masks are checked by xentrace, with -e's and -c's grammar.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "control.h"

static const char synopsis[] =
    "usage: xentrace-ctl [-h] [-s socket] -e evt-mask | -c cpu-mask |\n"
    "                    -d domains | --event event=on|off|mask | --flush |\n"
    "                    --stop | --status\n";

static void __attribute__((noreturn)) usage(FILE *to, int status)
{
    fputs(synopsis, to);
    if ( !status )
        fputs("  -s, --socket socket     the capture's --control socket "
              "(" CONTROL_DEFAULT_PATH ")\n"
              "  -e, --evt-mask evt-mask trace these classes from now, as "
              "xentrace -e\n"
              "  -c, --cpu-mask cpu-mask trace these CPUs from now, as "
              "xentrace -c\n"
              "  -d, --domains domains   trace these domains from now, as "
              "xentrace -d;\n"
              "                          all: every domain\n"
              "      --event event=on|off|mask\n"
              "                          trace the event from now whatever "
              "the event mask\n"
              "                          says, or never, or as it says "
              "again\n"
              "      --flush             write what the capture holds now\n"
              "      --stop              end the capture, as a signal does\n"
              "      --status            the event mask, records and losses "
              "so far\n"
              "  -h, --help              print this help and exit\n", to);
    exit(status);
}

/* The request: one command, and its argument if it takes one. */
static void take_command(char *request, size_t size, const char *command,
                         const char *arg)
{
    if ( *request )
        usage(stderr, 1);               /* one command a run */
    snprintf(request, size, "%s%s%s", command, arg ? " " : "",
             arg ? arg : "");
}

static void parse_options(int argc, char *argv[], const char **path,
                          char *request, size_t size)
{
    enum { OPT_FLUSH = 256, OPT_STOP, OPT_STATUS, OPT_EVENT };
    static const struct option longopts[] = {
        { "socket",   required_argument, NULL, 's' },
        { "evt-mask", required_argument, NULL, 'e' },
        { "cpu-mask", required_argument, NULL, 'c' },
        { "domains",  required_argument, NULL, 'd' },
        { "event",    required_argument, NULL, OPT_EVENT },
        { "flush",    no_argument,       NULL, OPT_FLUSH },
        { "stop",     no_argument,       NULL, OPT_STOP },
        { "status",   no_argument,       NULL, OPT_STATUS },
        { "help",     no_argument,       NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int ch;

    while ( (ch = getopt_long(argc, argv, "c:d:e:hs:", longopts, NULL)) != -1 )
        switch ( ch )
        {
        case 's': *path = optarg; break;
        case 'e': take_command(request, size, "evt-mask", optarg); break;
        case 'c': take_command(request, size, "cpu-mask", optarg); break;
        case 'd': take_command(request, size, "domains", optarg); break;
        case OPT_EVENT: take_command(request, size, "event", optarg); break;
        case OPT_FLUSH: take_command(request, size, "flush", NULL); break;
        case OPT_STOP: take_command(request, size, "stop", NULL); break;
        case OPT_STATUS: take_command(request, size, "status", NULL); break;
        case 'h': usage(stdout, 0);
        default: usage(stderr, 1);
        }
    if ( optind != argc || !*request )
        usage(stderr, 1);
}

/* Connected to the capture at @path, or exit with why. */
static int connect_to(const char *path)
{
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

    if ( fd < 0 )
        err(1, "socket");
    if ( strlen(path) >= sizeof(addr.sun_path) )
        errx(1, "%s: longer than a socket's path may be", path);
    strcpy(addr.sun_path, path);
    if ( !connect(fd, (struct sockaddr *)&addr, sizeof(addr)) )
        return fd;
    if ( errno == ENOENT || errno == ECONNREFUSED )
        errx(1, "%s: no capture answers there (xentrace --control %s)", path,
             path);
    err(1, "%s", path);
}

int main(int argc, char *argv[])
{
    const char *path = CONTROL_DEFAULT_PATH;
    char request[CONTROL_MESSAGE_MAX] = "", answer[CONTROL_MESSAGE_MAX];
    ssize_t n;
    int fd;

    parse_options(argc, argv, &path, request, sizeof(request));
    fd = connect_to(path);
    if ( send(fd, request, strlen(request), MSG_NOSIGNAL) < 0 )
        err(1, "%s", path);
    n = recv(fd, answer, sizeof(answer) - 1, 0);
    if ( n <= 0 )
        errx(1, "%s: the capture hung up without an answer", path);
    answer[n] = '\0';
    close(fd);
    if ( !strncmp(answer, "ok: ", 4) )
    {
        puts(answer + 4);
        return 0;
    }
    errx(1, "%s", strncmp(answer, "error: ", 7) ? answer : answer + 7);
}
