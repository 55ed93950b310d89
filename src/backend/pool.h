/* pool.h - what the GPU backends' compilers share: a pool of threads that
 * compiles a batch of configurations and hands each build over as soon as
 * it is done (the tuner measures the first while the others still
 * compile), the compile cache's atomic write, and the compiler log's
 * telling line.  The compiling itself is the backend's (NVRTC in nvrtc.c,
 * the OpenCL driver in opencl.c): a function the pool calls per
 * configuration, from several threads at once. */
#ifndef KT_POOL_H
#define KT_POOL_H

#include "backend/backend.h"

/* Compile one configuration (NULL: the spec's reference kernel) into *b;
 * ctx is the backend's, read-only and shared by the pool's threads. */
typedef void (*kt_pool_build_fn)(const void *ctx, const uint16_t *cfg, kt_build *b);

typedef struct kt_pool kt_pool;

/* Start compiling cfgs[0..n) with build in `jobs` threads; cfgs and ctx
 * must stay valid until kt_pool_end. */
int kt_pool_start(kt_pool_build_fn build, const void *ctx, int jobs,
                  const uint16_t *const *cfgs, size_t n, kt_pool **job, kt_diag *diag);
/* Wait for the next finished configuration, in the order they finish:
 * *index says which, *b holds it (the caller frees its artifact).
 * KT_EDONE once all n have been returned. */
int kt_pool_next(kt_pool *job, size_t *index, kt_build *b, kt_diag *diag);
/* Stop: builds under way finish, no new one starts; free the job and the
 * builds not returned. */
void kt_pool_end(kt_pool *job);
/* The whole batch at once: builds[i] for cfgs[i] (a backend's compile). */
int kt_pool_run(kt_pool_build_fn build, const void *ctx, int jobs,
                const uint16_t *const *cfgs, size_t n, kt_build *builds, kt_diag *diag);

/* Write len bytes to path under a temporary name unique to the call
 * ("PATH.XXXXXX.PID.tmp", which kt_cache_sweep removes if this process
 * dies) and rename it, so a cache never holds a half-written entry, also
 * when threads write one path at once; false on failure. */
bool kt_cache_write(const char *path, const void *data, size_t len);

/* The first line of a compiler's log that says "error", else its first
 * line, into out (n bytes); out is left as it is for an empty log. */
void kt_log_error_line(const char *log, char *out, size_t n);

#endif /* KT_POOL_H */
