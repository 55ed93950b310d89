/* retest.c - two recordings of the same configurations read against each
 * other (retest.h): b's ok rows are held by key, sorted; a's are streamed
 * and paired with them; then each reading's noise, offset and spread. */
#include "store/retest.h"

#include "core/util.h"
#include "store/export.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { R_TIME, R_ENERGY, R_POWER, R_N };

/* One ok row: its key (device, kernel, problem and configuration joined
 * by '\n', which no key holds) and its readings (NAN: none). */
typedef struct reading {
    char *key;
    size_t group_len;        /* the length of the key's device, kernel and
                                problem part */
    double v[R_N];
} reading;

typedef struct rows {
    reading *r;
    size_t n, cap;
    bool oom;
} rows;

typedef struct pairing {
    const rows *b;
    double *x[R_N], *y[R_N]; /* a's and b's reading of each pair */
    size_t n[R_N];           /* pairs with each reading in both */
    size_t np, cap;          /* pairs; room for this many */
    char *group_key;         /* the first pair's key, up to its group_len */
    char *group, *other;     /* the first pair's device, kernel and problem
                                as text; another pair's, if any (refused) */
    bool oom;
} pairing;

static char *row_key(const kt_db_row *row, size_t *group_len)
{
    char *k = kt_asprintf("%s\n%s\n%s\n%s", row->device, row->kernel, row->problem,
                          row->config);
    if (k)
        *group_len = strlen(k) - strlen(row->config) - 1;
    return k;
}

static void readings_of(const kt_result *r, double *v)
{
    v[R_TIME] = r->time_ms;
    v[R_ENERGY] = r->energy_j;
    v[R_POWER] = r->power_w;
}

static int collect(void *user, const kt_db_row *row)
{
    rows *s = user;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        reading *r = realloc(s->r, cap * sizeof *r);
        if (!r)
            return s->oom = true;
        s->r = r, s->cap = cap;
    }
    reading *e = &s->r[s->n];
    if (!(e->key = row_key(row, &e->group_len)))
        return s->oom = true;
    readings_of(&row->result, e->v);
    s->n++;
    return 0;
}

static int by_key(const void *x, const void *y)
{
    return strcmp(((const reading *)x)->key, ((const reading *)y)->key);
}

static bool grow_pairs(pairing *p)
{
    size_t cap = p->cap ? 2 * p->cap : 256;
    for (int t = 0; t < R_N; t++) {
        double *x = realloc(p->x[t], cap * sizeof *x);
        if (x)
            p->x[t] = x;
        double *y = realloc(p->y[t], cap * sizeof *y);
        if (y)
            p->y[t] = y;
        if (!x || !y)
            return false;
    }
    p->cap = cap;
    return true;
}

/* Keep the first pair's device, kernel and problem, and another's if the
 * pairs have two; false when out of memory. */
static bool note_group(pairing *p, const kt_db_row *row, const reading *a)
{
    bool same = p->group_key && strlen(p->group_key) == a->group_len &&
                memcmp(p->group_key, a->key, a->group_len) == 0;
    if (same || p->other)
        return true;
    char **text = p->group_key ? &p->other : &p->group;
    *text = kt_asprintf("%s, %s, %s", row->device, row->kernel, row->problem);
    if (!p->group_key)
        p->group_key = kt_asprintf("%.*s", (int)a->group_len, a->key);
    return *text && p->group_key;
}

static int pair(void *user, const kt_db_row *row)
{
    pairing *p = user;
    reading a = {0};
    if (!(a.key = row_key(row, &a.group_len)))
        return p->oom = true;
    readings_of(&row->result, a.v);
    const reading *b = p->b->n ? bsearch(&a, p->b->r, p->b->n, sizeof a, by_key) : NULL;
    bool ok = !b || ((p->np < p->cap || grow_pairs(p)) && note_group(p, row, &a));
    if (ok && b) {
        p->np++;
        for (int t = 0; t < R_N; t++)
            if (a.v[t] > 0 && b->v[t] > 0) {
                p->x[t][p->n[t]] = a.v[t];
                p->y[t][p->n[t]++] = b->v[t];
            }
    }
    free(a.key);
    return ok ? 0 : (p->oom = true);
}

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The statistics of n pairs (x[i], y[i]), all readings positive; ratio:
 * room for n. */
static kt_retest_stat stat_of(const double *x, const double *y, size_t n, double *ratio)
{
    kt_retest_stat s = {.pairs = n, .rms = NAN, .offset = NAN, .spread = NAN,
                        .r2_ceiling = NAN};
    if (n == 0)
        return s;
    double d2 = 0, sum = 0, dev2 = 0;
    for (size_t i = 0; i < n; i++) {
        double d = 2 * (x[i] - y[i]) / (x[i] + y[i]);
        d2 += d * d;
        sum += x[i] + y[i];
        ratio[i] = x[i] / y[i];
    }
    double mean = sum / (2.0 * (double)n);
    for (size_t i = 0; i < n; i++)
        dev2 += (x[i] - mean) * (x[i] - mean) + (y[i] - mean) * (y[i] - mean);
    qsort(ratio, n, sizeof *ratio, by_value);
    s.rms = sqrt(d2 / (double)n);
    s.offset = (n % 2 ? ratio[n / 2] : (ratio[n / 2 - 1] + ratio[n / 2]) / 2) - 1;
    s.spread = sqrt(dev2 / (2.0 * (double)n - 1)) / mean;
    if (n >= 3 && s.spread > 0)
        s.r2_ceiling = 1 - s.rms * s.rms / 2 / (s.spread * s.spread);
    return s;
}

static int summarize(const pairing *p, kt_retest *out, kt_diag *diag)
{
    if (p->np == 0)
        return kt_fail(diag, KT_ENOTFOUND, "no configuration is ok in both recordings");
    if (p->other)
        return kt_fail(diag, KT_EINVAL, "the configurations in both are of more than one "
                       "device, kernel and problem (%s; %s): choose one", p->group,
                       p->other);
    double *ratio = malloc(p->np * sizeof *ratio);
    if (!ratio)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    kt_retest_stat *to[R_N] = {&out->time, &out->energy, &out->power};
    for (int t = 0; t < R_N; t++)
        *to[t] = stat_of(p->x[t], p->y[t], p->n[t], ratio);
    free(ratio);
    return KT_OK;
}

int kt_db_retest(kt_db *a, kt_db *b, const kt_db_filter *f, kt_retest *out,
                 kt_diag *diag)
{
    kt_db_filter ok = f ? *f : (kt_db_filter){0};
    ok.ok_only = true;
    rows rb = {0};
    pairing p = {.b = &rb};
    uint64_t n = 0;
    int rc = kt_db_query(b, &ok, KT_ROWS_ALL, collect, &rb, &n, diag);
    if (rc == KT_OK && !rb.oom && rb.n) {
        qsort(rb.r, rb.n, sizeof *rb.r, by_key);
        rc = kt_db_query(a, &ok, KT_ROWS_ALL, pair, &p, &n, diag);
    }
    if (rc == KT_OK)
        rc = rb.oom || p.oom ? kt_fail(diag, KT_ENOMEM, "out of memory")
                             : summarize(&p, out, diag);
    for (size_t i = 0; i < rb.n; i++)
        free(rb.r[i].key);
    free(rb.r);
    for (int t = 0; t < R_N; t++) {
        free(p.x[t]);
        free(p.y[t]);
    }
    free(p.group_key);
    free(p.group);
    free(p.other);
    return rc;
}
