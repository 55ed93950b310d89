/* nvrtc.h - compiling CUDA configurations with NVRTC, in a pool of threads
 * inside a forked child, the results streamed back one by one as they
 * finish (used by cuda.c).
 *
 * The child matters: a process that has compiled with NVRTC can no longer
 * fork a worker whose cuInit succeeds (seen on the H100, CUDA 13:
 * "initialization error"), so the tuner itself never calls NVRTC.  The
 * stream matters too: the tuner measures the first finished configuration
 * on the GPU while the pool still compiles the others.
 */
#ifndef KT_NVRTC_H
#define KT_NVRTC_H

#include "backend/backend.h"
#include "backend/cuda_api.h"

/* What a compilation needs; owned by the caller, read-only here. */
typedef struct kt_nvrtc {
    const kt_spec *spec;
    const kt_nvrtc_api *api;
    const char *arch;        /* "sm_90" */
    const char *cache_dir;   /* CUBINs by content hash */
    int jobs;                /* threads in the pool */
} kt_nvrtc;

typedef struct kt_nvrtc_job kt_nvrtc_job;

/* Start compiling cfgs[0..n) (a NULL entry: the spec's reference kernel)
 * in a child process; cfgs must stay valid until kt_nvrtc_end. */
int kt_nvrtc_start(const kt_nvrtc *nv, const uint16_t *const *cfgs, size_t n,
                   kt_nvrtc_job **job, kt_diag *diag);
/* Wait for the next finished configuration, in the order they finish:
 * *index says which, *build holds it (the caller frees its artifact).
 * KT_EDONE once all n have been returned.  If the child dies, each
 * configuration not yet returned comes back as a COMPILE_ERROR. */
int kt_nvrtc_next(kt_nvrtc_job *job, size_t *index, kt_build *build, kt_diag *diag);
/* Stop the child (killed if builds are still pending) and free the job. */
void kt_nvrtc_end(kt_nvrtc_job *job);

#endif /* KT_NVRTC_H */
