/* test_fills.c - T1's data file fills (BinaryRaw, BinaryHDF) for inputs
 * and for expected outputs (ReferenceArguments), and the FillTypes ktune
 * refuses.  Raw files are written by the tests into their own folder; the
 * HDF5 files are the committed fixtures tests/data/fills/{one,two}.h5
 * (tests/data/fills/make-h5.c made them).  The spec's kernel is the faulty
 * test kernel: y = 2x + 1 with MODE 0, y = 2x with MODE 3. */
#include "backend/backend.h"
#include "core/half.h"
#include "core/space.h"
#include "core/util.h"
#include "measure/measure.h"
#include "measure/worker.h"
#include "test.h"

#include <limits.h>

/* Write n bytes to file name in the test's folder; returns its path. */
static const char *write_bytes(const char *name, const void *data, size_t n)
{
    const char *path = kt_test_tmp(name);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    CHECK(fwrite(data, 1, n, f) == n);
    fclose(f);
    return path;
}

/* Write a spec, in the test's folder, for the faulty kernel (MODE 0 or 3,
 * problem N = 8) with the given Arguments after "n" and the given
 * ReferenceArguments; returns its path (static). */
static const char *write_spec(const char *args, const char *refs)
{
    static char text[8192], path[PATH_MAX];
    char kernel[PATH_MAX];
    CHECK(realpath(kt_test_path("tests/kernels/faulty.c"), kernel) != NULL);
    snprintf(text, sizeof text,
             "{\"ConfigurationSpace\": {\"TuningParameters\": [{\"Name\": \"MODE\","
             " \"Type\": \"int\", \"Values\": \"[0, 3]\", \"Default\": 0}],"
             " \"ProblemParameters\": [{\"Name\": \"N\", \"Default\": 8}]},"
             " \"KernelSpecification\": {\"Language\": \"C\", \"KernelName\": \"scale\","
             " \"KernelFile\": \"%s\", \"Arguments\": [{\"Name\": \"n\", \"Type\":"
             " \"int32\", \"MemoryType\": \"Scalar\", \"FillValue\": \"N\"}, %s],"
             " \"ReferenceArguments\": [%s]}}",
             kernel, args, refs);
    snprintf(path, sizeof path, "%s", kt_test_tmp("spec.json"));
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
    return path;
}

/* An argument object: Name, Type, AccessType, Size, and extra keys. */
#define VECS(name, type, access, size, extra)                                          \
    "{\"Name\": \"" name "\", \"Type\": \"" type "\", \"MemoryType\": \"Vector\","    \
    " \"AccessType\": \"" access "\", \"Size\": " size ", " extra "}"
/* ... of Size N (8). */
#define VEC(name, type, access, extra) VECS(name, type, access, "\"N\"", extra)
#define HDF "\"FillType\": \"BinaryHDF\", \"DataSource\": \"%s\""
#define RAW(file) "\"FillType\": \"BinaryRaw\", \"DataSource\": \"" file "\""
#define Y_OUT VEC("y", "float", "WriteOnly", "\"FillType\": \"Constant\", \"FillValue\": 0")
#define Y_REF(extra)                                                                   \
    "{\"Name\": \"y_ref\", \"TargetName\": \"y\", \"ValidationMethod\":"             \
    " \"AbsoluteDifference\", \"ValidationThreshold\": 1e-6, " extra "}"

static const float X[8] = {1, 2, 3, 4, 5, 6, 7, 8};

/* Make the arguments of the spec at path (problem defaults); returns the
 * code, with the arguments in *a on success. */
static int make_args(const char *path, kt_args *a, kt_diag *d)
{
    kt_spec *spec;
    kt_problem prob;
    CHECK(kt_spec_load(path, NULL, NULL, &spec, d) == KT_OK);
    CHECK(kt_problem_parse(spec, NULL, &prob, d) == KT_OK);
    int rc = kt_args_new(spec, &prob, 1, a, d);
    kt_problem_clear(&prob);
    kt_spec_free(spec);
    return rc;
}

/* Output i's expected values (count of them) by the spec at path. */
static int load_expected(const char *path, size_t i, size_t count, void *dst)
{
    kt_spec *spec;
    kt_problem prob;
    kt_diag d = {{0}};
    CHECK(kt_spec_load(path, NULL, NULL, &spec, &d) == KT_OK);
    CHECK(kt_problem_parse(spec, NULL, &prob, &d) == KT_OK);
    int rc = kt_args_expected(spec, &prob, i, count, dst, &d);
    kt_problem_clear(&prob);
    kt_spec_free(spec);
    return rc;
}

static void test_raw_values_arrive_in_the_buffer(void)
{
    int32_t k[8] = {-3, 0, 5, 7, 100000, -1, 2, 9};
    write_bytes("x.raw", X, sizeof X);
    write_bytes("k.raw", k, sizeof k);
    kt_args a;
    kt_diag d = {{0}};
    CHECK(make_args(write_spec(VEC("x", "float", "ReadOnly", RAW("x.raw")) ", "
                               VEC("k", "int32", "ReadOnly", RAW("k.raw")) ", " Y_OUT,
                               Y_REF("\"FillType\": \"Generator\"")),
                    &a, &d) == KT_OK);
    CHECK(memcmp(a.init[1], X, sizeof X) == 0);
    CHECK(memcmp(a.init[2], k, sizeof k) == 0);
    kt_args_clear(&a);
}

/* The message is one line naming the spec, the key path and the file. */
static void check_one_line(const kt_diag *d, const char *spec, const char *want)
{
    if (!strstr(d->msg, spec) || !strstr(d->msg, want) || strchr(d->msg, '\n')) {
        fprintf(stderr, "got \"%s\", wanted \"%s\" and \"%s\"\n", d->msg, spec, want);
        exit(1);
    }
    CHECK(1);
}

static void test_raw_size_mismatch_is_one_line(void)
{
    write_bytes("x.raw", X, 7 * sizeof(float));
    const char *spec = write_spec(VEC("x", "float", "ReadOnly", RAW("x.raw")) ", " Y_OUT,
                                  Y_REF("\"FillType\": \"Generator\""));
    kt_args a;
    kt_diag d = {{0}};
    CHECK(make_args(spec, &a, &d) == KT_ESPEC);
    check_one_line(&d, spec, "KernelSpecification.Arguments[1].DataSource: '");
    check_one_line(&d, spec, "/x.raw' holds 28 bytes, but the argument is 8 elements "
                             "of 4 bytes (32 bytes)");
    /* the tuner's plan (before any worker starts) says the same */
    kt_spec *s;
    kt_problem prob;
    CHECK(kt_spec_load(spec, NULL, NULL, &s, &d) == KT_OK);
    CHECK(kt_problem_parse(s, NULL, &prob, &d) == KT_OK);
    CHECK(kt_args_plan(s, &prob, &a, &d) == KT_ESPEC);
    check_one_line(&d, spec, "holds 28 bytes");
    kt_problem_clear(&prob);
    kt_spec_free(s);
}

static int warnings;
static void count_warning(void *user, const char *msg)
{
    (void)user;
    CHECK(strstr(msg, "warning: KernelSpecification.ReferenceArguments[0].DataSource: "
                      "cannot read '") != NULL);
    CHECK(strstr(msg, "/expected.raw' (No such file or directory); tuning needs it"));
    warnings++;
}

/* A missing file: the spec loads (its space can be counted) with a
 * warning; making the arguments refuses it. */
static void test_missing_file_is_refused_when_the_arguments_are_made(void)
{
    write_bytes("x.raw", X, sizeof X);
    const char *spec = write_spec(VEC("x", "float", "ReadOnly", RAW("x.raw")) ", " Y_OUT,
                                  Y_REF(RAW("expected.raw")));
    kt_spec *s;
    kt_diag d = {{0}};
    CHECK(kt_spec_load(spec, count_warning, NULL, &s, &d) == KT_OK);
    CHECK(warnings == 1);
    kt_spec_free(s);
    kt_args a;
    CHECK(make_args(spec, &a, &d) == KT_EIO);
    check_one_line(&d, spec, "KernelSpecification.ReferenceArguments[0].DataSource: '");
    check_one_line(&d, spec, "/expected.raw' cannot be read: No such file or directory");
}

/* The path of a committed fixture, absolute (the spec is elsewhere). */
static const char *fixture(const char *name)
{
    static char path[8][PATH_MAX]; /* the last eight stay valid */
    static int k;
    char rel[128];
    snprintf(rel, sizeof rel, "tests/data/fills/%s", name);
    k = (k + 1) % 8;
    CHECK(realpath(kt_test_path(rel), path[k]) != NULL);
    return path[k];
}

static void test_hdf5_datasets_are_read(void)
{
    char args[2048];
    /* one.h5 holds a single 2 x 3 dataset of doubles: any name takes it;
     * two.h5 holds "x" (int32) and "y" (float): the argument's name picks,
     * for an expected output its TargetName */
    snprintf(args, sizeof args,
             VECS("a", "float", "ReadOnly", "6", HDF) ", " VECS("x", "int8", "ReadOnly", "4",
             HDF) ", " VECS("y", "double", "WriteOnly", "4", HDF) ", "
             VECS("h", "half", "ReadOnly", "6", HDF) ", " VECS("b", "bf16", "ReadOnly", "6",
             HDF), fixture("one.h5"), fixture("two.h5"), fixture("two.h5"),
             fixture("one.h5"), fixture("one.h5"));
    const char *spec = write_spec(args, Y_REF("\"FillType\": \"BinaryHDF\", \"DataSource\":"
                                              " \"two.h5\""));
    kt_args a;
    kt_diag d = {{0}};
    double expected[4];
    write_bytes("two.h5", "", 0); /* not HDF5: the reference's file */
    CHECK(make_args(spec, &a, &d) == KT_EIO);
    check_one_line(&d, spec, "ReferenceArguments[0].DataSource: '");
    check_one_line(&d, spec, "/two.h5' is not an HDF5 file");
    CHECK(symlink(fixture("two.h5"), kt_test_tmp("y.h5")) == 0);
    spec = write_spec(args, Y_REF("\"FillType\": \"BinaryHDF\", \"DataSource\": \"y.h5\""));
    if (make_args(spec, &a, &d) != KT_OK) {
        fprintf(stderr, "%s\n", d.msg);
        exit(1);
    }
    for (int i = 0; i < 6; i++)
        CHECK_NEAR(((float *)a.init[1])[i], 0.5 + i, 0);
    for (int i = 0; i < 4; i++)
        CHECK(((int8_t *)a.init[2])[i] == i + 1);
    for (int i = 0; i < 6; i++) { /* HDF5 converts to the 16-bit floats */
        CHECK_NEAR(kt_half_to_float(((uint16_t *)a.init[4])[i]), 0.5 + i, 0);
        CHECK_NEAR(kt_bf16_to_float(((uint16_t *)a.init[5])[i]), 0.5 + i, 0);
    }
    kt_args_clear(&a);
    CHECK(load_expected(spec, 3, 4, expected) == KT_OK);
    for (int i = 0; i < 4; i++)
        CHECK_NEAR(expected[i], -1 - i, 0);
    /* an argument named neither x nor y, on a file with both */
    snprintf(args, sizeof args, VECS("z", "float", "ReadOnly", "4", HDF) ", " Y_OUT,
             fixture("two.h5"));
    spec = write_spec(args, Y_REF("\"FillType\": \"Generator\""));
    CHECK(make_args(spec, &a, &d) == KT_ESPEC);
    check_one_line(&d, spec, "Arguments[1].DataSource: '");
    check_one_line(&d, spec, "two.h5' holds 2 top-level objects and no dataset 'z'");
}

/* What T1 lists but ktune refuses, each in one line. */
static void test_script_and_random_expectations_are_refused(void)
{
    static const char *const BAD[][3] = {
        {VEC("x", "float", "ReadOnly", "\"FillType\": \"Script\", \"DataSource\": \"a.py\""),
         "\"FillType\": \"Generator\"",
         "Arguments[1].FillType: \"Script\" runs a program to make the data, and ktune "
         "runs no code from a spec"},
        {VEC("x", "float", "ReadOnly", "\"FillType\": \"Random\""),
         "\"FillType\": \"Random\"",
         "ReferenceArguments[0]: FillType \"Random\" gives no expected values"},
        {VEC("x", "float", "ReadOnly", "\"FillType\": \"BinaryRaw\""),
         "\"FillType\": \"Generator\"", "Arguments[1].DataSource: missing required key"},
    };
    for (size_t i = 0; i < KT_ARRAY_LEN(BAD); i++) {
        kt_spec *s = NULL;
        kt_diag d = {{0}};
        char args[1024], ref[512];
        snprintf(args, sizeof args, "%s, " Y_OUT, BAD[i][0]);
        snprintf(ref, sizeof ref, Y_REF("%s"), BAD[i][1]);
        const char *spec = write_spec(args, ref);
        CHECK(kt_spec_load(spec, NULL, NULL, &s, &d) == KT_ESPEC);
        check_one_line(&d, spec, BAD[i][2]);
    }
}

/* Measure MODE 0 and MODE 3 of the spec at path through the worker, the
 * default (MODE 0) being the reference run; statuses into st. */
static void run_both(const char *path, kt_status st[2])
{
    kt_spec *spec;
    kt_problem prob;
    kt_diag d = {{0}};
    CHECK(kt_spec_load(path, NULL, NULL, &spec, &d) == KT_OK);
    CHECK(kt_problem_parse(spec, NULL, &prob, &d) == KT_OK);
    const kt_backend *be = kt_backend_find("cpu");
    kt_backend_opts bo = {.cache_dir = kt_test_tmp("cache"), .jobs = 2};
    void *ctx;
    CHECK(be->open(spec, &bo, &ctx, &d) == KT_OK);
    uint16_t cfg[2][1] = {{0}, {1}};
    const uint16_t *list[2] = {cfg[0], cfg[1]};
    kt_build b[2];
    CHECK(be->compile(ctx, list, 2, b, &d) == KT_OK);
    CHECK(b[0].status == KT_STATUS_OK && b[1].status == KT_STATUS_OK);
    kt_measure_opts mo = kt_measure_defaults();
    mo.min_time_s = 0.001;
    mo.max_reps = 3;
    kt_worker *w;
    if (kt_worker_new(be, &bo, spec, &prob, b[0].artifact, cfg[0], &mo, &w, &d) != KT_OK) {
        fprintf(stderr, "worker: %s\n", d.msg);
        exit(1);
    }
    for (int i = 0; i < 2; i++) {
        kt_result r;
        CHECK(kt_worker_eval(w, b[i].artifact, cfg[i], &r, &d) == KT_OK);
        st[i] = r.status;
    }
    kt_worker_free(w);
    kt_builds_clear(b, 2);
    be->close(ctx);
    kt_problem_clear(&prob);
    kt_spec_free(spec);
}

/* Expected outputs read from a file (or given by an expression) replace
 * the reference run's: with 2x expected, MODE 3 (2x) passes and MODE 0
 * (2x + 1, the reference run itself) fails verification. */
static void test_expected_outputs_from_a_file_decide_verification(void)
{
    float twice[8];
    for (int i = 0; i < 8; i++)
        twice[i] = 2 * X[i];
    write_bytes("x.raw", X, sizeof X);
    write_bytes("twice.raw", twice, sizeof twice);
    const char *x = VEC("x", "float", "ReadOnly", RAW("x.raw")) ", " Y_OUT;
    static const char *const REFS[] = {
        Y_REF(RAW("twice.raw")),
        Y_REF("\"FillType\": \"Generator\", \"DataSource\": \"2 * (i + 1)\""),
    };
    for (size_t i = 0; i < KT_ARRAY_LEN(REFS); i++) {
        kt_status st[2];
        run_both(write_spec(x, REFS[i]), st);
        CHECK(st[0] == KT_STATUS_WRONG_RESULT);
        CHECK(st[1] == KT_STATUS_OK);
    }
    /* computed by the reference run: MODE 0 agrees with itself */
    kt_status st[2];
    run_both(write_spec(x, Y_REF("\"FillType\": \"Generator\"")), st);
    CHECK(st[0] == KT_STATUS_OK);
    CHECK(st[1] == KT_STATUS_WRONG_RESULT);
}

static const kt_test TESTS[] = {
    KT_T(test_raw_values_arrive_in_the_buffer),
    KT_T(test_raw_size_mismatch_is_one_line),
    KT_T(test_missing_file_is_refused_when_the_arguments_are_made),
    KT_T(test_hdf5_datasets_are_read),
    KT_T(test_script_and_random_expectations_are_refused),
    KT_T(test_expected_outputs_from_a_file_decide_verification),
};
KT_TEST_MAIN(TESTS)
