/* choose.c - the default method: trained without a method, a model tries
 * the candidates on the training part and keeps the best, so that a user
 * gets the method that wins on their data without knowing the tables of
 * docs/PREDICTION.md (no method wins every cell there).
 *
 * The training part (the same seeded split as any method's, so the
 * held-out part is never read) is split again, seeded: each candidate
 * learns from most of it and predicts the rest (the validation samples) by
 * unconstrained beam search (perfect top-1 and top-10, reported), and
 * scores their best configurations (mean log-probability); the candidate
 * with the highest log-probability wins (the earlier on a tie: the order
 * is by training cost).  The winner is trained again on the whole training
 * part (where it draws on its seed and learns from few samples, with a
 * second seed too, the two averaged: bagged), and the model keeps every
 * candidate's scores.  The candidates' iterative
 * training is bounded in time (DEF_SECONDS each unless the caller gives
 * seconds), so choosing costs at most a few such budgets.  With too few
 * samples to validate on, the first candidate is trained and nothing is
 * recorded.
 *
 * On a small cell (below POOL_BELOW training samples) two more kinds of
 * candidate are tried: "mix", scored from the xgboost and encdec models
 * already trained (kt_method.parts), and, when training was given a pool
 * (siblings.c), every method that can pool trained on the cell's inner
 * training part plus its siblings' training parts, validated on the same
 * validation samples as the others. */
#include "core/util.h"
#include "ml/evaluate.h"
#include "ml/model_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Cheapest first: a tie goes to the cheaper method.  Then, when training
 * was given a pool (its cell has siblings), the methods that can pool,
 * trained on the cell's and its siblings' training parts: a tie goes to
 * the cell's own data. */
static const kt_method *const CANDIDATES[] = {
    &kt_method_knn, &kt_method_xgboost, &kt_method_encdec, &kt_method_ensemble, &kt_method_mix,
};
/* Below MIN_TRAIN training samples nothing is left to validate on: the
 * first candidate is trained, unscored.  Pooling, and methods made of
 * parts, are tried below POOL_BELOW training samples, where data is
 * scarce: on the large cells the methods win without them, and their
 * training would double the cost there. */
enum { NMETHOD = sizeof CANDIDATES / sizeof *CANDIDATES, NCAND = 2 * NMETHOD,
       MIN_VALIDATION = 200, MIN_TRAIN = 8, POOL_BELOW = 2000, MAX_PARTS = 8, BAG = 2 };
#define DEF_SECONDS 25.0

/* The share of n training samples that validates: enough problems for
 * scores that differ by more than noise (MIN_VALIDATION), 10 to 25%. */
static double validation_share(size_t n)
{
    double s = n ? (double)MIN_VALIDATION / (double)n : 1;
    return s < 0.1 ? 0.1 : s > 0.25 ? 0.25 : s;
}

/* m's perfect prediction at top-1 and top-10 on the samples it held out,
 * and the mean log-probability of their best configurations, which
 * chooses. */
static int score(const kt_model *m, ktune_model_candidate *c, kt_diag *diag)
{
    kt_eval_opts eo = {.size = sizeof eo, .widths = {1, 10}, .nwidths = 2,
                       .unconstrained = true};
    kt_eval_report r;
    int rc = kt_model_evaluate(m, &eo, &r, diag);
    c->top1 = rc == KT_OK ? r.perfect[0] : 0;
    c->top10 = rc == KT_OK ? r.perfect[1] : 0;
    return rc == KT_OK ? kt_model_loglik(m, &c->loglik, diag) : rc;
}

/* The data the candidates learn from: the cell's training part (inner,
 * split again by the holdout of the options), and with a pool the same
 * inner split as indices into the pool's samples, the siblings' training
 * parts after the cell's. */
typedef struct inner_data {
    kt_dataset cell;            /* the cell's training part */
    const kt_siblings *pool;    /* NULL: no pooled candidates */
    bool small;                 /* below POOL_BELOW training samples */
    size_t *train, ntrain;      /* pooled: the inner training samples */
    size_t *test, ntest;        /* pooled: the validation samples */
} inner_data;

/* The inner split of the cell's training part tr (indices into the
 * pool's cell), mapped to the pool's samples. */
static int pool_inner(inner_data *in, const kt_train_opts *io)
{
    const kt_siblings *p = in->pool;
    size_t *tr = NULL, *te = NULL, ntr = 0, nte = 0;
    int rc = kt_dataset_split(&in->cell, io->holdout, io->seed, io->split_ignore, &tr,
                              &ntr, &te, &nte);
    in->train = rc == KT_OK ? malloc((ntr + p->nextra + 1) * sizeof *in->train) : NULL;
    in->test = rc == KT_OK ? malloc((nte + 1) * sizeof *in->test) : NULL;
    if (rc == KT_OK && (!in->train || !in->test))
        rc = KT_ENOMEM;
    for (size_t i = 0; rc == KT_OK && i < ntr; i++)
        in->train[i] = p->train[tr[i]];
    for (size_t i = 0; rc == KT_OK && i < nte; i++)
        in->test[i] = p->train[te[i]];
    if (rc == KT_OK) {
        memcpy(in->train + ntr, p->extra, p->nextra * sizeof *in->train);
        in->ntrain = ntr + p->nextra;
        in->ntest = nte;
    }
    free(tr);
    free(te);
    return rc;
}

static void inner_free(inner_data *in)
{
    kt_dataset_subset_free(&in->cell);
    free(in->train);
    free(in->test);
}

/* Candidate i's method; the second half of the list pools. */
static const kt_method *cand_method(size_t i) { return CANDIDATES[i % NMETHOD]; }
static bool cand_pooled(size_t i) { return i >= NMETHOD; }

/* Whether candidate i is tried: the pooled ones only with a pool, and for
 * methods that can learn across cells; a method made of parts (mix) only
 * on a small training part, as its final training costs all its parts'. */
static bool cand_tried(const inner_data *in, size_t i)
{
    if (cand_method(i)->parts && !in->small)
        return false;
    return !cand_pooled(i) || (in->pool && cand_method(i)->pools);
}

/* The model of an earlier candidate of method pm trained on the same data
 * as candidate i (pooled or not); NULL if none. */
static kt_model *trained_as(kt_model *const *models, size_t i, const kt_method *pm)
{
    for (size_t j = 0; j < i; j++)
        if (cand_method(j) == pm && cand_pooled(j) == cand_pooled(i) && models[j])
            return models[j];
    return NULL;
}

/* Score candidate i from the models already trained, where its method is
 * one of them read otherwise (fit_of) or made of them (parts); *done false
 * when it must be trained. */
static int score_reused(kt_model *const *models, size_t i, ktune_model_candidate *c,
                        bool *done, kt_diag *diag)
{
    const kt_method *cm = cand_method(i);
    void *states[MAX_PARTS];
    kt_model *m = cm->fit_of ? trained_as(models, i, cm->fit_of) : NULL;
    bool all = true;
    for (size_t p = 0; cm->parts && p < MAX_PARTS && cm->parts[p]; p++) {
        kt_model *pm = trained_as(models, i, cm->parts[p]);
        all &= pm != NULL;
        states[p] = pm ? pm->state : NULL;
        m = p == 0 ? pm : m; /* any of them holds the data */
    }
    m = all ? m : NULL;
    if (!(*done = m != NULL))
        return KT_OK;
    const kt_method *own = m->method;
    void *state = m->state;
    m->method = cm; /* the same state read as cm's, or the parts' joined */
    if (cm->parts && !(m->state = cm->join(states))) {
        m->method = own;
        m->state = state;
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    int rc = score(m, c, diag);
    if (cm->parts)
        cm->free(m->state);
    m->method = own;
    m->state = state;
    return rc;
}

/* Train candidate i on the inner split (or reuse the models of the methods
 * it is trained as, on the same data) and score it; models[i] keeps what
 * it trained. */
static int try_candidate(const inner_data *in, const kt_train_opts *io, size_t i,
                         kt_model **models, ktune_model_candidate *c, kt_diag *diag)
{
    const kt_method *cm = cand_method(i);
    *c = (ktune_model_candidate){.method = cm->name, .pooled = cand_pooled(i)};
    bool done;
    int rc = score_reused(models, i, c, &done, diag);
    if (done || rc != KT_OK)
        return rc;
    kt_train_opts co = *io;
    co.method = cm->name;
    rc = c->pooled ? kt_model_train_on(in->pool->all, in->train, in->ntrain, in->test,
                                       in->ntest, &co, &models[i], diag)
                   : kt_model_train(&in->cell, &co, &models[i], diag);
    return rc == KT_OK ? score(models[i], c, diag) : rc;
}

/* The candidates' scores into cand (NCAND; the untried ones are marked so)
 * and the validation size. */
static int try_all(const inner_data *in, const kt_train_opts *io,
                   ktune_model_candidate *cand, size_t *nval, kt_diag *diag)
{
    kt_model *models[NCAND] = {0};
    int rc = KT_OK;
    for (size_t i = 0; i < NCAND; i++)
        cand[i] = (ktune_model_candidate){.method = cand_method(i)->name,
                                          .pooled = cand_pooled(i), .top1 = -1,
                                          .loglik = -INFINITY};
    for (size_t i = 0; rc == KT_OK && i < NCAND; i++)
        if (cand_tried(in, i))
            rc = try_candidate(in, io, i, models, &cand[i], diag);
    *nval = models[0] ? models[0]->test.n : 0;
    for (size_t i = 0; i < NCAND; i++)
        kt_model_free(models[i]);
    return rc;
}

/* The candidate that gives the validation problems' best configurations
 * the highest mean log-probability (the earlier on a tie).  Not the count
 * of hits at top-1 and top-10: on ~200 validation problems those differ
 * between candidates by less than their noise, so the pick changed with
 * the seed (docs/PREDICTION.md), while the log-probability, which the beam
 * ranks by, scores every problem on a continuous scale. */
static size_t best_of(const ktune_model_candidate *cand)
{
    size_t best = 0;
    for (size_t i = 1; i < NCAND; i++)
        if (cand[i].top1 >= 0 && cand[i].loglik > cand[best].loglik)
            best = i;
    return best;
}

/* Whether the final model m is bagged (bag.c): its method draws on the
 * seed and it learnt from fewer than POOL_BELOW samples (its own cell's, or
 * pooled), where a second seed's model lowers the variance most and costs
 * one more training (its query costs twice as much).  A larger pool is
 * left alone: its training already takes most of the time budget. */
static bool bagged(const kt_model *m)
{
    return m->method->seeded && m->train.n < POOL_BELOW;
}

/* Train candidate i's method on the whole training part (pooled or not). */
static int train_final(const kt_dataset *d, const kt_siblings *pool, const kt_train_opts *fo,
                       bool pooled, kt_model **out, kt_diag *diag)
{
    if (!pooled)
        return kt_model_train(d, fo, out, diag);
    size_t n = pool->ntrain + pool->nextra, *tr = malloc((n + 1) * sizeof *tr);
    if (!tr)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    memcpy(tr, pool->train, pool->ntrain * sizeof *tr);
    memcpy(tr + pool->ntrain, pool->extra, pool->nextra * sizeof *tr);
    int rc = kt_model_train_on(pool->all, tr, n, pool->test, pool->ntest, fo, out, diag);
    free(tr);
    return rc;
}

/* Keep the tried candidates' scores in m, marking the one trained. */
static int record(kt_model *m, const ktune_model_candidate *cand, size_t chosen,
                  size_t nval, kt_diag *diag)
{
    if (!(m->cand = calloc(NCAND, sizeof *m->cand)))
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; i < NCAND; i++)
        if (cand[i].top1 >= 0) {
            m->cand[m->ncand] = cand[i];
            m->cand[m->ncand++].chosen = i == chosen;
        }
    m->nval = nval;
    return KT_OK;
}

int kt_model_choose(const kt_dataset *d, const kt_siblings *pool, const kt_train_opts *o,
                    kt_model **out, kt_diag *diag)
{
    *out = NULL;
    if (!(o->holdout >= 0 && o->holdout < 1))
        return kt_fail(diag, KT_EINVAL, "--holdout must be at least 0 and below 1");
    size_t *tr = NULL, *te = NULL, ntr = 0, nte = 0, nval = 0, chosen = 0;
    ktune_model_candidate cand[NCAND];
    kt_train_opts io = *o;
    io.seconds = o->seconds > 0 ? o->seconds : DEF_SECONDS;
    int rc = kt_dataset_split(d, o->holdout, o->seed, o->split_ignore, &tr, &ntr, &te, &nte);
    bool few = ntr < MIN_TRAIN;
    /* the pool must be d's cell, split as d is */
    inner_data in = {.pool = pool && ntr < POOL_BELOW && pool->ntrain == ntr &&
                                     pool->ntest == nte ? pool : NULL,
                     .small = ntr < POOL_BELOW};
    io.holdout = validation_share(ntr);
    if (rc == KT_OK && !few)
        rc = kt_dataset_subset(d, tr, ntr, &in.cell);
    if (rc == KT_OK && !few && in.pool)
        rc = pool_inner(&in, &io);
    if (rc != KT_OK) /* these fail only for memory */
        rc = kt_fail(diag, rc, "out of memory");
    if (rc == KT_OK && !few)
        rc = try_all(&in, &io, cand, &nval, diag);
    inner_free(&in);
    free(tr);
    free(te);
    if (rc != KT_OK)
        return rc;
    kt_train_opts fo = io;
    fo.holdout = o->holdout;
    chosen = few ? 0 : best_of(cand);
    fo.method = cand_method(chosen)->name;
    if ((rc = train_final(d, pool, &fo, cand_pooled(chosen), out, diag)) != KT_OK || few)
        return rc;
    if (bagged(*out) && (rc = kt_model_bag(*out, BAG, &fo)) != KT_OK)
        rc = kt_fail(diag, rc, "%s", rc == KT_ENOMEM ? "out of memory training"
                                                     : "training the second seed's model failed");
    if (rc != KT_OK || (rc = record(*out, cand, chosen, nval, diag)) != KT_OK) {
        kt_model_free(*out);
        *out = NULL;
    }
    return rc;
}
