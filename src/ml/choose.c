/* choose.c - the default method: trained without a method, a model tries
 * the candidates on the training part and keeps the best, so that a user
 * gets the method that wins on their data without knowing the tables of
 * docs/PREDICTION.md (no method wins every cell there).
 *
 * The training part (the same seeded split as any method's, so the
 * held-out part is never read) is split again, seeded: each candidate
 * learns from most of it and predicts the rest (the validation samples) by
 * unconstrained beam search; the candidate with the most validation
 * problems whose best configuration it ranks first plus those it ranks
 * among its first 10 wins (the earlier on a tie: the order is by training
 * cost).  The winner is trained again on the whole training part, and the
 * model keeps every candidate's scores.  The candidates' iterative
 * training is bounded in time (DEF_SECONDS each unless the caller gives
 * seconds), so choosing costs at most a few such budgets.  With too few
 * samples to validate on, the first candidate is trained and nothing is
 * recorded. */
#include "core/util.h"
#include "ml/evaluate.h"
#include "ml/model_impl.h"

#include <stdlib.h>
#include <string.h>

/* Cheapest first: a tie goes to the cheaper method. */
static const kt_method *const CANDIDATES[] = {
    &kt_method_knn, &kt_method_xgboost, &kt_method_encdec, &kt_method_ensemble,
};
/* Below MIN_TRAIN training samples nothing is left to validate on: the
 * first candidate is trained, unscored. */
enum { NCAND = sizeof CANDIDATES / sizeof *CANDIDATES, MIN_VALIDATION = 200, MIN_TRAIN = 8 };
#define DEF_SECONDS 25.0

/* The share of n training samples that validates: enough problems for
 * scores that differ by more than noise (MIN_VALIDATION), 10 to 25%. */
static double validation_share(size_t n)
{
    double s = n ? (double)MIN_VALIDATION / (double)n : 1;
    return s < 0.1 ? 0.1 : s > 0.25 ? 0.25 : s;
}

/* Samples idx of d as a dataset that borrows d's names, vocabularies and
 * keys (subset_free frees only what it made). */
static int subset(const kt_dataset *d, const size_t *idx, size_t n, kt_dataset *s)
{
    *s = (kt_dataset){.kernel = d->kernel, .n = n, .nin = d->nin, .nout = d->nout,
                      .in_names = d->in_names, .out_names = d->out_names,
                      .in_vocab = d->in_vocab, .out_vocab = d->out_vocab};
    s->x = malloc((n * d->nin + 1) * sizeof *s->x);
    s->xnum = malloc((n * d->nin + 1) * sizeof *s->xnum);
    s->y = malloc((n * d->nout + 1) * sizeof *s->y);
    s->problem = malloc((n + 1) * sizeof *s->problem);
    if (!s->x || !s->xnum || !s->y || !s->problem)
        return KT_ENOMEM;
    kt_dataset_rows(d, idx, n, s->x, s->xnum, s->y);
    for (size_t i = 0; i < n; i++)
        s->problem[i] = d->problem[idx[i]];
    return KT_OK;
}

static void subset_free(kt_dataset *s)
{
    free(s->x);
    free(s->xnum);
    free(s->y);
    free(s->problem);
}

/* m's perfect prediction at top-1 and top-10 on the samples it held out. */
static int score(const kt_model *m, ktune_model_candidate *c, kt_diag *diag)
{
    kt_eval_opts eo = {.size = sizeof eo, .widths = {1, 10}, .nwidths = 2,
                       .unconstrained = true};
    kt_eval_report r;
    int rc = kt_model_evaluate(m, &eo, &r, diag);
    c->top1 = rc == KT_OK ? r.perfect[0] : 0;
    c->top10 = rc == KT_OK ? r.perfect[1] : 0;
    return rc;
}

/* Train candidate i on the inner split (or reuse the model of the method
 * it is trained as) and score it; models[i] keeps what it trained. */
static int try_candidate(const kt_dataset *inner, const kt_train_opts *io, size_t i,
                         kt_model **models, ktune_model_candidate *c, kt_diag *diag)
{
    const kt_method *cm = CANDIDATES[i];
    *c = (ktune_model_candidate){.method = cm->name};
    for (size_t j = 0; j < i; j++)
        if (cm->fit_of == CANDIDATES[j] && models[j]) {
            kt_model *m = models[j]; /* the same state read as cm's */
            m->method = cm;
            int rc = score(m, c, diag);
            m->method = CANDIDATES[j];
            return rc;
        }
    kt_train_opts co = *io;
    co.method = cm->name;
    int rc = kt_model_train(inner, &co, &models[i], diag);
    return rc == KT_OK ? score(models[i], c, diag) : rc;
}

/* The candidates' scores into cand (NCAND), and the validation size. */
static int try_all(const kt_dataset *inner, const kt_train_opts *io,
                   ktune_model_candidate *cand, size_t *nval, kt_diag *diag)
{
    kt_model *models[NCAND] = {0};
    int rc = KT_OK;
    for (size_t i = 0; rc == KT_OK && i < NCAND; i++)
        rc = try_candidate(inner, io, i, models, &cand[i], diag);
    *nval = models[0] ? models[0]->test.n : 0;
    for (size_t i = 0; i < NCAND; i++)
        kt_model_free(models[i]);
    return rc;
}

static size_t best_of(const ktune_model_candidate *cand)
{
    size_t best = 0;
    for (size_t i = 1; i < NCAND; i++)
        if (cand[i].top1 + cand[i].top10 > cand[best].top1 + cand[best].top10)
            best = i;
    return best;
}

int kt_model_choose(const kt_dataset *d, const kt_train_opts *o, kt_model **out,
                    kt_diag *diag)
{
    *out = NULL;
    if (!(o->holdout >= 0 && o->holdout < 1))
        return kt_fail(diag, KT_EINVAL, "--holdout must be at least 0 and below 1");
    size_t *tr = NULL, *te = NULL, ntr = 0, nte = 0, nval = 0;
    kt_dataset inner = {0};
    ktune_model_candidate cand[NCAND];
    kt_train_opts io = *o;
    io.seconds = o->seconds > 0 ? o->seconds : DEF_SECONDS;
    int rc = kt_dataset_split(d, o->holdout, o->seed, o->split_ignore, &tr, &ntr, &te, &nte);
    bool few = ntr < MIN_TRAIN;
    if (rc == KT_OK && !few)
        rc = subset(d, tr, ntr, &inner);
    if (rc != KT_OK) /* either fails only for memory */
        rc = kt_fail(diag, rc, "out of memory");
    io.holdout = validation_share(ntr);
    if (rc == KT_OK && !few)
        rc = try_all(&inner, &io, cand, &nval, diag);
    subset_free(&inner);
    free(tr);
    free(te);
    if (rc != KT_OK)
        return rc;
    kt_train_opts fo = io;
    fo.holdout = o->holdout;
    fo.method = CANDIDATES[few ? 0 : best_of(cand)]->name;
    if ((rc = kt_model_train(d, &fo, out, diag)) != KT_OK || few)
        return rc;
    if (!((*out)->cand = malloc(sizeof cand))) {
        kt_model_free(*out);
        *out = NULL;
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < NCAND; i++)
        cand[i].chosen = CANDIDATES[i] == (*out)->method;
    memcpy((*out)->cand, cand, sizeof cand);
    (*out)->ncand = NCAND;
    (*out)->nval = nval;
    return KT_OK;
}
