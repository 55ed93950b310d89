/* stats.h - order statistics of repeated timings: what the worker stores
 * of a configuration's repetitions, and what an import computes from the
 * repetitions a recording kept, alike. */
#ifndef KT_STATS_H
#define KT_STATS_H

#include <stddef.h>

typedef struct kt_summary {
    double median, min, p25, p75, spread;  /* spread = (p75 - p25) / median */
} kt_summary;

/* Summarise n > 0 samples (reorders them). */
kt_summary kt_summarize(double *samples, size_t n);

#endif /* KT_STATS_H */
