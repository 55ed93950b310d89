/* naive_bayes.c - Gaussian naive Bayes per output position: each class
 * (token) has a prior, a normal distribution per numeric input (on the
 * standardised log scale) and token frequencies per categorical input. */
#include "core/util.h"
#include "ml/model_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Per position p, class t, input f: mean[p][t*nin+f], var[...]; categorical
 * inputs keep count[p][(t*nin+f)*V_f + token] in a flat block. */
typedef struct nb {
    double **prior;   /* nout x V_p: log prior */
    double **mean, **var;
    double **cat;     /* log P(token | class) for categorical inputs */
    size_t *cat_off;  /* nin: offset of input f's tokens within a class row */
    size_t cat_row;   /* tokens per class row */
} nb;

static void nb_free(void *state)
{
    nb *s = state;
    if (!s)
        return;
    free(s->prior); /* each is one block: the row pointers, then the rows */
    free(s->mean);
    free(s->var);
    free(s->cat);
    free(s->cat_off);
    free(s);
}

/* One block per position array family, carved per position. */
static double **carve(const kt_model *m, size_t per_class)
{
    size_t total = 0;
    for (size_t p = 0; p < m->nout; p++)
        total += m->out_vocab[p].n * per_class;
    double **rows = malloc(m->nout * sizeof *rows + total * sizeof(double));
    if (!rows)
        return NULL;
    double *next = (double *)(rows + m->nout);
    memset(next, 0, total * sizeof(double));
    for (size_t p = 0; p < m->nout; p++, next += m->out_vocab[p - 1].n * per_class)
        rows[p] = next;
    return rows;
}

static bool categorical(const kt_model *m, size_t f) { return m->scale[f] == 0; }

static void fit_position(const kt_model *m, nb *s, size_t p)
{
    size_t V = m->out_vocab[p].n, nin = m->nin;
    double *count = calloc(V, sizeof *count);
    if (!count)
        return;
    for (size_t i = 0; i < m->train.n; i++) {
        size_t t = m->train.y[i * m->nout + p];
        count[t]++;
        for (size_t f = 0; f < nin; f++) {
            double v = kt_model_feature(m, m->train.xnum + i * nin, f);
            if (!isnan(v)) {
                s->mean[p][t * nin + f] += v;
                s->var[p][t * nin + f] += v * v;
            } else {
                s->cat[p][t * s->cat_row + s->cat_off[f] + m->train.x[i * nin + f]]++;
            }
        }
    }
    for (size_t f = 0; f < nin; f++) /* token 0 is never a class: keep it inert */
        s->var[p][f] = 1;
    for (size_t t = 1; t < V; t++) {
        s->prior[p][t] = log((count[t] + 1) / ((double)m->train.n + (double)V));
        for (size_t f = 0; f < nin; f++) {
            double n = count[t] > 0 ? count[t] : 1;
            double mu = s->mean[p][t * nin + f] / n;
            s->mean[p][t * nin + f] = mu;
            s->var[p][t * nin + f] = fmax(s->var[p][t * nin + f] / n - mu * mu, 1e-3);
            size_t vf = m->in_vocab[f].n;
            for (size_t k = 0; categorical(m, f) && k < vf; k++) {
                double *c = &s->cat[p][t * s->cat_row + s->cat_off[f] + k];
                *c = log((*c + 1) / (count[t] + (double)vf));
            }
        }
    }
    free(count);
}

static int nb_alloc(kt_model *m, nb **out)
{
    nb *s = calloc(1, sizeof *s);
    *out = NULL;
    if (!s || !(s->cat_off = calloc(m->nin + 1, sizeof *s->cat_off))) {
        free(s);
        return KT_ENOMEM;
    }
    for (size_t f = 0; f < m->nin; f++) {
        s->cat_off[f] = s->cat_row;
        s->cat_row += categorical(m, f) ? m->in_vocab[f].n : 0;
    }
    s->prior = carve(m, 1);
    s->mean = carve(m, m->nin);
    s->var = carve(m, m->nin);
    s->cat = carve(m, s->cat_row ? s->cat_row : 1);
    *out = s;
    return s->prior && s->mean && s->var && s->cat ? KT_OK : KT_ENOMEM;
}

static int nb_fit(kt_model *m, const kt_train_opts *o)
{
    (void)o;
    nb *s;
    int rc = nb_alloc(m, &s);
    m->state = s;
    for (size_t p = 0; rc == KT_OK && p < m->nout; p++)
        fit_position(m, s, p);
    return rc;
}

static int nb_dist(const kt_model *m, const uint16_t *x, const double *xn, double **logp)
{
    const nb *s = m->state;
    size_t nin = m->nin;
    for (size_t p = 0; p < m->nout; p++) {
        size_t V = m->out_vocab[p].n;
        double best = -INFINITY;
        for (size_t t = 1; t < V; t++) {
            double lp = s->prior[p][t];
            for (size_t f = 0; f < nin; f++) {
                double v = kt_model_feature(m, xn, f);
                if (!isnan(v)) {
                    double mu = s->mean[p][t * nin + f], var = s->var[p][t * nin + f];
                    lp -= 0.5 * (log(2 * M_PI * var) + (v - mu) * (v - mu) / var);
                } else if (categorical(m, f)) {
                    lp += s->cat[p][t * s->cat_row + s->cat_off[f] + x[f]];
                }
            }
            logp[p][t] = lp;
            best = fmax(best, lp);
        }
        for (size_t t = 1; t < V; t++) /* back to weights, then normalise */
            logp[p][t] = exp(logp[p][t] - best);
        kt_weights_to_logp(logp[p], V);
    }
    return KT_OK;
}

static size_t block_len(const kt_model *m, size_t per_class)
{
    size_t total = 0;
    for (size_t p = 0; p < m->nout; p++)
        total += m->out_vocab[p].n * per_class;
    return total;
}

static void nb_save(const kt_model *m, FILE *f)
{
    const nb *s = m->state;
    size_t row = s->cat_row ? s->cat_row : 1;
    kt_put(f, s->prior[0], block_len(m, 1) * sizeof(double));
    kt_put(f, s->mean[0], block_len(m, m->nin) * sizeof(double));
    kt_put(f, s->var[0], block_len(m, m->nin) * sizeof(double));
    kt_put(f, s->cat[0], block_len(m, row) * sizeof(double));
}

static void nb_load(kt_model *m, reader *r)
{
    nb *s;
    int rc = nb_alloc(m, &s);
    m->state = s;
    if (rc != KT_OK || m->nout == 0) {
        r->bad = true;
        return;
    }
    size_t row = s->cat_row ? s->cat_row : 1;
    kt_get(r, s->prior[0], block_len(m, 1) * sizeof(double));
    kt_get(r, s->mean[0], block_len(m, m->nin) * sizeof(double));
    kt_get(r, s->var[0], block_len(m, m->nin) * sizeof(double));
    kt_get(r, s->cat[0], block_len(m, row) * sizeof(double));
    for (size_t i = 0; !r->bad && i < block_len(m, m->nin); i++)
        r->bad |= !(s->var[0][i] > 0); /* a variance must be positive */
}

const kt_method kt_method_naive_bayes = {
    .name = "naive_bayes", .kind = 2, .fit = nb_fit, .dist = nb_dist,
    .save = nb_save, .load = nb_load, .free = nb_free,
};
