/* opencl.c - the OpenCL backend: kernels built by the platform's compiler
 * (clBuildProgram) and run through the ICD loader, which opencl_api.c
 * loads at run time.
 *
 * A platform is chosen by a substring of its name (kt_backend_opts.platform;
 * none: the first platform with a device) and a device by its ordinal
 * within it.  The tuner builds each configuration in a pool of threads
 * (pool.h) for that device and keeps the program's binary
 * (CL_PROGRAM_BINARIES) in the cache by content; the measurement worker
 * opens the same platform and device, loads the binary and times the
 * kernel with profiling events, the device's cache evicted before each
 * sample as the CUDA backend evicts L2, so that both compare fairly on one
 * GPU.  The launch is the spec's, computed as for CUDA (launch.c): the
 * global size is the grid of work-groups times the work-group size.
 */
#include "backend/backend.h"
#include "backend/defines.h"
#include "backend/launch.h"
#include "backend/opencl_api.h"
#include "backend/pool.h"
#include "core/includes.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* Samples enqueued back to back before the host waits (as cuda.c). */
#define RUN_GROUP 8
/* A compiled program as ktune stores it: this magic, then the binary. */
#define CLBIN_MAGIC "KTCLBIN1"
#define CLBIN_HEADER 8
/* The cache eviction buffer: twice the device's global memory cache,
 * within these bounds (a device may report no cache). */
#define FLUSH_MIN (1u << 20)
#define FLUSH_MAX (128u << 20)

/* The chosen platform and device, and what the database's fingerprint and
 * the launch checks need of them. */
typedef struct cl_target {
    cl_platform_id platform;
    cl_device_id device;
    char platform_name[128], platform_version[128];
    char device_name[128], driver[64];
    size_t max_group;        /* CL_DEVICE_MAX_WORK_GROUP_SIZE */
    size_t max_item[3];      /* CL_DEVICE_MAX_WORK_ITEM_SIZES */
    cl_ulong local_mem;      /* CL_DEVICE_LOCAL_MEM_SIZE */
    cl_ulong cache;          /* CL_DEVICE_GLOBAL_MEM_CACHE_SIZE */
} cl_target;

typedef struct ocl_ctx {
    const kt_spec *spec;
    kt_cl_api cl;
    cl_target t;
    cl_context context;
    char *cache_dir;
    int jobs;
    char fingerprint[512];
    /* worker side */
    cl_command_queue queue;
    cl_mem flush;            /* filled before each timed sample: evicts the cache */
    size_t flush_bytes;
    char *prog_path;         /* the artifact of the program kept built ... */
    cl_program prog;         /* ... which every kernel loaded from it shares */
} ocl_ctx;

static int cl_fail(cl_int err, const char *what, kt_diag *diag)
{
    return kt_fail(diag, KT_EBACKEND, "%s: OpenCL error %d (%s)", what, (int)err,
                   kt_cl_error_name(err));
}

/* ---------------------------------------------------------- choosing */

/* A string property of a platform or device, truncated to out. */
static void platform_str(const kt_cl_api *cl, cl_platform_id p, cl_platform_info what,
                         char *out, size_t n)
{
    out[0] = '\0';
    if (cl->clGetPlatformInfo(p, what, n - 1, out, NULL) != CL_SUCCESS)
        out[0] = '\0';
    out[n - 1] = '\0';
}

static void device_str(const kt_cl_api *cl, cl_device_id d, cl_device_info what, char *out,
                       size_t n)
{
    out[0] = '\0';
    if (cl->clGetDeviceInfo(d, what, n - 1, out, NULL) != CL_SUCCESS)
        out[0] = '\0';
    out[n - 1] = '\0';
}

/* The platforms' names, "A, B", for a message. */
static void platform_names(const kt_cl_api *cl, const cl_platform_id *ps, cl_uint n,
                           char *out, size_t size)
{
    out[0] = '\0';
    for (cl_uint i = 0; i < n; i++) {
        char name[128];
        platform_str(cl, ps[i], CL_PLATFORM_NAME, name, sizeof name);
        size_t len = strlen(out);
        snprintf(out + len, size - len, "%s'%s'", i ? ", " : "", name);
    }
}

/* Device `ordinal` of platform p into t; KT_ENOTFOUND when p has fewer. */
static int pick_device(const kt_cl_api *cl, cl_platform_id p, int ordinal, cl_target *t,
                       kt_diag *diag)
{
    cl_device_id devs[64];
    cl_uint n = 0;
    if (cl->clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 64, devs, &n) != CL_SUCCESS)
        n = 0;
    n = n < 64 ? n : 64;
    platform_str(cl, p, CL_PLATFORM_NAME, t->platform_name, sizeof t->platform_name);
    if (ordinal < 0 || (cl_uint)ordinal >= n)
        return kt_fail(diag, KT_ENOTFOUND, "the OpenCL platform '%s' has %u device%s, no "
                       "device %d", t->platform_name, n, n == 1 ? "" : "s", ordinal);
    t->platform = p;
    t->device = devs[ordinal];
    platform_str(cl, p, CL_PLATFORM_VERSION, t->platform_version, sizeof t->platform_version);
    device_str(cl, t->device, CL_DEVICE_NAME, t->device_name, sizeof t->device_name);
    device_str(cl, t->device, CL_DRIVER_VERSION, t->driver, sizeof t->driver);
    cl->clGetDeviceInfo(t->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof t->max_group,
                        &t->max_group, NULL);
    cl->clGetDeviceInfo(t->device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof t->max_item,
                        t->max_item, NULL);
    cl->clGetDeviceInfo(t->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof t->local_mem,
                        &t->local_mem, NULL);
    cl->clGetDeviceInfo(t->device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof t->cache,
                        &t->cache, NULL);
    return KT_OK;
}

/* The platform whose name contains want (any case; NULL: the first that
 * has a device) and its device `ordinal`. */
static int choose(const kt_cl_api *cl, const char *want, int ordinal, cl_target *t,
                  kt_diag *diag)
{
    cl_platform_id ps[16];
    cl_uint n = 0;
    memset(t, 0, sizeof *t);
    if (cl->clGetPlatformIDs(16, ps, &n) != CL_SUCCESS || n == 0)
        return kt_fail(diag, KT_EBACKEND, "no OpenCL platform is installed (the ICD "
                       "loader found none: see /etc/OpenCL/vendors)");
    n = n < 16 ? n : 16;
    kt_diag last = {{0}};
    for (cl_uint i = 0; i < n; i++) {
        char name[128];
        platform_str(cl, ps[i], CL_PLATFORM_NAME, name, sizeof name);
        if (want && !strcasestr(name, want))
            continue;
        int rc = pick_device(cl, ps[i], ordinal, t, &last);
        if (rc == KT_OK || want) /* a named platform is the one, devices or not */
            return rc == KT_OK ? KT_OK : kt_fail(diag, rc, "%s", last.msg);
    }
    char names[512];
    platform_names(cl, ps, n, names, sizeof names);
    if (want)
        return kt_fail(diag, KT_ENOTFOUND, "no OpenCL platform's name contains '%s' (there "
                       "are: %s)", want, names);
    return kt_fail(diag, KT_EBACKEND, "no OpenCL platform has a device %d (there are: %s)",
                   ordinal, names);
}

/* Every device of every platform (kt_backend.devices). */
static int ocl_devices(ktune_device *out, size_t cap, size_t *n, kt_diag *diag)
{
    kt_cl_api cl;
    cl_platform_id ps[16];
    cl_uint np = 0;
    int rc = kt_cl_api_load(&cl, diag);
    if (rc != KT_OK)
        return rc;
    if (cl.clGetPlatformIDs(16, ps, &np) != CL_SUCCESS || np == 0) {
        kt_cl_api_unload(&cl);
        return kt_fail(diag, KT_EBACKEND, "no OpenCL platform is installed (the ICD "
                       "loader found none: see /etc/OpenCL/vendors)");
    }
    for (cl_uint p = 0; p < np && p < 16; p++) {
        cl_device_id devs[64];
        cl_uint nd = 0;
        if (cl.clGetDeviceIDs(ps[p], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS)
            nd = 0;
        for (cl_uint d = 0; d < nd && d < 64; d++, (*n)++) {
            if (*n >= cap)
                continue;
            ktune_device *e = &out[*n];
            *e = (ktune_device){.ordinal = (int)d};
            kt_strlcpy(e->backend, sizeof e->backend, "opencl");
            platform_str(&cl, ps[p], CL_PLATFORM_NAME, e->platform, sizeof e->platform);
            platform_str(&cl, ps[p], CL_PLATFORM_VERSION, e->version, sizeof e->version);
            device_str(&cl, devs[d], CL_DEVICE_NAME, e->name, sizeof e->name);
        }
    }
    kt_cl_api_unload(&cl);
    return KT_OK;
}

/* ---------------------------------------------------------- open/close */

static void ocl_close(void *vctx)
{
    ocl_ctx *c = vctx;
    if (!c)
        return;
    if (c->prog)
        c->cl.clReleaseProgram(c->prog);
    if (c->flush)
        c->cl.clReleaseMemObject(c->flush);
    if (c->queue)
        c->cl.clReleaseCommandQueue(c->queue);
    if (c->context)
        c->cl.clReleaseContext(c->context);
    kt_cl_api_unload(&c->cl);
    free(c->prog_path);
    free(c->cache_dir);
    free(c);
}

/* The loader, the platform and device, and a context on the device. */
static int open_device(ocl_ctx *c, const kt_backend_opts *opts, kt_diag *diag)
{
    int rc = kt_cl_api_load(&c->cl, diag);
    if (rc == KT_OK)
        rc = choose(&c->cl, opts->platform, opts->device, &c->t, diag);
    if (rc != KT_OK)
        return rc;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                     (cl_context_properties)c->t.platform, 0};
    cl_int err = CL_SUCCESS;
    c->context = c->cl.clCreateContext(props, 1, &c->t.device, NULL, NULL, &err);
    if (!c->context)
        return cl_fail(err, "creating an OpenCL context", diag);
    snprintf(c->fingerprint, sizeof c->fingerprint,
             "opencl|platform=%s|platform_version=%s|device=%s|driver=%s",
             c->t.platform_name, c->t.platform_version, c->t.device_name, c->t.driver);
    return KT_OK;
}

static int ocl_open(const kt_spec *spec, const kt_backend_opts *opts, void **out,
                    kt_diag *diag)
{
    int rc = kt_backend_refuse_cuda_args(spec, diag);
    if (rc != KT_OK)
        return rc;
    ocl_ctx *c = calloc(1, sizeof *c);
    if (!c || !(c->cache_dir = kt_strdup(opts->cache_dir))) {
        free(c);
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    c->spec = spec;
    c->jobs = opts->jobs > 0 ? opts->jobs : 1;
    rc = open_device(c, opts, diag);
    if (rc == KT_OK && !opts->worker)
        rc = kt_mkdir_p(c->cache_dir, diag);
    if (rc != KT_OK) {
        kt_diag_prefix(diag, "cannot run an OpenCL kernel here");
        ocl_close(c);
        return rc;
    }
    if (!opts->worker)
        kt_cache_sweep(c->cache_dir);
    *out = c;
    return KT_OK;
}

static int ocl_device_info(void *vctx, kt_device_info *out, kt_diag *diag)
{
    ocl_ctx *c = vctx;
    (void)diag;
    *out = (kt_device_info){0};
    kt_strlcpy(out->name, sizeof out->name, c->t.device_name);
    kt_strlcpy(out->backend, sizeof out->backend, "opencl");
    kt_strlcpy(out->fingerprint, sizeof out->fingerprint, c->fingerprint);
    return KT_OK;
}

/* ----------------------------------------------------------- compiling */

/* The build options of configuration cfg (NULL: the reference kernel),
 * one string: no warnings (-w: ktune shows none, and PoCL's compiler
 * prints their count on the tuner's stderr), its defines that matter
 * (defines.h), the spec's options, and the kernel's folder for its own
 * headers.  NULL when memory runs out. */
static char *build_options(const kt_spec *s, const uint16_t *cfg)
{
    size_t ndef;
    char **def = kt_defines_new(s, cfg, true, &ndef);
    if (!def)
        return NULL;
    kt_buf b = {0};
    kt_buf_append(&b, "-w");
    for (size_t i = 0; i < ndef; i++)
        if (!cfg || kt_define_matters(s, def[i]))
            kt_buf_appendf(&b, "%s%s", b.len ? " " : "", def[i]);
    kt_defines_free(def, ndef);
    for (size_t i = 0; i < s->ncompiler_options; i++)
        if (s->compiler_options[i][0])
            kt_buf_appendf(&b, "%s%s", b.len ? " " : "", s->compiler_options[i]);
    if (cfg ? s->kernel_includes : s->ref_includes) {
        char *dir = kt_path_dir(cfg ? s->kernel_file : s->ref_file);
        if (dir)
            kt_buf_appendf(&b, "%s-I %s", b.len ? " " : "", dir);
        free(dir);
    }
    return kt_buf_take(&b);
}

/* The build log's telling line (pool.h) into out. */
static void build_log(const ocl_ctx *c, cl_program prog, char *out, size_t n)
{
    size_t len = 0;
    char *log = NULL;
    snprintf(out, n, "clBuildProgram failed");
    if (c->cl.clGetProgramBuildInfo(prog, c->t.device, CL_PROGRAM_BUILD_LOG, 0, NULL,
                                    &len) != CL_SUCCESS || !(log = malloc(len + 1)))
        return;
    if (c->cl.clGetProgramBuildInfo(prog, c->t.device, CL_PROGRAM_BUILD_LOG, len, log,
                                    NULL) == CL_SUCCESS) {
        log[len] = '\0';
        kt_log_error_line(log, out, n);
    }
    free(log);
}

/* The built program's binary, behind ktune's magic, into the cache. */
static bool store_binary(const ocl_ctx *c, cl_program prog, const char *path)
{
    size_t len = 0;
    unsigned char *file = NULL;
    bool ok = c->cl.clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof len, &len,
                                     NULL) == CL_SUCCESS && len > 0 &&
              (file = malloc(CLBIN_HEADER + len));
    unsigned char *bin = ok ? file + CLBIN_HEADER : NULL;
    ok = ok && c->cl.clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin,
                                      NULL) == CL_SUCCESS;
    if (ok) {
        memcpy(file, CLBIN_MAGIC, CLBIN_HEADER);
        ok = kt_cache_write(path, file, CLBIN_HEADER + len);
    }
    free(file);
    return ok;
}

/* Source to binary; b->status says whether it built.  The kernel is made
 * once here, so a name the program lacks is this build's error too. */
static void cl_build(const ocl_ctx *c, const char *src, const char *name,
                     const char *opts, const char *path, kt_build *b)
{
    double t0 = kt_now();
    cl_int err = CL_SUCCESS;
    b->status = KT_STATUS_COMPILE_ERROR;
    cl_program prog = c->cl.clCreateProgramWithSource(c->context, 1, &src, NULL, &err);
    cl_kernel k = NULL;
    if (!prog)
        snprintf(b->detail, sizeof b->detail, "clCreateProgramWithSource: %s",
                 kt_cl_error_name(err));
    else if ((err = c->cl.clBuildProgram(prog, 1, &c->t.device, opts, NULL, NULL)))
        build_log(c, prog, b->detail, sizeof b->detail);
    else if (!(k = c->cl.clCreateKernel(prog, name, &err)))
        snprintf(b->detail, sizeof b->detail, "the program has no kernel '%s' (%s)", name,
                 kt_cl_error_name(err));
    else if (!store_binary(c, prog, path))
        snprintf(b->detail, sizeof b->detail, "cannot store the compiled kernel '%s' in "
                 "'%s'", name, path);
    else
        b->status = KT_STATUS_OK;
    b->compile_ms = (kt_now() - t0) * 1e3;
    if (k)
        c->cl.clReleaseKernel(k);
    if (prog)
        c->cl.clReleaseProgram(prog);
}

/* One configuration, from the cache when its content was built before on
 * this platform, device and driver (the fingerprint). */
static void compile_one(const void *vctx, const uint16_t *cfg, kt_build *b)
{
    const ocl_ctx *c = vctx;
    const kt_spec *s = c->spec;
    const char *src = cfg ? s->kernel_source : s->ref_source;
    const char *name = cfg || !s->ref_name ? s->kernel_name : s->ref_name;
    const char *includes = cfg ? s->kernel_includes : s->ref_includes;
    src = src ? src : s->kernel_source; /* no reference kernel: the default is it */
    *b = (kt_build){.status = KT_STATUS_COMPILE_ERROR};
    char *opts = build_options(s, cfg);
    uint64_t h = kt_hash_str(KT_HASH_INIT, CLBIN_MAGIC);
    h = kt_hash_str(h, c->fingerprint);
    h = kt_hash_str(h, name);
    h = kt_hash_str(h, src);
    h = kt_hash_str(h, opts ? opts : "");
    if (includes) /* the headers' text, not just the folder's name */
        h = kt_hash_str(h, includes);
    char *path = opts ? kt_asprintf("%s/%016llx.ktclbin", c->cache_dir,
                                    (unsigned long long)h) : NULL;
    if (!path)
        snprintf(b->detail, sizeof b->detail, "out of memory");
    else if (access(path, R_OK) == 0)
        b->status = KT_STATUS_OK; /* cached */
    else
        cl_build(c, src, name, opts, path, b);
    if (b->status == KT_STATUS_OK)
        b->artifact = path;
    else
        free(path);
    free(opts);
}

static int ocl_compile(void *vctx, const uint16_t *const *cfgs, size_t n, kt_build *builds,
                       kt_diag *diag)
{
    ocl_ctx *c = vctx;
    return kt_pool_run(compile_one, c, c->jobs, cfgs, n, builds, diag);
}

static int ocl_compile_start(void *vctx, const uint16_t *const *cfgs, size_t n, void **job,
                             kt_diag *diag)
{
    ocl_ctx *c = vctx;
    return kt_pool_start(compile_one, c, c->jobs, cfgs, n, (kt_pool **)job, diag);
}

static int ocl_compile_next(void *job, size_t *index, kt_build *build, kt_diag *diag)
{
    return kt_pool_next(job, index, build, diag);
}

static void ocl_compile_end(void *job) { kt_pool_end(job); }

/* --------------------------------------------------------- worker side */

/* The queue (with profiling) and the cache eviction buffer, once. */
static int ensure_ready(ocl_ctx *c, kt_diag *diag)
{
    if (c->queue)
        return KT_OK;
    cl_int err = CL_SUCCESS;
    c->queue = c->cl.clCreateCommandQueue(c->context, c->t.device,
                                          CL_QUEUE_PROFILING_ENABLE, &err);
    if (!c->queue)
        return cl_fail(err, "creating a command queue", diag);
    double want = 2.0 * (double)c->t.cache;
    c->flush_bytes = want < FLUSH_MIN ? FLUSH_MIN : want > FLUSH_MAX ? FLUSH_MAX
                                                                     : (size_t)want;
    c->flush = c->cl.clCreateBuffer(c->context, CL_MEM_READ_WRITE, c->flush_bytes, NULL,
                                    &err);
    if (!c->flush)
        return cl_fail(err, "allocating the cache flush buffer", diag);
    return KT_OK;
}

static int ocl_buffer_new(void *vctx, size_t bytes, void **buf, kt_diag *diag)
{
    ocl_ctx *c = vctx;
    int rc = ensure_ready(c, diag);
    if (rc != KT_OK)
        return rc;
    cl_int err = CL_SUCCESS;
    cl_mem m = c->cl.clCreateBuffer(c->context, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL,
                                    &err);
    if (!m)
        return cl_fail(err, "allocating a buffer", diag);
    *buf = m;
    return KT_OK;
}

static void ocl_buffer_free(void *vctx, void *buf, size_t bytes)
{
    ocl_ctx *c = vctx;
    (void)bytes;
    if (buf)
        c->cl.clReleaseMemObject(buf);
}

static int ocl_buffer_write(void *vctx, void *buf, const void *host, size_t bytes)
{
    ocl_ctx *c = vctx;
    return c->cl.clEnqueueWriteBuffer(c->queue, buf, CL_TRUE, 0, bytes, host, 0, NULL,
                                      NULL) ? KT_EBACKEND : KT_OK;
}

static int ocl_buffer_read(void *vctx, void *host, const void *buf, size_t bytes)
{
    ocl_ctx *c = vctx;
    return c->cl.clEnqueueReadBuffer(c->queue, (cl_mem)buf, CL_TRUE, 0, bytes, host, 0,
                                     NULL, NULL) ? KT_EBACKEND : KT_OK;
}

static int ocl_buffer_fill(void *vctx, void *buf, unsigned char byte, size_t bytes)
{
    ocl_ctx *c = vctx;
    return c->cl.clEnqueueFillBuffer(c->queue, buf, &byte, 1, 0, bytes, 0, NULL, NULL)
               ? KT_EBACKEND : KT_OK;
}

/* A loaded kernel: the program's kernel object and its NDRange. */
typedef struct ocl_kernel {
    cl_kernel k;
    size_t global[3], local[3];
} ocl_kernel;

/* Make the artifact's program the built one: configurations that differ
 * only in launch geometry share an artifact (defines.h), so it is kept. */
static int keep_program(ocl_ctx *c, const char *artifact, kt_diag *diag)
{
    if (c->prog_path && strcmp(c->prog_path, artifact) == 0)
        return KT_OK;
    if (c->prog)
        c->cl.clReleaseProgram(c->prog);
    free(c->prog_path);
    c->prog = NULL;
    c->prog_path = NULL;
    char *file = NULL;
    size_t len = 0;
    int rc = kt_read_file(artifact, &file, &len, diag);
    if (rc == KT_OK && (len <= CLBIN_HEADER || memcmp(file, CLBIN_MAGIC, CLBIN_HEADER)))
        rc = kt_fail(diag, KT_EFORMAT, "%s: not a compiled OpenCL kernel of this ktune "
                     "(no %s header): remove the cache folder and tune again", artifact,
                     CLBIN_MAGIC);
    cl_int err = CL_SUCCESS, status = CL_SUCCESS;
    const unsigned char *bin = (const unsigned char *)file + CLBIN_HEADER;
    size_t bin_len = len - CLBIN_HEADER;
    if (rc == KT_OK && !(c->prog = c->cl.clCreateProgramWithBinary(
                             c->context, 1, &c->t.device, &bin_len, &bin, &status, &err)))
        rc = cl_fail(err ? err : status, "loading the program binary", diag);
    if (rc == KT_OK && (err = c->cl.clBuildProgram(c->prog, 1, &c->t.device, "", NULL, NULL)))
        rc = cl_fail(err, "building the program binary", diag);
    if (rc == KT_OK && !(c->prog_path = kt_strdup(artifact)))
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc != KT_OK && c->prog) {
        c->cl.clReleaseProgram(c->prog);
        c->prog = NULL;
    }
    free(file);
    return rc;
}

/* The spec's launch, as CUDA computes it, checked against the device and
 * this kernel's own limits; KT_ERANGE when it does not fit. */
static int fit_launch(ocl_ctx *c, ocl_kernel *k, const double *slots, bool reference,
                      kt_diag *diag)
{
    const cl_target *t = &c->t;
    kt_launch_limits lim = {.max_threads = (int)(t->max_group < 1u << 30 ? t->max_group
                                                                        : 1u << 30),
                            .max_shared_optin = (int)(t->local_mem < 1u << 30 ? t->local_mem
                                                                              : 1u << 30)};
    for (int i = 0; i < 3; i++) /* and no limit on the number of groups */
        lim.max_block[i] = (double)t->max_item[i];
    kt_launch l;
    int rc = kt_launch_geometry(c->spec, slots, reference, &lim, &l, diag);
    if (rc != KT_OK)
        return rc;
    for (int i = 0; i < 3; i++) {
        k->local[i] = l.block[i];
        k->global[i] = (size_t)l.grid[i] * l.block[i];
    }
    size_t items = k->local[0] * k->local[1] * k->local[2], most = 0, fixed[3] = {0};
    cl_ulong local_mem = 0;
    if (c->cl.clGetKernelWorkGroupInfo(k->k, t->device, CL_KERNEL_WORK_GROUP_SIZE,
                                       sizeof most, &most, NULL) == CL_SUCCESS &&
        most && items > most)
        return kt_fail(diag, KT_ERANGE, "%zu work-items per group, the compiled kernel "
                       "allows %zu (CL_KERNEL_WORK_GROUP_SIZE)", items, most);
    if (c->cl.clGetKernelWorkGroupInfo(k->k, t->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                       sizeof fixed, fixed, NULL) == CL_SUCCESS &&
        fixed[0] && (fixed[0] != k->local[0] || fixed[1] != k->local[1] ||
                     fixed[2] != k->local[2]))
        return kt_fail(diag, KT_ERANGE, "work-group %zux%zux%zu, the kernel requires "
                       "%zux%zux%zu (reqd_work_group_size)", k->local[0], k->local[1],
                       k->local[2], fixed[0], fixed[1], fixed[2]);
    if (c->cl.clGetKernelWorkGroupInfo(k->k, t->device, CL_KERNEL_LOCAL_MEM_SIZE,
                                       sizeof local_mem, &local_mem, NULL) == CL_SUCCESS &&
        local_mem > t->local_mem)
        return kt_fail(diag, KT_ERANGE, "%llu bytes of local memory, the device has %llu",
                       (unsigned long long)local_mem, (unsigned long long)t->local_mem);
    return KT_OK;
}

static void ocl_unload(void *vctx, void *kernel)
{
    ocl_ctx *c = vctx;
    ocl_kernel *k = kernel;
    if (!k)
        return;
    if (k->k)
        c->cl.clReleaseKernel(k->k);
    free(k);
}

static int ocl_load(void *vctx, const char *artifact, const double *slots, bool reference,
                    void **out, kt_diag *diag)
{
    ocl_ctx *c = vctx;
    const kt_spec *s = c->spec;
    const char *name = reference && s->ref_name ? s->ref_name : s->kernel_name;
    ocl_kernel *k = calloc(1, sizeof *k);
    int rc = k ? ensure_ready(c, diag) : kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK)
        rc = keep_program(c, artifact, diag);
    cl_int err = CL_SUCCESS;
    if (rc == KT_OK && !(k->k = c->cl.clCreateKernel(c->prog, name, &err)))
        rc = cl_fail(err, "creating the kernel", diag);
    if (rc == KT_OK)
        rc = fit_launch(c, k, slots, reference, diag);
    if (rc != KT_OK) {
        ocl_unload(c, k);
        return rc;
    }
    *out = k;
    return KT_OK;
}

/* Each argument: a scalar's bytes, or a buffer's cl_mem (args[i] points
 * to either, the CUDA driver's convention). */
static int set_args(ocl_ctx *c, ocl_kernel *k, void **args, kt_diag *diag)
{
    const kt_spec *s = c->spec;
    for (size_t i = 0; i < s->nargs; i++) {
        size_t size = s->args[i].scalar ? kt_dtype_size(s->args[i].type) : sizeof(cl_mem);
        cl_int err = c->cl.clSetKernelArg(k->k, (cl_uint)i, size, args[i]);
        if (err)
            return kt_fail(diag, KT_EBACKEND, "setting argument %zu ('%s'): OpenCL error "
                           "%d (%s)", i, s->args[i].name, (int)err, kt_cl_error_name(err));
    }
    return KT_OK;
}

/* Nanoseconds from the start of first to the end of last. */
static cl_int elapsed_ns(const ocl_ctx *c, cl_event first, cl_event last, double *ns)
{
    cl_ulong t0 = 0, t1 = 0;
    cl_int err = c->cl.clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof t0,
                                               &t0, NULL);
    if (!err)
        err = c->cl.clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof t1, &t1,
                                            NULL);
    *ns = (double)(t1 - t0);
    return err;
}

/* Enqueue samples [from, from + n) (n <= RUN_GROUP), each the cache flush
 * then `inner` calls, the first and last call's events kept; wait for the
 * last and read them all. */
static cl_int run_group(ocl_ctx *c, const ocl_kernel *k, int from, int n, int inner,
                        double *times_ms)
{
    cl_event first[RUN_GROUP] = {0}, last[RUN_GROUP] = {0};
    cl_int err = CL_SUCCESS;
    for (int s = 0; !err && s < n; s++) {
        unsigned char byte = (unsigned char)(from + s);
        err = c->cl.clEnqueueFillBuffer(c->queue, c->flush, &byte, 1, 0, c->flush_bytes, 0,
                                        NULL, NULL);
        for (int i = 0; !err && i < inner; i++) {
            cl_event *ev = i == 0 ? &first[s] : i == inner - 1 ? &last[s] : NULL;
            err = c->cl.clEnqueueNDRangeKernel(c->queue, k->k, 3, NULL, k->global,
                                               k->local, 0, NULL, ev);
        }
    }
    if (!err)
        err = c->cl.clFinish(c->queue);
    for (int s = 0; !err && s < n; s++) {
        double ns = 0;
        err = elapsed_ns(c, first[s], last[s] ? last[s] : first[s], &ns);
        times_ms[from + s] = ns * 1e-6 / inner;
    }
    for (int s = 0; s < n; s++) {
        if (first[s])
            c->cl.clReleaseEvent(first[s]);
        if (last[s])
            c->cl.clReleaseEvent(last[s]);
    }
    return err;
}

static int ocl_run(void *vctx, void *kernel, void **args, int reps, int inner,
                   double *times_ms, kt_diag *diag)
{
    ocl_ctx *c = vctx;
    ocl_kernel *k = kernel;
    int rc = set_args(c, k, args, diag);
    for (int from = 0; rc == KT_OK && from < reps; from += RUN_GROUP) {
        int n = reps - from < RUN_GROUP ? reps - from : RUN_GROUP;
        cl_int err = run_group(c, k, from, n, inner, times_ms);
        if (err)
            rc = kt_fail(diag, KT_EBACKEND, "running the kernel (global %zux%zux%zu, "
                         "work-group %zux%zux%zu): OpenCL error %d (%s)", k->global[0],
                         k->global[1], k->global[2], k->local[0], k->local[1], k->local[2],
                         (int)err, kt_cl_error_name(err));
    }
    return rc;
}

/* No portable energy counter: unknown (not the CPU package's, which a GPU
 * platform's kernel does not draw). */
static double ocl_energy_j(void *vctx)
{
    (void)vctx;
    return NAN;
}

const kt_backend kt_backend_opencl = {
    .abi = KT_BACKEND_ABI,
    .name = "opencl",
    .language = KT_LANG_OPENCL,
    .open = ocl_open,
    .close = ocl_close,
    .device = ocl_device_info,
    .compile = ocl_compile,
    .compile_start = ocl_compile_start,
    .compile_next = ocl_compile_next,
    .compile_end = ocl_compile_end,
    .load = ocl_load,
    .unload = ocl_unload,
    .buffer_new = ocl_buffer_new,
    .buffer_free = ocl_buffer_free,
    .buffer_write = ocl_buffer_write,
    .buffer_read = ocl_buffer_read,
    .buffer_fill = ocl_buffer_fill,
    .buffer_protect = NULL,
    .run = ocl_run,
    .energy_j = ocl_energy_j,
    .clock_mhz = NULL,
    .host_memory = false,
    .devices = ocl_devices,
};
