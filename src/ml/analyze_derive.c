/* analyze_derive.c - derived features for `ktune analyze`'s predictive
 * models (analyze.h): products of two and of three numeric tuning
 * parameters and ratios of two (threads per block, a tile's area, work per
 * thread), which a tree over the parameters alone needs many splits to
 * approximate, and the odd part of an integer parameter, which one split
 * turns into "a power of two or not": a staircase of as many splits over
 * the parameter itself (block widths of 16, 32 and 64 against 48, 80 and
 * 112 in between; on the hub's convolutions on NVIDIA GPUs the slowest
 * configurations are power-of-two widths at many rows per thread, 3-10x
 * slower than the widths between them).  The candidates are generic, made
 * for every kernel from its numeric tuning parameters; a model of the
 * training rows with all of them ranks them by their mean |TreeSHAP|
 * contribution and the strongest few are kept. */
#include "ml/analyze.h"
#include "core/util.h"
#include "ml/xgb.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Past this many candidates, products of three are left out: a model of
 * every candidate costs time in proportion to their number.  SHAP_ROWS:
 * the training rows whose contributions rank the candidates. */
enum { MAX_CANDIDATES = 1024, SHAP_ROWS = 250 };

static bool nonzero(const kt_afeature *f)
{
    for (size_t v = 0; v < f->nvals; v++)
        if (f->num[v] == 0)
            return false;
    return true;
}

/* The odd part of a positive integer v (v over the largest power of two
 * that divides it: 1 for a power of two, 3 for 48); 0 where v is not
 * one. */
static double odd_part(double v)
{
    if (!(v >= 1 && v < 9.007199254740992e15) || v != floor(v))
        return 0;
    while (fmod(v, 2) == 0)
        v /= 2;
    return v;
}

/* Whether f's values are positive integers of at least two odd parts. */
static bool odd_varies(const kt_afeature *f)
{
    double first = f->nvals ? odd_part(f->num[0]) : 0;
    bool varies = false;
    for (size_t v = 0; v < f->nvals; v++) {
        double o = odd_part(f->num[v]);
        if (o == 0)
            return false;
        varies |= o != first;
    }
    return varies;
}

static size_t count_candidates(size_t k, bool triples)
{
    return k * (k - 1) / 2 * 3 + (triples ? k * (k - 1) * (k - 2) / 6 : 0);
}

int kt_derived_candidates(const kt_analysis *a, kt_aderived **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t k = 0, *num = malloc((a->ntuning + 1) * sizeof *num);
    if (!num)
        return KT_ENOMEM;
    for (size_t f = 0; f < a->ntuning; f++)
        if (a->f[f].numeric)
            num[k++] = f;
    bool triples = count_candidates(k, true) <= MAX_CANDIDATES;
    size_t cap = k + (k >= 2 ? count_candidates(k, triples) : 0);
    kt_aderived *d = cap ? malloc(cap * sizeof *d) : NULL;
    if (cap && !d) {
        free(num);
        return KT_ENOMEM;
    }
    for (size_t i = 0; i < k; i++)
        if (odd_varies(&a->f[num[i]]))
            d[(*n)++] = (kt_aderived){KT_DERIVE_ODD, num[i], 0, 0};
    for (size_t i = 0; i < k; i++)
        for (size_t j = i + 1; j < k; j++) {
            d[(*n)++] = (kt_aderived){KT_DERIVE_MUL, num[i], num[j], 0};
            if (nonzero(&a->f[num[j]]))
                d[(*n)++] = (kt_aderived){KT_DERIVE_DIV, num[i], num[j], 0};
            if (nonzero(&a->f[num[i]]))
                d[(*n)++] = (kt_aderived){KT_DERIVE_DIV, num[j], num[i], 0};
            for (size_t l = j + 1; triples && l < k; l++)
                d[(*n)++] = (kt_aderived){KT_DERIVE_MUL3, num[i], num[j], num[l]};
        }
    free(num);
    if (*n == 0) { /* one parameter without odd parts */
        free(d);
        d = NULL;
    }
    *out = d;
    return KT_OK;
}

static float derive(const kt_aderived *d, const float *base)
{
    double a = base[d->a], b = base[d->b];
    switch (d->op) {
    case KT_DERIVE_ODD: return (float)odd_part(a);
    case KT_DERIVE_MUL: return (float)(a * b);
    case KT_DERIVE_DIV: return (float)(a / b);
    default: return (float)(a * b * base[d->c]);
    }
}

int kt_derived_matrix(const float *base, size_t k, size_t nf, const kt_aderived *d,
                      size_t nd, float **out)
{
    size_t w = nf + nd;
    float *x = malloc((k * w + 1) * sizeof *x);
    if (!x)
        return KT_ENOMEM;
    for (size_t i = 0; i < k; i++) {
        memcpy(x + i * w, base + i * nf, nf * sizeof *x);
        for (size_t j = 0; j < nd; j++)
            x[i * w + nf + j] = derive(&d[j], base + i * nf);
    }
    *out = x;
    return KT_OK;
}

/* A candidate and its mean |contribution|, for ranking. */
typedef struct scored {
    double v;
    size_t i;
} scored;

static int cmp_scored(const void *x, const void *y)
{
    const scored *a = x, *b = y;
    if (a->v != b->v)
        return a->v > b->v ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* The nd candidates' mean |contribution| over the k rows of x (nf + nd
 * columns) in model b, strongest first, into s. */
static int rank_candidates(kt_xgb *b, const float *x, size_t k, size_t nf, size_t nd,
                           scored *s, kt_diag *diag)
{
    size_t w = nf + nd + 1;
    float *c = malloc((k * w + 1) * sizeof *c);
    if (!c)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    int rc = kt_xgb_shap(b, x, k, nf + nd, false, c, k * w, diag);
    for (size_t j = 0; rc == KT_OK && j < nd; j++) {
        s[j] = (scored){0, j};
        for (size_t i = 0; i < k; i++)
            s[j].v += fabs(c[i * w + nf + j]) / (double)k;
    }
    if (rc == KT_OK)
        qsort(s, nd, sizeof *s, cmp_scored);
    free(c);
    return rc;
}

int kt_derived_select(const kt_xgb_data *td, const kt_xgb_opts *xo, const kt_aderived *cand,
                      size_t ncand, size_t keep, kt_aderived **out,
                      size_t *n, kt_diag *diag)
{
    *out = NULL;
    *n = 0;
    if (keep == 0 || ncand == 0)
        return KT_OK;
    float *x = NULL;
    scored *s = malloc(ncand * sizeof *s);
    kt_xgb *b = NULL;
    int rc = s && kt_derived_matrix(td->x, td->n, td->nf, cand, ncand, &x) == KT_OK
                 ? KT_OK : kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK) {
        kt_xgb_data all = {.x = x, .y = td->y, .w = td->w, .n = td->n, .nf = td->nf + ncand};
        /* a third of the rounds ranks the candidates nearly as well, and
         * their contributions cost in proportion to the trees */
        kt_xgb_opts so = *xo;
        so.rounds = xo->rounds / 3 > 10 ? xo->rounds / 3 : xo->rounds;
        rc = kt_xgb_train(&all, &so, &b, diag);
    }
    /* the rows come shuffled, so the first ones are a sample */
    if (rc == KT_OK)
        rc = rank_candidates(b, x, td->n < SHAP_ROWS ? td->n : SHAP_ROWS, td->nf, ncand, s,
                             diag);
    size_t k = 0;
    while (rc == KT_OK && k < keep && k < ncand && s[k].v > 0)
        k++;
    *out = rc == KT_OK && k ? malloc(k * sizeof **out) : NULL;
    if (rc == KT_OK && k && !*out)
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; rc == KT_OK && i < k; i++)
        (*out)[i] = cand[s[i].i];
    *n = rc == KT_OK ? k : 0;
    kt_xgb_free(b);
    free(x);
    free(s);
    return rc;
}

void kt_derived_name(const kt_analysis *a, const kt_aderived *d, char *buf, size_t cap)
{
    const char *x = a->f[d->a].name, *y = a->f[d->b].name;
    if (d->op == KT_DERIVE_ODD)
        snprintf(buf, cap, "odd(%s)", x);
    else if (d->op == KT_DERIVE_MUL3)
        snprintf(buf, cap, "%s*%s*%s", x, y, a->f[d->c].name);
    else
        snprintf(buf, cap, "%s%s%s", x, d->op == KT_DERIVE_MUL ? "*" : "/", y);
}

bool kt_derived_gain_is_clear(const double *plain, const double *derived, size_t n)
{
    double sum = 0, sq = 0;
    for (size_t i = 0; i < n; i++) {
        double g = plain[i] - derived[i];
        sum += g;
        sq += g * g;
    }
    double mean = sum / (double)n, var = (sq - sum * mean) / (double)(n - 1);
    return mean > 0 && mean * mean * (double)n > (var > 0 ? var : 0);
}
