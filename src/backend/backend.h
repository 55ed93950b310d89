/* backend.h - the interface every compute backend implements.
 *
 * A backend is a versioned table of function pointers (kt_backend) found by
 * name in a registry (backend.c); adding a backend is adding one file.  The
 * table has two halves:
 *   - the tuner's side (open, device, compile) runs in the tuner process;
 *   - the worker's side (load, buffers, run) runs in the isolated
 *     measurement worker program (measure/worker_child.c), which opens the
 *     backend again with opts.worker set; there a crash costs nothing.
 * Kernel arguments follow the CUDA driver convention: args[i] points to
 * argument i's value (a scalar's bytes, or a buffer handle).
 */
#ifndef KT_BACKEND_H
#define KT_BACKEND_H

#include "core/spec.h"
#include "store/db.h"

#define KT_BACKEND_ABI 2

/* Options shared by backends. */
typedef struct kt_backend_opts {
    const char *cache_dir;   /* where compiled kernels are kept */
    int jobs;                /* parallel compilations */
    const char *compiler;    /* C backend: the compiler command, "cc" if NULL */
    const char *arch;        /* GPU backends: target ("sm_90"); NULL: the
                                device's own, or sm_90 without a device */
    int device;              /* the device's ordinal among the backend's
                                (CUDA: cuDeviceGet's; OpenCL: within the
                                chosen platform); 0: the first */
    const char *platform;    /* OpenCL: a substring of the platform's name;
                                NULL: the first platform with a device */
    bool worker;             /* opened in the measurement worker: only the
                                worker's side of the table is used, so
                                nothing for compiling need be loaded */
} kt_backend_opts;

/* The outcome of compiling one configuration. */
typedef struct kt_build {
    kt_status status;        /* OK or COMPILE_ERROR */
    char *artifact;          /* path of the compiled object (owned) */
    double compile_ms;       /* 0 when it came from the cache */
    char detail[256];        /* first compiler error line */
} kt_build;

typedef struct kt_backend {
    int abi;                 /* KT_BACKEND_ABI */
    const char *name;        /* "cpu", "cuda", ... */
    kt_language language;    /* the kernel language it compiles */

    /* tuner side */
    int (*open)(const kt_spec *spec, const kt_backend_opts *opts, void **ctx,
                kt_diag *diag);
    void (*close)(void *ctx);
    int (*device)(void *ctx, kt_device_info *out, kt_diag *diag);
    /* Compile cfgs[0..n) (a NULL entry means the spec's reference kernel);
     * a configuration that fails to compile is a COMPILE_ERROR build, not a
     * failure of the call. */
    int (*compile)(void *ctx, const uint16_t *const *cfgs, size_t n,
                   kt_build *builds, kt_diag *diag);
    /* Optional (NULL where the backend has none): the same batch streamed,
     * so the tuner can measure one configuration while the others still
     * compile.  compile_start begins (cfgs stays valid until compile_end);
     * compile_next blocks until some configuration is built and gives its
     * index and build (the caller owns the artifact), KT_EDONE once all
     * were given; compile_end stops what is left and frees the job. */
    int (*compile_start)(void *ctx, const uint16_t *const *cfgs, size_t n, void **job,
                         kt_diag *diag);
    int (*compile_next)(void *job, size_t *index, kt_build *build, kt_diag *diag);
    void (*compile_end)(void *job);

    /* worker side */
    /* Load a compiled configuration.  slots holds the spec's expression
     * values for this configuration and problem (kt_spec_slots), from which
     * a GPU backend computes the launch geometry.  KT_ERANGE: the
     * configuration exceeds the device's limits (threads, shared memory,
     * registers); the detail says which. */
    int (*load)(void *ctx, const char *artifact, const double *slots, bool reference,
                void **kernel, kt_diag *diag);
    void (*unload)(void *ctx, void *kernel);
    int (*buffer_new)(void *ctx, size_t bytes, void **buf, kt_diag *diag);
    void (*buffer_free)(void *ctx, void *buf, size_t bytes);
    /* Copy host memory into a buffer and back. */
    int (*buffer_write)(void *ctx, void *buf, const void *host, size_t bytes);
    int (*buffer_read)(void *ctx, void *host, const void *buf, size_t bytes);
    /* Make a buffer read-only (true) or writable while kernels run, where
     * the backend can enforce it; NULL when it cannot. */
    int (*buffer_protect)(void *ctx, void *buf, size_t bytes, bool readonly);
    /* Take reps samples; each times `inner` back-to-back calls and
     * times_ms[i] is sample i's duration per call. */
    int (*run)(void *ctx, void *kernel, void **args, int reps, int inner,
               double *times_ms, kt_diag *diag);
    /* Optional (NULL: the worker reads energy over batches of run, and the
     * device idles while the host reads the counter between them): keep
     * the device busy with the kernel back to back, batches of `inner`
     * calls with more always queued (run_busy_depth of them), and call
     * between(arg, idle_s, ms) in the calling thread each time a batch
     * ends (the next running) until it returns false; idle_s is how long
     * the device sat idle before that batch began (the host fell behind),
     * 0 where unknown, and ms the batch's time per call on the device.
     * The queued batches are waited for before returning.  No cache
     * flush: the energy of a steady stream of calls. */
    int (*run_busy)(void *ctx, void *kernel, void **args, int inner,
                    bool (*between)(void *arg, double idle_s, double ms), void *arg,
                    kt_diag *diag);
    int run_busy_depth;      /* batches run_busy keeps queued */
    /* Optional (NULL: the backend cannot serve an application, and online
     * tuning refuses its kernels): one production call of a loaded kernel
     * on the application's own buffers, in the calling thread, timed alone
     * into *ms: no cache flush, no repetition, and the caller waits for
     * it.  stream is the application's queue (CUDA: a CUstream, launched
     * in the thread's current context, which must be the device's primary
     * one); NULL: the default one. */
    int (*call)(void *ctx, void *kernel, void **args, void *stream, double *ms,
                kt_diag *diag);
    /* The device's cumulative energy in joules (NAN when unknown); NULL:
     * the CPU package's (RAPL). */
    double (*energy_j)(void *ctx);
    /* The device's current core (SM) clock in MHz, 0 when unknown; NULL:
     * the backend has none to report. */
    double (*clock_mhz)(void *ctx);
    /* Its buffers live in host memory, so the worker can bound its own
     * address space (a GPU driver's mappings are not bounded that way). */
    bool host_memory;
    /* Optional (NULL: the worker writes the bytes from the host): set every
     * byte of a buffer, on the device, as the outputs' poison. */
    int (*buffer_fill)(void *ctx, void *buf, unsigned char byte, size_t bytes);
    /* Optional (NULL: none to list, the CPU's): the devices this backend
     * would run kernels on here, each written to out[*n] while *n < cap
     * and counted in *n (past cap too); KT_EBACKEND with the reason when
     * the driver or platform is absent.  No spec or context needed. */
    int (*devices)(ktune_device *out, size_t cap, size_t *n, kt_diag *diag);
} kt_backend;

/* The backend registered under name, or NULL. */
const kt_backend *kt_backend_find(const char *name);
/* The i-th registered backend (i = 0, 1, ...), NULL past the last. */
const kt_backend *kt_backend_at(size_t i);
/* The backend that compiles a language and is usable here, or NULL. */
const kt_backend *kt_backend_for(kt_language lang);

/* Remove the temporary files ("NAME.PID.tmp") that compilers of processes
 * no longer running left in a cache directory (a killed tuner leaves its
 * half-written objects there).  Best effort: errors are ignored. */
void kt_cache_sweep(const char *dir);

/* KT_EBACKEND when the spec has an argument only a CUDA kernel can take
 * (a __constant__ symbol, a TensorMap), naming it: for the backends of
 * other languages to refuse at open. */
int kt_backend_refuse_cuda_args(const kt_spec *spec, kt_diag *diag);

/* Frees builds[i].artifact for i < n. */
void kt_builds_clear(kt_build *builds, size_t n);

#endif /* KT_BACKEND_H */
