/*
 * tbuf-mask: print the trace event mask in force, as a dom0 program
 * (XEN_SYSCTL_tbuf_op get_info).  For tests that check what a tracer
 * leaves behind.
 */
#include <err.h>
#include <stdio.h>

#include <xenctrl.h>

int main(void)
{
    xc_interface *xch = xc_interface_open(NULL, NULL, 0);
    struct xen_sysctl sysctl = {
        .cmd = XEN_SYSCTL_tbuf_op,
        .interface_version = XEN_SYSCTL_INTERFACE_VERSION,
        .u.tbuf_op.cmd = XEN_SYSCTL_TBUFOP_get_info,
    };

    if ( !xch )
        err(1, "xc_interface_open");
    if ( xc_sysctl(xch, &sysctl) )
        err(1, "get_info");
    printf("evt_mask %#x\n", sysctl.u.tbuf_op.evt_mask);
    xc_interface_close(xch);
    return 0;
}
