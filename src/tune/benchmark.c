/* benchmark.c - strategies x budgets x seeds on a recording (benchmark.h). */
#include "tune/benchmark.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The trace of one run: the fraction of the optimum after each evaluation. */
typedef struct trace {
    double optimum;
    double *frac;                     /* [limit] */
    uint64_t n, limit;
} trace;

static void on_progress(void *user, const kt_progress *p)
{
    trace *t = user;
    if (t->n < t->limit)
        t->frac[t->n++] = isfinite(p->best_ms) ? t->optimum / p->best_ms : 0;
}

static kt_tune_opts run_opts(const kt_bench_opts *b)
{
    kt_tune_opts o = kt_tune_defaults();
    o.problem = b->problem;
    o.replay = b->replay;
    o.warm = b->warm;
    return o;
}

/* One replayed run with a budget of t->limit evaluations; t->frac is
 * carried forward past its end (a strategy that stops early finds nothing
 * more). */
static int run(const kt_spec *spec, const kt_bench_opts *b, const char *strategy,
               unsigned seed, trace *t, kt_diag *diag)
{
    kt_tune_opts o = run_opts(b);
    o.strategy = strategy;
    o.seed = seed;
    o.budget = (kt_budget){KT_BUDGET_COUNT, (double)t->limit};
    o.progress = on_progress;
    o.progress_user = t;
    t->n = 0;
    kt_tune_report rep;
    int rc = kt_tune(spec, &o, &rep, diag);
    kt_tune_report_clear(&rep);
    for (uint64_t i = t->n; i < t->limit; i++)
        t->frac[i] = i ? t->frac[i - 1] : 0;
    return rc;
}

/* ----------------------------------------------------------- statistics */

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Mean and quartiles of n > 0 values (sorted in place), linear
 * interpolation; an infinite neighbour keeps a quartile infinite. */
static kt_bench_stat stat_of(double *v, size_t n)
{
    qsort(v, n, sizeof *v, by_value);
    double q[3], sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    for (int k = 0; k < 3; k++) {
        double pos = (double)(k + 1) / 4 * (double)(n - 1);
        size_t lo = (size_t)pos;
        double w = pos - (double)lo;
        q[k] = v[lo];
        if (w > 0 && lo + 1 < n)
            q[k] = isinf(v[lo + 1]) ? INFINITY : v[lo] * (1 - w) + v[lo + 1] * w;
    }
    return (kt_bench_stat){.mean = sum / (double)n, .q1 = q[0], .median = q[1],
                           .q3 = q[2]};
}

/* Evaluations a trace needed to reach target; INFINITY if it never did. */
static double needed(const trace *t, double target)
{
    for (uint64_t i = 0; i < t->limit; i++)
        if (t->frac[i] >= target - 1e-12)
            return (double)(i + 1);
    return INFINITY;
}

/* ------------------------------------------------------------- one row */

/* The runs of one strategy at one budget, summarised into row. */
static int bench_row(const kt_spec *spec, const kt_bench_opts *b, trace *runs,
                     double *v, kt_bench_row *row, kt_diag *diag)
{
    double t0 = kt_now();
    unsigned found = 0;
    for (unsigned i = 0; i < b->seeds; i++) {
        runs[i].limit = row->budget;
        int rc = run(spec, b, row->strategy, i + 1, &runs[i], diag);
        if (rc != KT_OK)
            return rc;
        v[i] = runs[i].frac[row->budget - 1];
        found += v[i] >= 1 - 1e-12;
    }
    row->fraction = stat_of(v, b->seeds);
    row->found = (double)found / b->seeds;
    row->reached95 = row->reached99 = 0;
    for (unsigned i = 0; i < b->seeds; i++)
        row->reached95 += isfinite(v[i] = needed(&runs[i], 0.95));
    row->to95 = stat_of(v, b->seeds);
    for (unsigned i = 0; i < b->seeds; i++)
        row->reached99 += isfinite(v[i] = needed(&runs[i], 0.99));
    row->to99 = stat_of(v, b->seeds);
    row->seconds = kt_now() - t0;
    return KT_OK;
}

/* The largest budget's runs, evaluation by evaluation. */
static void curve_of(const kt_bench_opts *b, const trace *runs, double *v,
                     kt_bench_stat *curve, size_t len)
{
    for (size_t n = 0; n < len; n++) {
        for (unsigned i = 0; i < b->seeds; i++)
            v[i] = runs[i].frac[n];
        curve[n] = stat_of(v, b->seeds);
    }
}

/* ----------------------------------------------------------------- setup */

/* The recording's optimum and size, by replaying every configuration. */
static int find_optimum(const kt_spec *spec, const kt_bench_opts *b, kt_bench_report *out,
                        kt_diag *diag)
{
    kt_tune_opts o = run_opts(b);
    o.strategy = kt_strategy_exhaustive()->name;
    o.warm = 0;
    kt_tune_report rep;
    int rc = kt_tune(spec, &o, &rep, diag);
    if (rc == KT_OK && !rep.best_config)
        rc = kt_fail(diag, KT_EEMPTY, "no configuration of the recording ran correctly");
    if (rc == KT_OK) {
        out->space = rep.space_size;
        out->optimum_ms = rep.best.time_ms;
        out->optimum_config = kt_strdup(rep.best_config);
    }
    kt_tune_report_clear(&rep);
    return rc;
}

static uint64_t budget_count(const kt_bench_opts *b, uint64_t space, size_t k)
{
    double x = b->fractions ? ceil(b->budgets[k] * (double)space) : b->budgets[k];
    return x < 1 ? 1 : x > (double)space ? space : (uint64_t)x;
}

static const char *strategy_name(const kt_bench_opts *b, size_t i)
{
    return b->strategies ? b->strategies[i] : kt_strategy_at(i)->name;
}

static int check_opts(const kt_bench_opts *b, size_t nstrategies, kt_diag *diag)
{
    if (!b->replay || b->nbudgets == 0 || b->seeds == 0 || nstrategies == 0)
        return kt_fail(diag, KT_EINVAL, "a benchmark needs a recording, a budget, a "
                       "seed and a strategy");
    for (size_t k = 0; k < b->nbudgets; k++)
        if (!(b->budgets[k] > 0) || (k && b->budgets[k] <= b->budgets[k - 1]))
            return kt_fail(diag, KT_EINVAL, "budgets must be positive and ascending");
    for (size_t i = 0; i < nstrategies; i++)
        if (!kt_strategy_find(strategy_name(b, i)))
            return kt_fail(diag, KT_EINVAL, "unknown strategy '%s'", strategy_name(b, i));
    return KT_OK;
}

/* ---------------------------------------------------------------- public */

/* Every budget of strategy s into its rows; the largest budget's runs
 * into its curve. */
static int bench_strategy(const kt_spec *spec, const kt_bench_opts *b, size_t s,
                          trace *runs, double *v, kt_bench_report *out, kt_diag *diag)
{
    int rc = KT_OK;
    for (size_t k = 0; rc == KT_OK && k < b->nbudgets; k++) {
        kt_bench_row *row = &out->rows[s * b->nbudgets + k];
        row->strategy = kt_strategy_find(strategy_name(b, s))->name;
        row->budget = budget_count(b, out->space, k);
        rc = bench_row(spec, b, runs, v, row, diag);
    }
    if (rc == KT_OK)
        curve_of(b, runs, v, out->curves + s * out->curve_len, out->curve_len);
    return rc;
}

int kt_benchmark(const kt_spec *spec, const kt_bench_opts *b, kt_bench_report *out,
                 kt_diag *diag)
{
    *out = (kt_bench_report){0};
    size_t ns = b->strategies ? b->nstrategies : kt_strategy_count();
    int rc = check_opts(b, ns, diag);
    if (rc == KT_OK)
        rc = find_optimum(spec, b, out, diag);
    if (rc != KT_OK)
        return rc;
    out->nstrategies = ns;
    out->nbudgets = b->nbudgets;
    out->nrows = ns * b->nbudgets;
    out->curve_len = (size_t)budget_count(b, out->space, b->nbudgets - 1);
    out->rows = calloc(out->nrows, sizeof *out->rows);
    out->curves = calloc(ns * out->curve_len, sizeof *out->curves);
    trace *runs = calloc(b->seeds, sizeof *runs);
    double *v = calloc(b->seeds, sizeof *v);
    rc = out->rows && out->curves && runs && v ? KT_OK
                                               : kt_fail(diag, KT_ENOMEM, "out of memory");
    for (unsigned i = 0; rc == KT_OK && i < b->seeds; i++) {
        runs[i].optimum = out->optimum_ms;
        if (!(runs[i].frac = calloc(out->curve_len, sizeof *runs[i].frac)))
            rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    for (size_t s = 0; rc == KT_OK && s < ns; s++)
        rc = bench_strategy(spec, b, s, runs, v, out, diag);
    for (unsigned i = 0; runs && i < b->seeds; i++)
        free(runs[i].frac);
    free(runs);
    free(v);
    if (rc != KT_OK)
        kt_bench_report_clear(out);
    return rc;
}

void kt_bench_report_clear(kt_bench_report *r)
{
    free(r->optimum_config);
    free(r->rows);
    free(r->curves);
    *r = (kt_bench_report){0};
}
