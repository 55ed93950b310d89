/* xgb_chain.c - "xgboost": a classifier chain of gradient-boosted trees.
 *
 * Output position p has its own multi-class booster (XGBoost, softprob)
 * that reads the descriptor's fields and the values of the tokens at
 * positions 0..p-1, so it scores P(token p | descriptor, prefix) and the
 * beam search's sums are the chain rule's joint log-probability.  Per-
 * position classifiers cannot learn that one parameter's best value depends
 * on another's; a chain can.
 *
 * Training: teacher forcing (the previous positions' features are the true
 * tokens); a seeded tenth of the training samples is set aside to stop each
 * booster once its validation log-loss stops falling, and the best round's
 * trees are kept.  Features: a descriptor field's standardised log-scale
 * number (its token when it is not numeric); a previous token's numeric
 * value when all its position's words are numbers, else its token.  A
 * position with a single value in training needs no booster.  Everything is
 * a function of the seed (XGBoost runs one thread).  Each booster travels
 * in the model file as XGBoost's own bytes, after the file's checksum was
 * verified. */
#include "core/util.h"
#include "ml/model_impl.h"
#include "ml/xgb.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Defaults: --epochs is the most boosting rounds, --patience the rounds
 * without validation gain, --lr the learning rate (eta). */
enum { DEF_ROUNDS = 200, DEF_PATIENCE = 10, MAX_DEPTH = 6, MIN_VALID = 50 };
#define DEF_ETA 0.3

typedef struct chain {
    size_t nout;
    kt_xgb **booster;   /* nout; NULL where the position has one value */
    uint32_t *only;     /* nout: that value's token */
    float **value;      /* nout x vocab: a token's feature value */
} chain;

typedef struct chain_query {
    const kt_model *m;
    const chain *c;
    float *desc;        /* nin: the descriptor's features */
    float *rows;        /* cap x (nin + nout) */
    float *prob;        /* cap x the largest vocabulary */
    size_t cap, maxv;
    kt_diag diag;
} chain_query;

static void chain_free(void *state)
{
    chain *c = state;
    if (!c)
        return;
    for (size_t p = 0; p < c->nout; p++) {
        if (c->booster)
            kt_xgb_free(c->booster[p]);
        if (c->value)
            free(c->value[p]);
    }
    free(c->booster);
    free(c->only);
    free(c->value);
    free(c);
}

/* A chain with its token values, no boosters yet. */
static chain *chain_new(const kt_model *m)
{
    chain *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->nout = m->nout;
    c->booster = calloc(m->nout + 1, sizeof *c->booster);
    c->only = calloc(m->nout + 1, sizeof *c->only);
    c->value = calloc(m->nout + 1, sizeof *c->value);
    bool ok = c->booster && c->only && c->value;
    for (size_t p = 0; ok && p < m->nout; p++) {
        const kt_vocab *v = &m->out_vocab[p];
        ok = (c->value[p] = malloc((v->n + 1) * sizeof **c->value)) != NULL;
        bool numeric = true;
        for (size_t t = 1; ok && t < v->n; t++) {
            char *end;
            c->value[p][t] = strtof(v->words[t], &end);
            numeric &= end != v->words[t] && *end == '\0';
        }
        for (size_t t = 1; ok && !numeric && t < v->n; t++)
            c->value[p][t] = (float)t;
        if (ok)
            c->value[p][0] = NAN; /* unknown */
    }
    if (!ok) {
        chain_free(c);
        return NULL;
    }
    return c;
}

/* The features of prefix[0..pos), after the descriptor's in a row. */
static void prefix_features(const chain *c, const uint16_t *prefix, size_t pos, float *out)
{
    for (size_t q = 0; q < pos; q++)
        out[q] = c->value[q][prefix[q]];
}

static void descriptor(const kt_model *m, const uint16_t *x, const double *xn, float *desc)
{
    for (size_t f = 0; f < m->nin; f++)
        desc[f] = (float)kt_model_value(m, x, xn, f);
}

/* ---------------------------------------------------------------- training */

/* The training samples' features at the last position (a prefix of each
 * row serves every earlier position), and their seeded order: the first
 * nval samples validate. */
typedef struct chain_data {
    size_t n, nval, width;   /* samples, of them validating, nin + nout */
    size_t *order;
    float *x;                /* n x width, in order */
    float *y;                /* n, one position's labels, in order */
    float *sub;              /* n x width: the features one position reads */
} chain_data;

static void data_free(chain_data *d)
{
    free(d->order);
    free(d->x);
    free(d->y);
    free(d->sub);
}

static int data_new(const kt_model *m, const chain *c, uint64_t seed, chain_data *d)
{
    size_t n = m->train.n, w = m->nin + m->nout;
    *d = (chain_data){.n = n, .nval = n >= MIN_VALID ? n / 10 : 0, .width = w};
    d->order = malloc((n + 1) * sizeof *d->order);
    d->x = malloc((n * w + 1) * sizeof *d->x);
    d->y = malloc((n + 1) * sizeof *d->y);
    d->sub = malloc((n * w + 1) * sizeof *d->sub);
    if (!d->order || !d->x || !d->y || !d->sub)
        return KT_ENOMEM;
    kt_rng rng;
    kt_rng_seed(&rng, seed ^ 0x786762636861696eULL);
    for (size_t i = 0; i < n; i++)
        d->order[i] = i;
    for (size_t i = n; i > 1; i--) {
        size_t j = kt_rng_below(&rng, i), t = d->order[i - 1];
        d->order[i - 1] = d->order[j];
        d->order[j] = t;
    }
    for (size_t i = 0; i < n; i++) {
        size_t s = d->order[i];
        descriptor(m, m->train.x + s * m->nin, m->train.xnum + s * m->nin, d->x + i * w);
        prefix_features(c, m->train.y + s * m->nout, m->nout, d->x + i * w + m->nin);
    }
    return KT_OK;
}

/* Position pos's booster, or the single value it always takes. */
static int fit_position(const kt_model *m, chain *c, chain_data *d, size_t pos,
                        const kt_train_opts *o, double seconds, kt_diag *diag)
{
    size_t nf = m->nin + pos, V = m->out_vocab[pos].n;
    bool varies = false;
    for (size_t i = 0; i < d->n; i++) {
        uint16_t t = m->train.y[d->order[i] * m->nout + pos];
        d->y[i] = (float)t;
        memcpy(d->sub + i * nf, d->x + i * d->width, nf * sizeof *d->sub);
        varies |= t != m->train.y[d->order[0] * m->nout + pos];
    }
    c->only[pos] = m->train.y[d->order[0] * m->nout + pos];
    if (!varies)
        return KT_OK;
    char num_class[24], seed[24], eta[32];
    snprintf(num_class, sizeof num_class, "%zu", V);
    snprintf(seed, sizeof seed, "%d", (int)(o->seed % 2147483647u));
    snprintf(eta, sizeof eta, "%.17g", o->lr > 0 ? o->lr : DEF_ETA);
    const char *params[] = {"objective", "multi:softprob", "num_class", num_class,
                            "eval_metric", "mlogloss", "tree_method", "hist",
                            "max_depth", "6", "eta", eta, "subsample", "0.8",
                            "colsample_bytree", "0.8", "seed", seed, NULL};
    kt_xgb_data train = {.x = d->sub + d->nval * nf, .y = d->y + d->nval,
                         .n = d->n - d->nval, .nf = nf};
    kt_xgb_data valid = {.x = d->sub, .y = d->y, .n = d->nval, .nf = nf};
    kt_xgb_opts xo = {.params = params, .rounds = o->epochs > 0 ? o->epochs : DEF_ROUNDS,
                      .valid = d->nval ? &valid : NULL,
                      .patience = o->patience > 0 ? o->patience : DEF_PATIENCE,
                      .seconds = seconds};
    return kt_xgb_train(&train, &xo, &c->booster[pos], diag);
}

static int chain_fit(kt_model *m, const kt_train_opts *o)
{
    chain *c = chain_new(m);
    m->state = c;
    chain_data d = {0};
    int rc = c ? data_new(m, c, o->seed, &d) : KT_ENOMEM;
    double t0 = kt_now();
    for (size_t p = 0; rc == KT_OK && p < m->nout; p++) {
        /* an even share of what is left of the budget */
        double left = o->seconds > 0 ? o->seconds - (kt_now() - t0) : 0;
        double share = o->seconds > 0 ? fmax(left, 1e-3) / (double)(m->nout - p) : 0;
        kt_diag diag;
        rc = fit_position(m, c, &d, p, o, share, &diag);
    }
    data_free(&d);
    return rc;
}

/* ----------------------------------------------------------------- queries */

static void chain_end(void *qs)
{
    chain_query *q = qs;
    if (!q)
        return;
    free(q->desc);
    free(q->rows);
    free(q->prob);
    free(q);
}

static int chain_begin(const kt_model *m, const uint16_t *x, const double *xn, void **qs)
{
    chain_query *q = calloc(1, sizeof *q);
    *qs = q;
    if (!q || !(q->desc = malloc((m->nin + 1) * sizeof *q->desc)))
        return KT_ENOMEM;
    q->m = m;
    q->c = m->state;
    for (size_t p = 0; p < m->nout; p++)
        q->maxv = m->out_vocab[p].n > q->maxv ? m->out_vocab[p].n : q->maxv;
    descriptor(m, x, xn, q->desc);
    return KT_OK;
}

static int reserve(chain_query *q, size_t n)
{
    if (n <= q->cap)
        return KT_OK;
    float *r = realloc(q->rows, n * (q->m->nin + q->m->nout + 1) * sizeof *r);
    if (r)
        q->rows = r;
    float *p = realloc(q->prob, n * q->maxv * sizeof *p);
    if (p)
        q->prob = p;
    if (!r || !p)
        return KT_ENOMEM;
    q->cap = n;
    return KT_OK;
}

static int chain_next(void *qs, const uint16_t *prefixes, size_t n, size_t stride,
                      size_t pos, double *logp)
{
    chain_query *q = qs;
    const kt_model *m = q->m;
    size_t V = m->out_vocab[pos].n, nf = m->nin + pos;
    kt_xgb *b = q->c->booster[pos];
    if (reserve(q, n) != KT_OK)
        return KT_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        memcpy(q->rows + i * nf, q->desc, m->nin * sizeof *q->rows);
        prefix_features(q->c, prefixes + i * stride, pos, q->rows + i * nf + m->nin);
    }
    int rc = b ? kt_xgb_predict(b, q->rows, n, nf, q->prob, n * V, &q->diag) : KT_OK;
    for (size_t i = 0; rc == KT_OK && i < n; i++) {
        double *w = logp + i * V;
        for (size_t t = 0; t < V; t++)
            w[t] = b ? q->prob[i * V + t] : t == q->c->only[pos];
        kt_weights_to_logp(w, V);
    }
    return rc;
}

/* -------------------------------------------------------------- model file */

static void chain_save(const kt_model *m, FILE *f)
{
    const chain *c = m->state;
    for (size_t p = 0; p < m->nout; p++) {
        const char *bytes = NULL;
        size_t len = 0;
        kt_diag diag;
        if (c->booster[p] && kt_xgb_save(c->booster[p], &bytes, &len, &diag) != KT_OK)
            bytes = NULL, len = 0; /* written as no booster: the load refuses it */
        kt_put_u32(f, c->only[p]);
        kt_put_u64(f, len);
        if (len)
            kt_put(f, bytes, len);
    }
}

/* A loaded booster must answer a row of its position's width with one
 * probability per token. */
static bool booster_fits(const kt_model *m, kt_xgb *b, size_t pos)
{
    size_t nf = m->nin + pos, V = m->out_vocab[pos].n;
    float *row = malloc((nf + 1) * sizeof *row), *out = malloc((V + 1) * sizeof *out);
    kt_diag diag;
    bool ok = row && out;
    for (size_t f = 0; ok && f < nf; f++)
        row[f] = NAN;
    ok = ok && kt_xgb_predict(b, row, 1, nf, out, V, &diag) == KT_OK;
    free(row);
    free(out);
    return ok;
}

static void chain_load(kt_model *m, reader *r)
{
    chain *c = chain_new(m);
    m->state = c;
    r->bad |= c == NULL;
    for (size_t p = 0; !r->bad && p < m->nout; p++) {
        c->only[p] = kt_get_u32(r);
        uint64_t len = kt_get_u64(r);
        char *bytes = len ? kt_get_array(r, len, 1) : NULL;
        kt_diag diag;
        if (!bytes) /* no booster: the position's one value */
            r->bad |= len != 0 || c->only[p] >= m->out_vocab[p].n;
        else if (kt_xgb_load(bytes, len, m->nin + p, m->out_vocab[p].n, &c->booster[p],
                             &diag) != KT_OK)
            kt_reader_refuse(r, diag.msg);
        else
            r->bad |= !booster_fits(m, c->booster[p], p);
        free(bytes);
    }
}

const kt_method kt_method_xgboost = {
    .name = "xgboost", .kind = 20, .pools = true, .seeded = true, .fit = chain_fit,
    .begin = chain_begin, .next = chain_next, .end = chain_end, .save = chain_save,
    .load = chain_load, .free = chain_free,
};
