/* Host environment: which CPU the calling thread runs as. */
#ifndef __HOST_XEN_SMP_H__
#define __HOST_XEN_SMP_H__

extern __thread unsigned int host_this_cpu;

#define smp_processor_id() (host_this_cpu)

#endif /* __HOST_XEN_SMP_H__ */
