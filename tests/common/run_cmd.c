/* Test utility: see run_cmd.h. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "run_cmd.h"

int run_cmd(char *const argv[], const char *log)
{
    pid_t pid = fork();
    int status;

    assert_true(pid >= 0);
    if ( pid == 0 )
    {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

        if ( fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 )
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    char *text;
    long len;

    if ( !f )
        return NULL;
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    rewind(f);
    text = calloc(1, len + 1);
    assert_non_null(text);
    assert_true(fread(text, 1, len, f) == (size_t)len);
    fclose(f);
    return text;
}

int run_sh(const char *log, const char *fmt, ...)
{
    char cmd[8192];
    char *argv[] = { "/bin/sh", "-c", cmd, NULL };
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    assert_true(n >= 0 && (size_t)n < sizeof(cmd));
    return run_cmd(argv, log);
}

const char *trace_processor(void)
{
    static const char oracle[] =
        "../shared/oracles/perfetto-tp/trace_processor_shell";
    static bool said;
    const char *tp = getenv("TRACE_PROCESSOR");

    if ( !tp )
        tp = oracle;
    if ( !access(tp, X_OK) )
        return tp;
    if ( !said )
        print_message("no %s: what Perfetto reads is not checked\n", tp);
    said = true;
    return NULL;
}
