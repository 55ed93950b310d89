/* ptx_hashes.c - the PTX that NVRTC makes of a sample of a CUDA spec's
 * configurations, one line each: spec, configuration, PTX bytes, FNV-1a
 * hash of the PTX.  Two runs around a change to shared device headers
 * (kernels/gemm/common.cuh) show whether any generated code changed:
 * bench/ptx_hashes.sh runs it over every spec that uses them.  The options
 * are the CUDA backend's own (kt_nvrtc_options, for sm_90 unless the spec
 * names an architecture).  No GPU needed.
 *
 *   ptx_hashes SPEC SAMPLE [PROBLEM]   the default, then SAMPLE drawn
 *                                      configurations (seed 9) */
#include "backend/defines.h"
#include "backend/nvrtc.h"
#include "core/space.h"
#include "core/util.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct nvrtc {
    int (*create)(void **, const char *, const char *, int, const char *const *,
                  const char *const *);
    int (*name)(void *, const char *);
    int (*compile)(void *, int, const char *const *);
    int (*ptx_size)(void *, size_t *);
    int (*ptx)(void *, char *);
    int (*destroy)(void **);
} nvrtc;

static bool load(nvrtc *n)
{
    static const char *const libs[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"};
    void *h = NULL;
    for (size_t i = 0; !h && i < KT_ARRAY_LEN(libs); i++)
        h = dlopen(libs[i], RTLD_NOW);
    if (!h)
        return false;
    *(void **)&n->create = dlsym(h, "nvrtcCreateProgram");
    *(void **)&n->name = dlsym(h, "nvrtcAddNameExpression");
    *(void **)&n->compile = dlsym(h, "nvrtcCompileProgram");
    *(void **)&n->ptx_size = dlsym(h, "nvrtcGetPTXSize");
    *(void **)&n->ptx = dlsym(h, "nvrtcGetPTX");
    *(void **)&n->destroy = dlsym(h, "nvrtcDestroyProgram");
    return n->create && n->name && n->compile && n->ptx_size && n->ptx && n->destroy;
}

/* One configuration's line. */
static void hash_one(const nvrtc *n, const kt_spec *s, const uint16_t *cfg)
{
    kt_nvrtc nv = {.spec = s, .arch = "sm_90"};
    size_t nopt = 0;
    char **opt = kt_nvrtc_options(&nv, cfg, &nopt);
    char *key = kt_spec_config_key(s, cfg);
    if (!opt || !key) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    void *prog = NULL;
    size_t len = 0;
    char *ptx = NULL;
    bool ok = n->create(&prog, s->kernel_source, "kernel.cu", 0, NULL, NULL) == 0 &&
              n->name(prog, s->kernel_name) == 0 &&
              n->compile(prog, (int)nopt, (const char *const *)opt) == 0 && n->ptx_size(prog, &len) == 0 &&
              (ptx = malloc(len)) && n->ptx(prog, ptx) == 0;
    if (ok)
        printf("%s %s %zu %016llx\n", s->path, key, len,
               (unsigned long long)kt_hash(KT_HASH_INIT, ptx, len));
    else
        printf("%s %s compile-error\n", s->path, key);
    n->destroy(&prog);
    free(ptx);
    free(key);
    kt_defines_free(opt, nopt);
}

int main(int argc, char **argv)
{
    nvrtc n;
    kt_spec *spec = NULL;
    kt_problem prob = {0};
    kt_space *space = NULL;
    kt_diag d = {{0}};
    if (argc < 3) {
        fprintf(stderr, "usage: ptx_hashes SPEC SAMPLE [PROBLEM]\n");
        return 2;
    }
    if (!load(&n)) {
        fprintf(stderr, "ptx_hashes: no NVRTC here\n");
        return 1;
    }
    if (kt_spec_load(argv[1], NULL, NULL, &spec, &d) != KT_OK ||
        kt_problem_parse(spec, argc > 3 ? argv[3] : NULL, &prob, &d) != KT_OK ||
        kt_space_new(spec, &prob, &space, &d) != KT_OK ||
        kt_space_build(space, 1 << 20, &d) != KT_OK) {
        fprintf(stderr, "ptx_hashes: %s\n", d.msg);
        return 1;
    }
    uint16_t *cfg = calloc(spec->nparams + 1, sizeof *cfg);
    if (!cfg)
        return 1;
    kt_rng rng;
    kt_rng_seed(&rng, 9);
    kt_space_default(space, cfg);
    hash_one(&n, spec, cfg);
    for (int i = 0; i < atoi(argv[2]) && kt_space_sample(space, &rng, cfg) == KT_OK; i++)
        hash_one(&n, spec, cfg);
    free(cfg);
    kt_space_free(space);
    kt_problem_clear(&prob);
    kt_spec_free(spec);
    return 0;
}
