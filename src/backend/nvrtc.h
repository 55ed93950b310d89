/* nvrtc.h - compiling CUDA configurations with NVRTC in a pool of threads,
 * the results handed over one by one as they finish (used by cuda.c): the
 * tuner measures the first finished configuration on the GPU while the
 * pool still compiles the others.  (The measurement worker is a program of
 * its own, so compiling in the tuner's process does not disturb it, as it
 * did a forked worker: "initialization error" from cuInit on the H100.)
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

typedef struct kt_pool kt_nvrtc_job; /* backend/pool.h's */

/* The NVRTC options configuration cfg (NULL: the reference kernel) of
 * nv->spec compiles with for nv->arch, *n of them (kt_defines_free frees
 * them); NULL when memory runs out.  Only spec and arch of nv are read. */
char **kt_nvrtc_options(const kt_nvrtc *nv, const uint16_t *cfg, size_t *n);

/* Start compiling cfgs[0..n) (a NULL entry: the spec's reference kernel)
 * in nv->jobs threads; cfgs and nv must stay valid until kt_nvrtc_end. */
int kt_nvrtc_start(const kt_nvrtc *nv, const uint16_t *const *cfgs, size_t n,
                   kt_nvrtc_job **job, kt_diag *diag);
/* Wait for the next finished configuration, in the order they finish:
 * *index says which, *build holds it (the caller frees its artifact).
 * KT_EDONE once all n have been returned. */
int kt_nvrtc_next(kt_nvrtc_job *job, size_t *index, kt_build *build, kt_diag *diag);
/* Stop: builds under way finish, no new one starts; free the job and the
 * builds not returned. */
void kt_nvrtc_end(kt_nvrtc_job *job);
/* The whole batch at once: builds[i] for cfgs[i]. */
int kt_nvrtc_compile(const kt_nvrtc *nv, const uint16_t *const *cfgs, size_t n,
                     kt_build *builds, kt_diag *diag);

/* A compiled kernel as ktune stores it (the artifact of a CUDA build):
 * "KTCUBIN1", the symbol's length and the CUBIN's offset (u32,
 * little-endian), the symbol NUL-terminated, then the CUBIN at a 16-byte
 * aligned offset.  The symbol is NVRTC's lowered name of the kernel, which
 * cuModuleGetFunction needs (mangled for a C++ kernel). */
#define KT_CUBIN_MAGIC "KTCUBIN1"
#define KT_CUBIN_HEADER 16
/* The file's bytes (malloc'd; *len its size), NULL on allocation failure. */
char *kt_cubin_pack(const char *name, const void *cubin, size_t cubin_len, size_t *len);
/* Point *name and *cubin into data; KT_EFORMAT for bytes that are not such
 * a file (a stale cache entry, a truncated file). */
int kt_cubin_parse(const char *data, size_t len, const char **name, const void **cubin,
                   size_t *cubin_len, kt_diag *diag);

#endif /* KT_NVRTC_H */
