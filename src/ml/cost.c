/* cost.c - "cost": a performance model that ranks whole configurations.
 *
 * The other methods learn each problem's best configuration only (one
 * sample per problem).  This one learns from every measurement
 * (kt_dataset_load_all): gradient-boosted regression trees (XGBoost) map a
 * problem and a configuration to the logarithm of its time over the
 * problem's fastest, so it sees how far from the best every configuration
 * was, on every problem it was measured on.  Features: the problem's
 * numbers (log scale), each parameter's value, and for every problem
 * number x and parameter value v the padding x / v leaves, ceil(x / v) * v /
 * x (tiles that do not divide a size waste work; a tree cannot divide).
 *
 * For a query, every combination of the parameters' known values is
 * scored once (at most COMBO_LIMIT).  The beam search asks for the tokens
 * of a position after a prefix; a token's score is the best predicted
 * configuration that extends prefix + token, minus the best that extends
 * the prefix, so a path's sum telescopes to its configuration's own score
 * (-log relative time / TEMPERATURE) and the beam returns configurations
 * best first; the constrained search keeps the valid ones. */
#include "core/util.h"
#include "ml/model_impl.h"
#include "ml/xgb.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROUNDS = 400, MAX_DEPTH = 8, COMBO_LIMIT = 1 << 20 };
#define TEMPERATURE 0.05
#define CLIP 0.4 /* log(1.5) */

typedef struct cost {
    kt_xgb *booster;
    size_t nf;           /* features per row */
    float **value;       /* nout x vocab: a token's number (its index if not one) */
} cost;

typedef struct cost_query {
    const kt_model *m;
    size_t ncombo;
    uint16_t *combo;     /* ncombo x nout tokens */
    double *score;       /* ncombo: -log relative time / TEMPERATURE */
} cost_query;

static void cost_free(void *state)
{
    cost *c = state;
    if (!c)
        return;
    kt_xgb_free(c->booster);
    for (size_t p = 0; c->value && c->value[p]; p++)
        free(c->value[p]);
    free(c->value);
    free(c);
}

/* The state with each token's number; NULL when out of memory. */
static cost *cost_new(const kt_model *m)
{
    cost *c = calloc(1, sizeof *c);
    if (!c || !(c->value = calloc(m->nout + 1, sizeof *c->value))) {
        free(c);
        return NULL;
    }
    c->nf = m->nin + 2 * m->nout + 1 + 2 * m->nin * m->nout;
    for (size_t p = 0; p < m->nout; p++) {
        const kt_vocab *v = &m->out_vocab[p];
        if (!(c->value[p] = malloc(v->n * sizeof **c->value))) {
            cost_free(c);
            return NULL;
        }
        for (size_t t = 0; t < v->n; t++) {
            char *end;
            double x = t ? strtod(v->words[t], &end) : NAN;
            c->value[p][t] = t && *end == '\0' && end != v->words[t] ? (float)x : (float)t;
        }
    }
    return c;
}

/* One row of features for problem numbers xn and configuration tokens y. */
static void features(const kt_model *m, const cost *c, const double *xn,
                     const uint16_t *y, float *row)
{
    size_t k = 0;
    double work = 0; /* log of the product of the problem's numbers */
    for (size_t f = 0; f < m->nin; f++) {
        bool num = isfinite(xn[f]) && xn[f] >= 0;
        row[k++] = num ? (float)log1p(xn[f]) : NAN;
        work += num ? log1p(xn[f]) : 0;
    }
    row[k++] = (float)work;
    for (size_t p = 0; p < m->nout; p++) {
        double v = c->value[p][y[p]];
        row[k++] = (float)v;
        row[k++] = v >= 1 ? (float)(work - log(v)) : NAN; /* work per unit of v */
    }
    for (size_t f = 0; f < m->nin; f++)
        for (size_t p = 0; p < m->nout; p++) {
            double x = xn[f], v = c->value[p][y[p]];
            bool ok = isfinite(x) && x >= 1 && v >= 1 && v == floor(v);
            row[k++] = ok ? (float)(ceil(x / v) * v / x) : NAN; /* padding */
            row[k++] = ok ? (float)log(ceil(x / v)) : NAN;       /* tiles */
        }
}

/* The number of combinations of known values, or 0 past COMBO_LIMIT. */
static size_t combinations(const kt_model *m)
{
    size_t n = 1;
    for (size_t p = 0; p < m->nout; p++) {
        size_t v = m->out_vocab[p].n - 1;
        if (v == 0 || n > COMBO_LIMIT / v)
            return 0;
        n *= v;
    }
    return n;
}

static int cost_fit(kt_model *m, const kt_train_opts *o)
{
    const samples *s = &m->train;
    if (!s->rel)
        return KT_EINVAL; /* trained from the best measurements only */
    if (combinations(m) == 0)
        return KT_ERANGE;
    cost *c = cost_new(m);
    float *x = c ? malloc((s->n * c->nf + 1) * sizeof *x) : NULL;
    float *y = x ? malloc((s->n + 1) * sizeof *y) : NULL;
    int rc = y ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; rc == KT_OK && i < s->n; i++) {
        features(m, c, s->xnum + i * m->nin, s->y + i * m->nout, x + i * c->nf);
        y[i] = (float)fmin(log(s->rel[i]), CLIP); /* the top matters, not how bad the worst are */
    }
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)(o->seed & 0x7fffffff));
    const char *params[] = {"objective", "reg:squarederror", "max_depth", "8",
                            "eta", "0.1", "subsample", "0.8", "seed", seed,
                            "nthread", "1", NULL};
    kt_xgb_data d = {.x = x, .y = y, .n = s->n, .nf = c ? c->nf : 0};
    kt_xgb_opts xo = {.params = params, .rounds = o->epochs > 0 ? o->epochs : ROUNDS,
                      .seconds = o->seconds};
    kt_diag diag;
    if (rc == KT_OK)
        rc = kt_xgb_train(&d, &xo, &c->booster, &diag);
    free(x);
    free(y);
    if (rc != KT_OK) {
        cost_free(c);
        return rc == KT_ENOMEM ? rc : KT_EINVAL;
    }
    m->state = c;
    return KT_OK;
}

static void cost_end(void *qs)
{
    cost_query *q = qs;
    if (!q)
        return;
    free(q->combo);
    free(q->score);
    free(q);
}

/* Every combination of known tokens (never token 0), in odometer order. */
static int enumerate(cost_query *q)
{
    const kt_model *m = q->m;
    size_t n = combinations(m);
    if (n == 0)
        return KT_ERANGE;
    q->ncombo = n;
    if (!(q->combo = malloc(n * m->nout * sizeof *q->combo)) ||
        !(q->score = malloc(n * sizeof *q->score)))
        return KT_ENOMEM;
    for (size_t i = 0; i < n; i++)
        for (size_t p = 0, r = i; p < m->nout; p++) {
            size_t v = m->out_vocab[p].n - 1;
            q->combo[i * m->nout + p] = (uint16_t)(1 + r % v);
            r /= v;
        }
    return KT_OK;
}

static int cost_begin(const kt_model *m, const uint16_t *x, const double *xn, void **qs)
{
    (void)x;
    const cost *c = m->state;
    cost_query *q = calloc(1, sizeof *q);
    *qs = q;
    if (!q)
        return KT_ENOMEM;
    q->m = m;
    int rc = enumerate(q);
    float *rows = rc == KT_OK ? malloc(q->ncombo * c->nf * sizeof *rows) : NULL;
    float *pred = rows ? malloc(q->ncombo * sizeof *pred) : NULL;
    if (rc == KT_OK && !pred)
        rc = KT_ENOMEM;
    for (size_t i = 0; rc == KT_OK && i < q->ncombo; i++)
        features(m, c, xn, q->combo + i * m->nout, rows + i * c->nf);
    kt_diag diag;
    if (rc == KT_OK)
        rc = kt_xgb_predict(c->booster, rows, q->ncombo, c->nf, pred, q->ncombo, &diag);
    for (size_t i = 0; rc == KT_OK && i < q->ncombo; i++)
        q->score[i] = -pred[i] / TEMPERATURE;
    free(rows);
    free(pred);
    return rc;
}

/* logp[t]: the best score of a combination extending prefix + t, minus the
 * best extending prefix (-INFINITY where none does). */
static int cost_next(void *qs, const uint16_t *prefixes, size_t n, size_t stride, size_t pos,
                     double *logp)
{
    const cost_query *q = qs;
    const kt_model *m = q->m;
    size_t V = m->out_vocab[pos].n;
    for (size_t i = 0; i < n; i++) {
        const uint16_t *prefix = prefixes + i * stride;
        double *out = logp + i * V, best = -INFINITY;
        for (size_t t = 0; t < V; t++)
            out[t] = -INFINITY;
        for (size_t j = 0; j < q->ncombo; j++) {
            const uint16_t *cb = q->combo + j * m->nout;
            if (memcmp(cb, prefix, pos * sizeof *cb) != 0)
                continue;
            out[cb[pos]] = fmax(out[cb[pos]], q->score[j]);
            best = fmax(best, q->score[j]);
        }
        for (size_t t = 0; t < V && best > -INFINITY; t++)
            out[t] -= best;
    }
    return KT_OK;
}

static void cost_save(const kt_model *m, FILE *f)
{
    const cost *c = m->state;
    const char *bytes = NULL;
    size_t len = 0;
    kt_diag diag;
    if (kt_xgb_save(c->booster, &bytes, &len, &diag) != KT_OK)
        len = 0; /* written as no booster: the load refuses it */
    kt_put_u64(f, len);
    if (len)
        kt_put(f, bytes, len);
}

static void cost_load(kt_model *m, reader *r)
{
    cost *c = cost_new(m);
    m->state = c;
    uint64_t len = c ? kt_get_u64(r) : 0;
    char *bytes = len ? kt_get_array(r, len, 1) : NULL;
    kt_diag diag;
    r->bad |= !bytes;
    if (!r->bad && kt_xgb_load(bytes, len, c->nf, 0, &c->booster, &diag) != KT_OK)
        kt_reader_refuse(r, diag.msg);
    if (!r->bad) { /* it must answer a row of this model's width */
        float *row = calloc(c->nf + 1, sizeof *row), out;
        r->bad |= !row || kt_xgb_predict(c->booster, row, 1, c->nf, &out, 1, &diag) != KT_OK;
        free(row);
    }
    free(bytes);
}

const kt_method kt_method_cost = {
    .name = "cost", .kind = 21, .every_measurement = true, .fit = cost_fit, .begin = cost_begin, .next = cost_next,
    .end = cost_end, .save = cost_save, .load = cost_load, .free = cost_free,
};
