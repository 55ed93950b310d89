/* tmap.c - a TensorMap argument's cuTensorMapEncodeTiled fields (tmap.h),
 * checked against the copy engine's rules so that a bad box is an invalid
 * configuration with a reason, not a driver error code. */
#include "backend/tmap.h"
#include "core/util.h"

#include <math.h>

static int data_type(kt_dtype t)
{
    switch (t) {
    case KT_DT_INT8: case KT_DT_UINT8: return KT_TMAP_UINT8;
    case KT_DT_E4M3: return KT_TMAP_UINT8; /* the copy engine moves bytes */
    case KT_DT_INT16: case KT_DT_UINT16: return KT_TMAP_UINT16;
    case KT_DT_INT32: return KT_TMAP_INT32;
    case KT_DT_UINT32: return KT_TMAP_UINT32;
    case KT_DT_INT64: return KT_TMAP_INT64;
    case KT_DT_UINT64: return KT_TMAP_UINT64;
    case KT_DT_FLOAT: return KT_TMAP_FLOAT32;
    case KT_DT_DOUBLE: return KT_TMAP_FLOAT64;
    case KT_DT_HALF: return KT_TMAP_FLOAT16;
    case KT_DT_BF16: return KT_TMAP_BFLOAT16;
    }
    return KT_TMAP_UINT8;
}

/* A whole number in [lo, hi] from e, or -1. */
static double whole(const kt_expr *e, const double *slots, double lo, double hi)
{
    double v;
    if (kt_expr_eval(e, slots, &v) != KT_OK || v != floor(v) || v < lo || v > hi)
        return -1;
    return v;
}

/* Dimensions and strides: the problem's part, the same for every
 * configuration. */
static int tensor_shape(const kt_spec *spec, const kt_arg *a, const double *slots,
                        size_t esize, kt_tmap_fields *f, kt_diag *diag)
{
    const kt_tmap *t = a->tmap;
    double elems = 1, count = 0;
    for (unsigned d = 0; d < t->rank; d++) {
        double v = whole(t->dims[d], slots, 1, 4294967296.0);
        if (v < 0)
            return kt_fail(diag, KT_ESPEC, "argument '%s': Dims[%u] \"%s\" is not a whole "
                           "number from 1 to 2^32", a->name, d,
                           kt_expr_source(t->dims[d]));
        if (d > 0) {
            double pitch = elems * (double)esize;
            if (fmod(pitch, 16) != 0 || pitch >= 1099511627776.0)
                return kt_fail(diag, KT_ESPEC, "argument '%s': Dims[0..%u] make a stride "
                               "of %.0f bytes; the tensor memory accelerator needs a "
                               "multiple of 16 below 2^40", a->name, d - 1, pitch);
            f->strides[d - 1] = (unsigned long long)pitch;
        }
        f->dims[d] = (unsigned long long)v;
        elems *= v;
    }
    const kt_arg *src = &spec->args[t->source];
    if (kt_expr_eval(src->size, slots, &count) != KT_OK || elems > count)
        return kt_fail(diag, KT_ESPEC, "argument '%s': Dims cover %.0f elements, its "
                       "Source '%s' has %.0f", a->name, elems, src->name, count);
    return KT_OK;
}

/* The box: the configuration's part. */
static int tensor_box(const kt_arg *a, const double *slots, size_t esize,
                      kt_tmap_fields *f, kt_diag *diag)
{
    const kt_tmap *t = a->tmap;
    for (unsigned d = 0; d < t->rank; d++) {
        double v = whole(t->box[d], slots, 1, 256);
        if (v < 0)
            return kt_fail(diag, KT_ERANGE, "argument '%s': Box[%u] \"%s\" is not a whole "
                           "number from 1 to 256", a->name, d, kt_expr_source(t->box[d]));
        f->box[d] = (unsigned)v;
        f->elem_strides[d] = 1;
    }
    unsigned inner = f->box[0] * (unsigned)esize;
    unsigned span = t->swizzle == KT_SWIZZLE_NONE ? 0 : 16u << t->swizzle;
    if (inner % 16 != 0 || (span && inner > span))
        return kt_fail(diag, KT_ERANGE, "argument '%s': the box's inner extent is %u bytes; "
                       "it must be a multiple of 16%s", a->name, inner,
                       span ? " within the swizzle span" : "");
    return KT_OK;
}

int kt_tmap_fields_make(const kt_spec *spec, size_t i, const double *slots,
                        kt_tmap_fields *out, kt_diag *diag)
{
    const kt_arg *a = &spec->args[i];
    size_t esize = kt_dtype_size(a->type);
    *out = (kt_tmap_fields){.dtype = data_type(a->type), .rank = (unsigned)a->tmap->rank,
                            .swizzle = (int)a->tmap->swizzle,
                            .l2_promotion = KT_TMAP_L2_256B};
    int rc = tensor_shape(spec, a, slots, esize, out, diag);
    return rc == KT_OK ? tensor_box(a, slots, esize, out, diag) : rc;
}
