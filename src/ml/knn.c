/* knn.c - k nearest neighbours on the problem descriptor: standardised
 * log-scale numeric fields, exact match for the others; each neighbour
 * votes for its configuration's tokens with weight 1 / distance. */
#include "ml/model_impl.h"

#include <math.h>
#include <stdlib.h>

typedef struct knn {
    uint32_t k;
} knn;

/* From an input (tokens x, standardised features q) to training sample j. */
static double distance(const kt_model *m, const uint16_t *x, const double *q, size_t j)
{
    const uint16_t *tx = m->train.x + j * m->nin;
    const double *tf = m->train_feat + j * m->nin;
    double d = 0;
    for (size_t f = 0; f < m->nin; f++) {
        double a = q[f], b = tf[f];
        if (!isnan(a) && !isnan(b))
            d += (a - b) * (a - b);
        else if (isnan(a) != isnan(b) || m->scale[f] == 0)
            d += x[f] != tx[f] || x[f] == 0;
    }
    return d;
}

int kt_knn_nearest(const kt_model *m, const uint16_t *x, const double *xn, size_t k,
                   size_t *idx, double *dist)
{
    double *q = malloc((m->nin + 1) * sizeof *q);
    if (!q)
        return KT_ENOMEM;
    for (size_t f = 0; f < m->nin; f++)
        q[f] = kt_model_feature(m, xn, f);
    size_t have = 0;
    for (size_t j = 0; j < m->train.n; j++) {
        double d = distance(m, x, q, j);
        if (have == k && d >= dist[k - 1])
            continue;
        size_t at = have < k ? have++ : k - 1;
        while (at > 0 && dist[at - 1] > d) { /* insertion keeps it sorted */
            dist[at] = dist[at - 1];
            idx[at] = idx[at - 1];
            at--;
        }
        dist[at] = d;
        idx[at] = j;
    }
    free(q);
    return KT_OK;
}

static int knn_dist(const kt_model *m, const uint16_t *x, const double *xn, double **logp)
{
    const knn *s = m->state;
    size_t k = s->k < m->train.n ? s->k : m->train.n;
    size_t *idx = malloc(k * sizeof *idx);
    double *dist = malloc(k * sizeof *dist);
    if (!idx || !dist || kt_knn_nearest(m, x, xn, k, idx, dist) != KT_OK) {
        free(idx);
        free(dist);
        return KT_ENOMEM;
    }
    for (size_t p = 0; p < m->nout; p++) {
        size_t v = m->out_vocab[p].n;
        for (size_t t = 0; t < v; t++)
            logp[p][t] = 0;
        for (size_t i = 0; i < k; i++)
            logp[p][m->train.y[idx[i] * m->nout + p]] += 1 / (dist[i] + 1e-6);
        kt_weights_to_logp(logp[p], v);
    }
    free(idx);
    free(dist);
    return KT_OK;
}

static int knn_fit(kt_model *m, const kt_train_opts *o)
{
    knn *s = malloc(sizeof *s);
    if (!s)
        return KT_ENOMEM;
    s->k = o->k > 0 ? (uint32_t)o->k : 5;
    m->state = s;
    return KT_OK;
}

static void knn_save(const kt_model *m, FILE *f)
{
    kt_put_u32(f, ((const knn *)m->state)->k);
}

static void knn_load(kt_model *m, reader *r)
{
    knn *s = malloc(sizeof *s);
    m->state = s;
    r->bad |= !s;
    if (s && (s->k = kt_get_u32(r)) == 0)
        r->bad = true;
}

const kt_method kt_method_knn = {
    .name = "knn", .kind = 1, .fit = knn_fit, .dist = knn_dist,
    .save = knn_save, .load = knn_load, .free = free,
};
