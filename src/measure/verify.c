/* verify.c - compare a configuration's outputs with the reference's. */
#include "core/half.h"
#include "measure/measure.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

/* Elements are converted to doubles a chunk at a time, with the type
 * looked at once a chunk, so the comparison runs as a tight loop: a 4096^2
 * half output checked element by element took 0.3 s on the H100 host,
 * more than the GPU spent timing the kernel. */
#define CHUNK 2048

#define CONVERT(type)                                                          \
    for (size_t i = 0; i < n; i++)                                             \
        out[i] = (double)((const type *)p)[from + i];                          \
    break

/* Elements [from, from + n) of p (type t) as doubles; n <= CHUNK. */
static void convert(kt_dtype t, const void *p, size_t from, size_t n, double *out)
{
    float f[CHUNK];
    switch (t) {
    case KT_DT_INT8: CONVERT(int8_t);
    case KT_DT_UINT8: CONVERT(uint8_t);
    case KT_DT_INT16: CONVERT(int16_t);
    case KT_DT_UINT16: CONVERT(uint16_t);
    case KT_DT_INT32: CONVERT(int32_t);
    case KT_DT_UINT32: CONVERT(uint32_t);
    case KT_DT_INT64: CONVERT(int64_t);
    case KT_DT_UINT64: CONVERT(uint64_t);
    case KT_DT_FLOAT: CONVERT(float);
    case KT_DT_DOUBLE: CONVERT(double);
    case KT_DT_HALF:
    case KT_DT_BF16:
        (t == KT_DT_HALF ? kt_half_to_float_n : kt_bf16_to_float_n)((const uint16_t *)p + from,
                                                                    f, n);
        for (size_t i = 0; i < n; i++)
            out[i] = f[i];
        break;
    case KT_DT_E4M3:
        kt_e4m3_to_float_n((const uint8_t *)p + from, f, n);
        for (size_t i = 0; i < n; i++)
            out[i] = f[i];
        break;
    }
}
#undef CONVERT

bool kt_has_nan(kt_dtype t, const void *data, size_t count)
{
    if (t < KT_DT_FLOAT)
        return false;
    double v[CHUNK];
    bool nan = false;
    for (size_t at = 0; at < count && !nan; at += CHUNK) {
        size_t n = count - at < CHUNK ? count - at : CHUNK;
        convert(t, data, at, n, v);
        for (size_t i = 0; i < n; i++)
            nan |= isnan(v[i]);
    }
    return nan;
}

/* The RMS of the reference, so that elements near zero do not demand
 * absurd precision. */
double kt_verify_scale(kt_dtype t, const void *ref, size_t count)
{
    double v[CHUNK], sum = 0;
    for (size_t at = 0; at < count; at += CHUNK) {
        size_t n = count - at < CHUNK ? count - at : CHUNK;
        convert(t, ref, at, n, v);
        for (size_t i = 0; i < n; i++)
            sum += v[i] * v[i];
    }
    return count ? sqrt(sum / (double)count) : 0;
}

/* One chunk: the largest error goes into *max_err; returns the index of
 * the first element out of tolerance, or n. */
static size_t compare_chunk(const double *g, const double *r, size_t n, kt_check check,
                            double threshold, double scale, double *max_err)
{
    bool relative = check == KT_CHECK_RELATIVE;
    double m = *max_err;
    size_t bad = n;
    for (size_t i = 0; i < n; i++) {
        /* fmax(|r|, scale), written out: fmax is a call into libm */
        double a = fabs(r[i]), s = a >= scale || isnan(scale) ? a : scale;
        double diff = fabs(g[i] - r[i]);
        double tol = relative ? threshold * s : threshold;
        double err = relative && s > 0 ? diff / s : diff;
        if (isnan(g[i]) || isnan(err))
            err = INFINITY;
        m = err > m ? err : m;
        if (!(diff <= tol) && bad == n)
            bad = i;
    }
    *max_err = m;
    return bad;
}

/* What one comparison checks, and what a range of it found. */
typedef struct slice {
    kt_dtype t;
    kt_check check;
    double threshold, scale;
    const void *got, *ref;
    size_t from, to;          /* the elements [from, to) */
    atomic_bool *failing;     /* set on the first element out of tolerance */
    double max_err;
    size_t bad;               /* the first out of tolerance; to when none */
    double bad_got, bad_ref;  /* its values */
} slice;

static void compare_slice(slice *sl)
{
    double g[CHUNK], r[CHUNK];
    sl->max_err = 0;
    sl->bad = sl->to;
    for (size_t at = sl->from; at < sl->to; at += CHUNK) {
        size_t n = sl->to - at < CHUNK ? sl->to - at : CHUNK;
        convert(sl->t, sl->got, at, n, g);
        convert(sl->t, sl->ref, at, n, r);
        size_t bad = compare_chunk(g, r, n, sl->check, sl->threshold, sl->scale,
                                   &sl->max_err);
        if (sl->bad == sl->to && bad < n) {
            sl->bad = at + bad;
            sl->bad_got = g[bad];
            sl->bad_ref = r[bad];
            if (sl->failing)
                atomic_store(sl->failing, true);
        }
    }
}

/* The slices' verdict as kt_verify gives it: the largest error of all, the
 * first element out of tolerance in the first slice that has one. */
static bool slices_verdict(const slice *sl, int n, double *max_err, char *detail,
                           size_t detail_len)
{
    bool ok = true;
    *max_err = 0;
    for (int i = 0; i < n; i++) {
        *max_err = sl[i].max_err > *max_err ? sl[i].max_err : *max_err;
        if (ok && sl[i].bad < sl[i].to) {
            snprintf(detail, detail_len, "element %zu is %.9g, the reference has %.9g",
                     sl[i].bad, sl[i].bad_got, sl[i].bad_ref);
            ok = false;
        }
    }
    return ok;
}

bool kt_verify_scaled(kt_dtype t, kt_check check, double threshold, double scale,
                      const void *got, const void *ref, size_t count, double *max_err,
                      char *detail, size_t detail_len)
{
    *max_err = 0;
    if (check == KT_CHECK_NONE)
        return true;
    slice sl = {.t = t, .check = check, .threshold = threshold, .scale = scale,
                .got = got, .ref = ref, .to = count};
    compare_slice(&sl);
    return slices_verdict(&sl, 1, max_err, detail, detail_len);
}

/* ------------------------------------------------- in the background */

struct kt_verify_job {
    atomic_bool failing;
    int nslices;              /* 0: KT_CHECK_NONE, nothing to compare */
    slice sl[KT_VERIFY_MAX_THREADS];
    bool started[KT_VERIFY_MAX_THREADS]; /* a thread compares it; else done here */
    pthread_t threads[KT_VERIFY_MAX_THREADS];
};

static void *slice_thread(void *arg)
{
    compare_slice(arg);
    return NULL;
}

int kt_verify_start(kt_dtype t, kt_check check, double threshold, double scale,
                    const void *got, const void *ref, size_t count, int nthreads,
                    kt_verify_job **out)
{
    kt_verify_job *job = calloc(1, sizeof *job);
    if (!(*out = job))
        return KT_ENOMEM;
    atomic_init(&job->failing, false);
    int n = nthreads < 1 ? 1 : nthreads > KT_VERIFY_MAX_THREADS ? KT_VERIFY_MAX_THREADS
                                                                : nthreads;
    job->nslices = check == KT_CHECK_NONE ? 0 : n;
    for (int i = 0; i < job->nslices; i++) {
        job->sl[i] = (slice){.t = t, .check = check, .threshold = threshold,
                             .scale = scale, .got = got, .ref = ref,
                             .from = count * i / n, .to = count * (i + 1) / n,
                             .failing = &job->failing};
        job->started[i] =
            pthread_create(&job->threads[i], NULL, slice_thread, &job->sl[i]) == 0;
        if (!job->started[i]) /* no thread to be had: compare it here */
            compare_slice(&job->sl[i]);
    }
    return KT_OK;
}

bool kt_verify_failing(kt_verify_job *job)
{
    return job && atomic_load(&job->failing);
}

bool kt_verify_finish(kt_verify_job *job, double *max_err, char *detail, size_t detail_len)
{
    for (int i = 0; i < job->nslices; i++)
        if (job->started[i])
            pthread_join(job->threads[i], NULL);
    bool ok = slices_verdict(job->sl, job->nslices, max_err, detail, detail_len);
    free(job);
    return ok;
}

bool kt_verify(kt_dtype t, kt_check check, double threshold, const void *got,
               const void *ref, size_t count, double *max_err, char *detail,
               size_t detail_len)
{
    double scale = check == KT_CHECK_RELATIVE ? kt_verify_scale(t, ref, count) : 0;
    return kt_verify_scaled(t, check, threshold, scale, got, ref, count, max_err, detail,
                            detail_len);
}
