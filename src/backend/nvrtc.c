/* nvrtc.c - CUDA configurations to CUBINs with NVRTC: a pool of threads,
 * each finished build handed to the tuner as soon as it is done (see
 * nvrtc.h for why). */
#include "backend/nvrtc.h"
#include "backend/pool.h"
#include "backend/defines.h"
#include "core/includes.h"
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------- one compilation */

/* True when the spec's options name a target themselves: a kernel that
 * needs architecture-specific instructions (wgmma: sm_90a) says so. */
static bool names_arch(const kt_spec *s)
{
    for (size_t i = 0; i < s->ncompiler_options; i++)
        if (strncmp(s->compiler_options[i], "--gpu-architecture", 18) == 0 ||
            strncmp(s->compiler_options[i], "-arch", 5) == 0)
            return true;
    return false;
}

/* "--include-path=" the directory of the kernel file at path. */
static char *include_path(const char *path)
{
    char *dir = kt_path_dir(path);
    char *opt = dir ? kt_asprintf("--include-path=%s", dir) : NULL;
    free(dir);
    return opt;
}

/* The options of one compilation: architecture (the device's, unless the
 * spec names one), the configuration's defines (defines.h) that matter,
 * the spec's options (nvrtc.h). */
char **kt_nvrtc_options(const kt_nvrtc *nv, const uint16_t *cfg, size_t *n)
{
    const kt_spec *s = nv->spec;
    size_t ndef;
    char **def = kt_defines_new(s, cfg, true, &ndef);
    char **o = def ? calloc(3 + ndef + s->ncompiler_options, sizeof *o) : NULL;
    *n = 0;
    if (!o) {
        kt_defines_free(def, ndef);
        return NULL;
    }
    if (!names_arch(s))
        o[(*n)++] = kt_asprintf("--gpu-architecture=%s", nv->arch);
    for (size_t i = 0; i < ndef; i++) { /* o owns the strings it keeps */
        if (cfg && !kt_define_matters(s, def[i]))
            free(def[i]);
        else
            o[(*n)++] = def[i];
    }
    free(def);
    /* an empty option is none: NVRTC refuses "" as unrecognized, and KTT's
     * ClTuneGemm spec gives "CompilerOptions": [""] */
    for (size_t i = 0; i < s->ncompiler_options; i++)
        if (s->compiler_options[i][0])
            o[(*n)++] = kt_strdup(s->compiler_options[i]);
    if (cfg ? s->kernel_includes : s->ref_includes) /* its own headers, beside it */
        o[(*n)++] = include_path(cfg ? s->kernel_file : s->ref_file);
    for (size_t i = 0; i < *n; i++)
        if (!o[i]) {
            kt_defines_free(o, *n);
            return NULL;
        }
    return o;
}

/* The first line of the NVRTC log that says "error", else its first. */
static void compile_log(const kt_nvrtc *nv, nvrtcProgram prog, char *out, size_t n)
{
    size_t len = 0;
    char *log = NULL;
    snprintf(out, n, "NVRTC failed");
    if (nv->api->nvrtcGetProgramLogSize(prog, &len) != 0 || !(log = malloc(len + 1)))
        return;
    if (nv->api->nvrtcGetProgramLog(prog, log) == 0) {
        log[len] = '\0';
        kt_log_error_line(log, out, n);
    }
    free(log);
}

/* ------------------------------------------------- the compiled kernel */

/* Little-endian u32 at p, bytes apart, so a cache read on another machine
 * means the same. */
static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

char *kt_cubin_pack(const char *name, const void *cubin, size_t cubin_len, size_t *len)
{
    size_t nlen = strlen(name);
    size_t off = (KT_CUBIN_HEADER + nlen + 1 + 15) & ~(size_t)15;
    if (nlen > UINT32_MAX || off > UINT32_MAX || cubin_len > SIZE_MAX - off)
        return NULL;
    unsigned char *p = calloc(1, off + cubin_len);
    if (!p)
        return NULL;
    memcpy(p, KT_CUBIN_MAGIC, 8);
    put_u32(p + 8, (uint32_t)nlen);
    put_u32(p + 12, (uint32_t)off);
    memcpy(p + KT_CUBIN_HEADER, name, nlen); /* its NUL and the padding: calloc */
    memcpy(p + off, cubin, cubin_len);
    *len = off + cubin_len;
    return (char *)p;
}

int kt_cubin_parse(const char *data, size_t len, const char **name, const void **cubin,
                   size_t *cubin_len, kt_diag *diag)
{
    const unsigned char *p = (const unsigned char *)data;
    if (len < KT_CUBIN_HEADER || memcmp(p, KT_CUBIN_MAGIC, 8) != 0)
        return kt_fail(diag, KT_EFORMAT, "not a compiled kernel of this ktune (no %.8s "
                       "header): remove the cache folder and tune again", KT_CUBIN_MAGIC);
    uint64_t nlen = get_u32(p + 8), off = get_u32(p + 12);
    if (off < KT_CUBIN_HEADER + nlen + 1 || off > len || p[KT_CUBIN_HEADER + nlen] != 0 ||
        memchr(p + KT_CUBIN_HEADER, 0, nlen))
        return kt_fail(diag, KT_EFORMAT, "a compiled kernel with a damaged header: remove "
                       "the cache folder and tune again");
    *name = data + KT_CUBIN_HEADER;
    *cubin = data + off;
    *cubin_len = len - off;
    return KT_OK;
}

/* The CUBIN and the kernel's lowered (mangled, for a C++ name) symbol, in
 * one file: cuModuleGetFunction needs the symbol, and the worker has no
 * NVRTC to ask. */
static bool store_kernel(const kt_nvrtc *nv, nvrtcProgram prog, const char *name,
                         const char *path)
{
    size_t len = 0, packed_len = 0;
    const char *lowered = NULL;
    char *cubin = NULL, *packed = NULL;
    bool ok = nv->api->nvrtcGetLoweredName(prog, name, &lowered) == 0 && lowered &&
              nv->api->nvrtcGetCUBINSize(prog, &len) == 0 && (cubin = malloc(len)) &&
              nv->api->nvrtcGetCUBIN(prog, cubin) == 0 &&
              (packed = kt_cubin_pack(lowered, cubin, len, &packed_len)) &&
              kt_cache_write(path, packed, packed_len);
    free(packed);
    free(cubin);
    return ok;
}

/* Headers NVRTC lacks (it has no host headers) that kernels written for
 * nvcc include: <math.h> for its constants (glibc's values; the math
 * functions are NVRTC built-ins), so BAT's FFT compiles as written. */
static const char MATH_H[] =
    "#pragma once\n"
    "#define M_E 2.7182818284590452354\n"
    "#define M_LOG2E 1.4426950408889634074\n"
    "#define M_LOG10E 0.43429448190325182765\n"
    "#define M_LN2 0.69314718055994530942\n"
    "#define M_LN10 2.30258509299404568402\n"
    "#define M_PI 3.14159265358979323846\n"
    "#define M_PI_2 1.57079632679489661923\n"
    "#define M_PI_4 0.78539816339744830962\n"
    "#define M_1_PI 0.31830988618379067154\n"
    "#define M_2_PI 0.63661977236758134308\n"
    "#define M_2_SQRTPI 1.12837916709551257390\n"
    "#define M_SQRT2 1.41421356237309504880\n"
    "#define M_SQRT1_2 0.70710678118654752440\n";
static const char *const HEADERS[] = {MATH_H};
static const char *const HEADER_NAMES[] = {"math.h"};

/* NVRTC source to CUBIN; b->status says whether it compiled.  The kernel's
 * name is added as a name expression, as Kernel Tuner does, so a C++
 * kernel (no extern "C", or a template instance "k<float>") is found. */
static void nvrtc_build(const kt_nvrtc *nv, const char *src, const char *name,
                        const char *path, char **opts, size_t nopts, kt_build *b)
{
    nvrtcProgram prog = NULL;
    double t0 = kt_now();
    b->status = KT_STATUS_COMPILE_ERROR;
    if (nv->api->nvrtcCreateProgram(&prog, src, "kernel.cu", (int)KT_ARRAY_LEN(HEADERS),
                                    HEADERS, HEADER_NAMES) != 0) {
        snprintf(b->detail, sizeof b->detail, "NVRTC could not create a program");
        return;
    }
    if (nv->api->nvrtcAddNameExpression(prog, name) != 0)
        snprintf(b->detail, sizeof b->detail, "NVRTC refused the kernel name '%s'", name);
    else if (nv->api->nvrtcCompileProgram(prog, (int)nopts, (const char *const *)opts) != 0)
        compile_log(nv, prog, b->detail, sizeof b->detail);
    else if (!store_kernel(nv, prog, name, path))
        snprintf(b->detail, sizeof b->detail, "cannot store the compiled kernel '%s' in "
                 "'%s'", name, path);
    else
        b->status = KT_STATUS_OK;
    b->compile_ms = (kt_now() - t0) * 1e3;
    nv->api->nvrtcDestroyProgram(&prog);
}

static void compile_one(const kt_nvrtc *nv, const uint16_t *cfg, kt_build *b)
{
    const kt_spec *s = nv->spec;
    const char *src = cfg ? s->kernel_source : s->ref_source;
    const char *name = cfg ? s->kernel_name : s->ref_name;
    size_t nopts = 0;
    char **opts = kt_nvrtc_options(nv, cfg, &nopts);
    *b = (kt_build){.status = KT_STATUS_COMPILE_ERROR};
    if (!opts) {
        snprintf(b->detail, sizeof b->detail, "out of memory");
        return;
    }
    int major = 0, minor = 0;
    nv->api->nvrtcVersion(&major, &minor);
    uint64_t h = kt_hash_str(KT_HASH_INIT, KT_CUBIN_MAGIC); /* not an older plain CUBIN */
    h = kt_hash(h, &major, sizeof major);
    h = kt_hash(h, &minor, sizeof minor);
    h = kt_hash_str(h, name);
    h = kt_hash_str(h, src);
    for (size_t i = 0; i < nopts; i++)
        h = kt_hash_str(h, opts[i]);
    const char *includes = cfg ? s->kernel_includes : s->ref_includes;
    if (includes) /* the headers' text, not just the include path's name */
        h = kt_hash_str(h, includes);
    char *path = kt_asprintf("%s/%016llx.ktcubin", nv->cache_dir, (unsigned long long)h);
    if (path && access(path, R_OK) == 0)
        b->status = KT_STATUS_OK; /* cached */
    else if (path)
        nvrtc_build(nv, src, name, path, opts, nopts, b);
    if (b->status == KT_STATUS_OK)
        b->artifact = path;
    else
        free(path);
    for (size_t i = 0; i < nopts; i++)
        free(opts[i]);
    free(opts);
}

/* ----------------------------------------------------------- the pool */

static void build_cb(const void *nv, const uint16_t *cfg, kt_build *b)
{
    compile_one(nv, cfg, b);
}

int kt_nvrtc_start(const kt_nvrtc *nv, const uint16_t *const *cfgs, size_t n,
                   kt_nvrtc_job **out, kt_diag *diag)
{
    return kt_pool_start(build_cb, nv, nv->jobs, cfgs, n, out, diag);
}

int kt_nvrtc_next(kt_nvrtc_job *job, size_t *index, kt_build *b, kt_diag *diag)
{
    return kt_pool_next(job, index, b, diag);
}

void kt_nvrtc_end(kt_nvrtc_job *job) { kt_pool_end(job); }

int kt_nvrtc_compile(const kt_nvrtc *nv, const uint16_t *const *cfgs, size_t n,
                     kt_build *builds, kt_diag *diag)
{
    return kt_pool_run(build_cb, nv, nv->jobs, cfgs, n, builds, diag);
}
