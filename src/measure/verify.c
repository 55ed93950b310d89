/* verify.c - compare a configuration's outputs with the reference's. */
#include "core/half.h"
#include "measure/measure.h"

#include <math.h>
#include <stdio.h>

size_t kt_dtype_size(kt_dtype t)
{
    static const size_t SIZES[] = {
        [KT_DT_INT8] = 1,  [KT_DT_UINT8] = 1,  [KT_DT_INT16] = 2, [KT_DT_UINT16] = 2,
        [KT_DT_INT32] = 4, [KT_DT_UINT32] = 4, [KT_DT_INT64] = 8, [KT_DT_UINT64] = 8,
        [KT_DT_FLOAT] = 4, [KT_DT_DOUBLE] = 8, [KT_DT_HALF] = 2,  [KT_DT_BF16] = 2,
    };
    return SIZES[t];
}

/* Element i as a double, whatever its type. */
static double element(kt_dtype t, const void *p, size_t i)
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
    }
    return NAN;
}

bool kt_has_nan(kt_dtype t, const void *data, size_t count)
{
    if (t < KT_DT_FLOAT)
        return false;
    for (size_t i = 0; i < count; i++)
        if (isnan(element(t, data, i)))
            return true;
    return false;
}

/* The scale relative errors are measured against: the RMS of the
 * reference, so that elements near zero do not demand absurd precision. */
static double rms(kt_dtype t, const void *ref, size_t count)
{
    double sum = 0;
    for (size_t i = 0; i < count; i++) {
        double r = element(t, ref, i);
        sum += r * r;
    }
    return count ? sqrt(sum / (double)count) : 0;
}

bool kt_verify(kt_dtype t, kt_check check, double threshold, const void *got,
               const void *ref, size_t count, double *max_err, char *detail,
               size_t detail_len)
{
    *max_err = 0;
    if (check == KT_CHECK_NONE)
        return true;
    double scale = check == KT_CHECK_RELATIVE ? rms(t, ref, count) : 0;
    bool ok = true;
    for (size_t i = 0; i < count; i++) {
        double g = element(t, got, i), r = element(t, ref, i);
        double err = fabs(g - r);
        double tol = check == KT_CHECK_RELATIVE ? threshold * fmax(fabs(r), scale)
                                                : threshold;
        if (check == KT_CHECK_RELATIVE && fmax(fabs(r), scale) > 0)
            err /= fmax(fabs(r), scale);
        if (isnan(g) || isnan(err))
            err = INFINITY;
        if (err > *max_err)
            *max_err = err;
        if (ok && !(fabs(g - r) <= tol)) {
            snprintf(detail, detail_len, "element %zu is %.9g, the reference has %.9g",
                     i, g, r);
            ok = false;
        }
    }
    return ok;
}
