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

/* A quantity's quartiles over the seeds and one strategy at one budget:
 * the public ktune_bench_stat and ktune_bench_row (include/ktune.h). */
typedef ktune_bench_stat kt_bench_stat;
typedef ktune_bench_row kt_bench_row;

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
