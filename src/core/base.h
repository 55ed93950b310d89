/* base.h - the public header seen from inside the library: the internal
 * code keeps its kt_ spellings of the public items (kt_diag, KT_E*,
 * kt_status ...) through this one mapping, so that giving the public API
 * its ktune_ prefix did not rename every use; and the internal items that
 * were public once (the random number generator) are declared here. */
#ifndef KT_BASE_H
#define KT_BASE_H

#include "ktune.h"

typedef ktune_diag kt_diag;
typedef ktune_result kt_result;
typedef ktune_status kt_status;

#define KT_ERRORS KTUNE_ERRORS
#define KT_STATUSES KTUNE_STATUSES

#define kt_version ktune_version
#define kt_strerror ktune_strerror
#define kt_status_name ktune_status_name
#define kt_status_parse ktune_status_parse

#define KT_OK KTUNE_OK
#define KT_ENOMEM KTUNE_ENOMEM
#define KT_EINVAL KTUNE_EINVAL
#define KT_ESYNTAX KTUNE_ESYNTAX
#define KT_ESPEC KTUNE_ESPEC
#define KT_EIO KTUNE_EIO
#define KT_EDB KTUNE_EDB
#define KT_ENOTFOUND KTUNE_ENOTFOUND
#define KT_EDOMAIN KTUNE_EDOMAIN
#define KT_ECOMPILE KTUNE_ECOMPILE
#define KT_EWORKER KTUNE_EWORKER
#define KT_EBACKEND KTUNE_EBACKEND
#define KT_EDONE KTUNE_EDONE
#define KT_ERANGE KTUNE_ERANGE
#define KT_EEMPTY KTUNE_EEMPTY
#define KT_EFORMAT KTUNE_EFORMAT
#define KT_ECANCELED KTUNE_ECANCELED

#define KT_STATUS_OK KTUNE_STATUS_OK
#define KT_STATUS_COMPILE_ERROR KTUNE_STATUS_COMPILE_ERROR
#define KT_STATUS_CRASH KTUNE_STATUS_CRASH
#define KT_STATUS_TIMEOUT KTUNE_STATUS_TIMEOUT
#define KT_STATUS_WRONG_RESULT KTUNE_STATUS_WRONG_RESULT
#define KT_STATUS_RUNTIME_ERROR KTUNE_STATUS_RUNTIME_ERROR
#define KT_STATUS_INVALID KTUNE_STATUS_INVALID
#define KT_STATUS_COUNT KTUNE_STATUS_COUNT

/* Deterministic pseudo-random numbers (xoshiro256**), seeded explicitly. */
typedef struct kt_rng {
    uint64_t s[4];
} kt_rng;

void kt_rng_seed(kt_rng *rng, uint64_t seed);
uint64_t kt_rng_next(kt_rng *rng);
/* Uniform integer in [0, n); n > 0. */
uint64_t kt_rng_below(kt_rng *rng, uint64_t n);
/* Uniform double in [0, 1). */
double kt_rng_unit(kt_rng *rng);

#endif /* KT_BASE_H */
