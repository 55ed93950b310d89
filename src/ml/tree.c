/* tree.c - CART classification trees per output position (Gini impurity),
 * and random forests of them (bootstrap samples, a random subset of the
 * inputs at each split, averaged leaf distributions).  Inputs are the
 * standardised log-scale numbers, or the token id for categorical fields. */
#include "core/util.h"
#include "ml/model_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct node {
    int32_t feature;    /* -1: a leaf */
    int32_t left, right;
    uint32_t dist;      /* leaf: offset of its class distribution */
    double threshold;   /* go left when value <= threshold */
} node;

typedef struct tree {
    uint32_t nnodes, nprobs;
    node *nodes;
    float *probs;
} tree;

typedef struct forest {
    uint32_t ntrees;    /* per position */
    size_t count;       /* trees allocated: ntrees x nout */
    tree *trees;        /* position-major */
} forest;

/* What building one tree needs. */
typedef struct builder {
    const kt_model *m;
    const double *X;    /* ntrain x nin feature values */
    size_t pos, V;      /* output position and its vocabulary size */
    size_t mtry;        /* inputs tried per split */
    int max_depth;
    kt_rng *rng;
    tree *t;
    bool oom;
    double *scratch_v;  /* per sample: value */
    size_t *order;      /* per sample: index, sorted by value */
} builder;

static int32_t add_node(builder *b, node n)
{
    tree *t = b->t;
    node *g = realloc(t->nodes, (t->nnodes + 1) * sizeof *g);
    if (!g) {
        b->oom = true;
        return -1;
    }
    t->nodes = g;
    g[t->nnodes] = n;
    return (int32_t)t->nnodes++;
}

static int32_t add_leaf(builder *b, const size_t *idx, size_t n)
{
    tree *t = b->t;
    float *g = realloc(t->probs, (t->nprobs + b->V) * sizeof *g);
    if (!g) {
        b->oom = true;
        return -1;
    }
    t->probs = g;
    float *d = g + t->nprobs;
    memset(d, 0, b->V * sizeof *d);
    for (size_t i = 0; i < n; i++)
        d[b->m->train.y[idx[i] * b->m->nout + b->pos]] += 1.0f / (float)n;
    int32_t id = add_node(b, (node){.feature = -1, .dist = t->nprobs});
    t->nprobs += (uint32_t)b->V;
    return id;
}

static double gini(const double *count, size_t V, double n)
{
    double sum = 0;
    for (size_t t = 0; t < V; t++)
        sum += count[t] * count[t];
    return n > 0 ? 1 - sum / (n * n) : 0;
}

static int by_value(const void *a, const void *b, void *ctx)
{
    const double *v = ctx;
    double x = v[*(const size_t *)a], y = v[*(const size_t *)b];
    return (x > y) - (x < y);
}

/* The best threshold on input f for samples idx[0..n): gain and threshold. */
static double best_split(builder *b, const size_t *idx, size_t n, size_t f,
                         const double *total, double parent, double *threshold)
{
    size_t V = b->V, nin = b->m->nin;
    double *left = calloc(V, sizeof *left), best = 0;
    if (!left) {
        b->oom = true;
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        b->order[i] = idx[i];
        b->scratch_v[idx[i]] = b->X[idx[i] * nin + f];
    }
    qsort_r(b->order, n, sizeof *b->order, by_value, b->scratch_v);
    double right[256];
    double *r = V <= 256 ? right : malloc(V * sizeof *r);
    if (!r) {
        free(left);
        b->oom = true;
        return 0;
    }
    memcpy(r, total, V * sizeof *r);
    for (size_t i = 0; i + 1 < n; i++) {
        size_t c = b->m->train.y[b->order[i] * b->m->nout + b->pos];
        left[c]++;
        r[c]--;
        double v = b->scratch_v[b->order[i]], w = b->scratch_v[b->order[i + 1]];
        if (v == w)
            continue;
        double nl = (double)(i + 1), nr = (double)(n - i - 1);
        double gain = parent - (nl * gini(left, V, nl) + nr * gini(r, V, nr)) / (double)n;
        if (gain > best + 1e-12) {
            best = gain;
            *threshold = 0.5 * (v + w);
        }
    }
    if (r != right)
        free(r);
    free(left);
    return best;
}

static int32_t grow(builder *b, size_t *idx, size_t n, int depth)
{
    size_t V = b->V, nin = b->m->nin;
    double total[256] = {0}, *count = V <= 256 ? total : calloc(V, sizeof *count);
    if (!count) {
        b->oom = true;
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        count[b->m->train.y[idx[i] * b->m->nout + b->pos]]++;
    double parent = gini(count, V, (double)n), gain = 0, thr = 0;
    size_t feature = nin;
    for (size_t k = 0; parent > 0 && depth < b->max_depth && n >= 2 && k < b->mtry; k++) {
        size_t f = b->mtry == nin ? k : (size_t)kt_rng_below(b->rng, nin);
        double t = 0, g = best_split(b, idx, n, f, count, parent, &t);
        if (g > gain) {
            gain = g;
            thr = t;
            feature = f;
        }
    }
    if (count != total)
        free(count);
    if (feature == nin || b->oom)
        return add_leaf(b, idx, n);
    size_t nl = 0; /* partition idx: left part first */
    for (size_t i = 0; i < n; i++)
        if (b->X[idx[i] * nin + feature] <= thr) {
            size_t t = idx[nl];
            idx[nl++] = idx[i];
            idx[i] = t;
        }
    int32_t id = add_node(b, (node){.feature = (int32_t)feature, .threshold = thr});
    if (id < 0)
        return -1;
    int32_t l = grow(b, idx, nl, depth + 1);
    int32_t r = grow(b, idx + nl, n - nl, depth + 1);
    if (!b->oom) {
        b->t->nodes[id].left = l;
        b->t->nodes[id].right = r;
    }
    return id;
}

/* ---------------------------------------------------------- the method */

static void forest_free(void *state)
{
    forest *s = state;
    if (!s)
        return;
    for (size_t i = 0; s->trees && i < s->count; i++) {
        free(s->trees[i].nodes);
        free(s->trees[i].probs);
    }
    free(s->trees);
    free(s);
}

/* The inputs of every training sample as tree features. */
static double *features(const kt_model *m)
{
    double *X = malloc((m->train.n * m->nin + 1) * sizeof *X);
    for (size_t i = 0; X && i < m->train.n; i++)
        for (size_t f = 0; f < m->nin; f++)
            X[i * m->nin + f] = kt_model_value(m, m->train.x + i * m->nin,
                                               m->train.xnum + i * m->nin, f);
    return X;
}

static int fit_trees(kt_model *m, const kt_train_opts *o, uint32_t ntrees, bool random)
{
    forest *s = calloc(1, sizeof *s);
    m->state = s;
    size_t n = m->train.n;
    double *X = features(m), *scratch = malloc((n + 1) * sizeof *scratch);
    size_t *idx = malloc((n + 1) * sizeof *idx), *order = malloc((n + 1) * sizeof *order);
    if (s) {
        s->ntrees = ntrees;
        s->trees = calloc((size_t)ntrees * m->nout + 1, sizeof *s->trees);
        s->count = s->trees ? (size_t)ntrees * m->nout : 0;
    }
    int rc = s && s->trees && X && scratch && idx && order ? KT_OK : KT_ENOMEM;
    kt_rng rng;
    kt_rng_seed(&rng, o->seed ^ 0x7265657274ULL);
    size_t mtry = random ? (size_t)ceil(sqrt((double)m->nin)) : m->nin;
    for (size_t p = 0; rc == KT_OK && p < m->nout; p++)
        for (uint32_t k = 0; rc == KT_OK && k < ntrees; k++) {
            for (size_t i = 0; i < n; i++) /* bootstrap, or every sample */
                idx[i] = random ? (size_t)kt_rng_below(&rng, n) : i;
            builder b = {.m = m, .X = X, .pos = p, .V = m->out_vocab[p].n,
                         .mtry = mtry, .max_depth = random ? 20 : 30, .rng = &rng,
                         .t = &s->trees[p * ntrees + k], .scratch_v = scratch,
                         .order = order};
            grow(&b, idx, n, 0);
            rc = b.oom ? KT_ENOMEM : KT_OK;
        }
    free(X);
    free(scratch);
    free(idx);
    free(order);
    return rc;
}

static int tree_fit(kt_model *m, const kt_train_opts *o) { return fit_trees(m, o, 1, false); }
static int forest_fit(kt_model *m, const kt_train_opts *o) { return fit_trees(m, o, 30, true); }

static int forest_dist(const kt_model *m, const uint16_t *x, const double *xn, double **logp)
{
    const forest *s = m->state;
    for (size_t p = 0; p < m->nout; p++) {
        size_t V = m->out_vocab[p].n;
        memset(logp[p], 0, V * sizeof **logp);
        for (uint32_t k = 0; k < s->ntrees; k++) {
            const tree *t = &s->trees[p * s->ntrees + k];
            uint32_t i = 0;
            while (t->nodes[i].feature >= 0) {
                const node *nd = &t->nodes[i];
                i = (uint32_t)(kt_model_value(m, x, xn, (size_t)nd->feature) <= nd->threshold
                                   ? nd->left
                                   : nd->right);
            }
            for (size_t c = 0; c < V; c++)
                logp[p][c] += t->probs[t->nodes[i].dist + c];
        }
        kt_weights_to_logp(logp[p], V);
    }
    return KT_OK;
}

static void forest_save(const kt_model *m, FILE *f)
{
    const forest *s = m->state;
    kt_put_u32(f, s->ntrees);
    for (size_t i = 0; i < s->ntrees * m->nout; i++) {
        const tree *t = &s->trees[i];
        kt_put_u32(f, t->nnodes);
        kt_put_u32(f, t->nprobs);
        kt_put(f, t->nodes, t->nnodes * sizeof *t->nodes);
        kt_put(f, t->probs, t->nprobs * sizeof *t->probs);
    }
}

/* A loaded tree must be walkable: children after their parent, features
 * in range, leaf distributions inside the probabilities. */
static bool tree_ok(const tree *t, size_t nin, size_t V)
{
    if (t->nnodes == 0)
        return false;
    for (uint32_t i = 0; i < t->nnodes; i++) {
        const node *n = &t->nodes[i];
        if (n->feature < 0 ? (uint64_t)n->dist + V > t->nprobs
                           : (size_t)n->feature >= nin || n->left <= (int32_t)i ||
                                 n->right <= (int32_t)i ||
                                 (uint32_t)n->left >= t->nnodes ||
                                 (uint32_t)n->right >= t->nnodes)
            return false;
    }
    return true;
}

static void forest_load(kt_model *m, reader *r)
{
    forest *s = calloc(1, sizeof *s);
    m->state = s;
    if (!s || (s->ntrees = kt_get_u32(r)) == 0 || s->ntrees > 64 ||
        !(s->trees = calloc((size_t)s->ntrees * m->nout + 1, sizeof *s->trees))) {
        r->bad = true;
        return;
    }
    s->count = (size_t)s->ntrees * m->nout;
    for (size_t i = 0; !r->bad && i < s->ntrees * m->nout; i++) {
        tree *t = &s->trees[i];
        uint32_t nn = kt_get_u32(r), np = kt_get_u32(r);
        t->nodes = kt_get_array(r, nn, sizeof *t->nodes);
        t->probs = kt_get_array(r, np, sizeof *t->probs);
        t->nnodes = t->nodes ? nn : 0;
        t->nprobs = t->probs ? np : 0;
        r->bad |= !tree_ok(t, m->nin, m->out_vocab[i / s->ntrees].n);
    }
}

const kt_method kt_method_tree = {
    .name = "tree", .kind = 3, .fit = tree_fit, .dist = forest_dist,
    .save = forest_save, .load = forest_load, .free = forest_free,
};

const kt_method kt_method_forest = {
    .name = "forest", .kind = 4, .fit = forest_fit, .dist = forest_dist,
    .save = forest_save, .load = forest_load, .free = forest_free,
};
