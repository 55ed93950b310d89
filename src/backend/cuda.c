/* cuda.c - the CUDA backend: kernels compiled by NVRTC, run through the
 * driver API, both loaded at run time (cuda_api.c).
 *
 * The tuner process never initialises CUDA: a CUDA context does not survive
 * fork(), and the measurement worker is a forked child.  The device is
 * described by a short-lived probe child, kernels are compiled with NVRTC
 * (which needs no device), and the worker initialises the driver itself on
 * its first buffer.  Without a device the backend still compiles (CI checks
 * every shipped CUDA kernel that way), and tuning fails with a clear
 * message.
 */
#include "backend/backend.h"
#include "backend/cuda_api.h"
#include "core/util.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* What the probe child reports. */
typedef struct cuda_device {
    int present;
    char name[96];
    int cc_major, cc_minor, sms, driver;
    int max_threads, max_shared_optin;
    char why[160];            /* when not present */
} cuda_device;

typedef struct cuda_ctx {
    const kt_spec *spec;
    kt_nvrtc_api nvrtc;
    cuda_device dev;
    char arch[16];            /* "sm_90" */
    char *cache_dir;
    int jobs;
    /* worker side, set up lazily in the child */
    kt_cuda_api cu;
    bool ready;
    CUcontext cuctx;
    CUdeviceptr flush;        /* written before each timed sample: evicts L2 */
    size_t flush_bytes;
    CUevent start, stop;
    kt_nvml_api nvml;         /* energy, when NVML is there */
    nvmlDevice_t nvml_dev;    /* NULL: no energy readings */
} cuda_ctx;

/* ------------------------------------------------------------- probing */

static void probe_device(cuda_device *d)
{
    kt_cuda_api cu;
    kt_diag diag = {{0}};
    CUdevice dev;
    int n = 0;
    if (kt_cuda_api_load(&cu, &diag) != KT_OK) {
        kt_strlcpy(d->why, sizeof d->why, diag.msg);
        return;
    }
    if (cu.cuInit(0) != 0 || cu.cuDeviceGetCount(&n) != 0 || n < 1 ||
        cu.cuDeviceGet(&dev, 0) != 0) {
        snprintf(d->why, sizeof d->why, "no CUDA device");
        return;
    }
    cu.cuDeviceGetName(d->name, sizeof d->name, dev);
    cu.cuDeviceGetAttribute(&d->cc_major, KT_CU_CC_MAJOR, dev);
    cu.cuDeviceGetAttribute(&d->cc_minor, KT_CU_CC_MINOR, dev);
    cu.cuDeviceGetAttribute(&d->sms, KT_CU_MULTIPROCESSOR_COUNT, dev);
    cu.cuDeviceGetAttribute(&d->max_threads, KT_CU_MAX_THREADS_PER_BLOCK, dev);
    cu.cuDeviceGetAttribute(&d->max_shared_optin, KT_CU_MAX_SHARED_PER_BLOCK_OPTIN, dev);
    cu.cuDriverGetVersion(&d->driver);
    d->present = 1;
}

/* Ask a child: the tuner itself must stay free of CUDA state. */
static void probe(cuda_device *d)
{
    int fds[2];
    memset(d, 0, sizeof *d);
    snprintf(d->why, sizeof d->why, "the device probe failed");
    if (pipe(fds) != 0)
        return;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        cuda_device mine = {0};
        probe_device(&mine);
        ssize_t w = write(fds[1], &mine, sizeof mine);
        _exit(w == (ssize_t)sizeof mine ? 0 : 1);
    }
    close(fds[1]);
    if (pid > 0) {
        cuda_device got;
        if (kt_read_all(fds[0], &got, sizeof got))
            *d = got;
        waitpid(pid, NULL, 0);
    }
    close(fds[0]);
}

/* ---------------------------------------------------------- open/close */

static void cuda_close(void *vctx)
{
    cuda_ctx *c = vctx;
    if (!c)
        return;
    kt_nvrtc_api_unload(&c->nvrtc);
    free(c->cache_dir);
    free(c);
}

static int cuda_open(const kt_spec *spec, const kt_backend_opts *opts, void **out,
                     kt_diag *diag)
{
    cuda_ctx *c = calloc(1, sizeof *c);
    if (!c || !(c->cache_dir = kt_strdup(opts->cache_dir))) {
        free(c);
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    c->spec = spec;
    c->jobs = opts->jobs > 0 ? opts->jobs : 1;
    int rc = kt_nvrtc_api_load(&c->nvrtc, diag);
    if (rc == KT_OK)
        rc = kt_mkdir_p(c->cache_dir, diag);
    if (rc != KT_OK) {
        cuda_close(c);
        return rc;
    }
    probe(&c->dev);
    if (opts->arch)
        kt_strlcpy(c->arch, sizeof c->arch, opts->arch);
    else if (c->dev.present)
        snprintf(c->arch, sizeof c->arch, "sm_%d%d", c->dev.cc_major, c->dev.cc_minor);
    else
        kt_strlcpy(c->arch, sizeof c->arch, "sm_90");
    *out = c;
    return KT_OK;
}

static int cuda_device_info(void *vctx, kt_device_info *out, kt_diag *diag)
{
    cuda_ctx *c = vctx;
    if (!c->dev.present)
        return kt_fail(diag, KT_EBACKEND, "cannot tune a CUDA kernel here: %s",
                       c->dev.why);
    int major = 0, minor = 0;
    c->nvrtc.nvrtcVersion(&major, &minor);
    *out = (kt_device_info){0};
    kt_strlcpy(out->name, sizeof out->name, c->dev.name);
    kt_strlcpy(out->backend, sizeof out->backend, "cuda");
    snprintf(out->fingerprint, sizeof out->fingerprint,
             "cuda|name=%s|cc=%d.%d|sms=%d|driver=%d|nvrtc=%d.%d|arch=%s", c->dev.name,
             c->dev.cc_major, c->dev.cc_minor, c->dev.sms, c->dev.driver, major, minor,
             c->arch);
    return KT_OK;
}

/* ----------------------------------------------------------- compiling */

/* The options of one compilation: architecture, the configuration's
 * defines, the spec's options.  NULL on allocation failure. */
static char **nvrtc_options(const cuda_ctx *c, const uint16_t *cfg, size_t *n)
{
    const kt_spec *s = c->spec;
    char **o = calloc(2 + s->nparams + s->ncompiler_options, sizeof *o);
    if (!o)
        return NULL;
    *n = 0;
    o[(*n)++] = kt_asprintf("--gpu-architecture=%s", c->arch);
    for (size_t i = 0; cfg && i < s->nparams; i++)
        o[(*n)++] = kt_asprintf("-D%s=%s", s->params[i].name, s->params[i].texts[cfg[i]]);
    for (size_t i = 0; i < s->ncompiler_options; i++)
        o[(*n)++] = kt_strdup(s->compiler_options[i]);
    for (size_t i = 0; i < *n; i++)
        if (!o[i]) {
            for (size_t j = 0; j < *n; j++)
                free(o[j]);
            free(o);
            return NULL;
        }
    return o;
}

/* The first line of the NVRTC log that says "error", else its first. */
static void compile_log(cuda_ctx *c, nvrtcProgram prog, char *out, size_t n)
{
    size_t len = 0;
    char *log = NULL;
    snprintf(out, n, "NVRTC failed");
    if (c->nvrtc.nvrtcGetProgramLogSize(prog, &len) != 0 || !(log = malloc(len + 1)))
        return;
    if (c->nvrtc.nvrtcGetProgramLog(prog, log) == 0) {
        log[len] = '\0';
        const char *line = strstr(log, "error");
        while (line && line > log && line[-1] != '\n')
            line--;
        line = line ? line : log;
        size_t l = strcspn(line, "\n");
        if (l)
            snprintf(out, n, "%.*s", (int)l, line);
    }
    free(log);
}

static bool write_file(const char *path, const void *data, size_t len)
{
    char *tmp = kt_asprintf("%s.%ld.tmp", path, (long)getpid());
    FILE *f = tmp ? fopen(tmp, "wb") : NULL;
    bool ok = f && fwrite(data, 1, len, f) == len;
    if (f)
        ok = fclose(f) == 0 && ok;
    ok = ok && rename(tmp, path) == 0; /* never a half-written cache entry */
    if (!ok && tmp)
        unlink(tmp);
    free(tmp);
    return ok;
}

/* NVRTC source to CUBIN; b->status says whether it compiled. */
static void nvrtc_build(cuda_ctx *c, const char *src, const char *path, char **opts,
                        size_t nopts, kt_build *b)
{
    nvrtcProgram prog = NULL;
    double t0 = kt_now();
    b->status = KT_STATUS_COMPILE_ERROR;
    if (c->nvrtc.nvrtcCreateProgram(&prog, src, "kernel.cu", 0, NULL, NULL) != 0) {
        snprintf(b->detail, sizeof b->detail, "NVRTC could not create a program");
        return;
    }
    size_t len = 0;
    char *cubin = NULL;
    if (c->nvrtc.nvrtcCompileProgram(prog, (int)nopts, (const char *const *)opts) != 0)
        compile_log(c, prog, b->detail, sizeof b->detail);
    else if (c->nvrtc.nvrtcGetCUBINSize(prog, &len) != 0 || !(cubin = malloc(len)) ||
             c->nvrtc.nvrtcGetCUBIN(prog, cubin) != 0 || !write_file(path, cubin, len))
        snprintf(b->detail, sizeof b->detail, "cannot store the compiled kernel in '%s'",
                 path);
    else
        b->status = KT_STATUS_OK;
    b->compile_ms = (kt_now() - t0) * 1e3;
    free(cubin);
    c->nvrtc.nvrtcDestroyProgram(&prog);
}

static void compile_one(cuda_ctx *c, const uint16_t *cfg, kt_build *b)
{
    const kt_spec *s = c->spec;
    const char *src = cfg ? s->kernel_source : s->ref_source;
    size_t nopts = 0;
    char **opts = nvrtc_options(c, cfg, &nopts);
    *b = (kt_build){.status = KT_STATUS_COMPILE_ERROR};
    if (!opts) {
        snprintf(b->detail, sizeof b->detail, "out of memory");
        return;
    }
    int major = 0, minor = 0;
    c->nvrtc.nvrtcVersion(&major, &minor);
    uint64_t h = kt_hash(KT_HASH_INIT, &major, sizeof major);
    h = kt_hash(h, &minor, sizeof minor);
    h = kt_hash_str(h, src);
    for (size_t i = 0; i < nopts; i++)
        h = kt_hash_str(h, opts[i]);
    char *path = kt_asprintf("%s/%016llx.cubin", c->cache_dir, (unsigned long long)h);
    if (path && access(path, R_OK) == 0)
        b->status = KT_STATUS_OK; /* cached */
    else if (path)
        nvrtc_build(c, src, path, opts, nopts, b);
    if (b->status == KT_STATUS_OK)
        b->artifact = path;
    else
        free(path);
    for (size_t i = 0; i < nopts; i++)
        free(opts[i]);
    free(opts);
}

/* A batch compiled by jobs threads (NVRTC is thread-safe). */
typedef struct batch {
    cuda_ctx *c;
    const uint16_t *const *cfgs;
    kt_build *builds;
    size_t n, next;
    pthread_mutex_t lock;
} batch;

static void *compile_thread(void *arg)
{
    batch *b = arg;
    for (;;) {
        pthread_mutex_lock(&b->lock);
        size_t i = b->next++;
        pthread_mutex_unlock(&b->lock);
        if (i >= b->n)
            return NULL;
        compile_one(b->c, b->cfgs[i], &b->builds[i]);
    }
}

/* Compile the batch on jobs threads, in this process. */
static int compile_here(cuda_ctx *c, const uint16_t *const *cfgs, size_t n,
                        kt_build *builds)
{
    batch b = {.c = c, .cfgs = cfgs, .builds = builds, .n = n};
    size_t nthreads = (size_t)c->jobs < n ? (size_t)c->jobs : n;
    pthread_t *threads = calloc(nthreads + 1, sizeof *threads);
    if (!threads || pthread_mutex_init(&b.lock, NULL) != 0) {
        free(threads);
        return KT_ENOMEM;
    }
    size_t started = 0;
    while (started < nthreads &&
           pthread_create(&threads[started], NULL, compile_thread, &b) == 0)
        started++;
    if (started == 0)
        compile_thread(&b); /* no thread could start: compile here */
    for (size_t i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    pthread_mutex_destroy(&b.lock);
    free(threads);
    return KT_OK;
}

/* One build as it crosses the pipe from the compiling child. */
typedef struct wire_build {
    int status;
    double compile_ms;
    char detail[256];
    char artifact[4096];
} wire_build;

static void compile_child(cuda_ctx *c, const uint16_t *const *cfgs, size_t n,
                          kt_build *builds, int fd)
{
    int rc = compile_here(c, cfgs, n, builds);
    for (size_t i = 0; i < n; i++) {
        wire_build w = {.status = rc == KT_OK ? (int)builds[i].status
                                              : KT_STATUS_COMPILE_ERROR,
                        .compile_ms = builds[i].compile_ms};
        kt_strlcpy(w.detail, sizeof w.detail, rc == KT_OK ? builds[i].detail
                                                          : "out of memory");
        kt_strlcpy(w.artifact, sizeof w.artifact,
                   builds[i].artifact ? builds[i].artifact : "");
        if (write(fd, &w, sizeof w) != (ssize_t)sizeof w)
            _exit(1);
    }
    _exit(0);
}

/* NVRTC runs in a child process: a process that has compiled with NVRTC
 * can no longer fork a worker whose cuInit succeeds (seen on the H100,
 * CUDA 13: "initialization error"), so the tuner stays clean. */
static int cuda_compile(void *vctx, const uint16_t *const *cfgs, size_t n,
                        kt_build *builds, kt_diag *diag)
{
    cuda_ctx *c = vctx;
    int fds[2];
    memset(builds, 0, n * sizeof *builds);
    if (pipe(fds) != 0)
        return kt_fail(diag, KT_EBACKEND, "cannot create a pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        compile_child(c, cfgs, n, builds, fds[1]);
    }
    close(fds[1]);
    int rc = pid < 0 ? kt_fail(diag, KT_EBACKEND, "cannot fork the compiler: %s",
                               strerror(errno))
                     : KT_OK;
    for (size_t i = 0; rc == KT_OK && i < n; i++) {
        wire_build w;
        kt_build *b = &builds[i];
        b->status = KT_STATUS_COMPILE_ERROR;
        if (!kt_read_all(fds[0], &w, sizeof w)) {
            snprintf(b->detail, sizeof b->detail, "the NVRTC process died");
            continue;
        }
        b->status = (kt_status)w.status;
        b->compile_ms = w.compile_ms;
        kt_strlcpy(b->detail, sizeof b->detail, w.detail);
        if (w.artifact[0] && !(b->artifact = kt_strdup(w.artifact)))
            rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    close(fds[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    return rc;
}

/* --------------------------------------------------------- worker side */

static int cu_fail(cuda_ctx *c, CUresult r, const char *what, kt_diag *diag)
{
    const char *msg = NULL;
    if (c->cu.cuGetErrorString)
        c->cu.cuGetErrorString(r, &msg);
    return kt_fail(diag, KT_EBACKEND, "%s: CUDA error %d (%s)", what, r,
                   msg ? msg : "unknown");
}

/* Initialise the driver in the worker, once: context, events and the L2
 * flush buffer (twice the H100's 50 MB L2). */
static int ensure_ready(cuda_ctx *c, kt_diag *diag)
{
    if (c->ready)
        return KT_OK;
    CUdevice dev;
    CUresult r;
    int rc = kt_cuda_api_load(&c->cu, diag);
    if (rc != KT_OK)
        return rc;
    if ((r = c->cu.cuInit(0)) || (r = c->cu.cuDeviceGet(&dev, 0)) ||
        (r = c->cu.cuDevicePrimaryCtxRetain(&c->cuctx, dev)) ||
        (r = c->cu.cuCtxSetCurrent(c->cuctx)) || (r = c->cu.cuEventCreate(&c->start, 0)) ||
        (r = c->cu.cuEventCreate(&c->stop, 0)))
        return cu_fail(c, r, "initialising the device", diag);
    kt_diag quiet = {{0}}; /* energy is optional: without NVML it stays unknown */
    if (kt_nvml_api_load(&c->nvml, &quiet) == KT_OK && c->nvml.nvmlInit() == 0 &&
        c->nvml.nvmlDeviceGetHandleByIndex(0, &c->nvml_dev) != 0)
        c->nvml_dev = NULL;
    c->flush_bytes = 128u << 20;
    if ((r = c->cu.cuMemAlloc(&c->flush, c->flush_bytes)))
        return cu_fail(c, r, "allocating the L2 flush buffer", diag);
    c->ready = true;
    return KT_OK;
}

static int cuda_buffer_new(void *vctx, size_t bytes, void **buf, kt_diag *diag)
{
    cuda_ctx *c = vctx;
    int rc = ensure_ready(c, diag);
    if (rc != KT_OK)
        return rc;
    CUdeviceptr p;
    CUresult r = c->cu.cuMemAlloc(&p, bytes);
    if (r)
        return cu_fail(c, r, "allocating a buffer", diag);
    *buf = (void *)(uintptr_t)p;
    return KT_OK;
}

static void cuda_buffer_free(void *vctx, void *buf, size_t bytes)
{
    cuda_ctx *c = vctx;
    (void)bytes;
    if (buf && c->ready)
        c->cu.cuMemFree((CUdeviceptr)(uintptr_t)buf);
}

static int cuda_buffer_write(void *vctx, void *buf, const void *host, size_t bytes)
{
    cuda_ctx *c = vctx;
    return c->cu.cuMemcpyHtoD((CUdeviceptr)(uintptr_t)buf, host, bytes) ? KT_EBACKEND
                                                                       : KT_OK;
}

static int cuda_buffer_read(void *vctx, void *host, const void *buf, size_t bytes)
{
    cuda_ctx *c = vctx;
    return c->cu.cuMemcpyDtoH(host, (CUdeviceptr)(uintptr_t)buf, bytes) ? KT_EBACKEND
                                                                       : KT_OK;
}

/* A loaded kernel with its launch geometry. */
typedef struct cuda_kernel {
    CUmodule module;
    CUfunction fn;
    unsigned grid[3], block[3], shared;
} cuda_kernel;

static double eval_or(const kt_expr *e, const double *slots, double fallback, bool *ok)
{
    double v = fallback;
    if (e && kt_expr_eval(e, slots, &v) != KT_OK)
        *ok = false;
    return v;
}

/* Grid, block and shared memory from the spec's expressions; KT_ERANGE
 * when they exceed the device. */
static int geometry(cuda_ctx *c, cuda_kernel *k, const double *slots, bool reference,
                    kt_diag *diag)
{
    const kt_spec *s = c->spec;
    bool own = reference && s->ref_global[0];
    bool ok = true;
    unsigned threads = 1;
    for (int i = 0; i < 3; i++) {
        double b = eval_or(own ? s->ref_local[i] : s->local[i], slots, 1, &ok);
        double g = eval_or(own ? s->ref_global[i] : s->global[i], slots, 1, &ok);
        if (!ok || !(b >= 1 && b <= 1024 && g >= 1 && g <= 2147483647.0))
            return kt_fail(diag, KT_ERANGE, "launch size out of range (axis %d: block "
                           "%.0f, global %.0f)", i, b, g);
        k->block[i] = (unsigned)b;
        k->grid[i] = (unsigned)(s->grid_in_threads ? ceil(g / b) : g);
        threads *= k->block[i];
    }
    double shared = eval_or(s->shared, slots, 0, &ok);
    k->shared = ok && shared >= 0 ? (unsigned)shared : 0;
    if ((int)threads > c->dev.max_threads)
        return kt_fail(diag, KT_ERANGE, "%u threads per block, the device allows %d",
                       threads, c->dev.max_threads);
    if ((int)k->shared > c->dev.max_shared_optin)
        return kt_fail(diag, KT_ERANGE, "%u bytes of shared memory, the device allows %d",
                       k->shared, c->dev.max_shared_optin);
    return KT_OK;
}

static void cuda_unload(void *vctx, void *kernel)
{
    cuda_ctx *c = vctx;
    cuda_kernel *k = kernel;
    if (!k)
        return;
    if (k->module)
        c->cu.cuModuleUnload(k->module);
    free(k);
}

static int cuda_load(void *vctx, const char *artifact, const double *slots,
                     bool reference, void **out, kt_diag *diag)
{
    cuda_ctx *c = vctx;
    char *image = NULL;
    cuda_kernel *k = calloc(1, sizeof *k);
    int rc = k ? ensure_ready(c, diag) : kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK)
        rc = kt_read_file(artifact, &image, NULL, diag);
    CUresult r = 0;
    const char *name = reference ? c->spec->ref_name : c->spec->kernel_name;
    if (rc == KT_OK && ((r = c->cu.cuModuleLoadData(&k->module, image)) ||
                        (r = c->cu.cuModuleGetFunction(&k->fn, k->module, name))))
        rc = cu_fail(c, r, "loading the kernel", diag);
    if (rc == KT_OK)
        rc = geometry(c, k, slots, reference, diag);
    int regs = 0;
    if (rc == KT_OK && c->cu.cuFuncGetAttribute(&regs, KT_CU_FUNC_NUM_REGS, k->fn) == 0 &&
        regs * (int)(k->block[0] * k->block[1] * k->block[2]) > 65536)
        rc = kt_fail(diag, KT_ERANGE, "%d registers per thread: too many for %u threads",
                     regs, k->block[0] * k->block[1] * k->block[2]);
    if (rc == KT_OK && k->shared > 48 * 1024 &&
        (r = c->cu.cuFuncSetAttribute(k->fn, KT_CU_FUNC_MAX_DYNAMIC_SHARED, (int)k->shared)))
        rc = cu_fail(c, r, "raising the shared memory limit", diag);
    free(image);
    if (rc != KT_OK) {
        cuda_unload(c, k);
        return rc;
    }
    *out = k;
    return KT_OK;
}

static int cuda_run(void *vctx, void *kernel, void **args, int reps, int inner,
                    double *times_ms, kt_diag *diag)
{
    cuda_ctx *c = vctx;
    cuda_kernel *k = kernel;
    for (int rep = 0; rep < reps; rep++) {
        CUresult r = c->cu.cuMemsetD8(c->flush, (unsigned char)rep, c->flush_bytes);
        if (!r)
            r = c->cu.cuEventRecord(c->start, NULL);
        for (int i = 0; !r && i < inner; i++)
            r = c->cu.cuLaunchKernel(k->fn, k->grid[0], k->grid[1], k->grid[2],
                                     k->block[0], k->block[1], k->block[2], k->shared,
                                     NULL, args, NULL);
        float ms = 0;
        if (!r && !(r = c->cu.cuEventRecord(c->stop, NULL)) &&
            !(r = c->cu.cuEventSynchronize(c->stop)))
            r = c->cu.cuEventElapsedTime(&ms, c->start, c->stop);
        if (r)
            return cu_fail(c, r, "running the kernel", diag);
        times_ms[rep] = (double)ms / inner;
    }
    return KT_OK;
}

/* NVML's total-energy counter (millijoules since the driver loaded). */
static double cuda_energy_j(void *vctx)
{
    cuda_ctx *c = vctx;
    unsigned long long mj = 0;
    if (!c->nvml_dev || c->nvml.nvmlDeviceGetTotalEnergyConsumption(c->nvml_dev, &mj))
        return NAN;
    return (double)mj * 1e-3;
}

/* NVML's current SM clock: read during timing, it shows whether a kernel
 * ran at the boost clock or was throttled (power, temperature). */
static double cuda_clock_mhz(void *vctx)
{
    cuda_ctx *c = vctx;
    unsigned mhz = 0;
    if (!c->nvml_dev || c->nvml.nvmlDeviceGetClockInfo(c->nvml_dev, KT_NVML_CLOCK_SM, &mhz))
        return 0;
    return mhz;
}

const kt_backend kt_backend_cuda = {
    .abi = KT_BACKEND_ABI,
    .name = "cuda",
    .language = KT_LANG_CUDA,
    .open = cuda_open,
    .close = cuda_close,
    .device = cuda_device_info,
    .compile = cuda_compile,
    .load = cuda_load,
    .unload = cuda_unload,
    .buffer_new = cuda_buffer_new,
    .buffer_free = cuda_buffer_free,
    .buffer_write = cuda_buffer_write,
    .buffer_read = cuda_buffer_read,
    .buffer_protect = NULL,
    .run = cuda_run,
    .energy_j = cuda_energy_j,
    .clock_mhz = cuda_clock_mhz,
};
