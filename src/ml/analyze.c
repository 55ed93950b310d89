/* analyze.c - what gradient-boosted models say about one kernel's
 * measurements (analyze.h): for each target, a k-fold cross-validation
 * over configurations scored in the target's own units, whose held-out
 * predictions rank the tuning parameters (analyze_rank.c), then a model of
 * every row whose exact TreeSHAP contributions measure the features and
 * their interactions, and whose predictions give the partial dependence
 * of the top features.  Targets are learnt as logs: times of one kernel span
 * orders of magnitude, and a parameter's effect is a factor.  The
 * cross-validated models may add derived features (analyze_derive.c)
 * where an inner cross-validation of their training rows finds they
 * help; the explaining model is of the parameters alone, so that every
 * contribution belongs to one parameter. */
#include "ml/analyze.h"
#include "core/util.h"
#include "ml/xgb.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Rows of one target, with the models' inputs. */
typedef struct tdata {
    size_t m, nf;
    size_t *row;          /* m analysis rows with a reading */
    float *x;             /* m x nf */
    float *y;             /* m: log of the reading */
    kt_aderived *cand;    /* ncand candidate derived features */
    size_t ncand;
} tdata;

/* A trained model and the derived features it reads after the nf. */
typedef struct amodel {
    kt_xgb *b;
    kt_aderived *d;
    size_t nd;
} amodel;

static void amodel_free(amodel *m)
{
    kt_xgb_free(m->b);
    free(m->d);
    *m = (amodel){0};
}

typedef struct mparams {
    char depth[16], threads[16], seed[24], base[32];
    const char *list[15];
    int rounds;
    double weight;        /* each row weighs its target to this power
                             (relative to the geometric mean): 0, or 1
                             where the inner cross-validation takes it */
} mparams;

static void params_init(mparams *p, const ktune_analyze_opts *o)
{
    snprintf(p->depth, sizeof p->depth, "%u", o->depth);
    snprintf(p->threads, sizeof p->threads, "%u", o->threads);
    snprintf(p->seed, sizeof p->seed, "%u", (unsigned)(o->seed & 0x7fffffff));
    const char *l[] = {"objective", "reg:squarederror", "eta", "0.1", "max_depth", p->depth,
                       "tree_method", "hist", "nthread", p->threads, "seed", p->seed, "base_score", p->base, NULL};
    memcpy(p->list, l, sizeof l);
    p->rounds = (int)o->rounds;
    p->weight = 0;
}

/* Boosting starts from the mean of the labels, not XGBoost's 0.5: logs of
 * times in ms lie anywhere from -10 to 10, and few rounds would not get
 * there. */
static void set_base(mparams *p, const float *y, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += y[i];
    snprintf(p->base, sizeof p->base, "%.9g", n ? sum / (double)n : 0.0);
}

static void tdata_free(tdata *d)
{
    free(d->cand);
    free(d->row);
    free(d->x);
    free(d->y);
}

static int tdata_make(const kt_analysis *a, int t, tdata *d)
{
    *d = (tdata){.nf = a->nf};
    d->row = malloc(a->n * sizeof *d->row);
    d->x = malloc(a->n * a->nf * sizeof *d->x);
    d->y = malloc(a->n * sizeof *d->y);
    if (!d->row || !d->x || !d->y)
        return KT_ENOMEM;
    for (size_t i = 0; i < a->n; i++) {
        if (isnan(a->y[t][i]))
            continue;
        for (size_t f = 0; f < a->nf; f++)
            d->x[d->m * a->nf + f] = (float)a->f[f].num[a->code[i * a->nf + f]];
        d->y[d->m] = (float)log(a->y[t][i]);
        d->row[d->m++] = i;
    }
    return kt_derived_candidates(a, &d->cand, &d->ncand);
}

/* Rows sel (k of them) of d as a training set in x, y. */
static kt_xgb_data gather(const tdata *d, const size_t *sel, size_t k, float *x, float *y)
{
    for (size_t i = 0; i < k; i++) {
        memcpy(x + i * d->nf, d->x + sel[i] * d->nf, d->nf * sizeof *x);
        y[i] = d->y[sel[i]];
    }
    return (kt_xgb_data){.x = x, .y = y, .n = k, .nf = d->nf};
}

/* Weights of n rows of log targets y: each target over their geometric
 * mean, to the power p, scaled to a mean of 1 (fresh; NULL: out of
 * memory).  A model of the log learns every row's error as a ratio; with
 * p = 1 a row counts as its size in the target's units, which R-squared
 * scores, and the far-slow few stop being outvoted by the many fast. */
static float *time_weights(const float *y, size_t n, double p)
{
    float *w = malloc((n + 1) * sizeof *w);
    double mean = 0, sum = 0;
    for (size_t i = 0; w && i < n; i++)
        mean += y[i] / (double)n;
    for (size_t i = 0; w && i < n; i++)
        sum += (w[i] = (float)exp(p * (y[i] - mean)));
    for (size_t i = 0; w && i < n; i++)
        w[i] = (float)(w[i] * (double)n / sum);
    return w;
}

/* A model of td (base features, rows shuffled) with the keep derived
 * features a model of all candidates leans on most. */
static int fit(const tdata *d, const kt_xgb_data *td, size_t keep, mparams *mp, amodel *m,
               kt_diag *diag)
{
    *m = (amodel){0};
    set_base(mp, td->y, td->n);
    kt_xgb_opts xo = {.params = mp->list, .rounds = mp->rounds};
    float *w = NULL;
    kt_xgb_data tw = *td;
    if (mp->weight != 0) {
        if (!(w = time_weights(td->y, td->n, mp->weight)))
            return kt_fail(diag, KT_ENOMEM, "out of memory");
        tw.w = w;
        td = &tw;
    }
    int rc = kt_derived_select(td, &xo, d->cand, d->ncand, keep, &m->d, &m->nd, diag);
    float *x = NULL;
    if (rc == KT_OK && kt_derived_matrix(td->x, td->n, td->nf, m->d, m->nd, &x) != KT_OK)
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK) {
        kt_xgb_data xd = {.x = x, .y = td->y, .w = td->w, .n = td->n, .nf = td->nf + m->nd};
        rc = kt_xgb_train(&xd, &xo, &m->b, diag);
    }
    free(w);
    free(x);
    if (rc != KT_OK)
        amodel_free(m);
    return rc;
}

/* m's predictions (log units) for k rows of nf base features. */
static int predict(const amodel *m, const float *base, size_t k, size_t nf, float *out,
                   kt_diag *diag)
{
    float *x = NULL;
    if (kt_derived_matrix(base, k, nf, m->d, m->nd, &x) != KT_OK)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    int rc = kt_xgb_predict(m->b, x, k, nf + m->nd, out, k, diag);
    free(x);
    return rc;
}

/* A row's inputs and its place in the order the folds are dealt, to find
 * twins. */
typedef struct twin {
    const float *x;
    size_t nf, pos;
} twin;

static int cmp_twin(const void *a, const void *b)
{
    const twin *s = a, *t = b;
    int c = memcmp(s->x, t->x, s->nf * sizeof *s->x);
    return c ? c : (s->pos > t->pos) - (s->pos < t->pos);
}

/* The folds of n rows of x (nf inputs a row) dealt in order (the i-th is
 * row order[i], or row i where order is NULL): the i-th gets i % folds,
 * except that rows with equal inputs (one configuration at one problem
 * measured more than once: the kernel measured again after its source
 * changed, or databases merged without --mean) take the fold of the first
 * of them, so that no held-out row has its twin among the training rows.
 * NULL: no memory. */
static unsigned *folds_of(const float *x, size_t nf, const size_t *order, size_t n,
                          unsigned folds)
{
    twin *t = malloc((n + 1) * sizeof *t);
    size_t *first = malloc((n + 1) * sizeof *first);
    unsigned *fold = malloc((n + 1) * sizeof *fold), g = 0;
    if (t && first && fold) {
        for (size_t i = 0; i < n; i++)
            t[i] = (twin){x + (order ? order[i] : i) * nf, nf, i};
        qsort(t, n, sizeof *t, cmp_twin);
        for (size_t i = 0; i < n; i++) /* sorted by place within equal inputs */
            first[t[i].pos] = i && !memcmp(t[i].x, t[i - 1].x, nf * sizeof *t->x)
                                  ? first[t[i - 1].pos]
                                  : t[i].pos;
        for (size_t i = 0; i < n; i++)
            fold[i] = first[i] == i ? g++ % folds : fold[first[i]];
    } else {
        free(fold);
        fold = NULL;
    }
    free(t);
    free(first);
    return fold;
}

/* Folds of the inner cross-validation that chooses, on a training part
 * alone, whether derived features help. */
enum { INNER_FOLDS = 3 };

/* Rows of td whose inner fold (fold, folds_of's) is (or is not) f, copied
 * to x, y. */
static size_t inner_rows(const kt_xgb_data *td, const unsigned *fold, unsigned f, bool in,
                         float *x, float *y)
{
    size_t k = 0;
    for (size_t i = 0; i < td->n; i++)
        if ((fold[i] == f) == in) {
            memcpy(x + k * td->nf, td->x + i * td->nf, td->nf * sizeof *x);
            y[k++] = td->y[i];
        }
    return k;
}

/* The squared errors of models with keep derived features over an inner
 * cross-validation of td in the folds fold: sse[0] in the target's units (what R-squared
 * scores), sse[1] of its log; each row's in row_sq[0] and row_sq[1] (td->n
 * of them, in the order the folds visit the rows). */
static int inner_error(const tdata *d, const kt_xgb_data *td, const unsigned *fold,
                       size_t keep, mparams *mp, double sse[2], double *row_sq[2],
                       kt_diag *diag)
{
    size_t n = td->n, nf = td->nf;
    float *x = malloc((n * nf + 1) * sizeof *x), *y = malloc((n + 1) * sizeof *y);
    float *out = malloc((n + 1) * sizeof *out);
    int rc = x && y && out ? KT_OK : kt_fail(diag, KT_ENOMEM, "out of memory");
    sse[0] = sse[1] = 0;
    size_t seen = 0;
    for (unsigned f = 0; rc == KT_OK && f < INNER_FOLDS; f++) {
        size_t ntr = inner_rows(td, fold, f, false, x, y);
        size_t nva = inner_rows(td, fold, f, true, x + ntr * nf, y + ntr);
        kt_xgb_data tr = {.x = x, .y = y, .n = ntr, .nf = nf};
        amodel m = {0};
        rc = fit(d, &tr, keep, mp, &m, diag);
        if (rc == KT_OK)
            rc = predict(&m, x + ntr * nf, nva, nf, out, diag);
        for (size_t i = 0; rc == KT_OK && i < nva; i++) {
            double e = exp((double)out[i]) - exp((double)y[ntr + i]);
            double l = (double)out[i] - (double)y[ntr + i];
            sse[0] += e * e;
            sse[1] += l * l;
            row_sq[0][seen] = e * e;
            row_sq[1][seen++] = l * l;
        }
        amodel_free(&m);
    }
    free(x);
    free(y);
    free(out);
    return rc;
}

/* choose_model's first step: `derived` derived features where they lower
 * the inner error and the rows' errors clearly, then *keep = derived and
 * best = their inner errors. */
static int choose_derived(const tdata *d, const kt_xgb_data *td, const unsigned *fold,
                          size_t derived, mparams *mp, double best[2], double *plain[2],
                          double *rich[2], size_t *keep, kt_diag *diag)
{
    double err[2] = {0, 0};
    int rc = inner_error(d, td, fold, derived, mp, err, rich, diag);
    if (rc == KT_OK && err[0] < best[0] &&
        (kt_derived_gain_is_clear(plain[0], rich[0], td->n) ||
         kt_derived_gain_is_clear(plain[1], rich[1], td->n))) {
        best[0] = err[0], best[1] = err[1];
        *keep = derived;
    }
    return rc;
}

/* choose_model's second step: rows weighted by their target where the
 * product of the inner errors falls below best's. */
static int choose_weights(const tdata *d, const kt_xgb_data *td, const unsigned *fold,
                          size_t keep, mparams *mp, const double best[2], double *rows[2],
                          kt_diag *diag)
{
    double err[2] = {0, 0};
    mp->weight = 1;
    int rc = inner_error(d, td, fold, keep, mp, err, rows, diag);
    if (rc != KT_OK || err[0] * err[1] >= best[0] * best[1])
        mp->weight = 0;
    return rc;
}

/* The model of td's settings (how many derived features, mp->weight)
 * that an inner cross-validation of td alone finds predicts best.  First
 * o->derived derived features or none, by the squared error in the
 * target's units, the derived ones only where they lower it and the
 * rows' errors, in the target's units or of its log, clearly
 * (kt_derived_gain_is_clear: on few rows their choice can fit noise; in
 * the target's units a few far-slow rows decide both the gain and its
 * noise, of the log the many fast rows may hide it).  Then, where
 * o->weights, rows weighted by their target or not, by the product of the
 * squared errors in the target's units and of its log: the page reports
 * R-squared of both, and weights lower the first by counting a far-slow
 * row's error by its size, where they may raise the second.  Taken in
 * every fold, they lifted Schoonhoven et al.'s convolutions (far-slow
 * tiles the trees had 2-3x too fast) and lowered the hub's (and its log
 * R-squared on AMD GPUs): docs/ANALYSIS.md. */
static int choose_model(const tdata *d, const kt_xgb_data *td, const ktune_analyze_opts *o,
                        mparams *mp, size_t *keep, kt_diag *diag)
{
    *keep = 0;
    mp->weight = 0;
    if (td->n < 2 * INNER_FOLDS || ((o->derived == 0 || d->ncand == 0) && !o->weights))
        return KT_OK;
    double best[2] = {0, 0};
    unsigned *fold = folds_of(td->x, td->nf, NULL, td->n, INNER_FOLDS);
    double *rows = malloc(4 * td->n * sizeof *rows), *plain[2] = {0}, *rich[2] = {0};
    for (size_t i = 0; rows && i < 2; i++) { /* each row's squared errors, in units and log */
        plain[i] = rows + i * td->n;
        rich[i] = rows + (2 + i) * td->n;
    }
    int rc = fold && rows ? inner_error(d, td, fold, 0, mp, best, plain, diag)
                          : kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK && o->derived > 0 && d->ncand > 0)
        rc = choose_derived(d, td, fold, o->derived, mp, best, plain, rich, keep, diag);
    if (rc == KT_OK && o->weights)
        rc = choose_weights(d, td, fold, *keep, mp, best, rich, diag);
    free(fold);
    free(rows);
    return rc;
}

/* A seeded permutation of 0..n-1. */
static size_t *permutation(size_t n, uint64_t seed)
{
    size_t *p = malloc((n + 1) * sizeof *p);
    if (!p)
        return NULL;
    kt_rng rng;
    kt_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; i++)
        p[i] = i;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)kt_rng_below(&rng, i), s = p[i - 1];
        p[i - 1] = p[j];
        p[j] = s;
    }
    return p;
}

/* One fold: train on every position of perm whose fold is not f, predict
 * the others into pred (log units). */
static int run_fold(const tdata *d, const size_t *perm, const unsigned *fold,
                    const ktune_analyze_opts *o, unsigned f, mparams *mp, float *pred,
                    kt_diag *diag)
{
    size_t ntr = 0, nte = 0;
    size_t *tr = malloc(d->m * sizeof *tr), *te = malloc(d->m * sizeof *te);
    float *x = malloc(d->m * d->nf * sizeof *x), *y = malloc(d->m * sizeof *y);
    float *out = malloc(d->m * sizeof *out);
    int rc = tr && te && x && y && out ? KT_OK : kt_fail(diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; rc == KT_OK && i < d->m; i++) {
        if (fold[i] == f)
            te[nte++] = perm[i];
        else
            tr[ntr++] = perm[i];
    }
    amodel m = {0};
    size_t keep = 0;
    if (rc == KT_OK) {
        kt_xgb_data td = gather(d, tr, ntr, x, y);
        rc = choose_model(d, &td, o, mp, &keep, diag);
        if (rc == KT_OK)
            rc = fit(d, &td, keep, mp, &m, diag);
        mp->weight = 0; /* the explaining model is unweighted */
    }
    if (rc == KT_OK) {
        gather(d, te, nte, x, y);
        rc = predict(&m, x, nte, d->nf, out, diag);
    }
    for (size_t i = 0; rc == KT_OK && i < nte; i++)
        pred[te[i]] = out[i];
    amodel_free(&m);
    free(tr);
    free(te);
    free(x);
    free(y);
    free(out);
    return rc;
}

static double pearson(const double *a, const double *b, size_t n)
{
    double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
    for (size_t i = 0; i < n; i++) {
        ma += a[i] / (double)n;
        mb += b[i] / (double)n;
    }
    for (size_t i = 0; i < n; i++) {
        sab += (a[i] - ma) * (b[i] - mb);
        saa += (a[i] - ma) * (a[i] - ma);
        sbb += (b[i] - mb) * (b[i] - mb);
    }
    return saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : NAN;
}

/* A value and where it was, for ranking. */
typedef struct ranked {
    double v;
    size_t i;
} ranked;

static int cmp_ranked(const void *x, const void *y)
{
    double a = ((const ranked *)x)->v, b = ((const ranked *)y)->v;
    return a < b ? -1 : a > b;
}

/* Ranks 1..n into r, ties sharing their mean rank (Spearman's rho is the
 * Pearson correlation of the ranks). */
static int ranks(const double *v, size_t n, double *r)
{
    ranked *s = malloc((n + 1) * sizeof *s);
    if (!s)
        return KT_ENOMEM;
    for (size_t i = 0; i < n; i++)
        s[i] = (ranked){v[i], i};
    qsort(s, n, sizeof *s, cmp_ranked);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && s[j + 1].v == s[i].v)
            j++;
        for (size_t k = i; k <= j; k++)
            r[s[k].i] = (double)(i + j) / 2 + 1;
        i = j + 1;
    }
    free(s);
    return KT_OK;
}

static double r_squared(const double *y, const double *p, size_t n)
{
    double mean = 0, res = 0, tot = 0;
    for (size_t i = 0; i < n; i++)
        mean += y[i] / (double)n;
    for (size_t i = 0; i < n; i++) {
        res += (y[i] - p[i]) * (y[i] - p[i]);
        tot += (y[i] - mean) * (y[i] - mean);
    }
    return tot > 0 ? 1 - res / tot : NAN;
}

/* The fit's figures from truth and held-out predictions, both logs. */
static int score(const tdata *d, const float *pred, ktune_fit *fit)
{
    size_t m = d->m;
    double *buf = malloc(6 * m * sizeof *buf);
    if (!buf)
        return KT_ENOMEM;
    double *ly = buf, *lp = buf + m, *y = buf + 2 * m, *p = buf + 3 * m, *ry = buf + 4 * m,
           *rp = buf + 5 * m, ape = 0;
    for (size_t i = 0; i < m; i++) {
        ly[i] = d->y[i];
        lp[i] = pred[i];
        y[i] = exp(ly[i]);
        p[i] = exp(lp[i]);
        ape += fabs(p[i] - y[i]) / y[i];
    }
    fit->rows = m;
    fit->r2 = r_squared(y, p, m);
    fit->r2_log = r_squared(ly, lp, m);
    fit->mape = 100 * ape / (double)m;
    int rc = ranks(y, m, ry);
    if (rc == KT_OK)
        rc = ranks(p, m, rp);
    fit->spearman = rc == KT_OK ? pearson(ry, rp, m) : NAN;
    free(buf);
    return rc;
}

/* One cross-validation, folds dealt by seed: the fit's figures, and each
 * row's held-out prediction (log) into pred. */
static int cross_validate_once(const tdata *d, const ktune_analyze_opts *o, uint64_t seed,
                               mparams *mp, ktune_fit *fit, float *pred, kt_diag *diag)
{
    size_t *perm = permutation(d->m, seed);
    unsigned *fold = perm ? folds_of(d->x, d->nf, perm, d->m, o->folds) : NULL;
    int rc = fold ? KT_OK : kt_fail(diag, KT_ENOMEM, "out of memory");
    for (unsigned f = 0; rc == KT_OK && f < o->folds; f++)
        rc = run_fold(d, perm, fold, o, f, mp, pred, diag);
    if (rc == KT_OK && score(d, pred, fit) != KT_OK)
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    free(fold);
    free(perm);
    return rc;
}

/* o->repeats cross-validations (fold seeds o->seed, o->seed + 1, ...):
 * the fit's figures are their means and r2_sd the standard deviation of
 * R-squared; pred gets the first's held-out predictions, which the
 * ranking reads, so that repeats change the figures alone. */
static int cross_validate(const tdata *d, const ktune_analyze_opts *o, mparams *mp,
                          ktune_fit *fit, float *pred, kt_diag *diag)
{
    enum { MOST = 20 }; /* check_opts' bound */
    unsigned n = o->repeats > 1 ? (o->repeats < MOST ? o->repeats : MOST) : 1;
    float *other = n > 1 ? malloc((d->m + 1) * sizeof *other) : NULL;
    int rc = n > 1 && !other ? kt_fail(diag, KT_ENOMEM, "out of memory") : KT_OK;
    double r2[MOST], ss = 0;
    *fit = (ktune_fit){0};
    for (unsigned r = 0; rc == KT_OK && r < n; r++) {
        ktune_fit f = {0};
        rc = cross_validate_once(d, o, o->seed + r, mp, &f, r ? other : pred, diag);
        fit->rows = f.rows;
        fit->r2 += f.r2 / n;
        fit->r2_log += f.r2_log / n;
        fit->mape += f.mape / n;
        fit->spearman += f.spearman / n;
        r2[r] = f.r2;
    }
    for (unsigned r = 0; rc == KT_OK && n > 1 && r < n; r++)
        ss += (r2[r] - fit->r2) * (r2[r] - fit->r2);
    fit->r2_sd = n > 1 ? sqrt(ss / (n - 1)) : 0;
    free(other);
    return rc;
}

/* ---------------------------------------------------------- explaining */

/* The rows explained: a seeded sample of at most cap of d's, as a matrix. */
typedef struct sample {
    size_t k;
    size_t *row;          /* k analysis rows */
    size_t *order;        /* 0..k-1, fastest (least target) first */
    float *x;             /* k x nf */
} sample;

static int take_sample(const tdata *d, size_t cap, uint64_t seed, sample *s)
{
    size_t *perm = permutation(d->m, seed ^ 0x5eed);
    s->k = d->m < cap ? d->m : cap;
    s->x = malloc((s->k * d->nf + 1) * sizeof *s->x);
    s->row = malloc((s->k + 1) * sizeof *s->row);
    s->order = malloc((s->k + 1) * sizeof *s->order);
    ranked *by = malloc((s->k + 1) * sizeof *by);
    int rc = perm && s->x && s->row && s->order && by ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; rc == KT_OK && i < s->k; i++) {
        memcpy(s->x + i * d->nf, d->x + perm[i] * d->nf, d->nf * sizeof *s->x);
        s->row[i] = d->row[perm[i]];
        by[i] = (ranked){d->y[perm[i]], i};
    }
    if (rc == KT_OK)
        qsort(by, s->k, sizeof *by, cmp_ranked);
    for (size_t i = 0; rc == KT_OK && i < s->k; i++)
        s->order[i] = by[i].i;
    free(by);
    free(perm);
    return rc;
}

/* Tuning parameters by their predicted cost (problem fields have none and
 * come after), then by range and mean |SHAP|. */
static int cmp_importance(const void *x, const void *y)
{
    const ktune_importance *a = x, *b = y;
    if (isnan(a->cost) != isnan(b->cost))
        return isnan(a->cost) ? 1 : -1;
    if (!isnan(a->cost) && a->cost != b->cost)
        return a->cost > b->cost ? -1 : 1;
    if (isnan(a->cost) && a->mean_abs != b->mean_abs)
        return a->mean_abs > b->mean_abs ? -1 : 1;
    if (a->range != b->range)
        return a->range > b->range ? -1 : 1;
    if (a->mean_abs != b->mean_abs)
        return a->mean_abs > b->mean_abs ? -1 : 1;
    return a->feature < b->feature ? -1 : a->feature > b->feature;
}

static int cmp_interaction(const void *x, const void *y)
{
    const ktune_interaction *a = x, *b = y;
    if (a->mean_abs != b->mean_abs)
        return a->mean_abs > b->mean_abs ? -1 : 1;
    return a->a != b->a ? (a->a < b->a ? -1 : 1) : (a->b < b->b ? -1 : a->b > b->b);
}

/* How many of each value's fastest sampled rows its contribution is
 * averaged over. */
enum { BEST_ROWS = 3 };

/* The spread of feature f's contribution over its values, each value's
 * contribution averaged over its BEST_ROWS fastest rows in the sample:
 * under an additive model of the log, exactly the log of what fixing f
 * at its worst value costs the best configuration (the ablation's
 * quantity), and where effects interact, the contribution where the rest
 * of the configuration is good, as in the ablation.  Averaging over every
 * row instead agreed with the ablation less often (docs/ANALYSIS.md). */
static int value_range(const kt_analysis *a, const sample *s, const float *c, size_t f,
                       double *out)
{
    size_t nv = a->f[f].nvals, w = a->nf + 1;
    double *sum = calloc(2 * nv, sizeof *sum), *cnt = sum + nv;
    if (!sum)
        return KT_ENOMEM;
    for (size_t j = 0; j < s->k; j++) {
        size_t i = s->order[j];
        uint32_t v = a->code[s->row[i] * a->nf + f];
        if (cnt[v] < BEST_ROWS) {
            sum[v] += c[i * w + f];
            cnt[v]++;
        }
    }
    double lo = INFINITY, hi = -INFINITY;
    for (size_t v = 0; v < nv; v++)
        if (cnt[v] > 0) {
            lo = fmin(lo, sum[v] / cnt[v]);
            hi = fmax(hi, sum[v] / cnt[v]);
        }
    *out = hi > lo ? hi - lo : 0;
    free(sum);
    return KT_OK;
}

/* Each feature's mean |contribution| and value range over the sample,
 * beside its predicted cost (analyze_rank.c), which ranks them. */
static int importance(const kt_analysis *a, kt_xgb *b, const sample *s, kt_atarget *t,
                      kt_diag *diag)
{
    size_t nf = a->nf, w = nf + 1;
    float *c = malloc(s->k * w * sizeof *c);
    t->imp = calloc(nf, sizeof *t->imp);
    if (!c || !t->imp) {
        free(c);
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    int rc = kt_xgb_shap(b, s->x, s->k, nf, false, c, s->k * w, diag);
    double sum = 0;
    for (size_t f = 0; rc == KT_OK && f < nf; f++) {
        t->imp[f].feature = f;
        t->imp[f].cost = exp(t->cost[f]);
        t->imp[f].cost_sd = t->cost_sd[f];
        t->imp[f].worst = a->f[f].tuning ? a->f[f].vals[t->cost_worst[f]] : NULL;
        for (size_t i = 0; i < s->k; i++)
            t->imp[f].mean_abs += fabs(c[i * w + f]) / (double)s->k;
        sum += t->imp[f].mean_abs;
        if (value_range(a, s, c, f, &t->imp[f].range) != KT_OK)
            rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    for (size_t f = 0; rc == KT_OK && f < nf; f++)
        t->imp[f].share = sum > 0 ? t->imp[f].mean_abs / sum : 0;
    qsort(t->imp, nf, sizeof *t->imp, cmp_importance);
    free(c);
    return rc;
}

/* Mean |interaction| of each pair over the first rows of the sample. */
static int interactions(kt_xgb *b, const sample *s, size_t rows, size_t nf, kt_atarget *t,
                        kt_diag *diag)
{
    size_t k = s->k < rows ? s->k : rows, w = nf + 1, pairs = nf * (nf - 1) / 2;
    if (k == 0 || pairs == 0)
        return KT_OK;
    float *c = malloc(k * w * w * sizeof *c);
    t->inter = calloc(pairs, sizeof *t->inter);
    if (!c || !t->inter) {
        free(c);
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    int rc = kt_xgb_shap(b, s->x, k, nf, true, c, k * w * w, diag);
    for (size_t i = 0; rc == KT_OK && i < nf; i++)
        for (size_t j = i + 1; j < nf; j++) {
            ktune_interaction *p = &t->inter[t->ninter++];
            *p = (ktune_interaction){.a = i, .b = j};
            for (size_t r = 0; r < k; r++)
                p->mean_abs += fabs(c[r * w * w + i * w + j] + c[r * w * w + j * w + i]) /
                               (double)k;
        }
    qsort(t->inter, t->ninter, sizeof *t->inter, cmp_interaction);
    free(c);
    return rc;
}

/* Feature f's partial dependence: the mean prediction over the sample
 * with f set to each of at most 32 of its values, spread over them. */
static int dependence(kt_xgb *b, const sample *s, const kt_afeature *f, size_t col,
                      size_t nf, ktune_dependence **out, size_t *n, kt_diag *diag)
{
    size_t nv = f->nvals < 32 ? f->nvals : 32;
    float *x = malloc(s->k * nf * sizeof *x), *p = malloc(s->k * sizeof *p);
    *out = calloc(nv, sizeof **out);
    int rc = x && p && *out ? KT_OK : kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK)
        memcpy(x, s->x, s->k * nf * sizeof *x);
    for (size_t v = 0; rc == KT_OK && v < nv; v++) {
        size_t at = nv == f->nvals ? v : (size_t)llround((double)v * (double)(f->nvals - 1) /
                                                         (double)(nv - 1));
        for (size_t i = 0; i < s->k; i++)
            x[i * nf + col] = (float)f->num[at];
        rc = kt_xgb_predict(b, x, s->k, nf, p, s->k, diag);
        double mean = 0;
        for (size_t i = 0; rc == KT_OK && i < s->k; i++)
            mean += exp(p[i]) / (double)s->k;
        (*out)[v] = (ktune_dependence){.value = f->vals[at], .mean = mean};
        *n = v + 1;
    }
    free(x);
    free(p);
    return rc;
}

static int dependences(kt_analysis *a, kt_xgb *b, const sample *s, size_t top,
                       kt_atarget *t, kt_diag *diag)
{
    size_t k = top < a->nf ? top : a->nf;
    t->pd_feature = calloc(k + 1, sizeof *t->pd_feature);
    t->pd = calloc(k + 1, sizeof *t->pd);
    t->pd_n = calloc(k + 1, sizeof *t->pd_n);
    if (!t->pd_feature || !t->pd || !t->pd_n)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    int rc = KT_OK;
    for (size_t i = 0; rc == KT_OK && i < k; i++) {
        size_t f = t->imp[i].feature;
        t->pd_feature[i] = f;
        t->npd = i + 1;
        rc = dependence(b, s, &a->f[f], f, a->nf, &t->pd[i], &t->pd_n[i], diag);
    }
    return rc;
}

/* The model of every row, and what it says. */
static int explain(kt_analysis *a, const tdata *d, const ktune_analyze_opts *o,
                   mparams *mp, kt_atarget *t, kt_diag *diag)
{
    kt_xgb_data all = {.x = d->x, .y = d->y, .n = d->m, .nf = d->nf};
    kt_xgb_opts xo = {.params = mp->list, .rounds = mp->rounds};
    kt_xgb *b = NULL;
    sample s = {0};
    set_base(mp, d->y, d->m);
    int rc = kt_xgb_train(&all, &xo, &b, diag);
    if (rc == KT_OK && take_sample(d, o->shap_rows, o->seed, &s) != KT_OK)
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK)
        rc = importance(a, b, &s, t, diag);
    if (rc == KT_OK)
        rc = interactions(b, &s, o->interaction_rows, a->nf, t, diag);
    if (rc == KT_OK)
        rc = dependences(a, b, &s, o->top, t, diag);
    free(s.x);
    free(s.row);
    free(s.order);
    kt_xgb_free(b);
    return rc;
}

static int model_target(kt_analysis *a, int t, const ktune_analyze_opts *o, kt_diag *diag)
{
    double t0 = kt_now();
    mparams mp;
    params_init(&mp, o);
    tdata d;
    int rc = tdata_make(a, t, &d) == KT_OK ? KT_OK : kt_fail(diag, KT_ENOMEM, "out of memory");
    float *held = rc == KT_OK ? malloc((d.m + 1) * sizeof *held) : NULL;
    if (rc == KT_OK && !held)
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK)
        rc = cross_validate(&d, o, &mp, &a->t[t].fit, held, diag);
    if (rc == KT_OK) /* before explain: the ranking orders what it reports */
        rc = kt_analysis_rank(a, t, d.row, held, d.m, diag);
    if (rc == KT_OK)
        rc = explain(a, &d, o, &mp, &a->t[t], diag);
    free(held);
    tdata_free(&d);
    a->t[t].done = rc == KT_OK;
    a->t[t].fit.seconds = kt_now() - t0;
    if (rc != KT_OK)
        kt_diag_prefix(diag, ktune_target_name((ktune_target)t));
    return rc;
}

/* Which targets to model: those asked for (each with enough readings),
 * or time and whatever else enough rows have. */
static int choose_targets(const kt_analysis *a, const ktune_analyze_opts *o, unsigned *mask,
                          kt_diag *diag)
{
    static const char *const reading[] = {"time", "energy", "power"};
    size_t least = kt_analysis_min_rows(o->folds);
    *mask = 0;
    for (int t = 0; t < KTUNE_TARGET_COUNT; t++) {
        size_t have = 0;
        for (size_t i = 0; i < a->n; i++)
            have += !isnan(a->y[t][i]);
        bool asked = o->targets & (1u << t);
        if (asked && have < least)
            return kt_fail(diag, KT_ENOTFOUND, "kernel '%s' on '%s': %zu of %zu rows have "
                           "a reading of %s; an analysis with %u folds needs %zu",
                           a->kernel, a->device, have, a->n, reading[t], o->folds, least);
        if (asked || (!o->targets && (t == KTUNE_TARGET_TIME || have >= least)))
            *mask |= 1u << t;
    }
    return KT_OK;
}

int kt_analyze(kt_db *db, const ktune_analyze_opts *o, kt_analysis **out, kt_diag *diag)
{
    kt_analysis *a = NULL;
    unsigned mask = 0;
    int rc = kt_analysis_load(db, o, &a, diag);
    if (rc == KT_OK)
        rc = choose_targets(a, o, &mask, diag);
    for (int t = 0; rc == KT_OK && t < KTUNE_TARGET_COUNT; t++)
        if (mask & (1u << t))
            rc = model_target(a, t, o, diag);
    if (rc == KT_OK && a->t[KTUNE_TARGET_TIME].done) {
        size_t *order = malloc((a->ntuning + 1) * sizeof *order), k = 0;
        for (size_t i = 0; order && i < a->nf; i++)
            if (a->f[a->t[KTUNE_TARGET_TIME].imp[i].feature].tuning)
                order[k++] = a->t[KTUNE_TARGET_TIME].imp[i].feature;
        rc = order ? kt_analysis_ablate(a, order, diag) : kt_fail(diag, KT_ENOMEM,
                                                                   "out of memory");
        free(order);
    }
    if (rc != KT_OK) {
        kt_analysis_free(a);
        return rc;
    }
    *out = a;
    return KT_OK;
}
