/* test_throughput.c - what makes the tuner measure more configurations a
 * minute without measuring differently: every fault is still classified
 * as before (wrong results through the comparison that now runs while the
 * kernel is timed), the default still comes first, and the report says
 * where the time went; a kernel whose own thread limit is below the block
 * is invalid before any run; a CUBIN is reused across problem sizes and
 * across configurations that differ in launch geometry alone. */
#include "backend/backend.h"
#include "backend/cuda_api.h"
#include "backend/launch.h"
#include "core/util.h"
#include "tune/tuner.h"
#include "nvrtc_util.h"
#include "test.h"

/* The configurations in the order the run reported them. */
typedef struct order {
    char first[256];
    int n;
} order;

static void note(void *user, const kt_progress *p)
{
    order *o = user;
    if (o->n++ == 0)
        snprintf(o->first, sizeof o->first, "%s", p->config);
}

static void test_a_random_run_classifies_every_fault_and_says_where_time_went(void)
{
    kt_spec *spec;
    kt_diag d = {{0}};
    CHECK(kt_spec_load(kt_test_path("tests/kernels/faulty.json"), NULL, NULL, &spec, &d) ==
          KT_OK);
    kt_tune_opts o = kt_tune_defaults();
    o.db_path = kt_test_tmp("faults.db");
    o.backend.cache_dir = kt_test_tmp("cache");
    o.problem = "N=5000";
    o.strategy = "random";
    o.measure.timeout_s = 2;
    o.measure.min_time_s = 0.01;
    order seen = {{0}, 0};
    o.progress = note;
    o.progress_user = &seen;
    kt_tune_report rep;
    CHECK(kt_tune(spec, &o, &rep, &d) == KT_OK);
    CHECK_EQ_INT(rep.measured, 18);
    CHECK_EQ_INT(seen.n, 18);
    CHECK_STR(seen.first, rep.default_config); /* still the first measured */
    CHECK(rep.default_result.status == KT_STATUS_OK);
    CHECK_EQ_INT(rep.by_status[KT_STATUS_OK], 4);
    CHECK_EQ_INT(rep.by_status[KT_STATUS_CRASH], 6);
    CHECK_EQ_INT(rep.by_status[KT_STATUS_TIMEOUT], 2);
    CHECK_EQ_INT(rep.by_status[KT_STATUS_WRONG_RESULT], 4);
    CHECK_EQ_INT(rep.by_status[KT_STATUS_COMPILE_ERROR], 2);
    /* where the time went: the worker's phases lie inside its evaluations */
    double phases = 0;
    for (int p = 0; p < KT_PHASE_COUNT; p++)
        phases += rep.phase_s[p];
    CHECK(rep.phase_s[KT_PHASE_time] > 0 && rep.phase_s[KT_PHASE_verify] > 0);
    CHECK(phases > 0 && phases <= rep.measure_s);
    CHECK(rep.measure_s + rep.start_s <= rep.seconds);
    CHECK_STR(kt_worker_phase_name(KT_PHASE_first_run), "first_run");
    kt_tune_report_clear(&rep);
    kt_spec_free(spec);
}

/* A kernel compiled with __launch_bounds__(256) cannot start 384 threads:
 * every launch would fail (CUDA error 701) and cost a worker. */
static void test_a_block_over_the_kernels_own_limit_is_invalid(void)
{
    kt_diag d = {{0}};
    CHECK(kt_launch_kernel_threads(256, 384, &d) == KT_ERANGE);
    CHECK(strstr(d.msg, "384 threads per block, the compiled kernel allows 256") != NULL);
    CHECK(kt_launch_kernel_threads(256, 256, &d) == KT_OK);
    CHECK(kt_launch_kernel_threads(0, 1024, &d) == KT_OK); /* unknown */
}


/* The CUBIN's cache key is the source, the options and NVRTC's version:
 * the problem is not in it, so a configuration compiled for one size is
 * not compiled again for another. */
static void test_a_cubin_serves_every_problem_size(void)
{
    kt_diag d = {{0}};
    need_nvrtc();
    kt_spec *spec;
    CHECK(kt_spec_load(kt_test_path("kernels/gemm/gemm-cuda.json"), NULL, NULL, &spec, &d) ==
          KT_OK);
    const kt_backend *be = kt_backend_find("cuda");
    kt_backend_opts bo = {.cache_dir = kt_test_tmp("cubins"), .jobs = 1, .arch = "sm_90"};
    void *ctx;
    CHECK(be->open(spec, &bo, &ctx, &d) == KT_OK);
    uint16_t *cfg = calloc(spec->nparams, sizeof *cfg);
    for (size_t i = 0; i < spec->nparams; i++)
        cfg[i] = (uint16_t)spec->params[i].default_index;
    const uint16_t *list[1] = {cfg};
    kt_build first, again;
    CHECK(be->compile(ctx, list, 1, &first, &d) == KT_OK);
    CHECK(first.status == KT_STATUS_OK && first.compile_ms > 0);
    CHECK(be->compile(ctx, list, 1, &again, &d) == KT_OK);
    CHECK(again.status == KT_STATUS_OK && again.compile_ms == 0);
    CHECK_STR(first.artifact, again.artifact);
    kt_builds_clear(&first, 1);
    kt_builds_clear(&again, 1);
    free(cfg);
    be->close(ctx);
    kt_spec_free(spec);
}

/* Write a spec with two parameters, BS (launch geometry only: the source
 * never names it) and UNROLL (read by the source), over src. */
static const char *geometry_spec(const char *src)
{
    static char path[256];
    char kernel[256];
    snprintf(kernel, sizeof kernel, "%s", kt_test_tmp("k.cu"));
    snprintf(path, sizeof path, "%s", kt_test_tmp("k.json"));
    FILE *f = fopen(kernel, "w");
    fputs(src, f);
    fclose(f);
    f = fopen(path, "w");
    fputs("{\"ConfigurationSpace\": {\"TuningParameters\": ["
          "{\"Name\": \"BS\", \"Type\": \"int\", \"Values\": \"[32, 64]\"},"
          "{\"Name\": \"UNROLL\", \"Type\": \"int\", \"Values\": \"[1, 2]\"}]},"
          "\"KernelSpecification\": {\"Language\": \"CUDA\", \"KernelName\": \"k\","
          "\"KernelFile\": \"k.cu\", \"GlobalSize\": {\"X\": \"1024 // BS\"},"
          "\"LocalSize\": {\"X\": \"BS\"}, \"Arguments\": [{\"Name\": \"x\","
          "\"Type\": \"float\", \"MemoryType\": \"Vector\", \"AccessType\": "
          "\"WriteOnly\", \"Size\": 1024}]}}", f);
    fclose(f);
    return path;
}

/* The artifacts of configurations (BS, UNROLL) = (0,0), (1,0), (0,1). */
static void compile_three(const char *spec_path, kt_build *b)
{
    kt_spec *spec;
    kt_diag d = {{0}};
    CHECK(kt_spec_load(spec_path, NULL, NULL, &spec, &d) == KT_OK);
    const kt_backend *be = kt_backend_find("cuda");
    kt_backend_opts bo = {.cache_dir = kt_test_tmp("cubins"), .jobs = 1, .arch = "sm_90"};
    void *ctx;
    CHECK(be->open(spec, &bo, &ctx, &d) == KT_OK);
    static const uint16_t cfgs[3][2] = {{0, 0}, {1, 0}, {0, 1}};
    for (int i = 0; i < 3; i++) {
        const uint16_t *list[1] = {cfgs[i]};
        CHECK(be->compile(ctx, list, 1, &b[i], &d) == KT_OK);
        CHECK(b[i].status == KT_STATUS_OK);
    }
    be->close(ctx);
    kt_spec_free(spec);
}

/* Configurations that differ only in a parameter the source never names
 * (a block size used in the launch alone) are one CUBIN: compiled once,
 * loaded once; one that the source reads is compiled apart.  With an
 * #include the names could be anywhere: every define is kept. */
static void test_launch_geometry_alone_shares_one_cubin(void)
{
    need_nvrtc();
    kt_build b[3];
    compile_three(geometry_spec("extern \"C\" __global__ void k(float *x) {\n"
                                "  for (int u = 0; u < UNROLL; u++) x[threadIdx.x] = u; }\n"),
                  b);
    CHECK_STR(b[0].artifact, b[1].artifact);
    CHECK(b[1].compile_ms == 0);
    CHECK(strcmp(b[0].artifact, b[2].artifact) != 0);
    kt_builds_clear(b, 3);
    compile_three(geometry_spec("#include <math.h>\n"
                                "extern \"C\" __global__ void k(float *x) {\n"
                                "  for (int u = 0; u < UNROLL; u++) x[threadIdx.x] = M_PI; }\n"),
                  b);
    CHECK(strcmp(b[0].artifact, b[1].artifact) != 0);
    kt_builds_clear(b, 3);
}

static const kt_test TESTS[] = {
    KT_T(test_launch_geometry_alone_shares_one_cubin),
    KT_T(test_a_random_run_classifies_every_fault_and_says_where_time_went),
    KT_T(test_a_block_over_the_kernels_own_limit_is_invalid),
    KT_T(test_a_cubin_serves_every_problem_size),
};
KT_TEST_MAIN(TESTS)
