/* model_guided.c - search guided by a cost model: gradient-boosted trees
 * (XGBoost, through ml/xgb.h) fitted on what has been measured, ranking a
 * large sample of unmeasured valid configurations.
 *
 * The run starts with random configurations (a tenth of the budget, 8 to
 * 20).  Then each fit learns the log of the median time from the value
 * indices of every configuration observed; a failure counts as twice the
 * slowest success, so the model learns to avoid failing regions.  The
 * candidates are a uniform sample of unseen configurations (all of them in
 * a small space) plus the neighbours of the best ones found; each is
 * scored by a lower confidence bound over a small bootstrap ensemble
 * (mean - spread of the predicted log time, each member trained on its own
 * subsample of the observations), so configurations the ensemble disagrees
 * on get measured too.  A tenth of the proposals are uniform random picks
 * besides.  The ranking feeds the proposals until the observations have
 * grown by an eighth since the fit, then the model is fitted again.
 *
 * Deterministic for a seed (XGBoost runs one thread).
 */
#include "ml/xgb.h"
#include "search/moves.h"
#include "search/strategy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    MIN_INIT = 8, MAX_INIT = 20,  /* random configurations before the first fit */
    MIN_FIT = 4,                  /* successes needed to fit */
    ENSEMBLE = 3,                 /* boosters per fit */
    ROUNDS = 60,
    SAMPLE = 2000,                /* random candidates per fit */
    ELITES = 4,                   /* best configurations whose neighbours compete */
    QUEUE = 64,                   /* ranked candidates kept per fit */
};
#define EPSILON 0.1
#define KAPPA 1.0

typedef struct mg_state {
    kt_history hist;
    kt_rng rng;
    kt_space *space;
    size_t np;
    uint64_t seed;
    size_t ninit;
    uint64_t *obs;         /* observed configurations (built index), in order */
    double *cost;          /* their cost (ms; +inf: failed) */
    size_t nobs, cap;
    size_t fitted_at;      /* nobs at the last fit */
    unsigned fits;
    uint64_t *queue;       /* the last fit's ranking, best first */
    size_t nqueue, qnext;
} mg_state;

static void mg_free(void *state)
{
    mg_state *s = state;
    if (!s)
        return;
    kt_history_clear(&s->hist);
    free(s->obs);
    free(s->cost);
    free(s->queue);
    free(s);
}

static int mg_init(kt_space *space, const kt_strategy_opts *opts, void **state,
                   kt_diag *diag)
{
    (void)diag;
    mg_state *s = calloc(1, sizeof *s);
    if (!s)
        return KT_ENOMEM;
    s->space = space;
    s->np = kt_space_nparams(space);
    s->seed = opts->seed;
    s->ninit = opts->budget / 10;
    s->ninit = s->ninit < MIN_INIT ? MIN_INIT : s->ninit > MAX_INIT ? MAX_INIT : s->ninit;
    kt_rng_seed(&s->rng, opts->seed);
    int rc = kt_history_init(&s->hist, space, opts->objective);
    if (rc == KT_OK && !(s->queue = malloc(QUEUE * sizeof *s->queue)))
        rc = KT_ENOMEM;
    if (rc != KT_OK) {
        mg_free(s);
        return rc;
    }
    *state = s;
    return KT_OK;
}

static void mg_observe(void *state, const uint16_t *cfg, const kt_result *r)
{
    mg_state *s = state;
    uint64_t idx;
    double known;
    if (kt_space_index_of(s->space, cfg, &idx) != KT_OK ||
        kt_history_cost(&s->hist, idx, &known))
        return;
    kt_history_observe(&s->hist, cfg, r);
    if (s->nobs == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        uint64_t *o = realloc(s->obs, cap * sizeof *o);
        if (o)
            s->obs = o;
        double *c = realloc(s->cost, cap * sizeof *c);
        if (c)
            s->cost = c;
        if (!o || !c) {
            s->hist.oom = true; /* the next batch reports it */
            return;
        }
        s->cap = cap;
    }
    s->obs[s->nobs] = idx;
    s->cost[s->nobs++] = kt_objective_cost(s->hist.objective, r);
}

/* ------------------------------------------------------------ candidates */

static int by_index(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Sort, drop repeats and configurations already seen; the count left. */
static size_t unique_unseen(const kt_history *h, uint64_t *c, size_t n)
{
    qsort(c, n, sizeof *c, by_index);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if ((i == 0 || c[i] != c[i - 1]) && !kt_history_seen(h, c[i]))
            c[k++] = c[i];
    return k;
}

static int by_cost(const void *a, const void *b, void *ctx)
{
    const double *cost = ctx;
    double x = cost[*(const size_t *)a], y = cost[*(const size_t *)b];
    return (x > y) - (x < y);
}

/* The valid neighbours of the ELITES best successes, appended to c[*n..cap). */
static int add_neighbours(mg_state *s, uint64_t *c, size_t *n, size_t cap)
{
    size_t *order = malloc((s->nobs + 1) * sizeof *order);
    if (!order)
        return KT_ENOMEM;
    for (size_t i = 0; i < s->nobs; i++)
        order[i] = i;
    qsort_r(order, s->nobs, sizeof *order, by_cost, s->cost);
    int rc = KT_OK;
    for (size_t e = 0; rc == KT_OK && e < ELITES && e < s->nobs; e++) {
        if (!isfinite(s->cost[order[e]]))
            break;
        uint16_t *nb;
        size_t m;
        rc = kt_move_neighbours(s->space, kt_space_at(s->space, s->obs[order[e]]), &s->rng,
                                &nb, &m);
        for (size_t j = 0; rc == KT_OK && j < m && *n < cap; j++)
            if (kt_space_index_of(s->space, nb + j * s->np, &c[*n]) == KT_OK)
                (*n)++;
        free(nb);
    }
    free(order);
    return rc;
}

/* Unseen candidates: every one in a small space, else a uniform sample;
 * then the elites' neighbours.  *out is allocated here. */
static int candidates(mg_state *s, uint64_t **out, size_t *n)
{
    uint64_t size = kt_space_size(s->space);
    size_t cap = SAMPLE + ELITES * 256, k = 0;
    uint64_t *c = malloc(cap * sizeof *c);
    *out = c;
    if (!c)
        return KT_ENOMEM;
    if (size <= SAMPLE)
        for (uint64_t i = 0; i < size; i++)
            c[k++] = i;
    else
        for (; k < SAMPLE; k++)
            c[k] = kt_rng_below(&s->rng, size);
    int rc = add_neighbours(s, c, &k, cap);
    *n = rc == KT_OK ? unique_unseen(&s->hist, c, k) : 0;
    return rc;
}

/* ------------------------------------------------------------------ model */

/* Features of configuration idx: its value indices. */
static void features(const mg_state *s, uint64_t idx, float *row)
{
    const uint16_t *cfg = kt_space_at(s->space, idx);
    for (size_t d = 0; d < s->np; d++)
        row[d] = cfg[d];
}

/* The training set: log time of every observation, failures at twice the
 * slowest success, centred.  False when there are too few successes. */
static bool training_set(const mg_state *s, float *x, float *y)
{
    double worst = -INFINITY, sum = 0;
    size_t ok = 0;
    for (size_t i = 0; i < s->nobs; i++)
        if (isfinite(s->cost[i])) {
            double v = log(fmax(s->cost[i], 1e-9));
            worst = fmax(worst, v);
            ok++;
        }
    if (ok < MIN_FIT)
        return false;
    for (size_t i = 0; i < s->nobs; i++) {
        features(s, s->obs[i], x + i * s->np);
        y[i] = (float)(isfinite(s->cost[i]) ? log(fmax(s->cost[i], 1e-9)) : worst + log(2.0));
        sum += y[i];
    }
    for (size_t i = 0; i < s->nobs; i++)
        y[i] -= (float)(sum / (double)s->nobs);
    return true;
}

/* Member e of this fit's ensemble, predicting the n candidates' features. */
static int fit_member(mg_state *s, const float *x, const float *y, int e, const float *cx,
                      size_t n, float *pred)
{
    char seed[32];
    snprintf(seed, sizeof seed, "%u",
             (unsigned)((s->seed * 7919u + s->fits * ENSEMBLE + (unsigned)e) % 2147483647u));
    const char *params[] = {"objective", "reg:squarederror", "max_depth", "4", "eta", "0.2",
                            "subsample", "0.7", "min_child_weight", "1", "tree_method",
                            "hist", "seed", seed, NULL};
    kt_xgb_data d = {.x = x, .y = y, .n = s->nobs, .nf = s->np};
    kt_xgb_opts o = {.params = params, .rounds = ROUNDS};
    kt_xgb *b;
    kt_diag diag;
    int rc = kt_xgb_train(&d, &o, &b, &diag);
    if (rc == KT_OK)
        rc = kt_xgb_predict(b, cx, n, s->np, pred, n, &diag);
    kt_xgb_free(b);
    return rc;
}

/* Lower confidence bounds of the ensemble's n predictions (pred: ENSEMBLE
 * x n) into score. */
static void lower_bounds(const float *pred, size_t n, double *score)
{
    for (size_t i = 0; i < n; i++) {
        double m = 0, v = 0;
        for (int e = 0; e < ENSEMBLE; e++)
            m += pred[e * n + i] / (double)ENSEMBLE;
        for (int e = 0; e < ENSEMBLE; e++)
            v += (pred[e * n + i] - m) * (pred[e * n + i] - m) / (double)ENSEMBLE;
        score[i] = m - KAPPA * sqrt(v);
    }
}

static int by_score(const void *a, const void *b, void *ctx)
{
    const double *score = ctx;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    return score[i] < score[j] ? -1 : score[i] > score[j] ? 1 : (i > j) - (i < j);
}

/* Keep the QUEUE best-scored candidates, best first. */
static int rank(mg_state *s, const uint64_t *c, const double *score, size_t n)
{
    size_t *order = malloc((n + 1) * sizeof *order);
    if (!order)
        return KT_ENOMEM;
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    qsort_r(order, n, sizeof *order, by_score, (void *)score);
    s->nqueue = n < QUEUE ? n : QUEUE;
    s->qnext = 0;
    for (size_t i = 0; i < s->nqueue; i++)
        s->queue[i] = c[order[i]];
    free(order);
    return KT_OK;
}

/* Fit the ensemble on the observations and rank fresh candidates.  With
 * too few successes the queue stays empty (proposals are random). */
static int fit_and_rank(mg_state *s)
{
    s->fitted_at = s->nobs;
    s->nqueue = s->qnext = 0;
    uint64_t *c = NULL;
    size_t n = 0;
    float *x = malloc((s->nobs * s->np + 1) * sizeof *x);
    float *y = malloc((s->nobs + 1) * sizeof *y);
    int rc = x && y ? KT_OK : KT_ENOMEM;
    if (rc == KT_OK && training_set(s, x, y))
        rc = candidates(s, &c, &n);
    float *cx = n ? malloc(n * s->np * sizeof *cx) : NULL;
    float *pred = n ? malloc(ENSEMBLE * n * sizeof *pred) : NULL;
    double *score = n ? malloc(n * sizeof *score) : NULL;
    if (n && !(cx && pred && score))
        rc = KT_ENOMEM;
    for (size_t i = 0; rc == KT_OK && i < n; i++)
        features(s, c[i], cx + i * s->np);
    for (int e = 0; rc == KT_OK && n && e < ENSEMBLE; e++)
        rc = fit_member(s, x, y, e, cx, n, pred + (size_t)e * n);
    if (rc == KT_OK && n) {
        lower_bounds(pred, n, score);
        rc = rank(s, c, score, n);
    }
    s->fits++;
    free(x);
    free(y);
    free(c);
    free(cx);
    free(pred);
    free(score);
    return rc;
}

/* ---------------------------------------------------------------- propose */

/* The next ranked candidate not seen since, refitting when the ranking is
 * used up or the observations have grown by an eighth; false when the
 * model has nothing to offer (the caller picks at random). */
static bool next_ranked(mg_state *s, kt_batch *b, bool *refitted)
{
    size_t gap = s->fitted_at / 8 > 1 ? s->fitted_at / 8 : 1;
    if (!*refitted && (s->qnext >= s->nqueue || s->nobs - s->fitted_at >= gap)) {
        *refitted = true;
        if ((b->rc = fit_and_rank(s)) != KT_OK)
            return false;
    }
    while (s->qnext < s->nqueue)
        if (kt_batch_add(b, kt_space_at(s->space, s->queue[s->qnext++])))
            return true;
    return false;
}

static int mg_propose(void *state, uint16_t *out, size_t max, size_t *n)
{
    mg_state *s = state;
    kt_batch b = kt_batch_begin(&s->hist, out, max);
    uint16_t *cfg = malloc((s->np + 1) * sizeof *cfg);
    bool refitted = false;
    if (!cfg)
        b.rc = KT_ENOMEM;
    while (b.rc == KT_OK && !kt_batch_full(&b)) {
        bool explore = s->hist.nknown + b.n < s->ninit || kt_rng_unit(&s->rng) < EPSILON;
        if (!explore && next_ranked(s, &b, &refitted))
            continue;
        if (b.rc != KT_OK || !kt_move_fresh(&s->hist, &s->rng, cfg))
            break;
        kt_batch_add(&b, cfg);
    }
    free(cfg);
    return kt_batch_end(&b, n);
}

const kt_strategy kt_strategy_model_guided = {
    .abi = KT_STRATEGY_ABI,
    .name = "model_guided",
    .summary = "an XGBoost cost model ranks unmeasured configurations; refitted as "
               "results come in",
    .init = mg_init,
    .propose = mg_propose,
    .observe = mg_observe,
    .free = mg_free,
};
