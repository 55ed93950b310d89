/* analyze_rank.c - which tuning parameter matters most where it counts,
 * and the check of that answer (analyze.h).
 *
 * The question (issue 14): what does fixing a parameter at its worst value
 * cost the best configuration?  The ablation answers it on the
 * measurements: for each value, the best time among the rows with it,
 * over the best time.  The ranking answers the same question with the
 * model, from the held-out predictions of the cross-validation (each row
 * predicted by a model that did not see it), so the ablation stays a check
 * on data the ranking never used as its own answer.  Mean |SHAP| (analyze.c)
 * answers another question, what moves a typical configuration, and is
 * reported beside it.  Both walk the same per-value minima (value_costs).
 *
 * Two costs are a tie when they differ by less than twice the standard
 * deviation of their difference, from the repetitions' spread of the two
 * times each is made of (a->noise). */
#include "ml/analyze.h"
#include "core/util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* How many standard deviations of noise two costs must differ by to count
 * as different: about a 5 % chance of calling two equal costs unequal. */
#define TIE_SDS 2.0

/* The least of v among one value's rows in one problem, and which row. */
typedef struct cell {
    double v;
    size_t row;
} cell;

/* Feature f's worst value by the per-row logs v (NAN: no reading): for each
 * value and problem, the least v among its rows less the problem's least
 * overall (best[p]); the value whose mean of those over its problems is
 * largest.  Its log cost into *cost, its index into *worst and, for each
 * problem, the row of its least into rows (SIZE_MAX where none), which
 * let the caller weigh the noise of the cost. */
static int value_costs(const kt_analysis *a, size_t f, const double *v, const cell *best,
                       double *cost, uint32_t *worst, size_t *rows)
{
    size_t nv = a->f[f].nvals, np = a->problems;
    cell *c = malloc(nv * np * sizeof *c);
    if (!c)
        return KT_ENOMEM;
    for (size_t i = 0; i < nv * np; i++)
        c[i] = (cell){INFINITY, SIZE_MAX};
    for (size_t i = 0; i < a->n; i++) {
        cell *at = &c[a->code[i * a->nf + f] * np + a->prob[i]];
        if (v[i] < at->v)
            *at = (cell){v[i], i};
    }
    *cost = 0;
    *worst = 0;
    for (size_t p = 0; p < np; p++)
        rows[p] = c[p].row;
    for (size_t k = 0; k < nv; k++) {
        double sum = 0;
        size_t seen = 0;
        for (size_t p = 0; p < np; p++)
            if (c[k * np + p].row != SIZE_MAX) {
                sum += c[k * np + p].v - best[p].v;
                seen++;
            }
        if (seen && sum / (double)seen > *cost) {
            *cost = sum / (double)seen;
            *worst = (uint32_t)k;
            for (size_t p = 0; p < np; p++)
                rows[p] = c[k * np + p].row;
        }
    }
    free(c);
    return KT_OK;
}

/* Each problem's least v and its row. */
static cell *problem_best(const kt_analysis *a, const double *v)
{
    cell *b = malloc((a->problems + 1) * sizeof *b);
    for (size_t p = 0; b && p < a->problems; p++)
        b[p] = (cell){INFINITY, SIZE_MAX};
    for (size_t i = 0; b && i < a->n; i++)
        if (v[i] < b[a->prob[i]].v)
            b[a->prob[i]] = (cell){v[i], i};
    return b;
}

/* Root mean square of err over each problem's worst-value row and best
 * row (both predicted rows, so both have an err); 0 where no problem has
 * a worst-value row. */
static double rows_rms(const double *err, const size_t *rows, const cell *best, size_t np)
{
    double sum = 0;
    size_t k = 0;
    for (size_t p = 0; p < np; p++) {
        if (rows[p] == SIZE_MAX)
            continue;
        sum += err[rows[p]] * err[rows[p]] + err[best[p].row] * err[best[p].row];
        k += 2;
    }
    return k ? sqrt(sum / (double)k) : 0;
}

int kt_analysis_rank(kt_analysis *a, int t, const size_t *row, const float *pred, size_t m,
                     kt_diag *diag)
{
    kt_atarget *tg = &a->t[t];
    double *v = malloc((2 * a->n + 1) * sizeof *v), *err = v + a->n;
    size_t *rows = malloc((a->problems + 1) * sizeof *rows);
    tg->cost = malloc(a->nf * sizeof *tg->cost);
    tg->cost_sd = malloc(a->nf * sizeof *tg->cost_sd);
    tg->cost_worst = calloc(a->nf, sizeof *tg->cost_worst);
    if (!v || !rows || !tg->cost || !tg->cost_sd || !tg->cost_worst) {
        free(v);
        free(rows);
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < a->n; i++)
        v[i] = err[i] = NAN;
    for (size_t i = 0; i < m; i++) {
        v[row[i]] = pred[i];
        err[row[i]] = pred[i] - log(a->y[t][row[i]]);
    }
    cell *best = problem_best(a, v);
    int rc = best ? KT_OK : KT_ENOMEM;
    for (size_t f = 0; rc == KT_OK && f < a->nf; f++) {
        tg->cost[f] = tg->cost_sd[f] = NAN;
        if (!a->f[f].tuning)
            continue;
        rc = value_costs(a, f, v, best, &tg->cost[f], &tg->cost_worst[f], rows);
        /* the errors of the two predictions each cost is a difference of */
        tg->cost_sd[f] = sqrt(2) * rows_rms(err, rows, best, a->problems);
    }
    free(best);
    free(rows);
    free(v);
    return rc == KT_OK ? KT_OK : kt_fail(diag, rc, "out of memory");
}

/* ------------------------------------------------------------ ablation */

/* The variance of the log difference between two parameters' costs, from
 * the noise of the rows each problem's cost is made of (the best time is
 * in both and cancels); NAN when a time's noise is unknown. */
static double diff_var(const kt_analysis *a, const size_t *r1, const size_t *rj)
{
    double var = 0;
    size_t np = 0;
    for (size_t p = 0; p < a->problems; p++) {
        if (r1[p] == SIZE_MAX || rj[p] == SIZE_MAX)
            continue;
        np++;
        if (r1[p] == rj[p]) /* one measurement: no noise between them */
            continue;
        var += a->noise[r1[p]] * a->noise[r1[p]] + a->noise[rj[p]] * a->noise[rj[p]];
    }
    return np ? var / (double)(np * np) : 0;
}

/* Each parameter's verdict against the top-ranked one (abl[0]), and the
 * whole check's: DISAGREE if any costs more beyond the noise, else TIE if
 * any costs the same within it, else AGREE. */
static ktune_check judge(ktune_ablation *abl, size_t n)
{
    ktune_check c = n ? KTUNE_CHECK_AGREE : KTUNE_CHECK_NONE;
    for (size_t i = 1; i < n; i++) {
        double d = log(abl[0].cost) - log(abl[i].cost);
        double tol = TIE_SDS * (isnan(abl[i].sd) ? 0 : abl[i].sd);
        /* equal within rounding is a tie even without noise: two
         * parameters can pin the same neighbourhood of the optimum */
        tol = fmax(tol, 1e-9);
        abl[i].check = d < -tol ? KTUNE_CHECK_DISAGREE
                       : fabs(d) <= tol ? KTUNE_CHECK_TIE : KTUNE_CHECK_AGREE;
        if (abl[i].check == KTUNE_CHECK_DISAGREE ||
            (abl[i].check == KTUNE_CHECK_TIE && c == KTUNE_CHECK_AGREE))
            c = abl[i].check;
    }
    return c;
}

int kt_analysis_ablate(kt_analysis *a, const size_t *order, kt_diag *diag)
{
    size_t np = a->problems;
    double *lt = malloc((a->n + 1) * sizeof *lt);
    size_t *rows = malloc((a->ntuning * np + 1) * sizeof *rows);
    a->abl = calloc(a->ntuning + 1, sizeof *a->abl);
    cell *best = NULL;
    int rc = lt && rows && a->abl ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; rc == KT_OK && i < a->n; i++)
        lt[i] = log(a->y[KTUNE_TARGET_TIME][i]);
    if (rc == KT_OK && !(best = problem_best(a, lt)))
        rc = KT_ENOMEM;
    for (size_t i = 0; rc == KT_OK && i < a->ntuning; i++) {
        double cost;
        uint32_t worst;
        size_t f = order[i];
        rc = value_costs(a, f, lt, best, &cost, &worst, rows + i * np);
        double var = diff_var(a, rows, rows + i * np);
        a->abl[i] = (ktune_ablation){.feature = f, .worst = a->f[f].vals[worst],
                                     .cost = exp(cost), .sd = sqrt(var)};
    }
    free(best);
    free(rows);
    free(lt);
    if (rc != KT_OK)
        return kt_fail(diag, rc, "out of memory");
    a->nabl = a->ntuning;
    a->check = judge(a->abl, a->nabl);
    return KT_OK;
}
