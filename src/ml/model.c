/* model.c - predictor models: training, description and queries; the
 * methods live in one file each (knn.c, naive_bayes.c, tree.c) and the file
 * format in model_file.c. */
#include "core/util.h"
#include "ml/model_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A method's limit (cost: the combinations of values it scores). */
#define TOO_MANY "too many combinations of the parameters' values for this method"

static const kt_method *const METHODS[] = {
    &kt_method_knn, &kt_method_naive_bayes, &kt_method_tree, &kt_method_forest,
    &kt_method_svc, &kt_method_encdec, &kt_method_attention, &kt_method_hybrid,
    &kt_method_hybrid2, &kt_method_ensemble, &kt_method_xgboost, &kt_method_cost,
    &kt_method_mix,
};

/* Built from trained models, never asked for by name: found by kind alone. */
static const kt_method *const BUILT[] = {&kt_method_bag};

const kt_method *kt_method_find(const char *name, uint32_t kind)
{
    for (size_t i = 0; !name && i < KT_ARRAY_LEN(BUILT); i++)
        if (BUILT[i]->kind == kind)
            return BUILT[i];
    for (size_t i = 0; i < KT_ARRAY_LEN(METHODS); i++)
        if (name ? strcmp(METHODS[i]->name, name) == 0 : METHODS[i]->kind == kind)
            return METHODS[i];
    return NULL;
}

const kt_method *kt_method_at(size_t i)
{
    return i < KT_ARRAY_LEN(METHODS) ? METHODS[i] : NULL;
}

int kt_method_lookup(const char *name, const kt_method **out, kt_diag *diag)
{
    if ((*out = name ? kt_method_find(name, 0) : NULL))
        return KT_OK;
    char names[256] = KT_METHOD_AUTO; /* training's default: choose */
    for (size_t i = 0; i < KT_ARRAY_LEN(METHODS); i++)
        snprintf(names + strlen(names), sizeof names - strlen(names), ", %s",
                 METHODS[i]->name);
    return kt_fail(diag, KT_EINVAL, "unknown method '%s' (available: %s)",
                   name ? name : "(none)", names);
}

/* ------------------------------------------------------------- helpers */

void kt_samples_clear(samples *s)
{
    for (size_t i = 0; s->problem && i < s->n; i++)
        free(s->problem[i]);
    free(s->problem);
    free(s->x);
    free(s->xnum);
    free(s->y);
    free(s->rel);
    *s = (samples){0};
}

void kt_dataset_rows(const kt_dataset *d, const size_t *idx, size_t n, uint16_t *x,
                     double *xnum, uint16_t *y)
{
    for (size_t i = 0; i < n; i++) {
        memcpy(x + i * d->nin, d->x + idx[i] * d->nin, d->nin * sizeof *x);
        memcpy(xnum + i * d->nin, d->xnum + idx[i] * d->nin, d->nin * sizeof *xnum);
        memcpy(y + i * d->nout, d->y + idx[i] * d->nout, d->nout * sizeof *y);
    }
}

static int samples_take(samples *s, const kt_dataset *d, const size_t *idx, size_t n)
{
    s->n = n;
    s->x = malloc((n * d->nin + 1) * sizeof *s->x);
    s->xnum = malloc((n * d->nin + 1) * sizeof *s->xnum);
    s->y = malloc((n * d->nout + 1) * sizeof *s->y);
    s->problem = calloc(n + 1, sizeof *s->problem);
    if (!s->x || !s->xnum || !s->y || !s->problem)
        return KT_ENOMEM;
    kt_dataset_rows(d, idx, n, s->x, s->xnum, s->y);
    for (size_t i = 0; i < n; i++)
        if (!(s->problem[i] = kt_strdup(d->problem[idx[i]])))
            return KT_ENOMEM;
    if (d->rel && !(s->rel = malloc((n + 1) * sizeof *s->rel)))
        return KT_ENOMEM;
    for (size_t i = 0; d->rel && i < n; i++)
        s->rel[i] = d->rel[idx[i]];
    return KT_OK;
}

static int copy_names(char ***dst, char *const *src, size_t n)
{
    *dst = calloc(n + 1, sizeof **dst);
    for (size_t i = 0; *dst && i < n; i++)
        if (!((*dst)[i] = kt_strdup(src[i])))
            return KT_ENOMEM;
    return *dst ? KT_OK : KT_ENOMEM;
}

static int copy_vocabs(kt_vocab **dst, const kt_vocab *src, size_t n)
{
    *dst = calloc(n + 1, sizeof **dst);
    if (!*dst)
        return KT_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        (*dst)[i].words = calloc(src[i].n + 1, sizeof(char *));
        if (!(*dst)[i].words)
            return KT_ENOMEM;
        for (size_t w = 0; w < src[i].n; w++, (*dst)[i].n++)
            if (!((*dst)[i].words[w] = kt_strdup(src[i].words[w])))
                return KT_ENOMEM;
    }
    return KT_OK;
}

/* Mean and inverse spread of log1p of each numeric input over training. */
static int fit_scales(kt_model *m)
{
    m->mean = calloc(m->nin + 1, sizeof *m->mean);
    m->scale = calloc(m->nin + 1, sizeof *m->scale);
    if (!m->mean || !m->scale)
        return KT_ENOMEM;
    for (size_t f = 0; f < m->nin; f++) {
        double sum = 0, sq = 0;
        size_t n = 0;
        for (size_t i = 0; i < m->train.n; i++) {
            double v = m->train.xnum[i * m->nin + f];
            if (isnan(v))
                continue;
            v = log1p(fabs(v));
            sum += v;
            sq += v * v;
            n++;
        }
        double mean = n ? sum / (double)n : 0, var = n ? sq / (double)n - mean * mean : 0;
        m->mean[f] = mean;
        m->scale[f] = var > 1e-12 ? 1 / sqrt(var) : 0;
    }
    return KT_OK;
}

double kt_model_feature(const kt_model *m, const double *xn, size_t f)
{
    if (isnan(xn[f]) || m->scale[f] == 0)
        return NAN;
    return (log1p(fabs(xn[f])) - m->mean[f]) * m->scale[f];
}

int kt_model_features(kt_model *m)
{
    size_t n = m->train.n * m->nin;
    if (!(m->train_feat = malloc((n + 1) * sizeof *m->train_feat)))
        return KT_ENOMEM;
    for (size_t i = 0; i < m->train.n; i++)
        for (size_t f = 0; f < m->nin; f++)
            m->train_feat[i * m->nin + f] = kt_model_feature(m, m->train.xnum + i * m->nin, f);
    return KT_OK;
}

double kt_model_value(const kt_model *m, const uint16_t *x, const double *xn, size_t f)
{
    double v = kt_model_feature(m, xn, f);
    return isnan(v) ? (double)x[f] : v;
}

void kt_weights_to_logp(double *w, size_t n)
{
    const double floor_share = 1e-4;
    double total = 0;
    for (size_t t = 1; t < n; t++)
        total += w[t];
    double floor = total > 0 ? floor_share * total / (double)(n > 1 ? n - 1 : 1) : 1;
    total = 0;
    for (size_t t = 1; t < n; t++)
        total += (w[t] += floor);
    w[0] = -INFINITY;
    for (size_t t = 1; t < n; t++)
        w[t] = log(w[t] / total);
}

int kt_model_train(const kt_dataset *d, const kt_train_opts *o, kt_model **out,
                   kt_diag *diag)
{
    *out = NULL;
    if (kt_method_is_auto(o->method))
        return kt_model_choose(d, NULL, o, out, diag);
    const kt_method *method;
    int rc = kt_method_lookup(o->method, &method, diag);
    if (rc != KT_OK)
        return rc;
    if (!(o->holdout >= 0 && o->holdout < 1))
        return kt_fail(diag, KT_EINVAL, "--holdout must be at least 0 and below 1");
    size_t *tr = NULL, *te = NULL, ntr = 0, nte = 0;
    rc = kt_dataset_split(d, o->holdout, o->seed, o->split_ignore, &tr, &ntr, &te,
                              &nte);
    rc = rc == KT_OK ? kt_model_train_on(d, tr, ntr, te, nte, o, out, diag)
                     : kt_fail(diag, rc, "out of memory");
    free(tr);
    free(te);
    return rc;
}

int kt_model_train_on(const kt_dataset *d, const size_t *tr, size_t ntr, const size_t *te,
                      size_t nte, const kt_train_opts *o, kt_model **out, kt_diag *diag)
{
    *out = NULL;
    const kt_method *method;
    int mrc = kt_method_lookup(o->method, &method, diag);
    if (mrc != KT_OK)
        return mrc;
    kt_model *m = calloc(1, sizeof *m);
    if (!m)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    *m = (kt_model){.method = method, .holdout = o->holdout, .seed = o->seed,
                    .nin = d->nin, .nout = d->nout};
    int rc = ntr == 0 ? KT_EINVAL : KT_OK;
    if (rc == KT_OK && !((m->kernel = kt_strdup(d->kernel)) &&
                         (m->where = kt_strdup(o->where ? o->where : ""))))
        rc = KT_ENOMEM;
    if (rc == KT_OK)
        rc = copy_names(&m->in_names, d->in_names, d->nin);
    if (rc == KT_OK)
        rc = copy_names(&m->out_names, d->out_names, d->nout);
    if (rc == KT_OK)
        rc = copy_vocabs(&m->in_vocab, d->in_vocab, d->nin);
    if (rc == KT_OK)
        rc = copy_vocabs(&m->out_vocab, d->out_vocab, d->nout);
    if (rc == KT_OK)
        rc = samples_take(&m->train, d, tr, ntr);
    if (rc == KT_OK)
        rc = samples_take(&m->test, d, te, nte);
    if (rc == KT_OK)
        rc = fit_scales(m);
    if (rc == KT_OK)
        rc = kt_model_features(m);
    if (rc == KT_OK)
        rc = method->fit(m, o);
    if (rc != KT_OK) {
        kt_model_free(m);
        return kt_fail(diag, rc, "%s", rc == KT_EINVAL ? "too few samples to train on"
                                       : rc == KT_ERANGE ? TOO_MANY
                                                         : "out of memory training");
    }
    *out = m;
    return KT_OK;
}

void kt_model_free(kt_model *m)
{
    if (!m)
        return;
    kt_fields_free(m->in_names, m->in_vocab, m->nin);
    kt_fields_free(m->out_names, m->out_vocab, m->nout);
    kt_samples_clear(&m->train);
    kt_samples_clear(&m->test);
    free(m->mean);
    free(m->scale);
    free(m->train_feat);
    free(m->kernel);
    free(m->where);
    free(m->cand);
    if (m->method)
        m->method->free(m->state);
    free(m);
}

void kt_model_describe(const kt_model *m, kt_model_info *info)
{
    const char *method = m->method->label ? m->method->label(m) : m->method->name;
    *info = (kt_model_info){.method = method, .kernel = m->kernel, .where = m->where,
                            .nin = m->nin, .nout = m->nout, .ntrain = m->train.n,
                            .ntest = m->test.n, .nval = m->nval,
                            .in_names = (const char *const *)m->in_names,
                            .out_names = (const char *const *)m->out_names,
                            .in_vocab = m->in_vocab, .out_vocab = m->out_vocab};
}

const char *kt_model_test_problem(const kt_model *m, size_t i)
{
    return i < m->test.n ? m->test.problem[i] : NULL;
}

const uint16_t *kt_model_test_target(const kt_model *m, size_t i)
{
    return i < m->test.n ? m->test.y + i * m->nout : NULL;
}

/* --------------------------------------------------------------- queries */

struct kt_query {
    const kt_model *m;
    double **logp;   /* per-position methods: log-probability of each token */
    void *seq;       /* sequence methods: the method's query state */
};

/* The query's tokens and numbers, matched to the model's fields by name. */
static int encode(const kt_model *m, const char *key, uint16_t *x, double *xn,
                  kt_diag *diag)
{
    char **names, **values;
    size_t n;
    if (kt_key_fields(key, &names, &values, &n) != KT_OK)
        return kt_fail(diag, KT_EINVAL, "problem '%s' is not NAME=VALUE,...", key);
    for (size_t f = 0; f < m->nin; f++) {
        x[f] = 0;
        xn[f] = NAN;
        for (size_t i = 0; i < n; i++)
            if (strcmp(names[i], m->in_names[f]) == 0) {
                char *end;
                double v = strtod(values[i], &end);
                x[f] = kt_vocab_find(&m->in_vocab[f], values[i]);
                xn[f] = *end == '\0' && end != values[i] ? v : NAN;
            }
    }
    kt_key_fields_free(names, values, n);
    return KT_OK;
}

void kt_query_free(kt_query *q)
{
    if (!q)
        return;
    for (size_t p = 0; q->logp && p < q->m->nout; p++)
        free(q->logp[p]);
    free(q->logp);
    if (q->seq)
        q->m->method->end(q->seq);
    free(q);
}

int kt_query_new(const kt_model *m, const char *problem_key, kt_query **out,
                 kt_diag *diag)
{
    *out = NULL;
    kt_query *q = calloc(1, sizeof *q);
    uint16_t *x = malloc((m->nin + 1) * sizeof *x);
    double *xn = malloc((m->nin + 1) * sizeof *xn);
    int rc = q && x && xn && (q->logp = calloc(m->nout + 1, sizeof(double *)))
                 ? KT_OK
                 : kt_fail(diag, KT_ENOMEM, "out of memory");
    if (q)
        q->m = m;
    for (size_t p = 0; rc == KT_OK && p < m->nout; p++)
        if (!(q->logp[p] = malloc(m->out_vocab[p].n * sizeof(double))))
            rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK)
        rc = encode(m, problem_key, x, xn, diag);
    int mrc = KT_OK;
    if (rc == KT_OK && (mrc = m->method->begin ? m->method->begin(m, x, xn, &q->seq)
                                               : m->method->dist(m, x, xn, q->logp)) != KT_OK)
        rc = kt_fail(diag, mrc, "%s", mrc == KT_ERANGE ? TOO_MANY : "out of memory predicting");
    free(x);
    free(xn);
    if (rc != KT_OK) {
        kt_query_free(q);
        return rc;
    }
    *out = q;
    return KT_OK;
}

int kt_query_scores(void *query, const uint16_t *prefixes, size_t n, size_t stride,
                    size_t pos, double *logp)
{
    const kt_query *q = query;
    if (q->seq)
        return q->m->method->next(q->seq, prefixes, n, stride, pos, logp);
    size_t v = q->m->out_vocab[pos].n;
    for (size_t i = 0; i < n; i++) /* per-position: the prefix does not matter */
        memcpy(logp + i * v, q->logp[pos], v * sizeof *logp);
    return KT_OK;
}
