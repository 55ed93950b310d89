/* cuda.c - the CUDA backend: kernels compiled by NVRTC, run through the
 * driver API, both loaded at run time (cuda_api.c).
 *
 * The tuner describes the device and compiles with NVRTC (which needs no
 * device); the measurement worker, a program of its own, opens the backend
 * in worker mode (no NVRTC) and initialises the driver on its first buffer.
 * Without a device the backend still compiles (CI checks every shipped CUDA
 * kernel that way), and tuning fails with a clear message.
 */
#include "backend/backend.h"
#include "backend/cuda_api.h"
#include "backend/launch.h"
#include "backend/nvrtc.h"
#include "backend/tmap.h"
#include "core/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Samples enqueued back to back before the host waits: the host no longer
 * waits out each one (one sample of the 4096^3 FP16 GEMM had the host's
 * round trip between it and the next). */
#define RUN_GROUP 8
/* Driver constants cuda_api.h does not name. */
#define CU_EVENT_BLOCKING_SYNC 0x1   /* the waiting thread sleeps: the cores
                                        compile meanwhile */
#define CU_FUNC_MAX_THREADS 0        /* CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK */

/* A loaded module, shared by the kernels loaded from its artifact. */
typedef struct cuda_module {
    char *path;               /* the artifact */
    CUmodule mod;
    CUfunction fn;
    unsigned refs;            /* kernels loaded from it; at 0 it stays loaded
                                 until another artifact is */
} cuda_module;

/* What the device probe found. */
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
    int ordinal;              /* the device (kt_backend_opts.device) */
    char arch[16];            /* "sm_90" */
    char *cache_dir;
    int jobs;
    kt_nvrtc comp;            /* what the NVRTC pool reads */
    /* worker side, set up lazily in the child */
    kt_cuda_api cu;
    bool ready;
    bool retained;            /* the primary context, released at close */
    CUcontext cuctx;
    CUdevice cudev;
    CUdeviceptr flush;        /* written before each timed sample: evicts L2;
                                 allocated at the first run (a production
                                 call needs none) */
    size_t flush_bytes;
    CUevent start[RUN_GROUP], stop[RUN_GROUP]; /* one pair per sample of a group */
    CUevent call_start, call_stop; /* a production call's (not blocking-sync:
                                      the application waits for it) */
    CUevent busy_t0;          /* the origin of run_busy's batch times */
    cuda_module *mods;        /* the loaded modules (keep_module) */
    size_t nmods;
    kt_nvml_api nvml;         /* energy, when NVML is there */
    nvmlDevice_t nvml_dev;    /* NULL: no energy readings */
} cuda_ctx;

/* ------------------------------------------------------------- probing */

/* Describe device `ordinal`.  The tuner may hold CUDA state now: its
 * measurement worker is a program of its own, not a fork that would
 * inherit it. */
static void probe_device(cuda_device *d, int ordinal)
{
    memset(d, 0, sizeof *d);
    kt_cuda_api cu;
    kt_diag diag = {{0}};
    CUdevice dev;
    int n = 0;
    if (kt_cuda_api_load(&cu, &diag) != KT_OK) {
        kt_strlcpy(d->why, sizeof d->why, diag.msg);
        return;
    }
    if (cu.cuInit(0) != 0 || cu.cuDeviceGetCount(&n) != 0 || n < 1) {
        snprintf(d->why, sizeof d->why, "no CUDA device");
        return;
    }
    if (ordinal < 0 || ordinal >= n || cu.cuDeviceGet(&dev, ordinal) != 0) {
        snprintf(d->why, sizeof d->why, "no CUDA device %d (there are %d)", ordinal, n);
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

/* Every device the driver sees (kt_backend.devices). */
static int cuda_devices(ktune_device *out, size_t cap, size_t *n, kt_diag *diag)
{
    kt_cuda_api cu;
    int count = 0, driver = 0;
    int rc = kt_cuda_api_load(&cu, diag);
    if (rc != KT_OK)
        return rc;
    if (cu.cuInit(0) != 0 || cu.cuDeviceGetCount(&count) != 0 || count < 1) {
        kt_cuda_api_unload(&cu);
        return kt_fail(diag, KT_EBACKEND, "the CUDA driver sees no device");
    }
    cu.cuDriverGetVersion(&driver);
    for (int i = 0; i < count; i++, (*n)++) {
        CUdevice dev;
        if (*n >= cap || cu.cuDeviceGet(&dev, i) != 0)
            continue;
        ktune_device *e = &out[*n];
        *e = (ktune_device){.ordinal = i};
        kt_strlcpy(e->backend, sizeof e->backend, "cuda");
        kt_strlcpy(e->platform, sizeof e->platform, "CUDA");
        snprintf(e->version, sizeof e->version, "driver %d.%d", driver / 1000,
                 driver % 1000 / 10);
        cu.cuDeviceGetName(e->name, (int)sizeof e->name, dev);
    }
    kt_cuda_api_unload(&cu);
    return KT_OK;
}

/* ---------------------------------------------------------- open/close */

static void unload_modules(cuda_ctx *c, bool all);

/* What the worker's side set up, given back in the device's primary
 * context: in an application (online tuning) the process goes on. */
static void release_device(cuda_ctx *c)
{
    CUcontext prev = NULL;
    c->cu.cuCtxGetCurrent(&prev);
    c->cu.cuCtxSetCurrent(c->cuctx);
    unload_modules(c, true);
    if (c->flush)
        c->cu.cuMemFree(c->flush);
    for (int i = 0; i < RUN_GROUP; i++) {
        c->cu.cuEventDestroy(c->start[i]);
        c->cu.cuEventDestroy(c->stop[i]);
    }
    c->cu.cuEventDestroy(c->call_start);
    c->cu.cuEventDestroy(c->call_stop);
    c->cu.cuEventDestroy(c->busy_t0);
    c->cu.cuCtxSetCurrent(prev);
    c->cu.cuDevicePrimaryCtxRelease(c->cudev);
}

static void cuda_close(void *vctx)
{
    cuda_ctx *c = vctx;
    if (!c)
        return;
    if (c->retained)
        release_device(c);
    kt_nvrtc_api_unload(&c->nvrtc);
    free(c->mods);
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
    c->ordinal = opts->device;
    if (opts->worker) { /* the worker's side reads the device in ensure_ready */
        *out = c;
        return KT_OK;
    }
    int rc = kt_nvrtc_api_load(&c->nvrtc, diag);
    if (rc == KT_OK)
        rc = kt_mkdir_p(c->cache_dir, diag);
    if (rc != KT_OK) {
        cuda_close(c);
        return rc;
    }
    kt_cache_sweep(c->cache_dir);
    probe_device(&c->dev, c->ordinal);
    if (opts->arch)
        kt_strlcpy(c->arch, sizeof c->arch, opts->arch);
    else if (c->dev.present)
        snprintf(c->arch, sizeof c->arch, "sm_%d%d", c->dev.cc_major, c->dev.cc_minor);
    else
        kt_strlcpy(c->arch, sizeof c->arch, "sm_90");
    c->comp = (kt_nvrtc){.spec = spec, .api = &c->nvrtc, .arch = c->arch,
                         .cache_dir = c->cache_dir, .jobs = c->jobs};
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

/* A batch: the pool's builds, in the order of cfgs. */
static int cuda_compile(void *vctx, const uint16_t *const *cfgs, size_t n,
                        kt_build *builds, kt_diag *diag)
{
    cuda_ctx *c = vctx;
    return kt_nvrtc_compile(&c->comp, cfgs, n, builds, diag);
}

static int cuda_compile_start(void *vctx, const uint16_t *const *cfgs, size_t n,
                              void **job, kt_diag *diag)
{
    cuda_ctx *c = vctx;
    return kt_nvrtc_start(&c->comp, cfgs, n, (kt_nvrtc_job **)job, diag);
}

static int cuda_compile_next(void *job, size_t *index, kt_build *build, kt_diag *diag)
{
    return kt_nvrtc_next(job, index, build, diag);
}

static void cuda_compile_end(void *job) { kt_nvrtc_end(job); }

/* --------------------------------------------------------- worker side */

static int cu_fail(cuda_ctx *c, CUresult r, const char *what, kt_diag *diag)
{
    const char *msg = NULL;
    if (c->cu.cuGetErrorString)
        c->cu.cuGetErrorString(r, &msg);
    return kt_fail(diag, KT_EBACKEND, "%s: CUDA error %d (%s)", what, r,
                   msg ? msg : "unknown");
}

/* NVML's handle of the same device: found by PCI bus id, since NVML's
 * indices ignore CUDA_VISIBLE_DEVICES.  Energy is optional: without NVML
 * it stays unknown. */
static void open_nvml(cuda_ctx *c, CUdevice dev)
{
    kt_diag quiet = {{0}};
    char bus[32] = "";
    if (kt_nvml_api_load(&c->nvml, &quiet) != KT_OK || c->nvml.nvmlInit() != 0 ||
        c->cu.cuDeviceGetPCIBusId(bus, (int)sizeof bus, dev) != 0 ||
        c->nvml.nvmlDeviceGetHandleByPciBusId(bus, &c->nvml_dev) != 0)
        c->nvml_dev = NULL;
}

/* Initialise the driver on the worker's side, once: the device's primary
 * context (the one the CUDA runtime API uses, so an application's buffers
 * live there) and the events.  The L2 flush buffer (twice the H100's
 * 50 MB L2) comes with the first run. */
static int ensure_ready(cuda_ctx *c, kt_diag *diag)
{
    if (c->ready)
        return KT_OK;
    CUdevice dev;
    CUresult r;
    int rc = kt_cuda_api_load(&c->cu, diag);
    if (rc != KT_OK)
        return rc;
    if ((r = c->cu.cuInit(0)) || (r = c->cu.cuDeviceGet(&dev, c->ordinal)) ||
        (r = c->cu.cuDevicePrimaryCtxRetain(&c->cuctx, dev)))
        return cu_fail(c, r, "initialising the device", diag);
    c->cudev = dev;
    c->retained = true; /* from here on, close gives back what was made */
    if ((r = c->cu.cuCtxSetCurrent(c->cuctx)))
        return cu_fail(c, r, "initialising the device", diag);
    for (int i = 0; i < RUN_GROUP; i++)
        if ((r = c->cu.cuEventCreate(&c->start[i], 0)) ||
            (r = c->cu.cuEventCreate(&c->stop[i], CU_EVENT_BLOCKING_SYNC)))
            return cu_fail(c, r, "creating events", diag);
    if ((r = c->cu.cuEventCreate(&c->call_start, 0)) ||
        (r = c->cu.cuEventCreate(&c->call_stop, 0)) ||
        (r = c->cu.cuEventCreate(&c->busy_t0, 0)))
        return cu_fail(c, r, "creating events", diag);
    c->cu.cuDeviceGetAttribute(&c->dev.max_threads, KT_CU_MAX_THREADS_PER_BLOCK, dev);
    c->cu.cuDeviceGetAttribute(&c->dev.max_shared_optin, KT_CU_MAX_SHARED_PER_BLOCK_OPTIN,
                               dev);
    open_nvml(c, dev);
    c->flush_bytes = 128u << 20;
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

static int cuda_buffer_fill(void *vctx, void *buf, unsigned char byte, size_t bytes)
{
    cuda_ctx *c = vctx;
    return c->cu.cuMemsetD8((CUdeviceptr)(uintptr_t)buf, byte, bytes) ? KT_EBACKEND : KT_OK;
}

static int cuda_buffer_read(void *vctx, void *host, const void *buf, size_t bytes)
{
    cuda_ctx *c = vctx;
    return c->cu.cuMemcpyDtoH(host, (CUdeviceptr)(uintptr_t)buf, bytes) ? KT_EBACKEND
                                                                       : KT_OK;
}

/* A loaded kernel with its launch geometry and, for each argument that is
 * a __constant__ symbol, the module's global and the bytes copied to it.
 * The module is the context's (mod), which outlives the kernel. */
typedef struct cuda_kernel {
    CUmodule module;          /* a module of the context's (keep_module) */
    CUfunction fn;
    kt_launch launch;
    CUdeviceptr *sym;         /* per argument; 0: none to copy */
    size_t *sym_bytes;
    void **params;            /* the launch's parameter array */
    kt_tmap_fields *tmaps;    /* per argument: a TensorMap's fields */
    void *tmap_mem;           /* per argument: its encoded map, 64-byte aligned */
} cuda_kernel;

/* The launch from the spec, checked against the device and this kernel's
 * registers and static shared memory; KT_ERANGE when it does not fit. */
static int fit_launch(cuda_ctx *c, cuda_kernel *k, const double *slots, bool reference,
                      kt_diag *diag)
{
    kt_launch_limits lim = kt_launch_cuda_limits(c->dev.max_threads,
                                                 c->dev.max_shared_optin);
    kt_launch *l = &k->launch;
    int rc = kt_launch_geometry(c->spec, slots, reference, &lim, l, diag);
    if (rc != KT_OK)
        return rc;
    unsigned threads = l->block[0] * l->block[1] * l->block[2];
    int regs = 0, fixed = 0, most = 0;
    if (c->cu.cuFuncGetAttribute(&regs, KT_CU_FUNC_NUM_REGS, k->fn) == 0 &&
        (rc = kt_launch_registers(regs, threads, diag)) != KT_OK)
        return rc;
    if (c->cu.cuFuncGetAttribute(&most, CU_FUNC_MAX_THREADS, k->fn) == 0 &&
        (rc = kt_launch_kernel_threads(most, threads, diag)) != KT_OK)
        return rc;
    c->cu.cuFuncGetAttribute(&fixed, KT_CU_FUNC_SHARED_SIZE, k->fn);
    bool raise = false;
    rc = kt_launch_shared((unsigned)fixed, l->shared, c->dev.max_shared_optin, &raise, diag);
    CUresult r = 0;
    if (rc == KT_OK && raise &&
        (r = c->cu.cuFuncSetAttribute(k->fn, KT_CU_FUNC_MAX_DYNAMIC_SHARED, (int)l->shared)))
        rc = cu_fail(c, r, "raising the shared memory limit", diag);
    /* The driver's own verdict on what the rules above may miss: a block
     * that no multiprocessor can hold fails every launch (CUDA error 701). */
    int blocks = 1;
    if (rc == KT_OK &&
        c->cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k->fn, (int)threads,
                                                          l->shared) == 0 &&
        blocks < 1)
        rc = kt_fail(diag, KT_ERANGE, "%u threads with %d registers each and %u + %u bytes "
                     "of shared memory do not fit on a multiprocessor", threads, regs,
                     (unsigned)fixed, l->shared);
    return rc;
}

static void module_release(cuda_ctx *c, CUmodule mod);

static void cuda_unload(void *vctx, void *kernel)
{
    cuda_ctx *c = vctx;
    cuda_kernel *k = kernel;
    if (!k)
        return;
    if (k->module)
        module_release(c, k->module);
    free(k->sym);
    free(k->sym_bytes);
    free(k->params);
    free(k->tmaps);
    free(k->tmap_mem);
    free(k);
}

/* The globals of the spec's symbol arguments in k's module.  One the
 * module lacks is left out: the compiler drops a __constant__ array that
 * no code of this configuration reads (pnpoly's d_slopes without
 * use_precomputed_slopes). */
static int find_symbols(cuda_ctx *c, cuda_kernel *k, const double *slots, kt_diag *diag)
{
    const kt_spec *s = c->spec;
    size_t n = s->nargs ? s->nargs : 1;
    if (!(k->sym = calloc(n, sizeof *k->sym)) ||
        !(k->sym_bytes = calloc(n, sizeof *k->sym_bytes)) ||
        !(k->params = calloc(n, sizeof *k->params)))
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->nargs; i++) {
        size_t have = 0;
        CUresult r = s->args[i].symbol
                         ? c->cu.cuModuleGetGlobal(&k->sym[i], &have, k->module,
                                                   s->args[i].name)
                         : KT_CUDA_ERROR_NOT_FOUND;
        if (r == KT_CUDA_ERROR_NOT_FOUND)
            k->sym[i] = 0;
        else if (r)
            return cu_fail(c, r, "finding a __constant__ symbol", diag);
        int rc = k->sym[i] ? kt_launch_symbol_bytes(s, i, slots, have, &k->sym_bytes[i], diag)
                           : KT_OK;
        if (rc != KT_OK)
            return rc;
    }
    return KT_OK;
}

/* Copy each symbol argument's buffer (args[i] points to its handle) to
 * its global, before the launches that read it. */
static int copy_symbols(cuda_ctx *c, const cuda_kernel *k, void *const *args,
                        kt_diag *diag)
{
    for (size_t i = 0; i < c->spec->nargs; i++) {
        if (!k->sym[i])
            continue;
        void *handle = *(void *const *)args[i];
        CUresult r = c->cu.cuMemcpyDtoD(k->sym[i], (CUdeviceptr)(uintptr_t)handle,
                                        k->sym_bytes[i]);
        if (r)
            return cu_fail(c, r, "copying a __constant__ symbol", diag);
    }
    return KT_OK;
}

/* The fields of the spec's TensorMap arguments for this configuration;
 * encoded over their Source buffers at each run (encode_tmaps). */
static int plan_tmaps(const cuda_ctx *c, cuda_kernel *k, const double *slots,
                      kt_diag *diag)
{
    const kt_spec *s = c->spec;
    size_t n = s->nargs ? s->nargs : 1;
    if (!(k->tmaps = calloc(n, sizeof *k->tmaps)) ||
        !(k->tmap_mem = aligned_alloc(64, n * KT_TMAP_BYTES)))
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->nargs; i++) {
        int rc = s->args[i].tmap ? kt_tmap_fields_make(s, i, slots, &k->tmaps[i], diag)
                                 : KT_OK;
        if (rc != KT_OK)
            return rc;
    }
    return KT_OK;
}

/* Encode each TensorMap argument over its Source's buffer (args[j] points
 * to the handle) and point its launch parameter at the map. */
static int encode_tmaps(cuda_ctx *c, cuda_kernel *k, void *const *args, kt_diag *diag)
{
    const kt_spec *s = c->spec;
    for (size_t i = 0, p = 0; i < s->nargs; p += !s->args[i].symbol_only, i++) {
        if (!s->args[i].tmap)
            continue;
        if (!c->cu.cuTensorMapEncodeTiled)
            return kt_fail(diag, KT_EBACKEND, "argument '%s': this CUDA driver has no "
                           "cuTensorMapEncodeTiled (CUDA 12 or later)", s->args[i].name);
        const kt_tmap_fields *f = &k->tmaps[i];
        void *map = (char *)k->tmap_mem + i * KT_TMAP_BYTES;
        void *src = *(void *const *)args[s->args[i].tmap->source];
        CUresult r = c->cu.cuTensorMapEncodeTiled(
            map, f->dtype, f->rank, src, f->dims,
            f->strides, f->box, f->elem_strides, 0,
            f->swizzle, f->l2_promotion, 0);
        if (r)
            return cu_fail(c, r, "encoding a tensor map", diag);
        k->params[p] = map;
    }
    return KT_OK;
}

/* Unload the modules no kernel uses (all: every one). */
static void unload_modules(cuda_ctx *c, bool all)
{
    size_t kept = 0;
    for (size_t i = 0; i < c->nmods; i++) {
        cuda_module *m = &c->mods[i];
        if (m->refs > 0 && !all) {
            c->mods[kept++] = *m;
            continue;
        }
        c->cu.cuModuleUnload(m->mod);
        free(m->path);
    }
    c->nmods = kept;
}

static void module_release(cuda_ctx *c, CUmodule mod)
{
    for (size_t i = 0; i < c->nmods; i++)
        if (c->mods[i].mod == mod && c->mods[i].refs > 0)
            c->mods[i].refs--;
}

/* Load the artifact's module, read its kernel. */
static int module_load(cuda_ctx *c, const char *artifact, cuda_module *m, kt_diag *diag)
{
    char *file = NULL;
    size_t len = 0, cubin_len = 0;
    const char *name = NULL;
    const void *cubin = NULL;
    int rc = kt_read_file(artifact, &file, &len, diag);
    if (rc == KT_OK)
        rc = kt_cubin_parse(file, len, &name, &cubin, &cubin_len, diag);
    CUresult r = 0;
    *m = (cuda_module){.refs = 1};
    if (rc == KT_OK && ((r = c->cu.cuModuleLoadData(&m->mod, cubin)) ||
                        (r = c->cu.cuModuleGetFunction(&m->fn, m->mod, name))))
        rc = cu_fail(c, r, "loading the kernel", diag);
    if (rc == KT_OK && !(m->path = kt_strdup(artifact)))
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc != KT_OK && m->mod)
        c->cu.cuModuleUnload(m->mod);
    free(file);
    return rc;
}

/* The artifact's module, one more kernel using it.  Configurations that
 * differ only in launch geometry have one artifact (nvrtc.c leaves out
 * defines the source never reads), so a module is shared, and the last one
 * stays loaded after its kernel is unloaded (the worker loads one kernel
 * at a time).  Several stay loaded while their kernels are (online tuning
 * serves several candidates). */
static int keep_module(cuda_ctx *c, const char *artifact, cuda_module *out, kt_diag *diag)
{
    for (size_t i = 0; i < c->nmods; i++)
        if (strcmp(c->mods[i].path, artifact) == 0) {
            c->mods[i].refs++;
            *out = c->mods[i];
            return KT_OK;
        }
    unload_modules(c, false);
    cuda_module *mods = realloc(c->mods, (c->nmods + 1) * sizeof *mods);
    if (!mods)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    c->mods = mods;
    int rc = module_load(c, artifact, &mods[c->nmods], diag);
    if (rc == KT_OK)
        *out = mods[c->nmods++];
    return rc;
}

/* Load a compiled kernel (nvrtc.h's file: the CUBIN and the symbol it was
 * compiled under, which is the reference kernel's or, where the spec has
 * none and the default configuration is the reference, the kernel's own). */
static int cuda_load(void *vctx, const char *artifact, const double *slots,
                     bool reference, void **out, kt_diag *diag)
{
    cuda_ctx *c = vctx;
    cuda_kernel *k = calloc(1, sizeof *k);
    cuda_module m = {0};
    int rc = k ? ensure_ready(c, diag) : kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK)
        rc = keep_module(c, artifact, &m, diag);
    if (rc == KT_OK) {
        k->module = m.mod;
        k->fn = m.fn;
        rc = fit_launch(c, k, slots, reference, diag);
    }
    if (rc == KT_OK)
        rc = find_symbols(c, k, slots, diag);
    if (rc == KT_OK)
        rc = plan_tmaps(c, k, slots, diag);
    if (rc != KT_OK) {
        cuda_unload(c, k);
        return rc;
    }
    *out = k;
    return KT_OK;
}

static CUresult launch(cuda_ctx *c, const cuda_kernel *k, CUstream stream)
{
    const kt_launch *l = &k->launch;
    return c->cu.cuLaunchKernel(k->fn, l->grid[0], l->grid[1], l->grid[2], l->block[0],
                                l->block[1], l->block[2], l->shared, stream, k->params,
                                NULL);
}

/* Enqueue `inner` calls between slot i's pair of events (a timed sample,
 * or one of run_busy's batches). */
static CUresult batch(cuda_ctx *c, const cuda_kernel *k, int inner, int i)
{
    CUresult r = c->cu.cuEventRecord(c->start[i], NULL);
    for (int j = 0; !r && j < inner; j++)
        r = launch(c, k, NULL);
    return r ? r : c->cu.cuEventRecord(c->stop[i], NULL);
}

/* Enqueue samples [from, from + n) of a run (n <= RUN_GROUP), each the L2
 * flush, then `inner` calls between its pair of events; wait for the last
 * and read them all. */
static CUresult run_group(cuda_ctx *c, const cuda_kernel *k, int from, int n, int inner,
                          double *times_ms)
{
    CUresult r = 0;
    for (int s = 0; !r && s < n; s++) {
        r = c->cu.cuMemsetD8(c->flush, (unsigned char)(from + s), c->flush_bytes);
        if (!r)
            r = batch(c, k, inner, s);
    }
    if (!r)
        r = c->cu.cuEventSynchronize(c->stop[n - 1]);
    for (int s = 0; !r && s < n; s++) {
        float ms = 0;
        r = c->cu.cuEventElapsedTime(&ms, c->start[s], c->stop[s]);
        times_ms[from + s] = (double)ms / inner;
    }
    return r;
}

/* The launch's parameters from args: symbols copied, tensor maps encoded. */
static int bind_args(cuda_ctx *c, cuda_kernel *k, void **args, kt_diag *diag)
{
    int rc = copy_symbols(c, k, args, diag);
    if (rc != KT_OK)
        return rc;
    kt_launch_params(c->spec, args, k->params);
    return encode_tmaps(c, k, args, diag);
}

static int cuda_run(void *vctx, void *kernel, void **args, int reps, int inner,
                    double *times_ms, kt_diag *diag)
{
    cuda_ctx *c = vctx;
    cuda_kernel *k = kernel;
    int rc = bind_args(c, k, args, diag);
    if (rc != KT_OK)
        return rc;
    CUresult r = c->flush ? 0 : c->cu.cuMemAlloc(&c->flush, c->flush_bytes);
    if (r)
        return cu_fail(c, r, "allocating the L2 flush buffer", diag);
    for (int from = 0; from < reps; from += RUN_GROUP) {
        int n = reps - from < RUN_GROUP ? reps - from : RUN_GROUP;
        r = run_group(c, k, from, n, inner, times_ms);
        if (r)
            return cu_fail(c, r, "running the kernel", diag);
    }
    return KT_OK;
}

/* The seconds the device sat idle before slot i's batch (ended): from the
 * end of the batch before it (*end, in ms after busy_t0; negative: none)
 * to this one's start; *end becomes this one's end, and *ms its length. */
static CUresult busy_gap(cuda_ctx *c, int i, double *end, double *idle_s, double *ms)
{
    float from = 0, to = 0;
    CUresult r = c->cu.cuEventElapsedTime(&from, c->busy_t0, c->start[i]);
    if (!r)
        r = c->cu.cuEventElapsedTime(&to, c->busy_t0, c->stop[i]);
    *idle_s = r || *end < 0 ? 0 : fmax(0, ((double)from - *end) * 1e-3);
    *ms = r ? 0 : (double)to - from;
    *end = to;
    return r;
}

/* RUN_GROUP batches in the stream at any time (about 40 ms of work): while
 * the host waits for the oldest and reads the counters, the others run.
 * Read between runs instead, the GPU idled during the reads and an SGEMM's
 * power read 0.60 of this on a quiet host (bench/gpu/energy_busy.sh,
 * 2026-11-29; two batches queued were still short).  With every core of
 * the host busy, both ways still read low (0.77 and 0.86 of their quiet
 * readings), for a reason not yet found; the gaps before each batch, timed
 * on the device, go to between, so that a span with gaps is not read. */
static int cuda_run_busy(void *vctx, void *kernel, void **args, int inner,
                         bool (*between)(void *arg, double idle_s, double ms), void *arg,
                         kt_diag *diag)
{
    cuda_ctx *c = vctx;
    cuda_kernel *k = kernel;
    int rc = bind_args(c, k, args, diag);
    if (rc != KT_OK)
        return rc;
    CUresult r = c->cu.cuEventRecord(c->busy_t0, NULL);
    for (int i = 0; !r && i < RUN_GROUP; i++)
        r = batch(c, k, inner, i);
    double end = -1, idle = 0, ms = 0;
    for (int i = 0; !r; i = (i + 1) % RUN_GROUP) {
        r = c->cu.cuEventSynchronize(c->stop[i]);
        if (!r)
            r = busy_gap(c, i, &end, &idle, &ms);
        if (r || !between(arg, idle, ms / inner))
            break;
        r = batch(c, k, inner, i);
    }
    CUresult drain = c->cu.cuCtxSynchronize();
    return r || drain ? cu_fail(c, r ? r : drain, "running the kernel", diag) : KT_OK;
}

/* The calling thread's current context must be the primary one, where
 * the kernels were loaded; a thread with none gets it (as the runtime
 * API's first call would make it current). */
static int use_primary(cuda_ctx *c, kt_diag *diag)
{
    CUcontext cur = NULL;
    CUresult r = c->cu.cuCtxGetCurrent(&cur);
    if (!r && !cur)
        r = c->cu.cuCtxSetCurrent(c->cuctx);
    if (r)
        return cu_fail(c, r, "making the primary context current", diag);
    if (cur && cur != c->cuctx)
        return kt_fail(diag, KT_EBACKEND, "the calling thread's current CUDA context is "
                       "not device %d's primary context (the runtime API's), where ktune "
                       "loads the kernels", c->ordinal);
    return KT_OK;
}

/* A production call: one launch on the application's stream between a pair
 * of events, then wait for it.  Its time is the kernel's alone, as
 * warm as the application's own work leaves the caches. */
static int cuda_call(void *vctx, void *kernel, void **args, void *stream, double *ms,
                     kt_diag *diag)
{
    cuda_ctx *c = vctx;
    cuda_kernel *k = kernel;
    int rc = use_primary(c, diag);
    if (rc == KT_OK)
        rc = bind_args(c, k, args, diag);
    if (rc != KT_OK)
        return rc;
    float t = 0;
    CUresult r = c->cu.cuEventRecord(c->call_start, stream);
    if (!r)
        r = launch(c, k, stream);
    if (!r)
        r = c->cu.cuEventRecord(c->call_stop, stream);
    if (!r)
        r = c->cu.cuEventSynchronize(c->call_stop);
    if (!r)
        r = c->cu.cuEventElapsedTime(&t, c->call_start, c->call_stop);
    if (r)
        return cu_fail(c, r, "running the kernel", diag);
    *ms = t;
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
    .compile_start = cuda_compile_start,
    .compile_next = cuda_compile_next,
    .compile_end = cuda_compile_end,
    .load = cuda_load,
    .unload = cuda_unload,
    .buffer_new = cuda_buffer_new,
    .buffer_free = cuda_buffer_free,
    .buffer_write = cuda_buffer_write,
    .buffer_read = cuda_buffer_read,
    .buffer_fill = cuda_buffer_fill,
    .buffer_protect = NULL,
    .run = cuda_run,
    .run_busy = cuda_run_busy,
    .run_busy_depth = RUN_GROUP,
    .call = cuda_call,
    .energy_j = cuda_energy_j,
    .clock_mhz = cuda_clock_mhz,
    .devices = cuda_devices,
};
