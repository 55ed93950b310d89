/* test_cuda.c - the CUDA backend without a GPU: every shipped CUDA kernel's
 * default configuration, its reference and a sample of other
 * configurations compile with NVRTC for sm_90; a broken kernel is a
 * compile error with NVRTC's message; tuning without a device is a clear
 * error.  Each test is reported as skipped where NVRTC itself is absent. */
#include "backend/backend.h"
#include "backend/cuda_api.h"
#include "core/space.h"
#include "core/util.h"
#include "tune/tuner.h"
#include "nvrtc_util.h"
#include "test.h"

#include <sys/stat.h>


static const char *cache_dir(void)
{
    return kt_test_tmp("cache");
}

static void compile_sample(const char *spec_path, const char *problem, size_t sample)
{
    kt_spec *spec;
    kt_problem prob;
    kt_space *space;
    kt_diag d = {{0}};
    CHECK(kt_spec_load(kt_test_path(spec_path), NULL, NULL, &spec, &d) == KT_OK);
    CHECK(kt_problem_parse(spec, problem, &prob, &d) == KT_OK);
    CHECK(kt_space_new(spec, &prob, &space, &d) == KT_OK);
    CHECK(kt_space_build(space, 1 << 20, &d) == KT_OK);
    const kt_backend *be = kt_backend_find("cuda");
    CHECK(be != NULL);
    kt_backend_opts o = {.cache_dir = cache_dir(), .jobs = 2, .arch = "sm_90"};
    void *ctx;
    CHECK(be->open(spec, &o, &ctx, &d) == KT_OK);
    size_t n = sample + 2, np = spec->nparams;
    uint16_t *cfgs = calloc(n * np, sizeof *cfgs);
    const uint16_t **list = calloc(n, sizeof *list);
    kt_build *builds = calloc(n, sizeof *builds);
    kt_rng rng;
    kt_rng_seed(&rng, 9);
    kt_space_default(space, cfgs);
    list[0] = cfgs;
    list[1] = NULL; /* the reference kernel */
    for (size_t i = 2; i < n; i++) {
        CHECK(kt_space_sample(space, &rng, cfgs + i * np) == KT_OK);
        list[i] = cfgs + i * np;
    }
    CHECK(be->compile(ctx, list, n, builds, &d) == KT_OK);
    for (size_t i = 0; i < n; i++) {
        if (builds[i].status != KT_STATUS_OK)
            fprintf(stderr, "configuration %zu: %s\n", i, builds[i].detail);
        CHECK(builds[i].status == KT_STATUS_OK);
        struct stat st;
        CHECK(stat(builds[i].artifact, &st) == 0 && st.st_size > 1000);
    }
    kt_builds_clear(builds, n);
    free(builds);
    free(list);
    free(cfgs);
    be->close(ctx);
    kt_space_free(space);
    kt_problem_clear(&prob);
    kt_spec_free(spec);
}

static void test_shipped_cuda_kernels_compile_for_sm90(void)
{
    need_nvrtc();
    compile_sample("kernels/gemm/gemm-cuda.json", NULL, 10);
    compile_sample("kernels/gemm/gemm-f16-cuda.json", NULL, 10);
    compile_sample("kernels/gemm/gemm-bf16-cuda.json", "M=1000,N=1003,K=517", 4);
    compile_sample("kernels/conv/conv-igemm-cuda.json", NULL, 10);
    /* a 1x1 layer: the space adds the float4 (VEC=4) path */
    compile_sample("kernels/conv/conv-igemm-cuda.json", "C=256,K=64,R=1,S=1,pad=0", 10);
    compile_sample("kernels/conv/conv-direct-cuda.json", NULL, 10);
    /* FP16 on the tensor cores: a 3x3 layer, res5 (the split reduction
     * joins the space), and channels not a multiple of 8 (loads by element) */
    compile_sample("kernels/conv/conv-igemm-tc-f16-cuda.json", NULL, 10);
    compile_sample("kernels/conv/conv-igemm-tc-f16-cuda.json", "C=512,H=7,W=7,K=512", 6);
    compile_sample("kernels/conv/conv-igemm-tc-f16-cuda.json",
                   "N=3,C=13,H=17,W=19,K=37,stride=2", 4);
    compile_sample("kernels/conv/conv-igemm-wgmma-f16-cuda.json", NULL, 6);
    compile_sample("kernels/conv/conv-igemm-wgmma-f16-cuda.json", "C=512,H=7,W=7,K=512", 4);
    compile_sample("kernels/conv/conv-igemm-wgmma-f16-cuda.json",
                   "N=3,C=13,H=17,W=19,K=37,stride=2", 3);
    /* TMA boxes: a 56x56 layer, res5's 7x7 (tiles of whole images, rows
     * past the pixels dropped), channels not a multiple of the box's 64 */
    compile_sample("kernels/conv/conv-igemm-tma-f16-cuda.json", NULL, 6);
    compile_sample("kernels/conv/conv-igemm-tma-f16-cuda.json", "C=512,H=7,W=7,K=512", 4);
    compile_sample("kernels/conv/conv-igemm-tma-f16-cuda.json", "N=2,C=40,H=9,W=9,K=40", 3);
    compile_sample("kernels/conv/conv-igemm-tma-f16-cuda.json",
                   "C=256,H=14,W=14,K=1024,R=1,S=1,pad=0", 4); /* clusters join */
    /* a 1x1 layer of 1x1 images: flat tiles (FLAT=1) alone */
    compile_sample("kernels/conv/conv-igemm-tma-f16-cuda.json",
                   "N=300,C=64,H=1,W=1,K=64,R=1,S=1,pad=0", 3);
    compile_sample("kernels/conv/conv-igemm-tma-bf16-cuda.json", NULL, 3); /* bfloat16 */
    compile_sample("kernels/conv/conv-igemm-tma-bf16-cuda.json",
                   "C=256,H=14,W=14,K=1024,R=1,S=1,pad=0", 3);
    compile_sample("kernels/conv/conv-direct-cuda.json", "H=14,W=14,R=1,S=1,stride=2,pad=0",
                   4);
    /* wgmma needs sm_90a: the specs name it, overriding the backend's sm_90 */
    compile_sample("kernels/gemm/gemm-wgmma-f16-cuda.json", NULL, 10);
    compile_sample("kernels/gemm/gemm-wgmma-bf16-cuda.json", "M=1000,N=1003,K=517", 4);
    compile_sample("kernels/gemm/gemm-wgmma-ws-f16-cuda.json", NULL, 3);
    compile_sample("kernels/gemm/gemm-wgmma-ws-bf16-cuda.json", "M=1000,N=1003,K=517", 2);
    /* TMA loads, clusters and setmaxnreg: sm_90a too */
    compile_sample("kernels/gemm/gemm-tma-f16-cuda.json", NULL, 2);
    compile_sample("kernels/gemm/gemm-tma-bf16-cuda.json", "M=777,N=1024,K=1000", 1);
    /* FP8 (E4M3, k32 wgmma, B K-major); K a multiple of 16 for TMA's pitch */
    compile_sample("kernels/gemm/gemm-tma-f8-cuda.json", NULL, 2);
    compile_sample("kernels/gemm/gemm-tma-f8-cuda.json", "M=1000,N=1003,K=528", 1);
}

/* The Hopper GEMMs share kernels/gemm/hopper.cuh, and the two cp.async
 * wgmma ones wgmma_stage.cuh too: the spec finds them (its hash covers
 * them) and NVRTC, given the kernel's directory, compiles them (the sample
 * above). */
static void test_hopper_gemms_include_their_header(void)
{
    static const char *const specs[] = {
        "kernels/gemm/gemm-tma-f16-cuda.json",      "kernels/gemm/gemm-tma-bf16-cuda.json",
        "kernels/gemm/gemm-tma-f8-cuda.json",
        "kernels/gemm/gemm-wgmma-f16-cuda.json",    "kernels/gemm/gemm-wgmma-bf16-cuda.json",
        "kernels/gemm/gemm-wgmma-ws-f16-cuda.json", "kernels/gemm/gemm-wgmma-ws-bf16-cuda.json"};
    for (size_t i = 0; i < KT_ARRAY_LEN(specs); i++) {
        kt_spec *spec;
        kt_diag d = {{0}};
        CHECK(kt_spec_load(kt_test_path(specs[i]), NULL, NULL, &spec, &d) == KT_OK);
        CHECK(spec->kernel_includes && strncmp(spec->kernel_includes, "hopper.cuh\n", 11) == 0);
        bool cp_async = strstr(specs[i], "wgmma") != NULL;
        CHECK(cp_async == (strstr(spec->kernel_includes, "\nwgmma_stage.cuh\n") != NULL));
        kt_spec_free(spec);
    }
}

/* The mma.sync kernels share kernels/gemm/mma.cuh, the FP16 convolutions
 * kernels/conv/conv.cuh, and the wgmma ones kernels/gemm/hopper.cuh and
 * kernels/conv/conv_wgmma.cuh; the
 * convolutions reach the GEMMs' headers through links in kernels/conv/,
 * since a kernel's local includes lie beside it. */
static void test_conv_kernels_include_their_headers(void)
{
    static const char *const specs[][3] = {
        {"kernels/gemm/gemm-f16-cuda.json", "mma.cuh\n", NULL},
        {"kernels/gemm/gemm-bf16-cuda.json", "mma.cuh\n", NULL},
        {"kernels/conv/conv-igemm-tc-f16-cuda.json", "mma.cuh\n", "\nconv.cuh\n"},
        {"kernels/conv/conv-igemm-wgmma-f16-cuda.json", "hopper.cuh\n", "\nconv_wgmma.cuh\n"},
        {"kernels/conv/conv-igemm-tma-f16-cuda.json", "hopper.cuh\n", "\nconv_wgmma.cuh\n"}};
    for (size_t i = 0; i < KT_ARRAY_LEN(specs); i++) {
        kt_spec *spec;
        kt_diag d = {{0}};
        CHECK(kt_spec_load(kt_test_path(specs[i][0]), NULL, NULL, &spec, &d) == KT_OK);
        const char *inc = spec->kernel_includes;
        CHECK(inc && strncmp(inc, specs[i][1], strlen(specs[i][1])) == 0);
        CHECK(!specs[i][2] || strstr(inc, specs[i][2]));
        kt_spec_free(spec);
    }
}

static void test_broken_kernel_is_a_compile_error(void)
{
    need_nvrtc();
    const char *dir = cache_dir();
    mkdir(dir, 0755);
    char src[256], spec_path[256];
    snprintf(src, sizeof src, "%s/broken.cu", dir);
    snprintf(spec_path, sizeof spec_path, "%s/broken.json", dir);
    FILE *f = fopen(src, "w");
    fputs("extern \"C\" __global__ void k(float *x) { x[0] = undefined_name; }\n", f);
    fclose(f);
    f = fopen(spec_path, "w");
    fputs("{\"ConfigurationSpace\": {\"TuningParameters\": [{\"Name\": \"A\", \"Type\": "
          "\"int\", \"Values\": \"[1]\"}]}, \"KernelSpecification\": {\"Language\": "
          "\"CUDA\", \"KernelName\": \"k\", \"KernelFile\": \"broken.cu\", "
          "\"GlobalSize\": {\"X\": \"1\"}, \"LocalSize\": {\"X\": \"1\"}, \"Arguments\": "
          "[{\"Name\": \"x\", \"Type\": \"float\", \"MemoryType\": \"Vector\", "
          "\"AccessType\": \"WriteOnly\", \"Size\": 1}]}}", f);
    fclose(f);
    kt_spec *spec;
    kt_diag d = {{0}};
    CHECK(kt_spec_load(spec_path, NULL, NULL, &spec, &d) == KT_OK);
    const kt_backend *be = kt_backend_find("cuda");
    kt_backend_opts o = {.cache_dir = dir, .jobs = 1, .arch = "sm_90"};
    void *ctx;
    CHECK(be->open(spec, &o, &ctx, &d) == KT_OK);
    uint16_t cfg[1] = {0};
    const uint16_t *list[1] = {cfg};
    kt_build b;
    CHECK(be->compile(ctx, list, 1, &b, &d) == KT_OK);
    CHECK(b.status == KT_STATUS_COMPILE_ERROR);
    CHECK(strstr(b.detail, "undefined_name") != NULL);
    be->close(ctx);
    kt_spec_free(spec);
}

/* The streamed interface: each configuration comes back exactly once with
 * the same outcome as a batch compile, and ending a job early stops the
 * pool without waiting for the rest. */
static void test_streamed_builds_arrive_once_each(void)
{
    need_nvrtc();
    kt_spec *spec;
    kt_problem prob;
    kt_space *space;
    kt_diag d = {{0}};
    CHECK(kt_spec_load(kt_test_path("kernels/conv/conv-igemm-cuda.json"), NULL, NULL,
                       &spec, &d) == KT_OK);
    CHECK(kt_problem_parse(spec, NULL, &prob, &d) == KT_OK);
    CHECK(kt_space_new(spec, &prob, &space, &d) == KT_OK);
    CHECK(kt_space_build(space, 1 << 20, &d) == KT_OK);
    const kt_backend *be = kt_backend_find("cuda");
    kt_backend_opts o = {.cache_dir = cache_dir(), .jobs = 2, .arch = "sm_90"};
    void *ctx, *job;
    CHECK(be->open(spec, &o, &ctx, &d) == KT_OK);
    enum { n = 5 };
    const uint16_t *list[n];
    for (size_t i = 0; i < n; i++)
        list[i] = kt_space_at(space, i * 7);
    CHECK(be->compile_start(ctx, list, n, &job, &d) == KT_OK);
    int seen[n] = {0};
    size_t idx;
    kt_build b;
    for (size_t k = 0; k < n; k++) {
        CHECK(be->compile_next(job, &idx, &b, &d) == KT_OK);
        CHECK(idx < n && !seen[idx]);
        seen[idx] = 1;
        CHECK(b.status == KT_STATUS_OK && b.artifact != NULL);
        kt_builds_clear(&b, 1);
    }
    CHECK(be->compile_next(job, &idx, &b, &d) == KT_EDONE);
    be->compile_end(job);
    /* a fresh cache: nothing is cached, so the job is still busy when ended */
    char fresh[160];
    snprintf(fresh, sizeof fresh, "%s/fresh", cache_dir());
    void *ctx2;
    kt_backend_opts o2 = {.cache_dir = fresh, .jobs = 1, .arch = "sm_90"};
    CHECK(be->open(spec, &o2, &ctx2, &d) == KT_OK);
    CHECK(be->compile_start(ctx2, list, n, &job, &d) == KT_OK);
    double t0 = kt_now();
    be->compile_end(job);
    CHECK(kt_now() - t0 < 1.0);
    be->close(ctx2);
    be->close(ctx);
    kt_space_free(space);
    kt_problem_clear(&prob);
    kt_spec_free(spec);
}

static void test_tuning_without_a_device_is_a_clear_error(void)
{
    kt_cuda_api cu;
    kt_diag d = {{0}};
    need_nvrtc();
    if (kt_cuda_api_load(&cu, &d) == KT_OK) {
        kt_cuda_api_unload(&cu);
        KT_SKIP("a CUDA driver is present here");
    }
    kt_spec *spec;
    CHECK(kt_spec_load(kt_test_path("kernels/gemm/gemm-cuda.json"), NULL, NULL, &spec,
                       &d) == KT_OK);
    kt_tune_opts o = kt_tune_defaults();
    o.backend.cache_dir = cache_dir();
    o.db_path = kt_test_tmp("none.db");
    kt_tune_report rep;
    CHECK(kt_tune(spec, &o, &rep, &d) == KT_EBACKEND);
    CHECK(strstr(d.msg, "cannot tune a CUDA kernel here") != NULL);
    kt_tune_report_clear(&rep);
    kt_spec_free(spec);
}

static const kt_test TESTS[] = {
    KT_T(test_shipped_cuda_kernels_compile_for_sm90),
    KT_T(test_hopper_gemms_include_their_header),
    KT_T(test_conv_kernels_include_their_headers),
    KT_T(test_broken_kernel_is_a_compile_error),
    KT_T(test_streamed_builds_arrive_once_each),
    KT_T(test_tuning_without_a_device_is_a_clear_error),
};
KT_TEST_MAIN(TESTS)
