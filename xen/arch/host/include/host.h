/*
 * Xen as a process: the embedder's side of the host environment.
 *
 * A program (xen-sim, a test, a benchmark) boots the hypervisor with
 * host_boot(), then runs physical CPUs on its own threads: a thread calls
 * host_cpu_enter(cpu) and from then on Xen code on that thread runs as
 * that CPU.  Trace points are called directly; softirq work (the VIRQ_TBUF
 * tasklet) runs when the thread calls host_process_softirqs(), which is the
 * host's "return to guest".  Machine memory is a shared memory file that a
 * dom0 can map frame by frame (host_machine_fd(), host_frame_sharing()).
 */
#ifndef __HOST_H__
#define __HOST_H__

#include <stdint.h>
#include <sys/types.h>

struct vcpu;

/* How dom0 may map a frame of machine memory. */
#define HOST_SHARED_NONE  0
#define HOST_SHARED_RO    1
#define HOST_SHARED_RW    2

struct host_config {
    unsigned int nr_cpus;       /* possible CPUs (nr_cpu_ids), 1..256 */
    unsigned int online_cpus;   /* CPUs up at boot; 0 means all */
    unsigned long mem_pages;    /* machine memory; 0 means 1 GiB (sparse) */
    const char *cmdline;        /* Xen command line, e.g. "tbuf_size=32" */
};

/* Boot once per process; 0 or -errno.  The calling thread becomes CPU 0. */
int host_boot(const struct host_config *cfg);

/*
 * Run the calling thread as @cpu, in that CPU's idle vCPU.  A thread that
 * never did (a control-plane thread, say) must not run code that uses
 * per-CPU data: it faults on the first access.
 */
void host_cpu_enter(unsigned int cpu);

/*
 * The calling CPU's TSC reads @cycles off the machine's from now on, as on
 * a host whose CPUs' TSCs are not in step (for tests: see xen-sim's
 * --tsc-skew).
 */
void host_set_tsc_offset(int64_t cycles);

/*
 * The calling CPU's TSC reads @tsc (plus its offset) from now on, until
 * set again: a simulated clock, for records that are the same run after
 * run (xen-sim --repeatable).  Only in a build with HOST_SETTABLE_TSC
 * (xen-sim's), so that no other reads the TSC through a test.
 */
void host_set_tsc(uint64_t tsc);

/* CPUs that exist (nr_cpu_ids), and those online now. */
unsigned int host_possible_cpus(void);
unsigned int host_online_cpus(void);

/* Bring @cpu online after boot (CPU hotplug); 0 or -errno. */
int host_cpu_up(unsigned int cpu);

/* Run the calling CPU's pending tasklets; returns how many ran. */
unsigned int host_process_softirqs(void);

/* The vCPU the calling CPU runs; NULL switches back to its idle vCPU. */
void host_set_current(struct vcpu *v);

/* Called for every virq Xen sends; the default only counts them. */
void host_set_virq_handler(void (*handler)(unsigned int virq));
unsigned long host_virq_count(unsigned int virq);

/* Where printk() lines go (each ends in '\n'); NULL means stderr. */
void host_set_console(void (*write_line)(const char *line));

/* Machine memory, for dom0 mappings: frame n is at offset n * 4096. */
int host_machine_fd(void);
unsigned long host_machine_pages(void);
int host_frame_sharing(unsigned long mfn);   /* HOST_SHARED_* */
void *host_mfn_to_virt(unsigned long mfn);

/*
 * A reference to a frame Xen shared with dom0, as a mapping of it takes
 * in Xen (0, or -EPERM for a frame not shared), and its release.  While
 * one is held, Xen cannot take the frame back (trace.c's resize).
 */
int host_get_frame(unsigned long mfn);
void host_put_frame(unsigned long mfn);

/*
 * Map @n frames into one virtually contiguous range, as a dom0 foreign
 * mapping of DOMID_XEN frames does: only frames Xen shared, and writable
 * only if shared read-write, each holding a reference until
 * host_unmap_frames().  NULL with errno EPERM otherwise.
 */
void *host_map_frames(const uint32_t *mfns, unsigned int n, int prot);
void host_unmap_frames(void *va, const uint32_t *mfns, unsigned int n);

#endif /* __HOST_H__ */
