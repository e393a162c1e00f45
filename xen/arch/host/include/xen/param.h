/*
 * Host environment: boot parameters.  integer_param() registers a variable
 * in the host_params section; host_boot() parses the command line into it.
 */
#ifndef __HOST_XEN_PARAM_H__
#define __HOST_XEN_PARAM_H__

#include <xen/config.h>

struct kernel_param {
    const char *name;
    unsigned int *var;
};

#define integer_param(_name, _var)                                      \
    static const struct kernel_param __used __section("host_params")   \
        __param_##_var = { .name = (_name), .var = &(_var) }

#endif /* __HOST_XEN_PARAM_H__ */
