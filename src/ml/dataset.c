/* dataset.c - tokenise the results store's ok measurements of one kernel
 * into the predictor's input and output sentences (see dataset.h). */
#include "ml/dataset.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* -------------------------------------------------------- vocabularies */

uint16_t kt_vocab_find(const kt_vocab *v, const char *w)
{
    for (size_t i = 1; i < v->n; i++)
        if (strcmp(v->words[i], w) == 0)
            return (uint16_t)i;
    return 0;
}

int kt_vocab_add(kt_vocab *v, const char *w, uint16_t *tok)
{
    if (v->n == 0) { /* token 0 is the unknown word */
        if (!(v->words = malloc(sizeof *v->words)) || !(v->words[0] = kt_strdup("<unk>")))
            return KT_ENOMEM;
        v->n = 1;
    }
    *tok = kt_vocab_find(v, w);
    if (*tok)
        return KT_OK;
    if (v->n > UINT16_MAX)
        return KT_ERANGE;
    char **g = realloc(v->words, (v->n + 1) * sizeof *g);
    if (!g)
        return KT_ENOMEM;
    v->words = g;
    if (!(g[v->n] = kt_strdup(w)))
        return KT_ENOMEM;
    *tok = (uint16_t)v->n++;
    return KT_OK;
}

void kt_vocab_clear(kt_vocab *v)
{
    for (size_t i = 0; i < v->n; i++)
        free(v->words[i]);
    free(v->words);
    *v = (kt_vocab){0};
}

void kt_fields_free(char **names, kt_vocab *vocab, size_t n)
{
    for (size_t i = 0; vocab && i < n; i++)
        kt_vocab_clear(&vocab[i]);
    for (size_t i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
    free(vocab);
}

/* --------------------------------------------------------------- loading */

typedef struct loader {
    kt_dataset *d;
    char **where_names, **where_values;
    size_t nwhere;
    size_t cap;
    bool all;             /* every ok measurement, with its time */
    char **device;        /* all: each sample's device, to group by */
    int err;
    kt_diag *diag;
} loader;

static bool matches(const loader *L, char **names, char **values, size_t n)
{
    for (size_t w = 0; w < L->nwhere; w++) {
        bool hit = false;
        for (size_t i = 0; i < n && !hit; i++)
            hit = strcmp(names[i], L->where_names[w]) == 0 &&
                  strcmp(values[i], L->where_values[w]) == 0;
        if (!hit)
            return false;
    }
    return true;
}

/* Take the field names of the first sample; check later ones against them. */
static int check_names(loader *L, char ***names, char **got, size_t n, size_t *want,
                       const char *key, const char *what)
{
    if (!*names) {
        *names = got;
        *want = n;
        return KT_OK;
    }
    bool same = n == *want;
    for (size_t i = 0; same && i < n; i++)
        same = strcmp((*names)[i], got[i]) == 0;
    kt_key_fields_free(got, NULL, n);
    return same ? KT_OK
                : kt_fail(L->diag, KT_EFORMAT, "%s '%s' has other fields than the "
                          "first one of kernel '%s'", what, key, L->d->kernel);
}

static int grow(loader *L)
{
    kt_dataset *d = L->d;
    if (d->n < L->cap)
        return KT_OK;
    size_t cap = L->cap ? 2 * L->cap : 256;
    uint16_t *x = realloc(d->x, cap * d->nin * sizeof *x);
    if (x)
        d->x = x;
    double *xn = x ? realloc(d->xnum, cap * d->nin * sizeof *xn) : NULL;
    if (xn)
        d->xnum = xn;
    uint16_t *y = xn ? realloc(d->y, cap * d->nout * sizeof *y) : NULL;
    if (y)
        d->y = y;
    char **p = y ? realloc(d->problem, cap * sizeof *p) : NULL;
    if (p)
        d->problem = p;
    double *rel = p && L->all ? realloc(d->rel, cap * sizeof *rel) : NULL;
    if (rel)
        d->rel = rel;
    char **dev = rel ? realloc(L->device, cap * sizeof *dev) : NULL;
    if (dev)
        L->device = dev;
    if (!p || (L->all && !dev))
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    L->cap = cap;
    return KT_OK;
}

static int tokenise(loader *L, char **vals, size_t n, kt_vocab *vocab, uint16_t *out,
                    double *num)
{
    for (size_t i = 0; i < n; i++) {
        if (kt_vocab_add(&vocab[i], vals[i], &out[i]) != KT_OK)
            return kt_fail(L->diag, KT_ENOMEM, "out of memory building a vocabulary");
        if (num) {
            char *end;
            double v = strtod(vals[i], &end);
            num[i] = *end == '\0' && end != vals[i] ? v : NAN;
        }
    }
    return KT_OK;
}

/* One stored row into the next sample. */
static int add_row(loader *L, const kt_db_row *row)
{
    kt_dataset *d = L->d;
    char **pn, **pv, **cn, **cv;
    size_t np, nc;
    if (kt_key_fields(row->problem, &pn, &pv, &np) != KT_OK)
        return kt_fail(L->diag, KT_EFORMAT, "unreadable problem key '%s'", row->problem);
    if (kt_key_fields(row->config, &cn, &cv, &nc) != KT_OK) {
        kt_key_fields_free(pn, pv, np);
        return kt_fail(L->diag, KT_EFORMAT, "unreadable configuration key '%s'",
                       row->config);
    }
    int rc = KT_OK;
    if (!matches(L, pn, pv, np)) {
        kt_key_fields_free(pn, pv, np);
        kt_key_fields_free(cn, cv, nc);
        return KT_OK;
    }
    bool first = d->in_names == NULL;
    /* each call keeps or frees its names, so both always run */
    rc = check_names(L, &d->in_names, pn, np, &d->nin, row->problem, "problem");
    int rc2 = check_names(L, &d->out_names, cn, nc, &d->nout, row->config,
                          "configuration");
    rc = rc != KT_OK ? rc : rc2;
    if (rc == KT_OK && first && (!(d->in_vocab = calloc(np, sizeof *d->in_vocab)) ||
                                 !(d->out_vocab = calloc(nc, sizeof *d->out_vocab))))
        rc = kt_fail(L->diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK)
        rc = grow(L);
    if (rc == KT_OK)
        rc = tokenise(L, pv, np, d->in_vocab, d->x + d->n * d->nin, d->xnum + d->n * d->nin);
    if (rc == KT_OK)
        rc = tokenise(L, cv, nc, d->out_vocab, d->y + d->n * d->nout, NULL);
    if (rc == KT_OK && !(d->problem[d->n] = kt_strdup(row->problem)))
        rc = kt_fail(L->diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK && L->all && !(L->device[d->n] = kt_strdup(row->device))) {
        free(d->problem[d->n]);
        rc = kt_fail(L->diag, KT_ENOMEM, "out of memory");
    }
    if (rc == KT_OK && L->all)
        d->rel[d->n] = row->result.time_ms;
    d->n += rc == KT_OK;
    kt_key_fields_free(NULL, pv, np);
    kt_key_fields_free(NULL, cv, nc);
    return rc;
}

static int visit_row(void *user, const kt_db_row *row)
{
    loader *L = user;
    L->err = add_row(L, row);
    return L->err != KT_OK;
}

/* Samples of one problem on one device. */
typedef struct group_key {
    char **problem, **device;
} group_key;

static int by_group(const void *a, const void *b, void *user)
{
    const group_key *k = user;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int c = strcmp(k->problem[i], k->problem[j]);
    return c ? c : strcmp(k->device[i], k->device[j]);
}

/* Each sample's time over the fastest of its problem's on its device. */
static int relative_times(kt_dataset *d, char **device)
{
    size_t *order = malloc(d->n * sizeof *order);
    if (!order)
        return KT_ENOMEM;
    for (size_t i = 0; i < d->n; i++)
        order[i] = i;
    group_key k = {d->problem, device};
    qsort_r(order, d->n, sizeof *order, by_group, &k);
    for (size_t lo = 0, hi; lo < d->n; lo = hi) {
        double best = INFINITY;
        for (hi = lo; hi < d->n && by_group(&order[hi], &order[lo], &k) == 0; hi++)
            best = fmin(best, d->rel[order[hi]]);
        for (size_t i = lo; i < hi; i++)
            d->rel[order[i]] /= best;
    }
    free(order);
    return KT_OK;
}

static int load(kt_db *db, const char *kernel, const char *where, bool all,
                kt_dataset **out, kt_diag *diag)
{
    *out = NULL;
    loader L = {.d = calloc(1, sizeof(kt_dataset)), .all = all, .diag = diag};
    if (!L.d || !(L.d->kernel = kt_strdup(kernel))) {
        free(L.d);
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    int rc = KT_OK;
    if (kt_key_fields(where ? where : "", &L.where_names, &L.where_values, &L.nwhere))
        rc = kt_fail(diag, KT_EINVAL, "--where '%s' is not NAME=VALUE,...", where);
    /* the target of a problem is its best configuration, so one sample per
     * (device, problem): the fastest ok measurement; or all of them */
    kt_db_filter f = {.kernel = kernel, .ok_only = true};
    if (rc == KT_OK)
        rc = all ? kt_db_list(db, &f, visit_row, &L, diag)
                 : kt_db_best(db, &f, visit_row, &L, diag);
    if (rc == KT_OK)
        rc = L.err;
    if (rc == KT_OK && L.d->n == 0)
        rc = kt_fail(diag, KT_ENOTFOUND, "no ok measurement of kernel '%s'%s%s", kernel,
                     where && *where ? " where " : "", where && *where ? where : "");
    if (rc == KT_OK && all && relative_times(L.d, L.device) != KT_OK)
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; L.device && i < L.d->n; i++)
        free(L.device[i]);
    free(L.device);
    kt_key_fields_free(L.where_names, L.where_values, L.nwhere);
    if (rc != KT_OK) {
        kt_dataset_free(L.d);
        return rc;
    }
    *out = L.d;
    return KT_OK;
}

int kt_dataset_load(kt_db *db, const char *kernel, const char *where,
                    kt_dataset **out, kt_diag *diag)
{
    return load(db, kernel, where, false, out, diag);
}

int kt_dataset_load_all(kt_db *db, const char *kernel, const char *where,
                        kt_dataset **out, kt_diag *diag)
{
    return load(db, kernel, where, true, out, diag);
}

void kt_dataset_free(kt_dataset *d)
{
    if (!d)
        return;
    kt_fields_free(d->in_names, d->in_vocab, d->nin);
    kt_fields_free(d->out_names, d->out_vocab, d->nout);
    for (size_t i = 0; i < d->n; i++)
        free(d->problem[i]);
    free(d->problem);
    free(d->x);
    free(d->xnum);
    free(d->y);
    free(d->rel);
    free(d->kernel);
    free(d);
}

/* ----------------------------------------------------------------- split */

static bool listed(const char *name, const char *list)
{
    size_t len = strlen(name);
    for (const char *s = list; *s;) {
        size_t n = strcspn(s, ",");
        if (n == len && strncmp(s, name, n) == 0)
            return true;
        s += n + (s[n] == ',');
    }
    return false;
}

/* Group of each sample: the hash of its problem key without the fields
 * named in ignore ("batchsize,direction"). */
static int group_hashes(const kt_dataset *d, const char *ignore, uint64_t *h)
{
    for (size_t i = 0; i < d->n; i++) {
        char **names, **values;
        size_t n;
        int rc = kt_key_fields(d->problem[i], &names, &values, &n);
        if (rc != KT_OK)
            return rc;
        h[i] = KT_HASH_INIT;
        for (size_t f = 0; f < n; f++)
            if (!listed(names[f], ignore))
                h[i] = kt_hash_str(kt_hash_str(h[i], names[f]), values[f]);
        kt_key_fields_free(names, values, n);
    }
    return KT_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void shuffle(uint64_t *v, size_t n, kt_rng *rng)
{
    for (size_t i = n; i > 1; i--) { /* Fisher-Yates */
        size_t j = (size_t)kt_rng_below(rng, i);
        uint64_t t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

/* Mark whole groups for testing, in a seeded random order, until about
 * holdout of the samples are marked. */
static int mark_groups(const kt_dataset *d, double holdout, kt_rng *rng,
                       const uint64_t *h, bool *in_test)
{
    size_t n = d->n, ng = 0;
    uint64_t *g = malloc((n ? n : 1) * sizeof *g), *order = malloc((n ? n : 1) * sizeof *order);
    size_t *count = calloc(n ? n : 1, sizeof *count);
    if (!g || !order || !count) {
        free(g);
        free(order);
        free(count);
        return KT_ENOMEM;
    }
    memcpy(g, h, n * sizeof *g);
    qsort(g, n, sizeof *g, cmp_u64);
    for (size_t i = 0; i < n; i++)
        if (ng == 0 || g[ng - 1] != g[i])
            g[ng++] = g[i];
    for (size_t i = 0; i < n; i++)
        count[(uint64_t *)bsearch(&h[i], g, ng, sizeof *g, cmp_u64) - g]++;
    memcpy(order, g, ng * sizeof *order);
    shuffle(order, ng, rng);
    size_t want = (size_t)llround(holdout * (double)n), have = 0;
    for (size_t k = 0; k < ng && have < want; k++) {
        size_t at = (size_t)((uint64_t *)bsearch(&order[k], g, ng, sizeof *g, cmp_u64) - g);
        have += count[at];
        for (size_t i = 0; i < n; i++)
            in_test[i] |= h[i] == order[k];
    }
    free(g);
    free(order);
    free(count);
    return KT_OK;
}

int kt_dataset_split(const kt_dataset *d, double holdout, uint64_t seed,
                     const char *ignore, size_t **train, size_t *ntrain,
                     size_t **test, size_t *ntest)
{
    size_t n = d->n;
    bool *in_test = calloc(n ? n : 1, sizeof *in_test);
    uint64_t *h = malloc((n ? n : 1) * sizeof *h);
    *train = malloc((n ? n : 1) * sizeof **train);
    *test = malloc((n ? n : 1) * sizeof **test);
    int rc = in_test && h && *train && *test ? KT_OK : KT_ENOMEM;
    kt_rng rng;
    kt_rng_seed(&rng, seed);
    if (rc == KT_OK && ignore && *ignore) {
        rc = group_hashes(d, ignore, h);
        if (rc == KT_OK)
            rc = mark_groups(d, holdout, &rng, h, in_test);
    } else if (rc == KT_OK) { /* every sample its own group */
        for (size_t i = 0; i < n; i++)
            h[i] = i;
        shuffle(h, n, &rng);
        for (size_t i = 0; i < (size_t)llround(holdout * (double)n); i++)
            in_test[h[i]] = true;
    }
    *ntrain = *ntest = 0;
    for (size_t i = 0; rc == KT_OK && i < n; i++) {
        if (in_test[i])
            (*test)[(*ntest)++] = i;
        else
            (*train)[(*ntrain)++] = i;
    }
    free(in_test);
    free(h);
    if (rc != KT_OK) {
        free(*train);
        free(*test);
        *train = *test = NULL;
    }
    return rc;
}
