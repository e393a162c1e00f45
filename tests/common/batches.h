/*
 * Epochs of batches for xt_writer_put(), for programs that make records
 * themselves (the tests, bench/gen-trace): each CPU's records collect in
 * memory laid out as its batch; batches_put() writes every CPU's that
 * holds records, in ascending CPU order, an epoch, as xentrace does.
 */
#ifndef BATCHES_H
#define BATCHES_H

#include <stdbool.h>
#include <stddef.h>

#include "xtfile.h"

struct batches;

/* @nr_cpus CPUs; batches_full() once one holds @batch_bytes.  NULL: ENOMEM. */
struct batches *batches_new(unsigned int nr_cpus, size_t batch_bytes);
void batches_free(struct batches *b);

/* Copy @len bytes of whole records of CPU @cpu in; -1 with errno. */
int batches_add(struct batches *b, unsigned int cpu, const void *data,
                size_t len);

/* Whether some CPU holds batch_bytes or more. */
bool batches_full(const struct batches *b);

/*
 * Put every CPU's batch that holds records, ascending, and empty them:
 * 0, or -1 with the writer's errno (what was held is dropped).
 */
int batches_put(struct batches *b, struct xt_writer *w);

#endif /* BATCHES_H */
