/* transfer.c - the public transfer across devices (include/ktune.h) over
 * tune/transfer.h: the recordings read from their files, the model and the
 * leave-one-device-out comparison. */
#include "core/util.h"
#include "store/recording.h"
#include "tune/transfer.h"

#include <stdlib.h>

struct ktune_transfer_bench {
    kt_transfer_bench b;
};

/* The n recordings at paths into recs (n entries, NULL-filled by the
 * caller; each freed by close_all). */
static int open_all(const char *const *paths, size_t n, const char *cache_dir,
                    kt_recording **recs, kt_diag *diag)
{
    if (!paths || n == 0)
        return kt_fail(diag, KT_EINVAL, "transfer needs at least one recording");
    kt_recording_opts ro = {.cache_dir = cache_dir};
    int rc = KT_OK;
    for (size_t i = 0; rc == KT_OK && i < n; i++)
        rc = kt_recording_open(paths[i], &ro, &recs[i], diag);
    return rc;
}

static void close_all(kt_recording **recs, size_t n)
{
    for (size_t i = 0; recs && i < n; i++)
        kt_recording_free(recs[i]);
    free(recs);
}

int ktune_transfer_open(const char *const *paths, size_t n, const char *cache_dir,
                        ktune_transfer **out, ktune_diag *diag)
{
    if (!out)
        return kt_fail(diag, KT_EINVAL, "ktune_transfer_open: out is NULL");
    *out = NULL;
    kt_recording **recs = calloc(n ? n : 1, sizeof *recs);
    int rc = recs ? open_all(paths, n, cache_dir, recs, diag)
                  : kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK)
        rc = kt_transfer_new((const kt_recording *const *)recs, paths, n, out, diag);
    close_all(recs, n);
    return rc;
}

void ktune_transfer_free(ktune_transfer *t) { kt_transfer_free(t); }
const char *ktune_transfer_kernel(const ktune_transfer *t)
{
    return t ? kt_transfer_kernel(t) : NULL;
}
size_t ktune_transfer_ndevices(const ktune_transfer *t)
{
    return t ? kt_transfer_ndevices(t) : 0;
}
size_t ktune_transfer_count(const ktune_transfer *t) { return t ? kt_transfer_count(t) : 0; }

const char *ktune_transfer_device(const ktune_transfer *t, size_t i)
{
    return i < ktune_transfer_ndevices(t) ? kt_transfer_device(t, i) : NULL;
}

int ktune_transfer_config(const ktune_transfer *t, size_t i, const char **config,
                          double *score)
{
    if (i >= ktune_transfer_count(t))
        return KT_EINVAL;
    double s;
    const char *key = kt_transfer_at(t, i, &s);
    if (config)
        *config = key;
    if (score)
        *score = s;
    return KT_OK;
}

/* ------------------------------------------------------------ benchmark */

void ktune_transfer_bench_opts_init(ktune_transfer_bench_opts *o)
{
    if (!o)
        return;
    static const double BUDGETS[] = {10, 20};
    *o = (ktune_transfer_bench_opts){.size = sizeof *o, .budgets = BUDGETS,
                                     .nbudgets = KT_ARRAY_LEN(BUDGETS), .seeds = 20,
                                     .top = 10};
}

int ktune_transfer_benchmark(const ktune_transfer_bench_opts *o, ktune_transfer_bench **out,
                             ktune_diag *diag)
{
    if (out)
        *out = NULL;
    if (!o || !out)
        return kt_fail(diag, KT_EINVAL, "ktune_transfer_benchmark: %s is NULL",
                       o ? "out" : "o");
    if (o->size != sizeof *o)
        return kt_fail(diag, KT_EINVAL, "ktune_transfer_benchmark: options of %zu bytes, "
                       "not %zu (fill them with ktune_transfer_bench_opts_init)", o->size,
                       sizeof *o);
    kt_recording **recs = calloc(o->npaths ? o->npaths : 1, sizeof *recs);
    ktune_transfer_bench *b = calloc(1, sizeof *b);
    int rc = recs && b ? open_all(o->paths, o->npaths, o->cache_dir, recs, diag)
                       : kt_fail(diag, KT_ENOMEM, "out of memory");
    kt_transfer_bench_opts bo = {.budgets = o->budgets, .nbudgets = o->nbudgets,
                                 .seeds = o->seeds, .top = o->top};
    if (rc == KT_OK)
        rc = kt_transfer_bench_run((const kt_recording *const *)recs, o->paths, o->npaths,
                                   &bo, &b->b, diag);
    close_all(recs, o->npaths);
    if (rc != KT_OK) {
        free(b);
        return rc;
    }
    *out = b;
    return KT_OK;
}

void ktune_transfer_bench_free(ktune_transfer_bench *b)
{
    if (!b)
        return;
    kt_transfer_bench_clear(&b->b);
    free(b);
}

const char *ktune_transfer_bench_kernel(const ktune_transfer_bench *b)
{
    return b ? b->b.kernel : NULL;
}

size_t ktune_transfer_bench_count(const ktune_transfer_bench *b)
{
    return b ? b->b.nrows : 0;
}

const ktune_transfer_row *ktune_transfer_bench_row(const ktune_transfer_bench *b, size_t i)
{
    return b && i < b->b.nrows ? &b->b.rows[i] : NULL;
}
