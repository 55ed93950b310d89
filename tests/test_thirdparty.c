/* test_thirdparty.c - the third-party CUDA specs shipped under kernels/bat
 * and kernels/ktt (and kernels/xgemm's CUDA side: our kernel, a third
 * party's space), and what running them needs from the CUDA backend:
 *   - each spec parses and counts its space as a Python brute force does;
 *   - the kernel's name goes to NVRTC as a name expression and the compiled
 *     file carries the lowered symbol (mangled for a C++ kernel such as
 *     BAT's cn_pnpoly), with a mocked NVRTC and, where NVRTC is installed,
 *     the real one;
 *   - the reference of a spec without ReferenceKernel is the default
 *     configuration under the kernel's own name (it used to be loaded under
 *     the NULL reference name: "CUDA error 1 (invalid argument)");
 *   - a default configuration the spec's own conditions exclude is not the
 *     reference: the first valid configuration is;
 *   - launch geometry, registers and shared memory are computed as CUDA
 *     wants them;
 *   - __constant__ arguments (T1 MemoryType "Symbol", Kernel Tuner's
 *     "MemType": "Constant") are told apart, sized against their global
 *     and left out of the parameters where they are no kernel parameter;
 *     the C backend refuses them. */
#include "backend/backend.h"
#include "backend/cuda_api.h"
#include "backend/launch.h"
#include "backend/nvrtc.h"
#include "core/expr.h"
#include "core/space.h"
#include "core/util.h"
#include "tune/tuner.h"
#include "spec_util.h"
#include "nvrtc_util.h"
#include "test.h"

#include <limits.h>

/* One shipped spec, its space size (Python: len of the product filtered by
 * the Conditions) and the symbol its kernel compiles to. */
typedef struct shipped {
    const char *path;
    uint64_t count;
    const char *symbol_prefix;
} shipped;

static const shipped SHIPPED[] = {
    {"kernels/bat/GEMM/GEMM-CAFF.json", 10312, "gemm_fast"},
    {"kernels/bat/pnpoly/pnpoly-CAFF.json", 4092, "_Z9cn_pnpoly"},
    {"kernels/bat/TRIAD/TRIAD-CAFF.json", 4320, "triad"},
    {"kernels/bat/nbody/nbody-CAFF.json", 1568, "nbody_kernel"},
    {"kernels/bat/MD5Hash/MD5Hash-CAFF.json", 165888, "FindKeyWithDigest_Kernel"},
    {"kernels/bat/convolution/convolution-CAFF.json", 6768, "convolution_kernel"},
    {"kernels/ktt/CoulombSum3d/CoulombSum3dCudaScript.json", 210, "directCoulombSum"},
    {"kernels/xgemm/xgemm-cuda.json", 17956, "Xgemm"}, /* ours, in CLBlast's space */
};

static kt_spec *load(const char *path)
{
    return load_ok(path);
}

static kt_space *space_of(const kt_spec *spec, kt_problem *prob)
{
    kt_space *space;
    kt_diag d = {{0}};
    CHECK(kt_problem_parse(spec, NULL, prob, &d) == KT_OK);
    CHECK(kt_space_new(spec, prob, &space, &d) == KT_OK);
    CHECK(kt_space_build(space, 1 << 20, &d) == KT_OK);
    return space;
}

static void test_shipped_specs_count_as_python(void)
{
    for (size_t i = 0; i < KT_ARRAY_LEN(SHIPPED); i++) {
        kt_spec *spec = load(SHIPPED[i].path);
        CHECK(spec->language == KT_LANG_CUDA);
        kt_problem prob;
        kt_space *space = space_of(spec, &prob);
        uint64_t n = kt_space_size(space);
        if (n != SHIPPED[i].count)
            fprintf(stderr, "%s: %llu configurations\n", SHIPPED[i].path,
                    (unsigned long long)n);
        CHECK(n == SHIPPED[i].count);
        kt_space_free(space);
        kt_problem_clear(&prob);
        kt_spec_free(spec);
    }
}

/* ------------------------------------------------------- a mocked NVRTC */

/* What the mock saw: one program at a time (the pool has one thread). */
static char mock_expression[128];
static const char MOCK_CUBIN[] = "\177ELF mock cubin";

static nvrtcResult mock_version(int *major, int *minor)
{
    *major = 99;
    *minor = 0;
    return 0;
}
static nvrtcResult mock_create(nvrtcProgram *p, const char *src, const char *name, int n,
                               const char *const *h, const char *const *i)
{
    (void)src, (void)name, (void)n, (void)h, (void)i;
    *p = (nvrtcProgram)mock_expression;
    return 0;
}
static int mock_empty_options; /* "" among the options NVRTC was given */
static nvrtcResult mock_compile(nvrtcProgram p, int n, const char *const *o)
{
    (void)p;
    for (int i = 0; i < n; i++)
        mock_empty_options += !o[i][0];
    return 0;
}
static nvrtcResult mock_log_size(nvrtcProgram p, size_t *n)
{
    (void)p;
    *n = 0;
    return 0;
}
static nvrtcResult mock_log(nvrtcProgram p, char *log)
{
    (void)p;
    log[0] = '\0';
    return 0;
}
static nvrtcResult mock_cubin_size(nvrtcProgram p, size_t *n)
{
    (void)p;
    *n = sizeof MOCK_CUBIN;
    return 0;
}
static nvrtcResult mock_cubin(nvrtcProgram p, char *out)
{
    (void)p;
    memcpy(out, MOCK_CUBIN, sizeof MOCK_CUBIN);
    return 0;
}
static nvrtcResult mock_destroy(nvrtcProgram *p)
{
    *p = NULL;
    return 0;
}
static const char *mock_error(nvrtcResult r)
{
    (void)r;
    return "mock";
}
static nvrtcResult mock_add_name(nvrtcProgram p, const char *expr)
{
    (void)p;
    kt_strlcpy(mock_expression, sizeof mock_expression, expr);
    return 0;
}
/* As NVRTC lowers a C++ function: _Z, the name's length, the name, a
 * made-up parameter list. */
static nvrtcResult mock_lowered(nvrtcProgram p, const char *expr, const char **lowered)
{
    static char buf[160];
    (void)p;
    if (strcmp(expr, mock_expression) != 0)
        return 1; /* NVRTC_ERROR_OUT_OF_MEMORY... anything but success */
    snprintf(buf, sizeof buf, "_Z%zu%sPiP6float2i", strlen(expr), expr);
    *lowered = buf;
    return 0;
}

static const kt_nvrtc_api MOCK = {
    .nvrtcVersion = mock_version,           .nvrtcCreateProgram = mock_create,
    .nvrtcCompileProgram = mock_compile,    .nvrtcGetProgramLogSize = mock_log_size,
    .nvrtcGetProgramLog = mock_log,         .nvrtcGetCUBINSize = mock_cubin_size,
    .nvrtcGetCUBIN = mock_cubin,            .nvrtcDestroyProgram = mock_destroy,
    .nvrtcGetErrorString = mock_error,      .nvrtcAddNameExpression = mock_add_name,
    .nvrtcGetLoweredName = mock_lowered,
};

/* Compile one configuration (NULL: the reference kernel) with api and read
 * back the symbol the compiled file names. */
static void compiled_symbol(const kt_spec *spec, const kt_nvrtc_api *api,
                            const uint16_t *cfg, char *symbol, size_t n)
{
    kt_nvrtc nv = {.spec = spec, .api = api, .arch = "sm_90",
                   .cache_dir = kt_test_tmp(""), .jobs = 1};
    kt_nvrtc_job *job;
    kt_diag d = {{0}};
    size_t index;
    kt_build b;
    CHECK(kt_nvrtc_start(&nv, &cfg, 1, &job, &d) == KT_OK);
    CHECK(kt_nvrtc_next(job, &index, &b, &d) == KT_OK);
    if (b.status != KT_STATUS_OK)
        fprintf(stderr, "%s\n", b.detail);
    CHECK(b.status == KT_STATUS_OK && index == 0);
    char *file;
    size_t len, cubin_len;
    const char *name;
    const void *cubin;
    CHECK(kt_read_file(b.artifact, &file, &len, &d) == KT_OK);
    CHECK(kt_cubin_parse(file, len, &name, &cubin, &cubin_len, &d) == KT_OK);
    CHECK(((uintptr_t)cubin & 15) == 0);
    if (api == &MOCK)
        CHECK(cubin_len == sizeof MOCK_CUBIN && memcmp(cubin, MOCK_CUBIN, cubin_len) == 0);
    kt_strlcpy(symbol, n, name);
    free(file);
    free(b.artifact);
    kt_nvrtc_end(job);
}

/* BAT's pnpoly kernel has no extern "C": cuModuleGetFunction("cn_pnpoly")
 * finds nothing, the lowered name is what the driver knows. */
static void test_cpp_kernel_is_found_by_its_lowered_name(void)
{
    kt_spec *spec = load("kernels/bat/pnpoly/pnpoly-CAFF.json");
    kt_problem prob;
    kt_space *space = space_of(spec, &prob);
    uint16_t *def = calloc(spec->nparams, sizeof *def);
    kt_space_default(space, def);
    char symbol[160];
    compiled_symbol(spec, &MOCK, def, symbol, sizeof symbol);
    CHECK_STR(mock_expression, "cn_pnpoly");
    CHECK_STR(symbol, "_Z9cn_pnpolyPiP6float2i");
    free(def);
    kt_space_free(space);
    kt_problem_clear(&prob);
    kt_spec_free(spec);
}

/* KTT's ClTuneGemm gives "CompilerOptions": [""]: passed on, NVRTC failed
 * every configuration with "unrecognized option" on the H100. */
static void test_an_empty_compiler_option_is_none(void)
{
    kt_spec *spec = load("tests/data/t1/ktt/ClTuneGemm/ClTuneGemm.json");
    CHECK(spec->ncompiler_options == 1 && !spec->compiler_options[0][0]);
    kt_problem prob;
    kt_space *space = space_of(spec, &prob);
    uint16_t *def = calloc(spec->nparams, sizeof *def);
    kt_space_default(space, def);
    char symbol[160];
    mock_empty_options = 0;
    compiled_symbol(spec, &MOCK, def, symbol, sizeof symbol);
    CHECK(mock_empty_options == 0);
    free(def);
    kt_space_free(space);
    kt_problem_clear(&prob);
    kt_spec_free(spec);
}

/* The tuner compiles the default configuration as the reference of a spec
 * without ReferenceKernel; its file names the kernel, not the (absent)
 * reference kernel.  A spec with one compiles the reference under its name. */
static void test_reference_is_compiled_under_its_own_name(void)
{
    kt_spec *spec = load("kernels/gemm/gemm-cuda.json");
    CHECK(spec->ref_name != NULL && strcmp(spec->ref_name, spec->kernel_name) != 0);
    char symbol[160], want[160];
    compiled_symbol(spec, &MOCK, NULL, symbol, sizeof symbol);
    CHECK_STR(mock_expression, spec->ref_name);
    snprintf(want, sizeof want, "_Z%zu%sPiP6float2i", strlen(spec->ref_name),
             spec->ref_name);
    CHECK_STR(symbol, want);
    kt_spec_free(spec);
}

static void test_compiled_file_header_is_checked(void)
{
    kt_diag d = {{0}};
    const char *name;
    const void *cubin;
    size_t n, len;
    char *ok = kt_cubin_pack("k", MOCK_CUBIN, sizeof MOCK_CUBIN, &len);
    CHECK(ok && kt_cubin_parse(ok, len, &name, &cubin, &n, &d) == KT_OK);
    CHECK_STR(name, "k");
    /* an older cache's plain CUBIN, a truncated header, a damaged one */
    CHECK(kt_cubin_parse(MOCK_CUBIN, sizeof MOCK_CUBIN, &name, &cubin, &n, &d) ==
          KT_EFORMAT);
    CHECK(strstr(d.msg, "remove the cache") != NULL);
    CHECK(kt_cubin_parse(ok, KT_CUBIN_HEADER - 1, &name, &cubin, &n, &d) == KT_EFORMAT);
    ok[12] = (char)0xff; /* the CUBIN's offset past the end */
    CHECK(kt_cubin_parse(ok, len, &name, &cubin, &n, &d) == KT_EFORMAT);
    ok[12] = 16;
    ok[8] = 9; /* a name longer than the room before the CUBIN */
    CHECK(kt_cubin_parse(ok, len, &name, &cubin, &n, &d) == KT_EFORMAT);
    free(ok);
}

/* ------------------------------------------------------- the real NVRTC */

/* Every shipped spec's default configuration and a sample of others compile
 * for sm_90, each under the symbol the driver will look up. */
static void test_shipped_specs_compile_with_nvrtc(void)
{
    kt_nvrtc_api api;
    nvrtc_load_or_skip(&api);
    for (size_t i = 0; i < KT_ARRAY_LEN(SHIPPED); i++) {
        kt_spec *spec = load(SHIPPED[i].path);
        kt_problem prob;
        kt_space *space = space_of(spec, &prob);
        uint16_t *cfg = calloc(spec->nparams, sizeof *cfg);
        kt_rng rng;
        kt_rng_seed(&rng, 11);
        kt_space_default(space, cfg);
        for (int j = 0; j < 3; j++) {
            char symbol[160];
            compiled_symbol(spec, &api, cfg, symbol, sizeof symbol);
            if (strncmp(symbol, SHIPPED[i].symbol_prefix, strlen(SHIPPED[i].symbol_prefix)))
                fprintf(stderr, "%s: symbol %s\n", SHIPPED[i].path, symbol);
            CHECK(strncmp(symbol, SHIPPED[i].symbol_prefix,
                          strlen(SHIPPED[i].symbol_prefix)) == 0);
            CHECK(kt_space_sample(space, &rng, cfg) == KT_OK);
        }
        free(cfg);
        kt_space_free(space);
        kt_problem_clear(&prob);
        kt_spec_free(spec);
    }
    kt_nvrtc_api_unload(&api);
}

/* BAT's FFT includes <math.h>, for M_PI: NVRTC has no host headers, so
 * ktune gives it one with the constants (the math functions themselves
 * are NVRTC's built-ins). */
static void test_math_h_is_found(void)
{
    kt_nvrtc_api api;
    kt_diag d = {{0}};
    nvrtc_load_or_skip(&api);
    kt_spec *spec = load("tests/data/t1/bat/FFT/FFT-CAFF.json");
    kt_problem prob;
    kt_space *space; /* 806 billion configurations: not built, the default only */
    CHECK(kt_problem_parse(spec, NULL, &prob, &d) == KT_OK);
    CHECK(kt_space_new(spec, &prob, &space, &d) == KT_OK);
    uint16_t *cfg = calloc(spec->nparams, sizeof *cfg);
    kt_space_default(space, cfg);
    char symbol[160];
    compiled_symbol(spec, &api, cfg, symbol, sizeof symbol);
    CHECK(strcmp(symbol, spec->kernel_name) == 0);
    free(cfg);
    kt_space_free(space);
    kt_problem_clear(&prob);
    kt_spec_free(spec);
    kt_nvrtc_api_unload(&api);
}

/* ------------------------------------------- the default as the reference */

/* A spec without ReferenceKernel whose default (MODE=3 of faulty.c, which
 * computes wrongly) breaks its own condition: the correct configurations
 * are checked against the first valid one, not against the default's
 * output (which made every one of them a wrong_result). */
static void test_an_excluded_default_is_not_the_reference(void)
{
    char path[512], kernel[PATH_MAX];
    snprintf(path, sizeof path, "%s", kt_test_tmp("excluded-default.json"));
    CHECK(realpath(kt_test_path("tests/kernels/faulty.c"), kernel) != NULL);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fprintf(f, "{\"ConfigurationSpace\": {\"TuningParameters\": ["
               "{\"Name\": \"MODE\", \"Type\": \"int\", \"Values\": \"[3, 0]\"},"
               "{\"Name\": \"VARIANT\", \"Type\": \"int\", \"Values\": \"[1, 2]\"}],"
               "\"Conditions\": [{\"Expression\": \"MODE != 3\", \"Parameters\": [\"MODE\"]}]},"
               "\"KernelSpecification\": {\"Language\": \"C\", \"KernelName\": \"scale\","
               "\"KernelFile\": \"%s\", \"Arguments\": ["
               "{\"Name\": \"n\", \"Type\": \"int32\", \"MemoryType\": \"Scalar\", "
               "\"FillValue\": 5000},"
               "{\"Name\": \"x\", \"Type\": \"float\", \"MemoryType\": \"Vector\", "
               "\"AccessType\": \"ReadOnly\", \"FillType\": \"Random\", \"Size\": 5000},"
               "{\"Name\": \"y\", \"Type\": \"float\", \"MemoryType\": \"Vector\", "
               "\"AccessType\": \"WriteOnly\", \"Size\": 5000}]}}",
            kernel);
    fclose(f);
    kt_spec *spec;
    kt_diag d = {{0}};
    int rc = kt_spec_load(path, NULL, NULL, &spec, &d);
    if (rc != KT_OK)
        fprintf(stderr, "%s\n", d.msg);
    CHECK(rc == KT_OK);
    kt_tune_opts o = kt_tune_defaults();
    char db[512], cache[512];
    snprintf(db, sizeof db, "%s", kt_test_tmp("t.db"));
    snprintf(cache, sizeof cache, "%s", kt_test_tmp("cache"));
    o.db_path = db;
    o.backend.cache_dir = cache;
    o.measure.min_time_s = 0.01;
    kt_tune_report rep;
    rc = kt_tune(spec, &o, &rep, &d);
    if (rc != KT_OK)
        fprintf(stderr, "%s\n", d.msg);
    CHECK(rc == KT_OK);
    CHECK_EQ_INT(rep.space_size, 2);
    CHECK_EQ_INT(rep.by_status[KT_STATUS_OK], 2);
    CHECK_EQ_INT(rep.by_status[KT_STATUS_WRONG_RESULT], 0);
    CHECK(rep.default_result.status == KT_STATUS_INVALID);
    kt_tune_report_clear(&rep);
    kt_spec_free(spec);
}

/* ------------------------------------------------------ launch geometry */

/* The H100's threads and shared memory per block, with CUDA's axis limits. */
#define H100_LIMITS kt_launch_cuda_limits(1024, 232448)

/* pnpoly's grid covers the 20,000,000 points in blocks of
 * block_size_x * tile_size points (Kernel Tuner's GridDivX). */
static void test_launch_grid_from_the_spec(void)
{
    kt_launch_limits h100 = H100_LIMITS;
    kt_spec *spec = load("kernels/bat/pnpoly/pnpoly-CAFF.json");
    kt_problem prob;
    CHECK(kt_problem_parse(spec, NULL, &prob, NULL) == KT_OK);
    double *slots = calloc(spec->nnames + 1, sizeof *slots);
    uint16_t *cfg = calloc(spec->nparams, sizeof *cfg);
    for (size_t i = 0; i < spec->nparams; i++) /* block_size_x 96, tile_size 2 */
        cfg[i] = strcmp(spec->params[i].name, "block_size_x") == 0 ? 2
                 : strcmp(spec->params[i].name, "tile_size") == 0 ? 1 : 0;
    kt_spec_slots(spec, cfg, &prob, slots);
    kt_launch l;
    kt_diag d = {{0}};
    CHECK(kt_launch_geometry(spec, slots, true, &h100, &l, &d) == KT_OK);
    CHECK(l.block[0] == 96 && l.block[1] == 1 && l.block[2] == 1);
    CHECK(l.grid[0] == (20000000 + 191) / 192 && l.grid[1] == 1 && l.grid[2] == 1);
    CHECK(l.shared == 0);
    /* "OpenCL" sizes count threads: rounded up to whole blocks */
    spec->grid_in_threads = true;
    CHECK(kt_launch_geometry(spec, slots, false, &h100, &l, &d) == KT_OK);
    CHECK(l.grid[0] == ((20000000 + 191) / 192 + 95) / 96);
    free(cfg);
    free(slots);
    kt_problem_clear(&prob);
    kt_spec_free(spec);
}

/* CoulombSum3d at its default configuration, for kt_launch_geometry. */
typedef struct coulomb {
    kt_spec *spec;
    kt_problem prob;
    kt_space *space;
    uint16_t *cfg;
    double *slots;
} coulomb;

static void coulomb_open(coulomb *c)
{
    c->spec = load("kernels/ktt/CoulombSum3d/CoulombSum3dCudaScript.json");
    c->space = space_of(c->spec, &c->prob);
    c->cfg = calloc(c->spec->nparams, sizeof *c->cfg);
    c->slots = calloc(c->spec->nnames + 1, sizeof *c->slots);
    kt_space_default(c->space, c->cfg);
    kt_spec_slots(c->spec, c->cfg, &c->prob, c->slots);
}

static void coulomb_close(coulomb *c)
{
    free(c->slots);
    free(c->cfg);
    kt_space_free(c->space);
    kt_problem_clear(&c->prob);
    kt_spec_free(c->spec);
}

/* The geometry of c's launch with *at replaced by the constant text
 * (restored after): its status, the message in d. */
static int geometry_with(coulomb *c, kt_expr **at, const char *text,
                         const kt_launch_limits *lim, kt_launch *l, kt_diag *d)
{
    kt_expr *e = NULL, *saved = *at;
    CHECK(kt_expr_compile(text, NULL, 0, &e, d) == KT_OK);
    *at = e;
    int rc = kt_launch_geometry(c->spec, c->slots, false, lim, l, d);
    *at = saved;
    kt_expr_free(e);
    return rc;
}

/* CUDA's per-axis limits: a block of 128 along z, or 70,000 blocks along
 * y, is an invalid configuration, not a launch failure. */
static void test_launch_axis_limits_make_a_configuration_invalid(void)
{
    kt_launch_limits h100 = H100_LIMITS;
    coulomb c;
    coulomb_open(&c);
    kt_diag d = {{0}};
    kt_launch l;
    CHECK(kt_launch_geometry(c.spec, c.slots, false, &h100, &l, &d) == KT_OK);
    CHECK(geometry_with(&c, &c.spec->local[2], "128", &h100, &l, &d) == KT_ERANGE);
    CHECK(strstr(d.msg, "axis 2") != NULL);
    CHECK(geometry_with(&c, &c.spec->global[1], "70000", &h100, &l, &d) == KT_ERANGE);
    CHECK(strstr(d.msg, "axis 1") != NULL);
    coulomb_close(&c);
}

/* An OpenCL device's limits are its own: a work-group of 2,048 along x, or
 * 70,000 groups along y, launch where the device allows them (CUDA's 1,024
 * and 65,535 do not apply), and a group wider than the device's axis
 * limit is invalid. */
static void test_opencl_axis_limits_are_the_devices(void)
{
    coulomb c;
    coulomb_open(&c);
    c.spec->grid_in_threads = false;
    kt_launch_limits cl = {.max_threads = 1 << 20, .max_shared_optin = 1 << 20,
                           .max_block = {4096, 4096, 4096}};
    kt_launch_limits cuda = H100_LIMITS;
    cuda.max_threads = 1 << 20;
    kt_diag d = {{0}};
    kt_launch l;
    CHECK(geometry_with(&c, &c.spec->local[0], "2048", &cl, &l, &d) == KT_OK);
    CHECK(l.block[0] == 2048);
    CHECK(geometry_with(&c, &c.spec->global[1], "70000", &cl, &l, &d) == KT_OK);
    CHECK(l.grid[1] == 70000);
    CHECK(geometry_with(&c, &c.spec->local[0], "2048", &cuda, &l, &d) == KT_ERANGE);
    CHECK(strstr(d.msg, "axis 0: block 2048 of at most 1024") != NULL);
    cl.max_block[0] = 1024;
    CHECK(geometry_with(&c, &c.spec->local[0], "2048", &cl, &l, &d) == KT_ERANGE);
    CHECK(strstr(d.msg, "axis 0") != NULL);
    coulomb_close(&c);
}

/* BAT's GEMM asks for 48 KiB of dynamic shared memory beside up to 32 KiB
 * of its own static arrays: over the default 48 KiB, so the kernel's
 * dynamic limit must be raised (without it the launch fails with "invalid
 * argument"); past the opt-in limit the configuration is invalid. */
static void test_shared_memory_over_48k_raises_the_limit(void)
{
    kt_launch_limits h100 = H100_LIMITS;
    kt_diag d = {{0}};
    bool raise = true;
    CHECK(kt_launch_shared(0, 4096, h100.max_shared_optin, &raise, &d) == KT_OK && !raise);
    CHECK(kt_launch_shared(40960, 0, h100.max_shared_optin, &raise, &d) == KT_OK && !raise);
    CHECK(kt_launch_shared(32768, 49152, h100.max_shared_optin, &raise, &d) == KT_OK &&
          raise);
    CHECK(kt_launch_shared(0, 49153, h100.max_shared_optin, &raise, &d) == KT_OK && raise);
    CHECK(kt_launch_shared(102400, 200000, h100.max_shared_optin, &raise, &d) ==
          KT_ERANGE);
    CHECK(strstr(d.msg, "102400 bytes of static") != NULL);
}

/* BAT's pnpoly at block_size_x=960 failed its launch with CUDA error 701
 * on the H100: registers go to warps in units of 256, so 68 per thread do
 * not fit 960 threads although 68 * 960 < 65,536.  Invalid, not broken. */
static void test_registers_are_counted_per_warp(void)
{
    kt_diag d = {{0}};
    CHECK(kt_launch_registers(68, 960, &d) == KT_ERANGE);
    CHECK(strstr(d.msg, "68 registers per thread") != NULL);
    CHECK(kt_launch_registers(64, 1024, &d) == KT_OK);
    CHECK(kt_launch_registers(255, 256, &d) == KT_OK);
    CHECK(kt_launch_registers(72, 896, &d) == KT_OK); /* 28 warps of 2,304 */
    CHECK(kt_launch_registers(73, 928, &d) == KT_ERANGE);
}

/* pnpoly's polygon lives in two __constant__ arrays, given as Symbol
 * arguments after the kernel's (int *bitmap, float2 *points, int n): they
 * are copied to the module, never passed, or n would be a pointer's bytes. */
static void test_symbol_arguments_are_no_kernel_parameters(void)
{
    kt_spec *spec = load("kernels/bat/pnpoly/pnpoly-CAFF.json");
    CHECK(spec->nargs == 5);
    for (size_t i = 0; i < spec->nargs; i++)
        CHECK(spec->args[i].symbol == (i >= 3) && spec->args[i].symbol_only == (i >= 3));
    CHECK(strcmp(spec->args[3].name, "d_vertices") == 0);
    int vals[5] = {0, 1, 2, 3, 4};
    void *args[5] = {&vals[0], &vals[1], &vals[2], &vals[3], &vals[4]};
    void *params[5] = {0};
    CHECK(kt_launch_params(spec, args, params) == 3);
    CHECK(params[0] == args[0] && params[1] == args[1] && params[2] == args[2] &&
          !params[3]);
    /* d_vertices is 600 float2: 4,800 bytes, as the kernel declares it */
    double slots[64] = {0};
    size_t bytes = 0;
    kt_diag d = {{0}};
    CHECK(spec->nnames < KT_ARRAY_LEN(slots));
    CHECK(kt_launch_symbol_bytes(spec, 3, slots, 4800, &bytes, &d) == KT_OK);
    CHECK(bytes == 4800);
    CHECK(kt_launch_symbol_bytes(spec, 3, slots, 4000, &bytes, &d) == KT_ERANGE);
    CHECK(strstr(d.msg, "'d_vertices' has 4800 bytes") != NULL);
    kt_spec_free(spec);
}

/* Kernel Tuner's T1 reader copies a "MemType": "Constant" vector to the
 * symbol of its name and passes it as well (BAT's convolution takes the
 * filter as its third parameter and reads d_filter). */
static void test_memtype_constant_is_a_symbol_and_a_parameter(void)
{
    static const char *const FILES[] = {"kernels/bat/convolution/convolution-CAFF.json",
                                        "tests/data/t1/kerneltuner/test_T1_input.json"};
    for (size_t f = 0; f < KT_ARRAY_LEN(FILES); f++) {
        kt_spec *spec = load(FILES[f]);
        CHECK(spec->nargs == 3 && strcmp(spec->args[2].name, "d_filter") == 0);
        CHECK(spec->args[2].symbol && !spec->args[2].symbol_only);
        CHECK(!spec->args[0].symbol && !spec->args[1].symbol);
        void *args[3] = {&spec, &spec, &spec}, *params[3];
        CHECK(kt_launch_params(spec, args, params) == 3);
        kt_spec_free(spec);
    }
}

/* One Symbol argument in an otherwise valid spec; access is its
 * AccessType. */
static const char *symbol_spec(const char *access)
{
    static char text[1024 + PATH_MAX];
    char kernel[PATH_MAX];
    CHECK(realpath(kt_test_path("tests/kernels/faulty.c"), kernel) != NULL);
    snprintf(text, sizeof text,
             "{\"ConfigurationSpace\": {\"TuningParameters\": [{\"Name\": \"b\","
             " \"Type\": \"int\", \"Values\": \"[1, 2]\", \"Default\": 1}],"
             " \"Conditions\": []}, \"KernelSpecification\": {\"Language\": \"C\","
             " \"KernelName\": \"scale\", \"KernelFile\": \"%s\", \"Arguments\": ["
             "{\"Name\": \"c\", \"Type\": \"float\", \"Size\": 4,"
             " \"MemoryType\": \"Symbol\", \"AccessType\": \"%s\","
             " \"FillType\": \"Constant\", \"FillValue\": 1}]}}",
             kernel, access);
    const char *path = kt_test_tmp("symbol.json");
    FILE *fp = fopen(path, "w");
    CHECK(fp != NULL);
    fputs(text, fp);
    fclose(fp);
    return path;
}

/* A kernel cannot write __constant__ memory, and C has none: both say so
 * in one line instead of running a kernel that would read zeros. */
static void test_symbols_are_read_only_and_cuda_only(void)
{
    kt_spec *spec = NULL;
    kt_diag d = {{0}};
    CHECK(kt_spec_load(symbol_spec("ReadWrite"), NULL, NULL, &spec, &d) == KT_ESPEC);
    CHECK(strstr(d.msg, "must be a ReadOnly vector") != NULL);
    CHECK(kt_spec_load(symbol_spec("ReadOnly"), NULL, NULL, &spec, &d) == KT_OK);
    const kt_backend *cpu = kt_backend_find("cpu");
    kt_backend_opts opts = {.cache_dir = kt_test_tmp("cache"), .jobs = 1};
    void *ctx = NULL;
    CHECK(cpu->open(spec, &opts, &ctx, &d) == KT_EBACKEND);
    CHECK(strstr(d.msg, "argument 'c' is a __constant__ symbol") != NULL && !ctx);
    kt_spec_free(spec);
    remove(kt_test_tmp("symbol.json"));
}

static const kt_test TESTS[] = {
    KT_T(test_shipped_specs_count_as_python),
    KT_T(test_cpp_kernel_is_found_by_its_lowered_name),
    KT_T(test_reference_is_compiled_under_its_own_name),
    KT_T(test_an_empty_compiler_option_is_none),
    KT_T(test_compiled_file_header_is_checked),
    KT_T(test_shipped_specs_compile_with_nvrtc),
    KT_T(test_math_h_is_found),
    KT_T(test_an_excluded_default_is_not_the_reference),
    KT_T(test_launch_grid_from_the_spec),
    KT_T(test_launch_axis_limits_make_a_configuration_invalid),
    KT_T(test_opencl_axis_limits_are_the_devices),
    KT_T(test_shared_memory_over_48k_raises_the_limit),
    KT_T(test_registers_are_counted_per_warp),
    KT_T(test_symbol_arguments_are_no_kernel_parameters),
    KT_T(test_memtype_constant_is_a_symbol_and_a_parameter),
    KT_T(test_symbols_are_read_only_and_cuda_only),
};

KT_TEST_MAIN(TESTS)
