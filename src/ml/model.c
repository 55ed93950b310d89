/* model.c - predictor models, their training and their file format (see
 * model.h). */
#include "ml/model.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAGIC "KTUNEMDL"
#define FORMAT_VERSION 1
enum { KIND_KNN = 1 };

/* Samples: tokens, numbers and (held-out ones) their problem keys. */
typedef struct samples {
    size_t n;
    uint16_t *x;     /* n x nin */
    double *xnum;    /* n x nin */
    uint16_t *y;     /* n x nout */
    char **problem;  /* n */
} samples;

struct kt_model {
    int kind;
    char *kernel, *where;
    double holdout;
    uint64_t seed;
    uint32_t k;
    size_t nin, nout;
    char **in_names, **out_names;
    kt_vocab *in_vocab, *out_vocab;
    samples train, test;
    double *mean, *scale;  /* per input: log1p mean and 1/std (0: unused) */
};

/* ------------------------------------------------------------- helpers */

static void samples_clear(samples *s)
{
    for (size_t i = 0; s->problem && i < s->n; i++)
        free(s->problem[i]);
    free(s->problem);
    free(s->x);
    free(s->xnum);
    free(s->y);
    *s = (samples){0};
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
    for (size_t i = 0; i < n; i++) {
        memcpy(s->x + i * d->nin, d->x + idx[i] * d->nin, d->nin * sizeof *s->x);
        memcpy(s->xnum + i * d->nin, d->xnum + idx[i] * d->nin, d->nin * sizeof *s->xnum);
        memcpy(s->y + i * d->nout, d->y + idx[i] * d->nout, d->nout * sizeof *s->y);
        if (!(s->problem[i] = kt_strdup(d->problem[idx[i]])))
            return KT_ENOMEM;
    }
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

int kt_model_train(const kt_dataset *d, const kt_train_opts *o, kt_model **out,
                   kt_diag *diag)
{
    *out = NULL;
    if (strcmp(o->method, "knn") != 0)
        return kt_fail(diag, KT_EINVAL, "method '%s' is not built yet (available: knn)",
                       o->method);
    if (!(o->holdout > 0 && o->holdout < 1))
        return kt_fail(diag, KT_EINVAL, "--holdout must be between 0 and 1");
    kt_model *m = calloc(1, sizeof *m);
    size_t *tr = NULL, *te = NULL, ntr = 0, nte = 0;
    if (!m)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    *m = (kt_model){.kind = KIND_KNN, .holdout = o->holdout, .seed = o->seed,
                    .k = o->k > 0 ? (uint32_t)o->k : 5, .nin = d->nin, .nout = d->nout};
    int rc = kt_dataset_split(d, o->holdout, o->seed, &tr, &ntr, &te, &nte);
    if (rc == KT_OK && ntr == 0)
        rc = KT_EINVAL;
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
    free(tr);
    free(te);
    if (rc != KT_OK) {
        kt_model_free(m);
        return kt_fail(diag, rc, rc == KT_EINVAL ? "too few samples to train on"
                                                 : "out of memory training");
    }
    *out = m;
    return KT_OK;
}

void kt_model_free(kt_model *m)
{
    if (!m)
        return;
    for (size_t i = 0; m->in_vocab && i < m->nin; i++)
        kt_vocab_clear(&m->in_vocab[i]);
    for (size_t i = 0; m->out_vocab && i < m->nout; i++)
        kt_vocab_clear(&m->out_vocab[i]);
    kt_key_fields_free(m->in_names, NULL, m->in_names ? m->nin : 0);
    kt_key_fields_free(m->out_names, NULL, m->out_names ? m->nout : 0);
    free(m->in_vocab);
    free(m->out_vocab);
    samples_clear(&m->train);
    samples_clear(&m->test);
    free(m->mean);
    free(m->scale);
    free(m->kernel);
    free(m->where);
    free(m);
}

void kt_model_describe(const kt_model *m, kt_model_info *info)
{
    *info = (kt_model_info){.method = "knn", .kernel = m->kernel, .where = m->where,
                            .nin = m->nin, .nout = m->nout, .ntrain = m->train.n,
                            .ntest = m->test.n,
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
    double **logp;   /* per position: log-probability of each token */
};

static double distance(const kt_model *m, const uint16_t *x, const double *xn,
                       size_t j)
{
    const uint16_t *tx = m->train.x + j * m->nin;
    const double *tn = m->train.xnum + j * m->nin;
    double d = 0;
    for (size_t f = 0; f < m->nin; f++) {
        if (!isnan(xn[f]) && !isnan(tn[f])) {
            double diff = (log1p(fabs(xn[f])) - log1p(fabs(tn[f]))) * m->scale[f];
            d += diff * diff;
        } else {
            d += x[f] != tx[f] || x[f] == 0;
        }
    }
    return d;
}

/* Indices of the k nearest training samples (k <= ntrain), nearest first. */
static void nearest(const kt_model *m, const uint16_t *x, const double *xn, size_t k,
                    size_t *idx, double *dist)
{
    size_t have = 0;
    for (size_t j = 0; j < m->train.n; j++) {
        double d = distance(m, x, xn, j);
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
}

/* Weighted votes of the neighbours, smoothed so that every token keeps a
 * small probability (the beam may need it to satisfy the constraints). */
static void vote(const kt_model *m, const size_t *idx, const double *dist, size_t k,
                 size_t pos, double *logp)
{
    size_t v = m->out_vocab[pos].n;
    const double alpha = 1e-3;
    double total = 0;
    for (size_t t = 0; t < v; t++)
        logp[t] = t ? alpha : 0;
    for (size_t i = 0; i < k; i++) {
        double w = 1 / (dist[i] + 1e-6);
        logp[m->train.y[idx[i] * m->nout + pos]] += w;
    }
    for (size_t t = 1; t < v; t++)
        total += logp[t];
    logp[0] = -INFINITY;
    for (size_t t = 1; t < v; t++)
        logp[t] = log(logp[t] / total);
}

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
    free(q);
}

int kt_query_new(const kt_model *m, const char *problem_key, kt_query **out,
                 kt_diag *diag)
{
    *out = NULL;
    size_t k = m->k < m->train.n ? m->k : m->train.n;
    kt_query *q = calloc(1, sizeof *q);
    uint16_t *x = malloc((m->nin + 1) * sizeof *x);
    double *xn = malloc((m->nin + 1) * sizeof *xn), *dist = malloc(k * sizeof *dist);
    size_t *idx = malloc(k * sizeof *idx);
    int rc = q && x && xn && dist && idx && (q->logp = calloc(m->nout + 1, sizeof(double *)))
                 ? KT_OK
                 : kt_fail(diag, KT_ENOMEM, "out of memory");
    if (q)
        q->m = m;
    if (rc == KT_OK)
        rc = encode(m, problem_key, x, xn, diag);
    if (rc == KT_OK)
        nearest(m, x, xn, k, idx, dist);
    for (size_t p = 0; rc == KT_OK && p < m->nout; p++) {
        if (!(q->logp[p] = malloc(m->out_vocab[p].n * sizeof(double))))
            rc = kt_fail(diag, KT_ENOMEM, "out of memory");
        else
            vote(m, idx, dist, k, p, q->logp[p]);
    }
    free(x);
    free(xn);
    free(dist);
    free(idx);
    if (rc != KT_OK) {
        kt_query_free(q);
        return rc;
    }
    *out = q;
    return KT_OK;
}

int kt_query_scores(void *query, const uint16_t *prefix, size_t pos, double *logp)
{
    const kt_query *q = query;
    (void)prefix; /* neighbours vote per position: no dependence on the prefix */
    memcpy(logp, q->logp[pos], q->m->out_vocab[pos].n * sizeof *logp);
    return KT_OK;
}

/* ------------------------------------------------------------ the file */

/* Little-endian-as-the-host binary: the file is for the machine family
 * that wrote it (x86-64, aarch64), like the compiled-kernel cache. */

static void put(FILE *f, const void *p, size_t n) { fwrite(p, 1, n, f); }
static void put_u32(FILE *f, uint32_t v) { put(f, &v, sizeof v); }
static void put_u64(FILE *f, uint64_t v) { put(f, &v, sizeof v); }
static void put_f64(FILE *f, double v) { put(f, &v, sizeof v); }

static void put_str(FILE *f, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    put_u32(f, n);
    put(f, s, n);
}

static void put_vocabs(FILE *f, char **names, const kt_vocab *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        put_str(f, names[i]);
        put_u32(f, (uint32_t)v[i].n);
        for (size_t w = 0; w < v[i].n; w++)
            put_str(f, v[i].words[w]);
    }
}

static void put_samples(FILE *f, const kt_model *m, const samples *s)
{
    put_u64(f, s->n);
    put(f, s->x, s->n * m->nin * sizeof *s->x);
    put(f, s->xnum, s->n * m->nin * sizeof *s->xnum);
    put(f, s->y, s->n * m->nout * sizeof *s->y);
    for (size_t i = 0; i < s->n; i++)
        put_str(f, s->problem[i]);
}

int kt_model_save(const kt_model *m, const char *path, kt_diag *diag)
{
    char *tmp = kt_asprintf("%s.tmp", path);
    FILE *f = tmp ? fopen(tmp, "wb") : NULL;
    if (!f) {
        free(tmp);
        return kt_fail(diag, KT_EIO, "cannot write '%s'", path);
    }
    put(f, MAGIC, 8);
    put_u32(f, FORMAT_VERSION);
    put_u32(f, (uint32_t)m->kind);
    put_str(f, m->kernel);
    put_str(f, m->where);
    put_f64(f, m->holdout);
    put_u64(f, m->seed);
    put_u32(f, m->k);
    put_u32(f, (uint32_t)m->nin);
    put_u32(f, (uint32_t)m->nout);
    put_vocabs(f, m->in_names, m->in_vocab, m->nin);
    put_vocabs(f, m->out_names, m->out_vocab, m->nout);
    put_samples(f, m, &m->train);
    put_samples(f, m, &m->test);
    put(f, m->mean, m->nin * sizeof *m->mean);
    put(f, m->scale, m->nin * sizeof *m->scale);
    bool ok = !ferror(f);
    ok = fclose(f) == 0 && ok && rename(tmp, path) == 0; /* never a half-written model */
    if (!ok)
        unlink(tmp);
    free(tmp);
    return ok ? KT_OK : kt_fail(diag, KT_EIO, "cannot write '%s'", path);
}

/* A bounds-checked cursor over the file's bytes. */
typedef struct reader {
    const unsigned char *p, *end;
    bool bad;
} reader;

static bool get(reader *r, void *out, size_t n)
{
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = true;
        memset(out, 0, n);
        return false;
    }
    memcpy(out, r->p, n);
    r->p += n;
    return true;
}

static uint32_t get_u32(reader *r)
{
    uint32_t v;
    get(r, &v, sizeof v);
    return v;
}

static uint64_t get_u64(reader *r)
{
    uint64_t v;
    get(r, &v, sizeof v);
    return v;
}

static char *get_str(reader *r)
{
    uint32_t n = get_u32(r);
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = true;
        return NULL;
    }
    char *s = kt_strndup((const char *)r->p, n);
    r->p += n;
    r->bad |= s == NULL;
    return s;
}

/* n elements of size bytes, checked against what is left before allocating. */
static void *get_array(reader *r, uint64_t n, size_t size)
{
    if (r->bad || (n && (uint64_t)(r->end - r->p) / size < n)) {
        r->bad = true;
        return NULL;
    }
    void *p = malloc(n * size + 1);
    if (!p)
        r->bad = true;
    else
        get(r, p, n * size);
    return p;
}

static void get_vocabs(reader *r, char **names, kt_vocab *v, size_t n)
{
    for (size_t i = 0; i < n && !r->bad; i++) {
        names[i] = get_str(r);
        uint32_t words = get_u32(r);
        if (r->bad || words > UINT16_MAX + 1u || words > (size_t)(r->end - r->p) / 4) {
            r->bad = true;
            return;
        }
        v[i].words = calloc(words + 1, sizeof(char *));
        for (uint32_t w = 0; v[i].words && w < words && !r->bad; w++, v[i].n++)
            v[i].words[w] = get_str(r);
        r->bad |= v[i].words == NULL;
    }
}

static void get_samples(reader *r, const kt_model *m, samples *s)
{
    uint64_t n = get_u64(r);
    s->x = get_array(r, n * m->nin, sizeof *s->x);
    s->xnum = get_array(r, n * m->nin, sizeof *s->xnum);
    s->y = get_array(r, n * m->nout, sizeof *s->y);
    s->problem = r->bad ? NULL : calloc(n + 1, sizeof *s->problem);
    r->bad |= s->problem == NULL;
    for (uint64_t i = 0; !r->bad && i < n; i++, s->n++)
        s->problem[i] = get_str(r);
    for (uint64_t i = 0; !r->bad && i < n * m->nout; i++) /* tokens in range */
        r->bad |= s->y[i] >= m->out_vocab[i % m->nout].n;
    for (uint64_t i = 0; !r->bad && i < n * m->nin; i++)
        r->bad |= s->x[i] >= m->in_vocab[i % m->nin].n;
}

static void read_model(reader *r, kt_model *m)
{
    char magic[8];
    get(r, magic, 8);
    if (memcmp(magic, MAGIC, 8) != 0 || get_u32(r) != FORMAT_VERSION ||
        (m->kind = (int)get_u32(r)) != KIND_KNN) {
        r->bad = true;
        return;
    }
    m->kernel = get_str(r);
    m->where = get_str(r);
    get(r, &m->holdout, sizeof m->holdout);
    m->seed = get_u64(r);
    m->k = get_u32(r);
    m->nin = get_u32(r);
    m->nout = get_u32(r);
    if (r->bad || m->nin > 4096 || m->nout > 4096 || m->k == 0) {
        r->bad = true;
        return;
    }
    m->in_names = calloc(m->nin + 1, sizeof(char *));
    m->out_names = calloc(m->nout + 1, sizeof(char *));
    m->in_vocab = calloc(m->nin + 1, sizeof(kt_vocab));
    m->out_vocab = calloc(m->nout + 1, sizeof(kt_vocab));
    r->bad |= !m->in_names || !m->out_names || !m->in_vocab || !m->out_vocab;
    get_vocabs(r, m->in_names, m->in_vocab, m->nin);
    get_vocabs(r, m->out_names, m->out_vocab, m->nout);
    get_samples(r, m, &m->train);
    get_samples(r, m, &m->test);
    m->mean = get_array(r, m->nin, sizeof *m->mean);
    m->scale = get_array(r, m->nin, sizeof *m->scale);
    r->bad |= r->p != r->end || m->train.n == 0;
}

int kt_model_load(const char *path, kt_model **out, kt_diag *diag)
{
    *out = NULL;
    char *data;
    size_t len;
    int rc = kt_read_file(path, &data, &len, diag);
    if (rc != KT_OK)
        return rc;
    kt_model *m = calloc(1, sizeof *m);
    reader r = {(const unsigned char *)data, (const unsigned char *)data + len, !m};
    if (m)
        read_model(&r, m);
    free(data);
    if (r.bad) {
        kt_model_free(m);
        return kt_fail(diag, KT_EFORMAT, "%s: not a ktune model file of format "
                       "version %d, or truncated or corrupt", path, FORMAT_VERSION);
    }
    *out = m;
    return KT_OK;
}
