/* tmap.h - the fields of a CUtensorMap (cuTensorMapEncodeTiled's
 * arguments) for a spec's TensorMap argument and one configuration:
 * a pure computation, so the CPU machine tests it; the driver call that
 * encodes them needs the device (cuda.c). */
#ifndef KT_TMAP_H
#define KT_TMAP_H

#include "core/spec.h"


/* CUtensorMapDataType codes (cuda.h). */
enum {
    KT_TMAP_UINT8 = 0, KT_TMAP_UINT16 = 1, KT_TMAP_UINT32 = 2, KT_TMAP_INT32 = 3,
    KT_TMAP_UINT64 = 4, KT_TMAP_INT64 = 5, KT_TMAP_FLOAT16 = 6, KT_TMAP_FLOAT32 = 7,
    KT_TMAP_FLOAT64 = 8, KT_TMAP_BFLOAT16 = 9
};
enum { KT_TMAP_L2_256B = 3 }; /* CU_TENSOR_MAP_L2_PROMOTION_L2_256B */

typedef struct kt_tmap_fields {
    int dtype;                          /* KT_TMAP_* */
    unsigned rank;
    unsigned long long dims[KT_TMAP_MAX_RANK]; /* elements, innermost first */
    unsigned long long strides[KT_TMAP_MAX_RANK - 1]; /* bytes, of dimensions 1 .. rank-1 */
    unsigned box[KT_TMAP_MAX_RANK];     /* elements */
    unsigned elem_strides[KT_TMAP_MAX_RANK]; /* all 1 */
    int swizzle;                        /* kt_swizzle = CUtensorMapSwizzle */
    int l2_promotion;                   /* KT_TMAP_L2_256B */
} kt_tmap_fields;

/* The fields of argument i's tensor map for a configuration's slot values
 * (kt_spec_slots).  KT_ESPEC, naming the argument, when the problem breaks
 * a rule of the copy engine whatever the configuration (a row pitch not a
 * multiple of 16 bytes, dimensions larger than the Source buffer);
 * KT_ERANGE when the configuration's box does (more than 256 elements
 * along an axis, an inner extent not a multiple of 16 bytes or wider than
 * the swizzle span): the configuration is invalid, not broken. */
int kt_tmap_fields_make(const kt_spec *spec, size_t i, const double *slots,
                        kt_tmap_fields *out, kt_diag *diag);

#endif /* KT_TMAP_H */
