/* Host environment: what its parts tell each other at boot. */
#ifndef __HOST_PRIVATE_H__
#define __HOST_PRIVATE_H__

int host_mm_init(unsigned long pages);
int host_parse_cmdline(const char *cmdline);

#endif /* __HOST_PRIVATE_H__ */
