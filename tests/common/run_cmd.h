/* Test utilities: run a command with its output in a file; read a file. */
#ifndef RUN_CMD_H
#define RUN_CMD_H

/*
 * Run @argv (argv[0] a path) with stdout and stderr to @log; returns its
 * exit status, or 128 plus the signal that ended it.  Fails the test if
 * it cannot be waited for.
 */
int run_cmd(char *const argv[], const char *log);

/* The same for a shell command, made from printf's @fmt and what follows. */
int run_sh(const char *log, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The whole of file @path, NUL-terminated, or NULL if it cannot be opened. */
char *read_file(const char *path);

/*
 * Perfetto's trace processor: $TRACE_PROCESSOR, else the oracle's
 * (../shared/oracles/perfetto-tp); NULL, said once, if it is not there.
 */
const char *trace_processor(void);

#endif /* RUN_CMD_H */
