/*
 * sketch: a distribution of cycle counts in bounded memory, for
 * percentiles.
 *
 * A log-linear histogram: values below SKETCH_SUB are counted exactly;
 * above, each power of two is cut into SKETCH_SUB buckets of equal width,
 * so a bucket spans at most 1/SKETCH_SUB of its lowest value.  A
 * percentile is the middle of the bucket that holds it: within
 * 1/(2 * SKETCH_SUB) of the exact value (0.8% for 64), and exact below 64.
 * Count, sum, min and max are exact, and so are the quantiles 0 and 1.  Two sketches merge by adding their
 * buckets, so a domain's is the sum of its vCPUs'.  The buckets of a
 * power of two are allocated when it is first used: 64 octaves at most,
 * 512 bytes each.
 */
#ifndef SKETCH_H
#define SKETCH_H

#include <stdint.h>

#define SKETCH_SUB_BITS 6
#define SKETCH_SUB      (1u << SKETCH_SUB_BITS)
#define SKETCH_OCTAVES  (64 - SKETCH_SUB_BITS + 1)

struct sketch {
    uint64_t count, sum, min, max;
    uint64_t *octave[SKETCH_OCTAVES];   /* SKETCH_SUB counts each, or NULL */
};

/* 0, or -1 with ENOMEM. */
int sketch_add(struct sketch *s, uint64_t value);
int sketch_merge(struct sketch *into, const struct sketch *from);

/* The @q quantile (0 to 1) as above; 0 for an empty sketch. */
uint64_t sketch_quantile(const struct sketch *s, double q);

void sketch_free(struct sketch *s);

#endif /* SKETCH_H */
