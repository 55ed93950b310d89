/* analyze_data.c - one kernel's stored ok measurements as an analysis's
 * data (analyze.h): each varying tuning parameter and problem field a
 * feature with its distinct values, each row's value codes, targets and
 * the noise of each time (from its repetitions). */
#include "ml/analyze.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The rows as the query gives them, before coding. */
typedef struct raw_rows {
    size_t n, cap;
    char **config, **problem;
    double *y[KTUNE_TARGET_COUNT];
    double *noise;         /* relative sd of each time; NAN: unknown */
    char *device;          /* the first row's */
    char others[200];      /* other devices met, "a, b" */
    bool several;
    int rc;
} raw_rows;

size_t kt_analysis_min_rows(unsigned folds) { return folds * 2 > 10 ? folds * 2 : 10; }

static bool raw_grow(raw_rows *r)
{
    if (r->n < r->cap)
        return true;
    size_t cap = r->cap ? 2 * r->cap : 256;
    char **c = realloc(r->config, cap * sizeof *c);
    if (c)
        r->config = c;
    char **p = c ? realloc(r->problem, cap * sizeof *p) : NULL;
    if (p)
        r->problem = p;
    bool ok = c && p;
    double **cols[KTUNE_TARGET_COUNT + 1] = {&r->noise};
    for (int t = 0; t < KTUNE_TARGET_COUNT; t++)
        cols[t + 1] = &r->y[t];
    for (int t = 0; ok && t <= KTUNE_TARGET_COUNT; t++) {
        double *y = realloc(*cols[t], cap * sizeof *y);
        ok = y != NULL;
        if (ok)
            *cols[t] = y;
    }
    if (ok)
        r->cap = cap;
    return ok;
}

/* A reading that a log-space model can learn from: finite and positive. */
static double reading(double v) { return isfinite(v) && v > 0 ? v : NAN; }

static void note_device(raw_rows *r, const char *dev)
{
    if (strcmp(dev, r->device) == 0 || strstr(r->others, dev))
        return;
    r->several = true;
    size_t len = strlen(r->others);
    snprintf(r->others + len, sizeof r->others - len, "%s'%s'", len ? ", " : "", dev);
}

static int take_row(void *user, const kt_db_row *row)
{
    raw_rows *r = user;
    if (!isfinite(row->result.time_ms) || row->result.time_ms <= 0)
        return 0;
    if (!r->device && !(r->device = kt_strdup(row->device)))
        return r->rc = KT_ENOMEM;
    note_device(r, row->device);
    if (!raw_grow(r))
        return r->rc = KT_ENOMEM;
    r->config[r->n] = kt_strdup(row->config);
    r->problem[r->n] = kt_strdup(row->problem);
    r->y[KTUNE_TARGET_TIME][r->n] = row->result.time_ms;
    r->y[KTUNE_TARGET_ENERGY][r->n] = reading(row->result.energy_j);
    r->y[KTUNE_TARGET_POWER][r->n] = reading(row->result.power_w);
    /* the interquartile range of a normal distribution is 1.349 sd; one
     * repetition's spread, not the mean's: the repetitions of one run
     * share the device's state, which the next run may not.  One
     * repetition has no spread (reps 0: a count the recording left out) */
    double spread = row->result.spread;
    r->noise[r->n] = isfinite(spread) && spread >= 0 && row->result.reps != 1
                         ? spread / 1.349 : NAN;
    r->n++;
    if (!r->config[r->n - 1] || !r->problem[r->n - 1])
        return r->rc = KT_ENOMEM;
    return 0;
}

static void raw_free(raw_rows *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->config[i]);
        free(r->problem[i]);
    }
    free(r->config);
    free(r->problem);
    for (int t = 0; t < KTUNE_TARGET_COUNT; t++)
        free(r->y[t]);
    free(r->noise);
    free(r->device);
}

static int read_rows(kt_db *db, const ktune_analyze_opts *o, raw_rows *r, kt_diag *diag)
{
    kt_db_filter f = {o->kernel, o->problem, o->device, true};
    int rc = kt_db_list(db, &f, take_row, r, diag);
    if (rc == KT_OK && r->rc != KT_OK)
        rc = kt_fail(diag, r->rc, "out of memory");
    if (rc != KT_OK)
        return rc;
    if (r->n == 0)
        return kt_fail(diag, KT_ENOTFOUND, "no ok measurement of kernel '%s'%s%s%s%s in "
                       "the database", o->kernel, o->device ? " on device " : "",
                       o->device ? o->device : "", o->problem ? " for problem " : "",
                       o->problem ? o->problem : "");
    if (r->several)
        return kt_fail(diag, KT_EINVAL, "kernel '%s' has rows of several devices ('%s', "
                       "%s); choose one", o->kernel, r->device, r->others);
    size_t least = kt_analysis_min_rows(o->folds);
    if (r->n < least)
        return kt_fail(diag, KT_EINVAL, "kernel '%s' has %zu ok configurations; an "
                       "analysis with %u folds needs at least %zu", o->kernel, r->n,
                       o->folds, least);
    return KT_OK;
}

/* ------------------------------------------------------------ features */

/* The values of one column of the raw table, for sorting. */
typedef struct column {
    char **v;          /* n x stride, this column at offset col */
    size_t stride, col;
} column;

static bool is_number(const char *s, double *out)
{
    char *end;
    *out = strtod(s, &end);
    return end != s && *end == 0 && isfinite(*out);
}

/* Numbers by value (then text, so "1" and "1.0" stay apart), else text. */
static int value_cmp(const char *x, const char *y, bool numeric)
{
    double a, b;
    if (numeric && is_number(x, &a) && is_number(y, &b) && a != b)
        return a < b ? -1 : 1;
    return strcmp(x, y);
}

static int cmp_num(const void *x, const void *y)
{
    return value_cmp(*(char *const *)x, *(char *const *)y, true);
}

static int cmp_text(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Feature f from the n values vals (borrowed): its distinct values. */
static int make_feature(kt_afeature *f, char **vals, size_t n)
{
    double d;
    f->numeric = true;
    for (size_t i = 0; i < n && f->numeric; i++)
        f->numeric = is_number(vals[i], &d);
    char **s = malloc(n * sizeof *s);
    if (!s)
        return KT_ENOMEM;
    memcpy(s, vals, n * sizeof *s);
    qsort(s, n, sizeof *s, f->numeric ? cmp_num : cmp_text);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || value_cmp(s[k - 1], s[i], f->numeric) != 0)
            s[k++] = s[i];
    f->vals = calloc(k, sizeof *f->vals);
    f->num = malloc(k * sizeof *f->num);
    int rc = f->vals && f->num ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; rc == KT_OK && i < k; i++) {
        f->vals[i] = kt_strdup(s[i]);
        f->num[i] = f->numeric ? strtod(s[i], NULL) : (double)i;
        rc = f->vals[i] ? KT_OK : KT_ENOMEM;
        f->nvals = i + 1;
    }
    free(s);
    return rc;
}

/* The index of v among f's values (it is one of them). */
static uint32_t value_index(const kt_afeature *f, const char *v)
{
    size_t lo = 0, hi = f->nvals;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (value_cmp(f->vals[mid], v, f->numeric) <= 0)
            lo = mid;
        else
            hi = mid;
    }
    return (uint32_t)lo;
}

/* The names of a key and its values into row (names checked against
 * those of the first row, or taken from it). */
typedef struct key_table {
    char **names;          /* of the first row's key */
    size_t n;
} key_table;

static int split_key(const char *key, key_table *t, char **row, const char *what,
                     kt_diag *diag)
{
    char **names, **vals;
    size_t n;
    if (kt_key_fields(key, &names, &vals, &n) != KT_OK)
        return kt_fail(diag, KT_EFORMAT, "bad %s key '%s'", what, key);
    bool same = n == t->n;
    for (size_t i = 0; same && i < n; i++)
        same = strcmp(names[i], t->names[i]) == 0;
    for (size_t i = 0; i < n && same; i++) {
        row[i] = vals[i];
        vals[i] = NULL;
    }
    kt_key_fields_free(names, vals, n);
    return same ? KT_OK : kt_fail(diag, KT_EFORMAT, "%s key '%s' names other parameters "
                                  "than the kernel's first row", what, key);
}

static int first_names(const char *key, key_table *t)
{
    char **vals;
    int rc = kt_key_fields(key, &t->names, &vals, &t->n);
    if (rc == KT_OK)
        kt_key_fields_free(NULL, vals, t->n);
    return rc;
}

/* Every row's values, n x (tuning + problem fields), into *table. */
static int split_rows(const raw_rows *r, key_table *cfg, key_table *prob, char ***table,
                      kt_diag *diag)
{
    if (first_names(r->config[0], cfg) != KT_OK || first_names(r->problem[0], prob) != KT_OK)
        return kt_fail(diag, KT_EFORMAT, "bad keys in the kernel's first row");
    size_t w = cfg->n + prob->n;
    *table = calloc(r->n * w + 1, sizeof **table);
    if (!*table)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    int rc = KT_OK;
    for (size_t i = 0; rc == KT_OK && i < r->n; i++) {
        rc = split_key(r->config[i], cfg, *table + i * w, "configuration", diag);
        if (rc == KT_OK)
            rc = split_key(r->problem[i], prob, *table + i * w + cfg->n, "problem", diag);
    }
    return rc;
}

static void free_feature(kt_afeature *f)
{
    for (size_t v = 0; v < f->nvals; v++)
        free(f->vals[v]);
    free(f->vals);
    free(f->num);
    free(f->name);
}

/* The features that vary among columns [from, to) of the table. */
static int add_features(kt_analysis *a, char **table, size_t w, size_t from, size_t to,
                        char **names, bool tuning, uint32_t *codes)
{
    char **col = malloc(a->n * sizeof *col);
    int rc = col ? KT_OK : KT_ENOMEM;
    for (size_t c = from; rc == KT_OK && c < to; c++) {
        for (size_t i = 0; i < a->n; i++)
            col[i] = table[i * w + c];
        kt_afeature *f = &a->f[a->nf];
        *f = (kt_afeature){.tuning = tuning, .name = kt_strdup(names[c - from])};
        rc = f->name ? make_feature(f, col, a->n) : KT_ENOMEM;
        if (rc != KT_OK || f->nvals < 2) { /* one value: nothing to learn */
            if (rc == KT_OK)
                free_feature(f);
            a->nf += rc != KT_OK; /* freed with the analysis */
            continue;
        }
        for (size_t i = 0; i < a->n; i++)
            codes[i * w + a->nf] = value_index(f, col[i]);
        a->nf++;
    }
    free(col);
    return rc;
}

/* Problem indices: equal keys, equal index. */
static int index_problems(kt_analysis *a, const raw_rows *r)
{
    char **s = malloc(r->n * sizeof *s);
    if (!s)
        return KT_ENOMEM;
    memcpy(s, r->problem, r->n * sizeof *s);
    qsort(s, r->n, sizeof *s, cmp_text);
    size_t k = 0;
    for (size_t i = 0; i < r->n; i++)
        if (k == 0 || strcmp(s[k - 1], s[i]) != 0)
            s[k++] = s[i];
    a->problems = k;
    for (size_t i = 0; i < r->n; i++) {
        char **hit = bsearch(&r->problem[i], s, k, sizeof *s, cmp_text);
        a->prob[i] = (uint32_t)(hit - s);
    }
    free(s);
    return KT_OK;
}

/* Features and codes of the rows; the code table is n x w while built,
 * then packed to n x nf. */
static int code_rows(kt_analysis *a, const raw_rows *r, kt_diag *diag)
{
    key_table cfg = {0}, prob = {0};
    char **table = NULL;
    int rc = split_rows(r, &cfg, &prob, &table, diag);
    size_t w = cfg.n + prob.n;
    if (rc == KT_OK) {
        a->f = calloc(w + 1, sizeof *a->f);
        a->code = malloc((r->n * w + 1) * sizeof *a->code);
        a->prob = malloc(r->n * sizeof *a->prob);
        rc = a->f && a->code && a->prob ? KT_OK : kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    if (rc == KT_OK)
        rc = add_features(a, table, w, 0, cfg.n, cfg.names, true, a->code);
    a->ntuning = a->nf;
    if (rc == KT_OK)
        rc = add_features(a, table, w, cfg.n, w, prob.names, false, a->code);
    if (rc == KT_OK)
        rc = index_problems(a, r);
    for (size_t i = 0; rc == KT_OK && i < r->n; i++)
        memmove(a->code + i * a->nf, a->code + i * w, a->nf * sizeof *a->code);
    if (rc == KT_ENOMEM)
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; table && i < r->n * w; i++)
        free(table[i]);
    free(table);
    kt_key_fields_free(cfg.names, NULL, cfg.n);
    kt_key_fields_free(prob.names, NULL, prob.n);
    return rc;
}

/* Each time's noise with the between-runs noise b of a reading added in
 * quadrature (an unknown one becomes b); b = 0 leaves them as they are. */
static void add_reading_noise(double *noise, size_t n, double b)
{
    for (size_t i = 0; b > 0 && i < n; i++)
        noise[i] = isnan(noise[i]) ? b : hypot(noise[i], b);
}

int kt_analysis_load(kt_db *db, const ktune_analyze_opts *o, kt_analysis **out,
                     kt_diag *diag)
{
    *out = NULL;
    raw_rows r = {0};
    int rc = read_rows(db, o, &r, diag);
    kt_analysis *a = rc == KT_OK ? calloc(1, sizeof *a) : NULL;
    if (rc == KT_OK && !a)
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK) {
        a->n = r.n;
        a->folds = o->folds;
        a->repeats = o->repeats;
        a->kernel = kt_strdup(o->kernel);
        a->device = r.device;
        r.device = NULL;
        memcpy(a->y, r.y, sizeof a->y);
        memset(r.y, 0, sizeof r.y);
        a->noise = r.noise;
        r.noise = NULL;
        a->reading_noise = o->reading_noise;
        add_reading_noise(a->noise, a->n, o->reading_noise);
        rc = a->kernel ? code_rows(a, &r, diag) : kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    if (rc == KT_OK && a->ntuning == 0)
        rc = kt_fail(diag, KT_EINVAL, "kernel '%s': no tuning parameter takes two values "
                     "in its %zu rows", o->kernel, a->n);
    raw_free(&r);
    if (rc != KT_OK) {
        kt_analysis_free(a);
        return rc;
    }
    *out = a;
    return KT_OK;
}

static void free_target(kt_atarget *t)
{
    free(t->imp);
    free(t->inter);
    for (size_t i = 0; i < t->npd; i++)
        free(t->pd[i]);
    free(t->pd);
    free(t->pd_n);
    free(t->pd_feature);
    free(t->cost);
    free(t->cost_sd);
    free(t->cost_worst);
}

void kt_analysis_free(kt_analysis *a)
{
    if (!a)
        return;
    for (size_t i = 0; a->f && i < a->nf; i++)
        free_feature(&a->f[i]);
    free(a->f);
    free(a->code);
    free(a->prob);
    for (int t = 0; t < KTUNE_TARGET_COUNT; t++) {
        free(a->y[t]);
        free_target(&a->t[t]);
    }
    free(a->abl);
    free(a->noise);
    free(a->kernel);
    free(a->device);
    free(a);
}
