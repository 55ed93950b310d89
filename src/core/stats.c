/* stats.c - order statistics of repeated timings (core/stats.h): the
 * worker summarises its repetitions with them, and an import of a
 * recording that kept its repetitions does the same. */
#include "core/stats.h"

#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Linear interpolation between the closest ranks. */
static double quantile(const double *sorted, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    double frac = pos - (double)lo;
    return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

kt_summary kt_summarize(double *samples, size_t n)
{
    qsort(samples, n, sizeof *samples, cmp_double);
    kt_summary s;
    s.min = samples[0];
    s.median = quantile(samples, n, 0.5);
    s.p25 = quantile(samples, n, 0.25);
    s.p75 = quantile(samples, n, 0.75);
    s.spread = s.median > 0 ? (s.p75 - s.p25) / s.median : 0;
    return s;
}
