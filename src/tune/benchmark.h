/* benchmark.h - search strategies compared on a recorded exhaustive space
 * (the job of Kernel Tuner's methodology tool): every strategy runs at every
 * budget for seeds 1..S; each run is a real kt_tune whose evaluations the
 * recording answers (kt_tune_opts.replay), so a run costs well under a
 * millisecond.  A run's quality after n evaluations is the fraction of the
 * optimum it reached: the optimum's time over the best time found so far
 * (0 before any success).
 */
#ifndef KT_BENCHMARK_H
#define KT_BENCHMARK_H

#include "tune/tuner.h"

typedef struct kt_bench_opts {
    const char *problem;              /* as for kt_tune */
    const kt_replay *replay;          /* the recording (required) */
    const char *const *strategies;    /* registered names; NULL: every one */
    size_t nstrategies;
    const double *budgets;            /* ascending: evaluations, or shares of
                                         the space when fractions is set; a
                                         budget past the space is the space */
    size_t nbudgets;
    bool fractions;
    unsigned seeds;                   /* runs per strategy and budget */
    size_t warm;                      /* kt_tune_opts.warm (0: from scratch) */
} kt_bench_opts;

/* Quartiles and mean of one quantity over the seeds.  Evaluations to a
 * target are INFINITY for a run that did not reach it (and so may the
 * quartiles be). */
typedef struct kt_bench_stat {
    double mean, q1, median, q3;
} kt_bench_stat;

/* One strategy at one budget. */
typedef struct kt_bench_row {
    const char *strategy;             /* the registry's name */
    uint64_t budget;                  /* evaluations */
    kt_bench_stat fraction;           /* of the optimum, at the end of the runs */
    double found;                     /* share of runs that found the optimum */
    kt_bench_stat to95, to99;         /* evaluations to 95% and 99% of it */
    unsigned reached95, reached99;    /* runs that got there */
    double seconds;                   /* the runs' time, all seeds */
} kt_bench_row;

typedef struct kt_bench_report {
    uint64_t space;                   /* valid configurations recorded */
    double optimum_ms;
    char *optimum_config;
    kt_bench_row *rows;               /* strategy-major, budgets ascending */
    size_t nrows, nstrategies, nbudgets;
    /* Per strategy, the runs of the largest budget after n = 1..curve_len
     * evaluations: curves[s * curve_len + n - 1] (a run that stopped early
     * keeps its last value). */
    kt_bench_stat *curves;
    size_t curve_len;
} kt_bench_report;

/* Run the comparison; KT_EINVAL for an unknown strategy or no budget. */
int kt_benchmark(const kt_spec *spec, const kt_bench_opts *opts, kt_bench_report *out,
                 kt_diag *diag);
void kt_bench_report_clear(kt_bench_report *r);

#endif /* KT_BENCHMARK_H */
