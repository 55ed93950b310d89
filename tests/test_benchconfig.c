/* test_benchconfig.c - BAT's top-level BenchmarkConfig, as BAT's CUDA
 * runner reads it (batbench/backends/cuda_kernel_runner):
 *   - each scalar entry is a -DNAME=VALUE of every compilation (BAT's FFT
 *     chooses float2 or double2 by PRECISION: without -DPRECISION=32 it
 *     read its float2 buffer as double2 and left NaN in it) and a name of
 *     the spec's expressions; BAT's own settings (iterations, jitify,
 *     backend) are neither;
 *   - such a spec is also compiled with BAT's launch names GRID_SIZE_X/Y/Z,
 *     BLOCK_SIZE_X/Y/Z and SHARED_MEMORY_SIZE, except where a tuning
 *     parameter has the name already (hotspot's BLOCK_SIZE_X);
 *   - an entry named like a tuning parameter with other values, or like a
 *     problem parameter, is an error at its line and column;
 *   - a spec without BenchmarkConfig compiles with its parameters only and
 *     keeps its source hash, so earlier results and caches still match. */
#include "backend/cuda_api.h"
#include "backend/defines.h"
#include "backend/launch.h"
#include "backend/nvrtc.h"
#include "core/expr.h"
#include "core/space.h"
#include "core/util.h"
#include "spec_util.h"
#include "nvrtc_util.h"
#include "test.h"

/* The defines of the spec's default configuration. */
static char **default_defines(const kt_spec *spec, size_t *n)
{
    kt_problem prob;
    kt_space *space;
    kt_diag d = {{0}};
    CHECK(kt_problem_parse(spec, NULL, &prob, &d) == KT_OK);
    CHECK(kt_space_new(spec, &prob, &space, &d) == KT_OK);
    uint16_t *cfg = calloc(spec->nparams, sizeof *cfg);
    CHECK(cfg != NULL);
    kt_space_default(space, cfg);
    char **v = kt_defines_new(spec, cfg, true, n);
    CHECK(v != NULL);
    free(cfg);
    kt_space_free(space);
    kt_problem_clear(&prob);
    return v;
}

/* How many times def is among v[0..n). */
static int count(char **v, size_t n, const char *def)
{
    int k = 0;
    for (size_t i = 0; i < n; i++)
        k += strcmp(v[i], def) == 0;
    return k;
}

static void test_fft_gets_precision_and_the_launch_defines(void)
{
    kt_spec *spec = load_ok("tests/data/t1/bat/FFT/FFT-CAFF.json");
    size_t n;
    char **v = default_defines(spec, &n);
    static const char *const WANT[] = {
        "-DFFT2_INLINE=1", "-DPRECISION=32", "-DN=131072", "-Dnffts=256",
        "-DGRID_SIZE_X=512", "-DGRID_SIZE_Y=1", "-DGRID_SIZE_Z=1", "-DBLOCK_SIZE_X=64",
        "-DBLOCK_SIZE_Y=1", "-DBLOCK_SIZE_Z=1", "-DSHARED_MEMORY_SIZE=4608"};
    for (size_t i = 0; i < KT_ARRAY_LEN(WANT); i++) {
        if (count(v, n, WANT[i]) != 1)
            fprintf(stderr, "missing %s\n", WANT[i]);
        CHECK(count(v, n, WANT[i]) == 1);
    }
    CHECK(count(v, n, "-Diterations=3000") == 0);
    CHECK_EQ_INT((int)n, (int)(spec->nparams + 7 + 7)); /* 8 entries, iterations not */
    kt_defines_free(v, n);
    kt_spec_free(spec);
}

/* hotspot repeats its single-valued parameters MAX_THREADS... in its
 * BenchmarkConfig, and BLOCK_SIZE_X/Y are its own parameters: each name is
 * defined once, with the parameter's value. */
static void test_hotspot_names_are_defined_once(void)
{
    kt_spec *spec = load_ok("tests/data/t1/bat/hotspot/hotspot-CAFF.json");
    size_t n;
    char **v = default_defines(spec, &n);
    CHECK(count(v, n, "-DMAX_THREADS=1024") == 1);
    CHECK(count(v, n, "-DBLOCK_SIZE_X=256") == 1);
    CHECK(count(v, n, "-DBLOCK_SIZE_Y=1") == 1);
    CHECK(count(v, n, "-DGRID_SIZE_X=16") == 1); /* 4096 threads, OpenCL */
    CHECK(count(v, n, "-DdataSize=4096") == 1);
    kt_defines_free(v, n);
    kt_spec_free(spec);
}

/* BAT's GEMM and ktune's own GEMM have no BenchmarkConfig: the same
 * defines and source hashes as before BenchmarkConfig was read. */
static void test_specs_without_benchmark_config_are_unchanged(void)
{
    kt_spec *spec = load_ok("kernels/bat/GEMM/GEMM-CAFF.json");
    CHECK(!spec->bat_launch && spec->nconsts == 0);
    CHECK_STR(spec->source_hash, "217beed8a94abb4e");
    size_t n;
    char **v = default_defines(spec, &n);
    CHECK_EQ_INT((int)n, (int)spec->nparams);
    for (size_t i = 0; i < n; i++)
        CHECK(strncmp(v[i] + 2, spec->params[i].name, strlen(spec->params[i].name)) == 0);
    kt_defines_free(v, n);
    kt_spec_free(spec);
    spec = load_ok("kernels/gemm/gemm-cuda.json");
    CHECK_STR(spec->source_hash, "586beeeab605a975");
    kt_spec_free(spec);
}

static void warned(void *user, const char *msg)
{
    if (strstr(msg, "BenchmarkConfig"))
        kt_strlcpy(user, 512, msg);
}

/* N in GlobalSize and Size, a string "2.5" in FillValue; a nested object
 * draws a warning and is no define. */
static void test_entries_are_names_of_expressions(void)
{
    kt_spec *spec = NULL;
    kt_diag d = {{0}};
    char warning[512] = "";
    CHECK(kt_spec_load(kt_test_path("tests/data/benchconfig/scale.json"), warned, warning,
                       &spec, &d) == KT_OK);
    CHECK(strstr(warning, "BenchmarkConfig.Benchmarks: an object is not a number") != NULL);
    CHECK_EQ_INT((int)spec->nconsts, 4); /* PRECISION, N, dataType, scale */
    double slots[4] = {32}, v = 0;
    CHECK(kt_expr_eval(spec->args[0].size, slots, &v) == KT_OK && v == 256);
    CHECK(kt_expr_eval(spec->args[0].data.value, slots, &v) == KT_OK && v == 2.5);
    kt_launch k;
    kt_launch_limits lim = {.max_threads = 1024, .max_shared_optin = 232448};
    CHECK(kt_launch_geometry(spec, slots, false, &lim, &k, &d) == KT_OK);
    CHECK(k.grid[0] == 8 && k.block[0] == 32 && k.shared == 128);
    uint16_t cfg[1] = {1}; /* BLOCK = 64 */
    size_t n;
    char **defs = kt_defines_new(spec, cfg, true, &n);
    CHECK(count(defs, n, "-DdataType=float") == 1 && count(defs, n, "-Dscale=2.5") == 1);
    CHECK(count(defs, n, "-DGRID_SIZE_X=4") == 1 && count(defs, n, "-DBLOCK_SIZE_X=64") == 1);
    CHECK(count(defs, n, "-DSHARED_MEMORY_SIZE=256") == 1);
    kt_defines_free(defs, n);
    defs = kt_defines_new(spec, cfg, false, &n); /* the C backend: no launch names */
    CHECK_EQ_INT((int)n, 1 + 4);
    kt_defines_free(defs, n);
    kt_spec_free(spec);
}

/* The scale spec with its BenchmarkConfig's first entry replaced by
 * entry, written to path (kt_test_tmp("spec.json")); the load's error. */
static int load_with_entry(const char *entry, char *msg, size_t len, char *path)
{
    static const char FIRST[] = "\"PRECISION\": 32";
    char *text;
    kt_diag d = {{0}};
    CHECK(kt_read_file(kt_test_path("tests/data/benchconfig/scale.json"), &text, NULL, &d) ==
          KT_OK);
    char *at = strstr(text, FIRST);
    CHECK(at != NULL);
    char *changed = kt_asprintf("%.*s%s%s", (int)(at - text), text, entry,
                                at + strlen(FIRST));
    CHECK(changed != NULL);
    write_temp("scale.cu", ""); /* the kernel beside it */
    kt_spec *spec = NULL;
    int rc = load_text(changed, &spec, &d);
    snprintf(path, 512, "%s", kt_test_tmp("spec.json"));
    kt_strlcpy(msg, len, d.msg);
    kt_spec_free(spec);
    free(changed);
    free(text);
    return rc;
}

static void test_a_colliding_entry_is_an_error_at_its_place(void)
{
    char msg[512], path[512], want[600];
    CHECK(load_with_entry("\"BLOCK\": 64", msg, sizeof msg, path) == KT_ESPEC);
    snprintf(want, sizeof want, "%s:10:9: BenchmarkConfig.BLOCK: 'BLOCK' is also a tuning "
             "parameter, with other values", path);
    if (strncmp(msg, want, strlen(want)) != 0)
        fprintf(stderr, "%s\n", msg);
    CHECK(strncmp(msg, want, strlen(want)) == 0);
    CHECK(load_with_entry("\"PRECISION\": 32, \"3D\": 1", msg, sizeof msg, path) == KT_ESPEC);
    CHECK(strstr(msg, ":10:26: BenchmarkConfig.3D: '3D' is not a valid name") != NULL);
}

/* A spec with problem parameter n, read by GlobalSize, and the entry
 * "name": 1 in its BenchmarkConfig; the load's error, *spec on success. */
static int load_problem_spec(const char *name, kt_spec **spec, kt_diag *d)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"ConfigurationSpace\": {\"TuningParameters\": [{\"Name\": \"B\", "
             "\"Values\": \"[32]\"}], \"ProblemParameters\": [{\"Name\": \"n\", "
             "\"Default\": 64}]},\n \"BenchmarkConfig\": {\"%s\": 1},\n"
             "\"KernelSpecification\": {\"Language\": \"CUDA\", \"KernelName\": \"k\", "
             "\"KernelFile\": \"k.cu\", \"GlobalSize\": {\"X\": \"n\"}, "
             "\"LocalSize\": {\"X\": \"B\"}, \"Arguments\": []}}",
             name);
    write_temp("k.cu", "");
    *spec = NULL;
    return load_text(text, spec, d);
}

/* A problem parameter of the same name is an error too.  Where a launch
 * size reads a problem size (BAT's pnpoly: Kernel Tuner's grid from
 * ProblemSize), the compilation cannot know the launch: no launch names,
 * the constants still. */
static void test_problem_names_and_benchmark_config(void)
{
    kt_diag d = {{0}};
    kt_spec *spec;
    CHECK(load_problem_spec("n", &spec, &d) == KT_ESPEC);
    CHECK(strstr(d.msg, ":2:22: BenchmarkConfig.n: 'n' is also a problem parameter") != NULL);
    CHECK(load_problem_spec("m", &spec, &d) == KT_OK);
    CHECK(!spec->bat_launch);
    uint16_t cfg[1] = {0};
    size_t n;
    char **v = kt_defines_new(spec, cfg, true, &n);
    CHECK(n == 2 && strcmp(v[0], "-DB=32") == 0 && strcmp(v[1], "-Dm=1") == 0);
    kt_defines_free(v, n);
    kt_spec_free(spec);
}

/* With the real NVRTC: scale.cu stops at an #error unless every define is
 * there, for both blocks (so GRID_SIZE_X follows the configuration). */
static void test_nvrtc_compiles_with_the_defines(void)
{
    kt_nvrtc_api api;
    kt_diag d = {{0}};
    nvrtc_load_or_skip(&api);
    kt_spec *spec = load_ok("tests/data/benchconfig/scale.json");
    kt_nvrtc nv = {.spec = spec, .api = &api, .arch = "sm_90",
                   .cache_dir = kt_test_tmp(""), .jobs = 1};
    uint16_t c0[1] = {0}, c1[1] = {1};
    const uint16_t *cfgs[] = {c0, c1};
    kt_nvrtc_job *job;
    CHECK(kt_nvrtc_start(&nv, cfgs, 2, &job, &d) == KT_OK);
    for (int i = 0; i < 2; i++) {
        size_t index;
        kt_build b;
        CHECK(kt_nvrtc_next(job, &index, &b, &d) == KT_OK);
        if (b.status != KT_STATUS_OK)
            fprintf(stderr, "%s\n", b.detail);
        CHECK(b.status == KT_STATUS_OK);
        free(b.artifact);
    }
    kt_nvrtc_end(job);
    kt_spec_free(spec);
    kt_nvrtc_api_unload(&api);
}

static const kt_test TESTS[] = {
    KT_T(test_fft_gets_precision_and_the_launch_defines),
    KT_T(test_hotspot_names_are_defined_once),
    KT_T(test_specs_without_benchmark_config_are_unchanged),
    KT_T(test_entries_are_names_of_expressions),
    KT_T(test_a_colliding_entry_is_an_error_at_its_place),
    KT_T(test_problem_names_and_benchmark_config),
    KT_T(test_nvrtc_compiles_with_the_defines),
};

KT_TEST_MAIN(TESTS)
