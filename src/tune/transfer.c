/* transfer.c - the mean fraction of the optimum over source devices
 * (transfer.h).
 *
 * Why this model: on the public recordings (bench/data/public), held out
 * in turn, the mean fraction ranked the held-out device's configurations
 * better than the mean normalised rank or the worst case over devices (a
 * rank treats a configuration 1 % off the optimum like one 30 % off when
 * many lie between them); docs/ANALYSIS.md has the table.  Every source
 * recording is exhaustive, so a regressor over the parameters would only
 * be needed for configurations no source recorded, which rank last. */
#include "tune/transfer.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ktune_transfer {
    char *kernel;
    char **params;          /* [nparams] tuning parameter names, spec order */
    size_t nparams;
    char **devices;         /* [ndev] source devices */
    size_t ndev;
    char **keys;            /* [n] configuration keys, best score first */
    double *score;          /* [n] mean fraction of the optimum, 0 to 1 */
    size_t n;
};

/* One recorded configuration of one source device. */
typedef struct entry {
    const char *key;        /* owned by the recording */
    size_t dev;
    double frac;            /* of that device's optimum; 0: failed */
} entry;

/* Ranked configuration while building. */
typedef struct scored {
    const char *key;
    double score;
    size_t first, count;    /* its entries: e[first .. first + count) */
} scored;

/* How many of the best by mean the portfolio reorders (measured on the
 * public recordings: 200 and 2,000 did alike, 20 and 50 worse). */
#define POOL 200

static int by_key_dev(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->dev > y->dev) - (x->dev < y->dev);
}

static int by_score(const void *a, const void *b)
{
    const scored *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return strcmp(x->key, y->key);
}

static bool ran(const kt_result *r)
{
    return r->status == KT_STATUS_OK && r->time_ms > 0 && isfinite(r->time_ms);
}

/* ------------------------------------------------------------- checks */

/* Recording i against the first: same kernel and parameters, a device of
 * its own. */
static int check_source(const kt_transfer *t, const kt_recording *rec, const char *path,
                        kt_diag *diag)
{
    const kt_spec *s = kt_recording_spec(rec);
    const char *dev = kt_replay_device(kt_recording_replay(rec));
    if (strcmp(s->name, t->kernel) != 0)
        return kt_fail(diag, KT_EFORMAT, "%s: a recording of kernel '%s', not '%s' as the "
                       "first; transfer learns one kernel at a time", path, s->name,
                       t->kernel);
    int rc = kt_transfer_check(t, s, diag);
    if (rc != KT_OK) {
        kt_diag_prefix(diag, path);
        return rc;
    }
    for (size_t d = 0; d < t->ndev; d++)
        if (strcmp(t->devices[d], dev) == 0)
            return kt_fail(diag, KT_EFORMAT, "%s: device '%s' is recorded twice; give "
                           "each device once", path, dev);
    return KT_OK;
}

int kt_transfer_check(const kt_transfer *t, const kt_spec *spec, kt_diag *diag)
{
    if (spec->nparams != t->nparams)
        return kt_fail(diag, KT_EFORMAT, "%zu tuning parameters, not %zu as in the "
                       "recordings the transfer learnt from", spec->nparams, t->nparams);
    for (size_t i = 0; i < t->nparams; i++)
        if (strcmp(spec->params[i].name, t->params[i]) != 0)
            return kt_fail(diag, KT_EFORMAT, "tuning parameter %zu is '%s', not '%s' as "
                           "in the recordings the transfer learnt from", i + 1,
                           spec->params[i].name, t->params[i]);
    return KT_OK;
}

/* ----------------------------------------------------------- building */

/* The kernel and parameters of the first recording. */
static int take_names(kt_transfer *t, const kt_recording *rec, size_t n, kt_diag *diag)
{
    const kt_spec *s = kt_recording_spec(rec);
    t->kernel = kt_strdup(s->name);
    t->params = calloc(s->nparams ? s->nparams : 1, sizeof *t->params);
    t->devices = calloc(n, sizeof *t->devices);
    if (!t->kernel || !t->params || !t->devices)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->nparams; i++, t->nparams++)
        if (!(t->params[i] = kt_strdup(s->params[i].name)))
            return kt_fail(diag, KT_ENOMEM, "out of memory");
    return KT_OK;
}

/* The rows of source dev into e (from *ne on), as fractions of its
 * optimum. */
static int add_source(kt_transfer *t, const kt_replay *rp, const char *path, entry *e,
                      size_t *ne, kt_diag *diag)
{
    double best = INFINITY;
    kt_result r;
    for (size_t i = 0; i < kt_replay_size(rp); i++)
        if (kt_replay_row(rp, i, &r) && ran(&r) && r.time_ms < best)
            best = r.time_ms;
    if (!isfinite(best))
        return kt_fail(diag, KT_EEMPTY, "%s: no configuration ran correctly; nothing to "
                       "learn from", path);
    for (size_t i = 0; i < kt_replay_size(rp); i++) {
        const char *key = kt_replay_row(rp, i, &r);
        e[(*ne)++] = (entry){key, t->ndev, ran(&r) ? best / r.time_ms : 0};
    }
    if (!(t->devices[t->ndev++] = kt_strdup(kt_replay_device(rp))))
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    return KT_OK;
}

/* The picks' value when cand joins them: the sum over devices of the
 * best fraction among them (best[d] so far). */
static double gain(const double *best, const double *cand, size_t ndev)
{
    double sum = 0;
    for (size_t d = 0; d < ndev; d++)
        sum += best[d] > cand[d] ? best[d] : cand[d];
    return sum;
}

/* Reorder the first np of s (best mean first) greedily, so that the best
 * of the first k is good on as many devices as can be: each next one
 * raises most the mean over devices of the best fraction so far (ties,
 * and once every device has its optimum among them, by mean).  Measured k
 * at a time on a new device, a set that covers the sources' different
 * optima beats the k best on average (docs/ANALYSIS.md, transfer). */
static int portfolio(scored *s, size_t np, const entry *e, size_t ndev, kt_diag *diag)
{
    double *fr = calloc(np * ndev + ndev, sizeof *fr);
    if (!fr)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    double *best = fr + np * ndev;
    for (size_t i = 0; i < np; i++)
        for (size_t j = 0; j < s[i].count; j++)
            fr[i * ndev + e[s[i].first + j].dev] = e[s[i].first + j].frac;
    for (size_t k = 0; k < np; k++) {
        size_t pick = k;
        double top = -1;
        for (size_t i = k; i < np; i++) {
            double g = gain(best, fr + i * ndev, ndev);
            if (g > top + 1e-12 || (g > top - 1e-12 && by_score(&s[i], &s[pick]) < 0)) {
                top = g;
                pick = i;
            }
        }
        scored tmp = s[k];
        s[k] = s[pick];
        s[pick] = tmp;
        for (size_t d = 0; d < ndev; d++) {
            double f = fr[pick * ndev + d];
            fr[pick * ndev + d] = fr[k * ndev + d];
            fr[k * ndev + d] = f;
            best[d] = best[d] > f ? best[d] : f;
        }
    }
    free(fr);
    return KT_OK;
}

/* Distinct keys of e (sorted by key, device) with their mean fraction over
 * the ndev devices, best first, into t. */
static int rank_entries(kt_transfer *t, entry *e, size_t ne, kt_diag *diag)
{
    qsort(e, ne, sizeof *e, by_key_dev);
    scored *s = malloc((ne ? ne : 1) * sizeof *s);
    if (!s)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < ne; i++) {
        bool same_key = n && strcmp(s[n - 1].key, e[i].key) == 0;
        if (same_key && e[i].dev == e[i - 1].dev)
            continue; /* a device that recorded a key twice counts once */
        if (!same_key)
            s[n++] = (scored){e[i].key, 0, i, 0};
        s[n - 1].score += e[i].frac / (double)t->ndev;
        s[n - 1].count++;
    }
    qsort(s, n, sizeof *s, by_score);
    int rc = portfolio(s, n < POOL ? n : POOL, e, t->ndev, diag);
    t->keys = calloc(n ? n : 1, sizeof *t->keys);
    t->score = malloc((n ? n : 1) * sizeof *t->score);
    if (rc == KT_OK && (!t->keys || !t->score))
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; rc == KT_OK && i < n; i++, t->n++) {
        t->score[i] = s[i].score;
        if (!(t->keys[i] = kt_strdup(s[i].key)))
            rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    free(s);
    return rc;
}

static size_t total_rows(const kt_recording *const *recs, size_t n)
{
    size_t rows = 0;
    for (size_t i = 0; i < n; i++)
        rows += kt_replay_size(kt_recording_replay(recs[i]));
    return rows;
}

int kt_transfer_new(const kt_recording *const *recs, const char *const *paths, size_t n,
                    kt_transfer **out, kt_diag *diag)
{
    *out = NULL;
    if (n == 0)
        return kt_fail(diag, KT_EINVAL, "transfer needs at least one recording");
    kt_transfer *t = calloc(1, sizeof *t);
    entry *e = malloc((total_rows(recs, n) + 1) * sizeof *e);
    size_t ne = 0;
    int rc = t && e ? take_names(t, recs[0], n, diag)
                    : kt_fail(diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; rc == KT_OK && i < n; i++) {
        rc = check_source(t, recs[i], paths[i], diag);
        if (rc == KT_OK)
            rc = add_source(t, kt_recording_replay(recs[i]), paths[i], e, &ne, diag);
    }
    if (rc == KT_OK)
        rc = rank_entries(t, e, ne, diag);
    free(e);
    if (rc != KT_OK) {
        kt_transfer_free(t);
        return rc;
    }
    *out = t;
    return KT_OK;
}

void kt_transfer_free(kt_transfer *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nparams; i++)
        free(t->params[i]);
    for (size_t i = 0; i < t->ndev; i++)
        free(t->devices[i]);
    for (size_t i = 0; i < t->n; i++)
        free(t->keys[i]);
    free(t->params);
    free(t->devices);
    free(t->keys);
    free(t->score);
    free(t->kernel);
    free(t);
}

/* ----------------------------------------------------------- queries */

const char *kt_transfer_kernel(const kt_transfer *t) { return t->kernel; }
size_t kt_transfer_ndevices(const kt_transfer *t) { return t->ndev; }
const char *kt_transfer_device(const kt_transfer *t, size_t i) { return t->devices[i]; }
size_t kt_transfer_count(const kt_transfer *t) { return t->n; }

const char *kt_transfer_at(const kt_transfer *t, size_t i, double *score)
{
    *score = t->score[i];
    return t->keys[i];
}

void kt_transfer_starts(const kt_transfer *t, const kt_spec *spec, kt_space *space,
                        size_t max, uint16_t *out, size_t *n)
{
    size_t np = spec->nparams;
    kt_diag ignored = {{0}};
    *n = 0;
    for (size_t i = 0; i < t->n && *n < max && t->score[i] > 0; i++) {
        uint16_t *cfg = out + *n * np;
        if (kt_spec_config_parse(spec, t->keys[i], cfg, &ignored) == KT_OK &&
            kt_space_is_valid(space, cfg))
            ++*n;
    }
}
