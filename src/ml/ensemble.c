/* ensemble.c - "ensemble": the encoder-decoder sequence model mixed, at
 * every position, with a nearest-neighbour chain.
 *
 * The chain's score of token t at position p after a prefix is the
 * distance-weighted share of the input's NEIGHBOURS nearest training
 * problems whose best configuration starts with that prefix and has t at
 * p (backed off towards all neighbours' votes at p when few match): a
 * non-parametric model of the joint distribution, strong where the data
 * are few.  The two conditionals are averaged with equal weight (fixed,
 * not fitted to any split):
 *   p(t | prefix) = (p_encdec(t | prefix) + p_chain(t | prefix)) / 2.
 * The file holds the encdec model; the neighbours are the training
 * samples every model file keeps. */
#include "ml/model_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NEIGHBOURS = 20 };
#define BACKOFF 0.1   /* weight of all neighbours' votes beside the matching ones' */
#define FLOOR 1e-4    /* share spread over every token, so none is impossible */

static int fit(kt_model *m, const kt_train_opts *o) { return kt_method_encdec.fit(m, o); }
static void save_encdec(const kt_model *m, FILE *f) { kt_method_encdec.save(m, f); }
static void load_encdec(kt_model *m, reader *r) { kt_method_encdec.load(m, r); }
static void free_encdec(void *state) { kt_method_encdec.free(state); }

typedef struct query {
    const kt_model *m;
    void *seq;            /* encdec's query */
    size_t k, *idx;       /* the neighbours */
    double *w;            /* their weights, summing to 1 */
    double *chain;        /* one row of the chain's scores */
} query;

static void end(void *qs)
{
    query *q = qs;
    if (!q)
        return;
    if (q->seq)
        kt_method_encdec.end(q->seq);
    free(q->idx);
    free(q->w);
    free(q->chain);
    free(q);
}

static int begin(const kt_model *m, const uint16_t *x, const double *xn, void **qs)
{
    query *q = calloc(1, sizeof *q);
    size_t vmax = 1;
    for (size_t p = 0; p < m->nout; p++)
        vmax = m->out_vocab[p].n > vmax ? m->out_vocab[p].n : vmax;
    *qs = q;
    if (!q)
        return KT_ENOMEM;
    q->m = m;
    q->k = m->train.n < NEIGHBOURS ? m->train.n : NEIGHBOURS;
    q->idx = malloc((q->k + 1) * sizeof *q->idx);
    q->w = malloc((q->k + 1) * sizeof *q->w);
    q->chain = malloc(vmax * sizeof *q->chain);
    if (!q->idx || !q->w || !q->chain || kt_knn_nearest(m, x, xn, q->k, q->idx, q->w))
        return KT_ENOMEM;
    double total = 0;
    for (size_t i = 0; i < q->k; i++)
        total += q->w[i] = 1 / (q->w[i] + 1e-6);
    for (size_t i = 0; i < q->k; i++)
        q->w[i] /= total;
    return kt_method_encdec.begin(m, x, xn, &q->seq);
}

/* The chain's probabilities of position pos's V tokens after prefix. */
static void chain_scores(const query *q, const uint16_t *prefix, size_t pos, size_t V)
{
    const kt_model *m = q->m;
    double total = 0;
    for (size_t t = 0; t < V; t++)
        q->chain[t] = 0;
    for (size_t i = 0; i < q->k; i++) {
        const uint16_t *y = m->train.y + q->idx[i] * m->nout;
        if (memcmp(y, prefix, pos * sizeof *y) == 0)
            q->chain[y[pos]] += q->w[i];
    }
    for (size_t i = 0; i < q->k; i++)
        q->chain[m->train.y[q->idx[i] * m->nout + pos]] += BACKOFF * q->w[i];
    for (size_t t = 1; t < V; t++)
        total += q->chain[t];
    for (size_t t = 1; t < V; t++)
        q->chain[t] = (1 - FLOOR) * q->chain[t] / total + FLOOR / (double)(V - 1);
}

static int next(void *qs, const uint16_t *prefixes, size_t n, size_t stride, size_t pos,
                double *logp)
{
    query *q = qs;
    size_t V = q->m->out_vocab[pos].n;
    int rc = kt_method_encdec.next(q->seq, prefixes, n, stride, pos, logp);
    for (size_t i = 0; rc == KT_OK && i < n; i++) {
        double *row = logp + i * V;
        chain_scores(q, prefixes + i * stride, pos, V);
        for (size_t t = 1; t < V; t++)
            row[t] = log(0.5 * exp(row[t]) + 0.5 * q->chain[t]);
        row[0] = -INFINITY;
    }
    return rc;
}

/* The state, file and training are encdec's. */
const kt_method kt_method_ensemble = {
    .name = "ensemble", .kind = 14, .fit_of = &kt_method_encdec, .pools = true,
    .seeded = true,
    .fit = fit, .begin = begin, .next = next, .end = end,
    .save = save_encdec, .load = load_encdec, .free = free_encdec,
};
