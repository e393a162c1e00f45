/*
 * longest: the N longest intervals of a kind (exits, waits, hypercalls)
 * with what a developer looks for next: when, where, which vCPU, and the
 * guest's RIP.  xentrace-summary --longest N.
 *
 * The N are kept in a min-heap of N items, so memory is N items whatever
 * the trace's length.  Which N are kept does not depend on the order the
 * intervals come in (a file's pCPU order, a pipe's TSC order): longer
 * first, then the earlier, then by vCPU and pCPU.
 */
#ifndef LONGEST_H
#define LONGEST_H

#include <stdbool.h>
#include <stdint.h>

#define LONGEST_MAX     100000          /* --longest's largest N */

struct longest_item {
    uint64_t ticks;             /* its length: an exit's, in Xen */
    uint64_t start;             /* its TSC */
    uint32_t domvcpu;
    uint32_t pcpu;              /* MODEL_CPU_NONE: not known */
    uint64_t rip;               /* exits and hypercalls: the guest's */
    uint64_t what;              /* the exit's key (reason, SVM, Arm),
                                   the hypercall, or the wait's cause */
};

struct longest {
    struct longest_item *heap;  /* heap[0]: the least of those kept; once
                                   @sorted, the longest */
    unsigned int n, cap;
    bool sorted;
};

/* Room for @cap items; -1 with ENOMEM. */
int longest_init(struct longest *l, unsigned int cap);
void longest_free(struct longest *l);

/* Keep @it if it is among the longest so far. */
void longest_add(struct longest *l, const struct longest_item *it);

/*
 * The items kept, longest first: sorts the heap in place (once), after
 * which longest_add() adds nothing.
 */
const struct longest_item *longest_sorted(struct longest *l, unsigned int *n);

#endif /* LONGEST_H */
