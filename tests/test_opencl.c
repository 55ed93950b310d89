/* test_opencl.c - the OpenCL backend on whatever platform the ICD loader
 * finds (PoCL on the CPU in CI): a configuration builds and its binary is
 * cached, a broken kernel is a compile error with the build log's line,
 * a loaded kernel runs, is timed and computes the right values, a
 * work-group the kernel or device cannot take is KT_ERANGE at load (an
 * invalid configuration), and a platform name that matches none is a
 * clear error.  Each test is reported as skipped where no OpenCL platform
 * exists. */
#include "backend/backend.h"
#include "backend/opencl_api.h"
#include "core/util.h"
#include "measure/measure.h"
#include "test.h"

#include <ktune.h>

/* Skip the running test where OpenCL has no platform here; keep PoCL's
 * own kernel cache inside the test's folder. */
static void need_opencl(void)
{
    setenv("POCL_CACHE_DIR", kt_test_tmp("pocl"), 1);
    kt_cl_api cl;
    kt_diag d = {{0}};
    if (kt_cl_api_load(&cl, &d) != KT_OK)
        KT_SKIP("%s", d.msg);
    cl_uint n = 0;
    if (cl.clGetPlatformIDs(0, NULL, &n) != CL_SUCCESS || n == 0) {
        kt_cl_api_unload(&cl);
        KT_SKIP("no OpenCL platform is installed");
    }
    kt_cl_api_unload(&cl);
}

/* An open spec and problem, with the slot values of a configuration. */
typedef struct fixture {
    kt_spec *spec;
    kt_problem prob;
    const kt_backend *be;
    void *ctx;
    double slots[16];
} fixture;

static void open_spec(fixture *f, const char *path, bool worker)
{
    kt_diag d = {{0}};
    memset(f, 0, sizeof *f);
    CHECK(kt_spec_load(path, NULL, NULL, &f->spec, &d) == KT_OK);
    CHECK(f->spec->nnames < KT_ARRAY_LEN(f->slots));
    CHECK(kt_problem_parse(f->spec, NULL, &f->prob, &d) == KT_OK);
    CHECK((f->be = kt_backend_for(KT_LANG_OPENCL)) != NULL);
    kt_backend_opts o = {.cache_dir = kt_test_tmp("cache"), .jobs = 2, .worker = worker};
    int rc = f->be->open(f->spec, &o, &f->ctx, &d);
    if (rc != KT_OK)
        fprintf(stderr, "%s\n", d.msg);
    CHECK(rc == KT_OK);
}

static void close_spec(fixture *f)
{
    f->be->close(f->ctx);
    kt_problem_clear(&f->prob);
    kt_spec_free(f->spec);
}

/* Build configuration cfg (NULL: the reference) of f's spec. */
static kt_build build(fixture *f, const uint16_t *cfg)
{
    kt_build b;
    kt_diag d = {{0}};
    CHECK(f->be->compile(f->ctx, &cfg, 1, &b, &d) == KT_OK);
    return b;
}

/* A kernel file and a one-parameter spec over it, in the test's folder:
 * LocalSize X is the parameter WG, the global size N work-items. */
static const char *write_spec(const char *source, const char *wg_values)
{
    kt_test_write("k.cl", source);
    char json[2048];
    snprintf(json, sizeof json,
             "{\"ConfigurationSpace\": {\"TuningParameters\": [{\"Name\": \"WG\", "
             "\"Type\": \"int\", \"Values\": \"%s\"}], \"Conditions\": []},"
             " \"KernelSpecification\": {\"Language\": \"OpenCL\", \"KernelName\": \"k\","
             " \"KernelFile\": \"k.cl\", \"GlobalSize\": {\"X\": \"1024\"},"
             " \"LocalSize\": {\"X\": \"WG\"}, \"Arguments\": [{\"Name\": \"out\", "
             "\"Type\": \"float\", \"MemoryType\": \"Vector\", \"AccessType\": "
             "\"WriteOnly\", \"Size\": 1024}]}}", wg_values);
    return kt_test_write("k.json", json);
}

static void test_a_configuration_builds_and_its_binary_is_cached(void)
{
    need_opencl();
    fixture f;
    open_spec(&f, kt_test_path("tests/data/opencl/saxpy.json"), false);
    kt_device_info dev;
    kt_diag d = {{0}};
    CHECK(f.be->device(f.ctx, &dev, &d) == KT_OK);
    CHECK(strncmp(dev.fingerprint, "opencl|platform=", 16) == 0);
    CHECK(strstr(dev.fingerprint, "|driver=") != NULL);
    uint16_t cfg[2] = {1, 2}; /* BS=64, WPT=4 */
    kt_build b = build(&f, cfg), ref = build(&f, NULL);
    CHECK(b.status == KT_STATUS_OK && ref.status == KT_STATUS_OK);
    CHECK(b.compile_ms > 0 && strcmp(b.artifact, ref.artifact) != 0);
    char *file = NULL;
    size_t len = 0;
    CHECK(kt_read_file(b.artifact, &file, &len, &d) == KT_OK);
    CHECK(len > 8 && memcmp(file, "KTCLBIN1", 8) == 0);
    kt_build again = build(&f, cfg);
    CHECK(again.status == KT_STATUS_OK && again.compile_ms == 0);
    CHECK_STR(again.artifact, b.artifact);
    free(file);
    kt_builds_clear(&b, 1);
    kt_builds_clear(&ref, 1);
    kt_builds_clear(&again, 1);
    close_spec(&f);
}

static void test_a_broken_kernel_is_a_compile_error_with_the_logs_line(void)
{
    need_opencl();
    fixture f;
    open_spec(&f, write_spec("__kernel void k(__global float *out)\n"
                             "{\n    out[get_global_id(0)] = undeclared_name;\n}\n",
                             "[64]"),
              false);
    uint16_t cfg[1] = {0};
    kt_build b = build(&f, cfg);
    CHECK(b.status == KT_STATUS_COMPILE_ERROR && b.artifact == NULL);
    fprintf(stderr, "detail: %s\n", b.detail);
    CHECK(strstr(b.detail, "error") != NULL);
    CHECK(strstr(b.detail, "undeclared_name") != NULL);
    close_spec(&f);
}

static void test_a_kernel_runs_is_timed_and_computes_its_values(void)
{
    need_opencl();
    fixture tuner, w;
    const char *path = kt_test_path("tests/data/opencl/saxpy.json");
    open_spec(&tuner, path, false);
    uint16_t cfg[2] = {2, 1}; /* BS=128, WPT=2 */
    kt_build b = build(&tuner, cfg);
    CHECK(b.status == KT_STATUS_OK);
    open_spec(&w, path, true);
    kt_spec_slots(w.spec, cfg, &w.prob, w.slots);
    kt_diag d = {{0}};
    void *kernel = NULL;
    CHECK(w.be->load(w.ctx, b.artifact, w.slots, false, &kernel, &d) == KT_OK);
    int n = (int)w.prob.values[0];
    float a = 1.5f, *x = malloc(n * sizeof *x), *z = malloc(n * sizeof *z);
    for (int i = 0; i < n; i++)
        x[i] = (float)(i % 97);
    void *bx, *bz;
    CHECK(w.be->buffer_new(w.ctx, n * sizeof *x, &bx, &d) == KT_OK);
    CHECK(w.be->buffer_new(w.ctx, n * sizeof *z, &bz, &d) == KT_OK);
    CHECK(w.be->buffer_write(w.ctx, bx, x, n * sizeof *x) == KT_OK);
    CHECK(w.be->buffer_fill(w.ctx, bz, 0xff, n * sizeof *z) == KT_OK);
    void *args[] = {&n, &a, &bx, &bx, &bz}; /* y is x too */
    double times[3] = {0};
    CHECK(w.be->run(w.ctx, kernel, args, 3, 2, times, &d) == KT_OK);
    for (int i = 0; i < 3; i++)
        CHECK(times[i] > 0 && times[i] < 1000);
    CHECK(w.be->buffer_read(w.ctx, z, bz, n * sizeof *z) == KT_OK);
    for (int i = 0; i < n; i++)
        CHECK(z[i] == 2.5f * x[i]);
    w.be->unload(w.ctx, kernel);
    w.be->buffer_free(w.ctx, bx, n * sizeof *x);
    w.be->buffer_free(w.ctx, bz, n * sizeof *z);
    free(x);
    free(z);
    kt_builds_clear(&b, 1);
    close_spec(&w);
    close_spec(&tuner);
}

/* Load configuration cfg of the spec at path in a worker: its result. */
static int load_in_worker(const char *path, const char *artifact, uint16_t wg, kt_diag *d)
{
    fixture w;
    open_spec(&w, path, true);
    uint16_t cfg[1] = {wg};
    kt_spec_slots(w.spec, cfg, &w.prob, w.slots);
    void *kernel = NULL;
    int rc = w.be->load(w.ctx, artifact, w.slots, false, &kernel, d);
    w.be->unload(w.ctx, kernel);
    close_spec(&w);
    return rc;
}

static void test_a_work_group_the_kernel_cannot_take_is_invalid_at_load(void)
{
    need_opencl();
    fixture f;
    const char *path = write_spec("__kernel __attribute__((reqd_work_group_size(64, 1, 1)))\n"
                                  "void k(__global float *out)\n"
                                  "{\n    out[get_global_id(0)] = 1.0f;\n}\n",
                                  "[32, 64, 1000000]");
    open_spec(&f, path, false);
    uint16_t cfg[1] = {0};
    kt_build b = build(&f, cfg);
    CHECK(b.status == KT_STATUS_OK);
    kt_diag d = {{0}};
    CHECK(load_in_worker(path, b.artifact, 1, &d) == KT_OK);
    CHECK(load_in_worker(path, b.artifact, 0, &d) == KT_ERANGE);
    CHECK(strstr(d.msg, "reqd_work_group_size") != NULL);
    CHECK(load_in_worker(path, b.artifact, 2, &d) == KT_ERANGE); /* past any device */
    CHECK(strstr(d.msg, "out of range") != NULL || strstr(d.msg, "allows") != NULL);
    kt_builds_clear(&b, 1);
    close_spec(&f);
}

/* A launch the driver refuses is the run's error with the OpenCL code's
 * name (the worker records a runtime_error): here the spec passes an
 * argument the kernel does not have. */
static void test_a_refused_launch_names_the_opencl_error(void)
{
    need_opencl();
    fixture f, w;
    const char *path = write_spec("__kernel void k(void)\n{\n}\n", "[64]");
    open_spec(&f, path, false);
    uint16_t cfg[1] = {0};
    kt_build b = build(&f, cfg);
    CHECK(b.status == KT_STATUS_OK);
    open_spec(&w, path, true);
    kt_spec_slots(w.spec, cfg, &w.prob, w.slots);
    kt_diag d = {{0}};
    void *kernel = NULL, *buf = NULL;
    CHECK(w.be->load(w.ctx, b.artifact, w.slots, false, &kernel, &d) == KT_OK);
    CHECK(w.be->buffer_new(w.ctx, 4096, &buf, &d) == KT_OK);
    void *args[] = {&buf};
    double t[1];
    CHECK(w.be->run(w.ctx, kernel, args, 1, 1, t, &d) == KT_EBACKEND);
    CHECK(strstr(d.msg, "argument 0 ('out')") && strstr(d.msg, "CL_INVALID_ARG_INDEX"));
    w.be->buffer_free(w.ctx, buf, 4096);
    w.be->unload(w.ctx, kernel);
    kt_builds_clear(&b, 1);
    close_spec(&w);
    close_spec(&f);
}

static void test_a_platform_name_that_matches_none_is_a_clear_error(void)
{
    need_opencl();
    kt_spec *spec;
    kt_diag d = {{0}};
    CHECK(kt_spec_load(kt_test_path("tests/data/opencl/saxpy.json"), NULL, NULL, &spec,
                       &d) == KT_OK);
    const kt_backend *be = kt_backend_for(KT_LANG_OPENCL);
    void *ctx = NULL;
    kt_backend_opts o = {.cache_dir = kt_test_tmp("cache"), .platform = "NoSuchVendor"};
    CHECK(be->open(spec, &o, &ctx, &d) == KT_ENOTFOUND);
    CHECK(strstr(d.msg, "no OpenCL platform's name contains 'NoSuchVendor' (there are: '")
          != NULL);
    o = (kt_backend_opts){.cache_dir = kt_test_tmp("cache"), .device = 99};
    CHECK(be->open(spec, &o, &ctx, &d) == KT_EBACKEND);
    CHECK(strstr(d.msg, "device 99") != NULL);
    kt_spec_free(spec);
}

/* KTT's CoulombSum2d as KTT wrote it: no GlobalSizeType, so its GlobalSize
 * counts work-items (an OpenCL launch); its Random data lies in [0,
 * FillValue), as KTT's loader draws it (atoms at negative depths made
 * half_rsqrt's argument negative: NaN in the reference). */
/* A selector that computes this machine's device for an OpenCL spec looks
 * on the platform its options name, as `ktune tune --platform` does. */
static void test_a_selector_finds_this_machines_device_on_its_platform(void)
{
    need_opencl();
    const char *spec = kt_test_path("tests/data/opencl/saxpy.json");
    ktune_selector_opts o;
    ktune_selector_opts_init(&o);
    o.cache_dir = kt_test_tmp("cache");
    ktune_selector *sel = NULL;
    ktune_diag d = {{0}};
    CHECK(ktune_selector_open(NULL, spec, NULL, NULL, &o, &sel, &d) == KTUNE_OK);
    ktune_selector_close(sel);
    o.platform = "NoSuchVendor";
    CHECK(ktune_selector_open(NULL, spec, NULL, NULL, &o, &sel, &d) == KTUNE_ENOTFOUND);
    CHECK(sel == NULL);
    CHECK(strstr(d.msg, "'NoSuchVendor'") != NULL);
}

static void test_ktt_opencl_spec_reads_as_ktt_runs_it(void)
{
    kt_spec *spec;
    kt_problem prob;
    kt_args args;
    kt_diag d = {{0}};
    CHECK(kt_spec_load(kt_test_path("tests/data/t1/ktt/CoulombSum2d/CoulombSum2dScript.json"),
                       NULL, NULL, &spec, &d) == KT_OK);
    CHECK(spec->language == KT_LANG_OPENCL && spec->grid_in_threads);
    CHECK(kt_problem_parse(spec, NULL, &prob, &d) == KT_OK);
    CHECK(kt_args_new(spec, &prob, 1, &args, &d) == KT_OK);
    const float *atoms = args.init[0];
    float lo = 1e30f, hi = -1e30f;
    for (size_t i = 0; i < args.count[0]; i++) {
        lo = atoms[i] < lo ? atoms[i] : lo;
        hi = atoms[i] > hi ? atoms[i] : hi;
    }
    CHECK(lo >= 0 && hi < 40 && hi > 30); /* FillValue 40 */
    kt_args_clear(&args);
    kt_problem_clear(&prob);
    kt_spec_free(spec);
    /* ktune's own saxpy: Random without a FillValue stays in [-1, 1) */
    CHECK(kt_spec_load(kt_test_path("tests/data/opencl/saxpy.json"), NULL, NULL, &spec, &d)
          == KT_OK);
    CHECK(kt_problem_parse(spec, NULL, &prob, &d) == KT_OK);
    CHECK(kt_args_new(spec, &prob, 1, &args, &d) == KT_OK);
    const float *x = args.init[2];
    lo = 0;
    for (size_t i = 0; i < args.count[2]; i++)
        lo = x[i] < lo ? x[i] : lo;
    CHECK(lo < -0.9f);
    kt_args_clear(&args);
    kt_problem_clear(&prob);
    kt_spec_free(spec);
}

/* The public list names this platform's devices, and every GPU backend
 * has a line: its devices, or why it has none here. */
static void test_the_device_list_names_the_opencl_platforms_devices(void)
{
    need_opencl();
    ktune_device list[32];
    size_t n = 0, opencl = 0, cuda = 0;
    kt_diag d = {{0}};
    CHECK(ktune_devices(NULL, 0, &n, &d) == KT_OK && n >= 2);
    CHECK(ktune_devices(list, 32, &n, &d) == KT_OK && n <= 32);
    for (size_t i = 0; i < n; i++) {
        opencl += strcmp(list[i].backend, "opencl") == 0 && list[i].ordinal >= 0 &&
                  list[i].platform[0] && list[i].name[0];
        cuda += strcmp(list[i].backend, "cuda") == 0 &&
                (list[i].ordinal >= 0 ? list[i].name[0] != 0 : list[i].note[0] != 0);
    }
    CHECK(opencl >= 1 && cuda >= 1);
    CHECK(ktune_devices(NULL, 1, &n, &d) == KT_EINVAL);
}

/* Loading the ICD loader leaves OCL_ICD_FILENAMES as the user set it, so
 * the worker started afterwards sees every vendor it names.  CUDA's ICD
 * loader (machine B) cut it to its first entry
 * (bench/gpu/logs/opencl-env-2026-11-25.txt); Debian's ocl-icd here does
 * not, so this guards the invariant rather than reproducing that loader. */
static void test_loading_the_icd_loader_keeps_ocl_icd_filenames(void)
{
    need_opencl();
    const char *old = getenv("OCL_ICD_FILENAMES");
    char *saved = old ? strdup(old) : NULL;
    setenv("OCL_ICD_FILENAMES", "libpocl.so.2:libktune-absent-vendor.so", 1);
    kt_cl_api cl;
    kt_diag d = {{0}};
    CHECK(kt_cl_api_load(&cl, &d) == KT_OK);
    kt_cl_api_unload(&cl);
    const char *now = getenv("OCL_ICD_FILENAMES");
    CHECK(now && strcmp(now, "libpocl.so.2:libktune-absent-vendor.so") == 0);
    if (saved)
        setenv("OCL_ICD_FILENAMES", saved, 1);
    else
        unsetenv("OCL_ICD_FILENAMES");
    free(saved);
}

static const kt_test TESTS[] = {
    KT_T(test_the_device_list_names_the_opencl_platforms_devices),
    KT_T(test_loading_the_icd_loader_keeps_ocl_icd_filenames),
    KT_T(test_ktt_opencl_spec_reads_as_ktt_runs_it),
    KT_T(test_a_configuration_builds_and_its_binary_is_cached),
    KT_T(test_a_broken_kernel_is_a_compile_error_with_the_logs_line),
    KT_T(test_a_kernel_runs_is_timed_and_computes_its_values),
    KT_T(test_a_work_group_the_kernel_cannot_take_is_invalid_at_load),
    KT_T(test_a_refused_launch_names_the_opencl_error),
    KT_T(test_a_platform_name_that_matches_none_is_a_clear_error),
    KT_T(test_a_selector_finds_this_machines_device_on_its_platform),
};

KT_TEST_MAIN(TESTS)
