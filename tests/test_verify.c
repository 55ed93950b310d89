/* test_verify.c - output verification (src/measure/verify.c): the chunked
 * comparison gives exactly what an element-by-element comparison gives
 * (verdict, largest error, first element out of tolerance) for every
 * element type, both checks, NaN, infinities and sizes around the chunk
 * and table thresholds; and it is several times faster on a large half
 * output, the case that cost the GPU tuner 0.3 s a configuration. */
#include "core/half.h"
#include "core/util.h"
#include "measure/measure.h"
#include "test.h"

#include <stdint.h>
#include <time.h>

/* ------------------------------------------------ the obvious oracle */

static double oracle_element(kt_dtype t, const void *p, size_t i)
{
    switch (t) {
    case KT_DT_INT8: return ((const int8_t *)p)[i];
    case KT_DT_UINT8: return ((const uint8_t *)p)[i];
    case KT_DT_INT16: return ((const int16_t *)p)[i];
    case KT_DT_UINT16: return ((const uint16_t *)p)[i];
    case KT_DT_INT32: return ((const int32_t *)p)[i];
    case KT_DT_UINT32: return ((const uint32_t *)p)[i];
    case KT_DT_INT64: return (double)((const int64_t *)p)[i];
    case KT_DT_UINT64: return (double)((const uint64_t *)p)[i];
    case KT_DT_FLOAT: return ((const float *)p)[i];
    case KT_DT_DOUBLE: return ((const double *)p)[i];
    case KT_DT_HALF: return kt_half_to_float(((const uint16_t *)p)[i]);
    case KT_DT_BF16: return kt_bf16_to_float(((const uint16_t *)p)[i]);
    case KT_DT_E4M3: return kt_e4m3_to_float(((const uint8_t *)p)[i]);
    }
    return NAN;
}

/* The comparison's definition, one element at a time: *bad is the first
 * element out of tolerance (count when none). */
static void oracle(kt_dtype t, kt_check check, double threshold, const void *got,
                   const void *ref, size_t count, double *max_err, size_t *bad)
{
    double sum = 0, scale = 0;
    for (size_t i = 0; i < count; i++)
        sum += oracle_element(t, ref, i) * oracle_element(t, ref, i);
    if (check == KT_CHECK_RELATIVE && count)
        scale = sqrt(sum / (double)count);
    *max_err = 0;
    *bad = count;
    for (size_t i = 0; i < count; i++) {
        double g = oracle_element(t, got, i), r = oracle_element(t, ref, i);
        double s = fmax(fabs(r), scale), err = fabs(g - r);
        double tol = check == KT_CHECK_RELATIVE ? threshold * s : threshold;
        if (check == KT_CHECK_RELATIVE && s > 0)
            err /= s;
        if (isnan(g) || isnan(err))
            err = INFINITY;
        *max_err = fmax(*max_err, err);
        if (*bad == count && !(fabs(g - r) <= tol))
            *bad = i;
    }
}

/* ------------------------------------------------------------- data */

/* Random values of type t near 1, a few far off. */
static void fill(kt_dtype t, void *p, size_t count, kt_rng *rng)
{
    for (size_t i = 0; i < count; i++) {
        double v = (kt_rng_unit(rng) - 0.5) * 4;
        switch (t) {
        case KT_DT_INT8: ((int8_t *)p)[i] = (int8_t)(v * 30); break;
        case KT_DT_UINT8: ((uint8_t *)p)[i] = (uint8_t)(v * 30 + 64); break;
        case KT_DT_INT16: ((int16_t *)p)[i] = (int16_t)(v * 1000); break;
        case KT_DT_UINT16: ((uint16_t *)p)[i] = (uint16_t)(v * 1000 + 4000); break;
        case KT_DT_INT32: ((int32_t *)p)[i] = (int32_t)(v * 1e6); break;
        case KT_DT_UINT32: ((uint32_t *)p)[i] = (uint32_t)(v * 1e6 + 4e6); break;
        case KT_DT_INT64: ((int64_t *)p)[i] = (int64_t)(v * 1e12); break;
        case KT_DT_UINT64: ((uint64_t *)p)[i] = (uint64_t)(v * 1e12 + 4e12); break;
        case KT_DT_FLOAT: ((float *)p)[i] = (float)v; break;
        case KT_DT_DOUBLE: ((double *)p)[i] = v; break;
        case KT_DT_HALF: ((uint16_t *)p)[i] = kt_half_from_float((float)v); break;
        case KT_DT_BF16: ((uint16_t *)p)[i] = kt_bf16_from_float((float)v); break;
        case KT_DT_E4M3: ((uint8_t *)p)[i] = kt_e4m3_from_float((float)v); break;
        }
    }
}

/* got = ref, then element i gets a random bit flipped in its low byte. */
static void disturb(kt_dtype t, void *got, const void *ref, size_t count, size_t i,
                    kt_rng *rng)
{
    size_t size = kt_dtype_size(t);
    memcpy(got, ref, count * size);
    ((unsigned char *)got)[i * size] ^= (unsigned char)(1u << kt_rng_below(rng, 8));
}

static void check_same(kt_dtype t, kt_check check, double threshold, const void *got,
                       const void *ref, size_t count)
{
    double want_err, err;
    size_t bad;
    char detail[200] = "", expect[200];
    oracle(t, check, threshold, got, ref, count, &want_err, &bad);
    bool ok = kt_verify(t, check, threshold, got, ref, count, &err, detail, sizeof detail);
    CHECK(ok == (bad == count));
    CHECK(err == want_err || (isnan(err) && isnan(want_err)));
    if (bad < count) {
        snprintf(expect, sizeof expect, "element %zu is %.9g, the reference has %.9g", bad,
                 oracle_element(t, got, bad), oracle_element(t, ref, bad));
        CHECK_STR(detail, expect);
    }
}

/* ------------------------------------------------------------ tests */

static void test_chunked_verification_matches_the_oracle(void)
{
    static const size_t SIZES[] = {1, 7, 2047, 2048, 2049, 5000, 65536, 70001};
    kt_rng rng;
    kt_rng_seed(&rng, 5);
    for (int t = KT_DT_INT8; t <= KT_DT_E4M3; t++) {
        for (size_t k = 0; k < KT_ARRAY_LEN(SIZES); k++) {
            size_t n = SIZES[k], size = kt_dtype_size((kt_dtype)t);
            char *ref = malloc(n * size), *got = malloc(n * size);
            fill((kt_dtype)t, ref, n, &rng);
            memcpy(got, ref, n * size);
            check_same((kt_dtype)t, KT_CHECK_RELATIVE, 1e-3, got, ref, n);
            check_same((kt_dtype)t, KT_CHECK_ABSOLUTE, 0, got, ref, n);
            for (int rep = 0; rep < 3; rep++) {
                disturb((kt_dtype)t, got, ref, n, kt_rng_below(&rng, n), &rng);
                check_same((kt_dtype)t, KT_CHECK_RELATIVE, 1e-3, got, ref, n);
                check_same((kt_dtype)t, KT_CHECK_ABSOLUTE, 0.5, got, ref, n);
            }
            free(ref);
            free(got);
        }
    }
}

static void test_nan_and_infinity_fail_where_the_oracle_says(void)
{
    enum { n = 70000 };
    uint16_t *ref = malloc(n * 2), *got = malloc(n * 2);
    float *fref = malloc(n * 4), *fgot = malloc(n * 4);
    kt_rng rng;
    kt_rng_seed(&rng, 6);
    fill(KT_DT_HALF, ref, n, &rng);
    fill(KT_DT_FLOAT, fref, n, &rng);
    memcpy(got, ref, n * 2);
    memcpy(fgot, fref, n * 4);
    got[66000] = 0xffff; /* the poison: NaN */
    got[69999] = 0x7c00; /* infinity */
    fgot[3] = NAN;
    fgot[4100] = -INFINITY;
    check_same(KT_DT_HALF, KT_CHECK_RELATIVE, 2e-3, got, ref, n);
    check_same(KT_DT_HALF, KT_CHECK_ABSOLUTE, 1, got, ref, n);
    check_same(KT_DT_FLOAT, KT_CHECK_RELATIVE, 1e-6, fgot, fref, n);
    CHECK(kt_has_nan(KT_DT_HALF, got, n));
    CHECK(!kt_has_nan(KT_DT_HALF, ref, n));
    CHECK(kt_has_nan(KT_DT_FLOAT, fgot, n));
    /* a scale given once is the scale kt_verify computes */
    double e1, e2;
    char d[200];
    double scale = kt_verify_scale(KT_DT_HALF, ref, n);
    memcpy(got, ref, n * 2);
    got[10] ^= 1;
    CHECK(kt_verify(KT_DT_HALF, KT_CHECK_RELATIVE, 2e-3, got, ref, n, &e1, d, sizeof d) ==
          kt_verify_scaled(KT_DT_HALF, KT_CHECK_RELATIVE, 2e-3, scale, got, ref, n, &e2, d,
                           sizeof d));
    CHECK(e1 == e2 && e1 > 0);
    free(ref);
    free(got);
    free(fref);
    free(fgot);
}

/* The comparison in threads (the worker's, while the GPU times) gives
 * what the one-thread comparison gives, for any number of threads and
 * sizes smaller than that number, and says early that it is failing. */
static void test_threaded_verification_matches(void)
{
    enum { n = 100003 };
    uint16_t *ref = malloc(n * 2), *got = malloc(n * 2);
    kt_rng rng;
    kt_rng_seed(&rng, 8);
    fill(KT_DT_HALF, ref, n, &rng);
    double scale = kt_verify_scale(KT_DT_HALF, ref, n);
    static const size_t COUNTS[] = {0, 3, 5000, n};
    for (int bad = 0; bad < 2; bad++) {
        memcpy(got, ref, n * 2);
        if (bad) {
            got[77777] = 0xffff;
            got[99999] ^= 8;
        }
        for (size_t c = 0; c < KT_ARRAY_LEN(COUNTS); c++) {
            for (int threads = 1; threads <= 5; threads += 2) {
                double e1, e2;
                char d1[200] = "", d2[200] = "";
                bool ok1 = kt_verify_scaled(KT_DT_HALF, KT_CHECK_RELATIVE, 2e-3, scale, got,
                                            ref, COUNTS[c], &e1, d1, sizeof d1);
                kt_verify_job *job;
                CHECK(kt_verify_start(KT_DT_HALF, KT_CHECK_RELATIVE, 2e-3, scale, got, ref,
                                      COUNTS[c], threads, &job) == KT_OK);
                bool ok2 = kt_verify_finish(job, &e2, d2, sizeof d2);
                CHECK(ok1 == ok2 && e1 == e2);
                CHECK_STR(d1, d2);
                CHECK(ok1 == !(bad && COUNTS[c] == n));
            }
        }
    }
    kt_verify_job *job;
    CHECK(kt_verify_start(KT_DT_HALF, KT_CHECK_RELATIVE, 2e-3, scale, got, ref, n, 4, &job) ==
          KT_OK);
    double e;
    char d[200];
    while (!kt_verify_failing(job)) {
    }
    CHECK(!kt_verify_finish(job, &e, d, sizeof d) && isinf(e));
    CHECK(!kt_verify_failing(NULL));
    free(ref);
    free(got);
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A 4096^2 half output against its reference, whose scale the worker
 * computes once: well under the time of the element-by-element comparison
 * (about half of it on machine A), which kt_verify was, at 0.3 s a
 * configuration on the H100 host.  Processor time, so that other work on
 * the machine does not decide it. */
static void test_large_half_outputs_verify_fast(void)
{
#if defined(__SANITIZE_ADDRESS__)
    KT_SKIP("timings of a sanitised build say nothing of the release build's");
#endif
    size_t n = (size_t)4096 * 4096;
    uint16_t *ref = malloc(n * 2), *got = malloc(n * 2);
    kt_rng rng;
    kt_rng_seed(&rng, 7);
    fill(KT_DT_HALF, ref, n, &rng);
    memcpy(got, ref, n * 2);
    got[n - 1] ^= 1;
    double err, want_err, t0 = cpu_s();
    size_t bad;
    oracle(KT_DT_HALF, KT_CHECK_RELATIVE, 2e-3, got, ref, n, &want_err, &bad);
    double scale = kt_verify_scale(KT_DT_HALF, ref, n), t1 = cpu_s();
    char d[200];
    bool ok = kt_verify_scaled(KT_DT_HALF, KT_CHECK_RELATIVE, 2e-3, scale, got, ref, n, &err,
                               d, sizeof d);
    double t2 = cpu_s();
    CHECK(ok && bad == n && err == want_err);
    fprintf(stderr, "element by element %.0f ms, kt_verify_scaled %.0f ms\n", (t1 - t0) * 1e3,
            (t2 - t1) * 1e3);
    CHECK(t2 - t1 < 0.6 * (t1 - t0));
    free(ref);
    free(got);
}

static const kt_test TESTS[] = {
    KT_T(test_chunked_verification_matches_the_oracle),
    KT_T(test_nan_and_infinity_fail_where_the_oracle_says),
    KT_T(test_threaded_verification_matches),
    KT_T(test_large_half_outputs_verify_fast),
};
KT_TEST_MAIN(TESTS)
