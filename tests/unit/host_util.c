/* Test utilities: see host_util.h. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "host_util.h"

static char console[1 << 16];
static size_t console_len;

static void capture_line(const char *line)
{
    size_t len = strlen(line);

    if ( console_len + len < sizeof(console) )
    {
        memcpy(console + console_len, line, len + 1);
        console_len += len;
    }
}

const char *tu_console(void)
{
    return console;
}

void tu_console_clear(void)
{
    console_len = 0;
    console[0] = '\0';
}

void tu_capture_console(void)
{
    host_set_console(capture_line);
}

void tu_boot(unsigned int nr_cpus, const char *cmdline)
{
    struct host_config cfg = { .nr_cpus = nr_cpus, .cmdline = cmdline };

    tu_capture_console();
    assert_int_equal(host_boot(&cfg), 0);
}

int tu_tbuf_op(unsigned int cmd, struct xen_sysctl_tbuf_op *op)
{
    op->cmd = cmd;
    return tb_control(op);
}

static int simple_op(unsigned int cmd, uint32_t evt_mask, uint32_t size)
{
    struct xen_sysctl_tbuf_op op = { .evt_mask = evt_mask, .size = size };

    return tu_tbuf_op(cmd, &op);
}

int tu_set_size(unsigned int pages)
{
    return simple_op(XEN_SYSCTL_TBUFOP_set_size, 0, pages);
}

int tu_resize(unsigned int pages)
{
    return simple_op(XEN_SYSCTL_TBUFOP_resize, 0, pages);
}

int tu_dom_filter_stage(unsigned int first, unsigned int last)
{
    return simple_op(XEN_SYSCTL_TBUFOP_dom_filter_stage, first << 16 | last,
                     1);
}

int tu_event_switch(uint32_t event, unsigned int state)
{
    return simple_op(XEN_SYSCTL_TBUFOP_event_switch, event, state);
}

int tu_dom_filter_commit(bool on)
{
    return simple_op(XEN_SYSCTL_TBUFOP_dom_filter_commit, 0, on);
}

int tu_set_evt_mask(uint32_t mask)
{
    return simple_op(XEN_SYSCTL_TBUFOP_set_evt_mask, mask, 0);
}

int tu_enable(void)
{
    return simple_op(XEN_SYSCTL_TBUFOP_enable, 0, 0);
}

int tu_disable(void)
{
    return simple_op(XEN_SYSCTL_TBUFOP_disable, 0, 0);
}

int tu_set_cpu_mask(const uint8_t *bitmap, unsigned int nr_bits)
{
    struct xen_sysctl_tbuf_op op = {
        .cpu_mask = { .bitmap.p = (uint8_t *)bitmap, .nr_bits = nr_bits },
    };

    return tu_tbuf_op(XEN_SYSCTL_TBUFOP_set_cpu_mask, &op);
}

static void *map_frames(const uint32_t *mfns, unsigned int n, int prot)
{
    void *va = host_map_frames(mfns, n, prot);

    assert_non_null(va);
    return va;
}

const struct t_info *tu_map_t_info(void)
{
    struct xen_sysctl_tbuf_op op = { 0 };
    unsigned int i, n;
    uint32_t *mfns;
    const struct t_info *ti;

    assert_int_equal(tu_tbuf_op(XEN_SYSCTL_TBUFOP_get_info, &op), 0);
    assert_true(op.buffer_mfn != 0);
    n = op.size / PAGE_SIZE;
    assert_true(n > 0);
    mfns = calloc(n, sizeof(*mfns));
    assert_non_null(mfns);
    for ( i = 0; i < n; i++ )
        mfns[i] = op.buffer_mfn + i;
    ti = map_frames(mfns, n, PROT_READ);
    free(mfns);
    return ti;
}

void tu_map_buf(unsigned int cpu, struct tu_buf *b)
{
    const struct t_info *ti = tu_map_t_info();
    const uint32_t *mfns = (const uint32_t *)ti + ti->mfn_offset[cpu];
    unsigned char *va;

    assert_int_not_equal(ti->mfn_offset[cpu], 0);
    va = map_frames(mfns, ti->tbuf_size, PROT_READ | PROT_WRITE);
    b->cpu = cpu;
    b->meta = (volatile struct t_buf *)va;
    b->data = va + sizeof(struct t_buf);
    b->data_size = ti->tbuf_size * PAGE_SIZE - sizeof(struct t_buf);
}

uint32_t tu_unconsumed(const struct tu_buf *b)
{
    uint32_t prod = __atomic_load_n(&b->meta->prod, __ATOMIC_ACQUIRE);
    uint32_t cons = b->meta->cons;

    return prod >= cons ? prod - cons : prod + 2 * b->data_size - cons;
}

void tu_decode_header(uint32_t hdr, uint32_t off, struct tu_rec *r)
{
    r->event = TRC_HD_TO_EVENT(hdr);
    r->words = TRC_HD_EXTRA(hdr);
    r->has_tsc = TRC_HD_INCLUDES_CYCLE_COUNT(hdr);
    r->size = 4 + (r->has_tsc ? 8 : 0) + 4 * r->words;
    r->offset = off;
}

static void parse_record(const struct tu_buf *b, uint32_t off,
                         struct tu_rec *r)
{
    uint32_t hdr;

    memcpy(&hdr, b->data + off, 4);
    tu_decode_header(hdr, off, r);
    r->tsc = 0;
    assert_true(off + r->size <= b->data_size);    /* never straddles */
    if ( r->has_tsc )
        memcpy(&r->tsc, b->data + off + 4, 8);
    memcpy(r->data, b->data + off + r->size - 4 * r->words, 4 * r->words);
}

size_t tu_drain(struct tu_buf *b, struct tu_rec *recs, size_t max)
{
    /* C: records after prod; pairs with B. */
    uint32_t prod = __atomic_load_n(&b->meta->prod, __ATOMIC_ACQUIRE);
    uint32_t cons = b->meta->cons;
    uint32_t left = tu_unconsumed(b);
    size_t n = 0;

    while ( left )
    {
        struct tu_rec r;
        uint32_t off = cons % b->data_size;

        parse_record(b, off, &r);
        assert_true(r.size <= left);
        if ( recs && n < max )
            recs[n] = r;
        n++;
        left -= r.size;
        cons = (cons + r.size) % (2 * b->data_size);
    }
    assert_int_equal(cons, prod);

    /* D: records read before cons; pairs with A. */
    __atomic_store_n(&b->meta->cons, prod, __ATOMIC_RELEASE);
    return n;
}

/* Read exactly @len bytes unless the writer closes first. */
static size_t read_all(int fd, void *buf, size_t len)
{
    size_t got = 0;
    ssize_t n;

    while ( got < len && (n = read(fd, (char *)buf + got, len - got)) > 0 )
        got += n;
    return got;
}

void tu_in_fresh_host(void (*body)(void *result), void *result, size_t len)
{
    int fds[2], status;
    pid_t pid;
    size_t got;

    assert_int_equal(pipe(fds), 0);
    pid = fork();
    assert_true(pid >= 0);
    if ( pid == 0 )
    {
        close(fds[0]);
        body(result);
        _exit(write(fds[1], result, len) == (ssize_t)len ? 0 : 1);
    }
    close(fds[1]);
    got = read_all(fds[0], result, len);
    close(fds[0]);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(got, len);
}
