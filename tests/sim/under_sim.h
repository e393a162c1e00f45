/*
 * For dom0 test programs: run this program again as xen-sim's dom0 (with
 * 2 pCPUs, the mixed workload), unless it already is one.  Returns only
 * when running under xen-sim; XEN_SIM is the simulator under test.
 */
#ifndef UNDER_SIM_H
#define UNDER_SIM_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline void run_under_xen_sim(char *self)
{
    char *const sim[] = {
        XEN_SIM, "--pcpus", "2", "--workload", "mixed", "--", self, NULL,
    };

    if ( getenv("XEN_SIM_SOCKET") )
        return;
    execv(sim[0], sim);
    perror(XEN_SIM);
    exit(1);
}

#endif /* UNDER_SIM_H */
