/*
 * Test utilities: boot the host build of the hypervisor, drive its control
 * plane, and read its buffers as dom0 would, through mappings of machine
 * frames listed in t_info.
 */
#ifndef HOST_UTIL_H
#define HOST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <host.h>
#include <xen/lib.h>
#include <xen/trace.h>

/* Boot with @nr_cpus CPUs (all online) and @cmdline; fails the test on error. */
void tu_boot(unsigned int nr_cpus, const char *cmdline);

/*
 * Send printk() lines to a buffer that tu_console() returns: everything
 * since (or since the last tu_console_clear()).  tu_boot() does it.
 */
void tu_capture_console(void);
const char *tu_console(void);
void tu_console_clear(void);

/* XEN_SYSCTL_tbuf_op @cmd with @op's other fields; returns tb_control()'s rc. */
int tu_tbuf_op(unsigned int cmd, struct xen_sysctl_tbuf_op *op);
int tu_set_size(unsigned int pages);
int tu_resize(unsigned int pages);
int tu_set_evt_mask(uint32_t mask);
int tu_set_cpu_mask(const uint8_t *bitmap, unsigned int nr_bits);
int tu_enable(void);
/* The domain filter: stage ids @first to @last; put the staged in force. */
int tu_dom_filter_stage(unsigned int first, unsigned int last);
int tu_dom_filter_commit(bool on);
/* Switch @event XEN_TBUF_EVENT_OFF, _ON or back to the masks (_MASKS). */
int tu_event_switch(uint32_t event, unsigned int state);
int tu_disable(void);

/* The t_info area, mapped read-only from its frames. */
const struct t_info *tu_map_t_info(void);

/* One CPU's buffer, its frames mapped virtually contiguous (as xentrace). */
struct tu_buf {
    unsigned int cpu;
    volatile struct t_buf *meta;
    const unsigned char *data;
    uint32_t data_size;
};
void tu_map_buf(unsigned int cpu, struct tu_buf *b);

/* One record as found in a buffer. */
struct tu_rec {
    uint32_t event;            /* TRC_HD_TO_EVENT of the header */
    unsigned int words;        /* payload words */
    bool has_tsc;
    uint64_t tsc;
    uint32_t data[7];
    uint32_t size;             /* bytes */
    uint32_t offset;           /* data offset in the buffer */
};

/* Fill in @r's header fields from @hdr, a record at data offset @off. */
void tu_decode_header(uint32_t hdr, uint32_t off, struct tu_rec *r);

/*
 * Read the records between cons and prod into @recs (at most @max), then
 * consume them.  Returns how many were read.  Fails the test on a record
 * that straddles the end of the data area or overruns prod.
 */
size_t tu_drain(struct tu_buf *b, struct tu_rec *recs, size_t max);

/* Bytes between cons and prod. */
uint32_t tu_unconsumed(const struct tu_buf *b);

/*
 * Run @body in a child process and copy the @len bytes it fills in
 * @result back; the child has a fresh, unbooted hypervisor.  Fails the test
 * if the child does not exit normally.  @body must not use cmocka's asserts
 * (nor the tu_ functions above, which do): a failure there would resume
 * the test run inside the child.
 */
void tu_in_fresh_host(void (*body)(void *result), void *result, size_t len);

#endif /* HOST_UTIL_H */
