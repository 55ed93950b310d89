/* test_includes.c - a CUDA kernel's local headers (core/includes.h): the
 * spec's source hash covers their text, a missing one is a one-line error
 * at load with file:line, and a kernel without them keeps its hash. */
#include "core/spec.h"
#include "test.h"

static void put(const char *name, const char *text)
{
    FILE *f = fopen(kt_test_tmp(name), "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
}

/* A spec over k.cu in the test's folder, loaded; NULL with d set on error. */
static kt_spec *load(kt_diag *d)
{
    put("k.json", "{\"ConfigurationSpace\": {\"TuningParameters\": [{\"Name\": \"A\", "
          "\"Type\": \"int\", \"Values\": \"[1]\"}]}, \"KernelSpecification\": "
          "{\"Language\": \"CUDA\", \"KernelName\": \"k\", \"KernelFile\": \"k.cu\", "
          "\"GlobalSize\": {\"X\": \"1\"}, \"LocalSize\": {\"X\": \"1\"}, \"Arguments\": "
          "[{\"Name\": \"x\", \"Type\": \"float\", \"MemoryType\": \"Vector\", "
          "\"AccessType\": \"WriteOnly\", \"Size\": 1}]}}");
    kt_spec *s = NULL;
    if (kt_spec_load(kt_test_tmp("k.json"), NULL, NULL, &s, d) != KT_OK)
        return NULL;
    return s;
}

static const char KERNEL[] = "// k\n  # include \"a.cuh\"\n"
                             "extern \"C\" __global__ void k(float *x) { x[0] = A_VALUE; }\n";

static void test_header_edit_changes_the_source_hash(void)
{
    kt_diag d = {{0}};
    put("k.cu", KERNEL);
    put("a.cuh", "#pragma once\n#include \"b.cuh\"\n");
    put("b.cuh", "#define A_VALUE 1.0f\n");
    kt_spec *s1 = load(&d);
    CHECK(s1 != NULL);
    put("b.cuh", "#define A_VALUE 2.0f\n"); /* a nested header */
    kt_spec *s2 = load(&d);
    CHECK(s2 != NULL);
    CHECK(strcmp(s1->source_hash, s2->source_hash) != 0);
    CHECK(strstr(s2->kernel_includes, "2.0f") != NULL);
    kt_spec_free(s1);
    kt_spec_free(s2);
}

static void test_missing_header_is_a_one_line_error(void)
{
    kt_diag d = {{0}};
    put("k.cu", KERNEL);
    CHECK(load(&d) == NULL);
    CHECK(strstr(d.msg, "k.cu:2: included file") != NULL);
    CHECK(strstr(d.msg, "a.cuh") != NULL);
    CHECK(strchr(d.msg, '\n') == NULL);
}

static void test_header_outside_the_kernel_directory_is_refused(void)
{
    kt_diag d = {{0}};
    put("k.cu", "#include \"../a.cuh\"\n");
    CHECK(load(&d) == NULL);
    CHECK(strstr(d.msg, "k.cu:1: '#include \"../a.cuh\"'") != NULL);
}

/* Without quoted includes nothing is added: the hash is the one before
 * headers were counted (here, the shipped SGEMM's, whose literal changes
 * with gemm.cu (stream K, 2026-11-28), and BAT's GEMM in
 * test_benchconfig.c). */
static void test_kernel_without_includes_keeps_its_hash(void)
{
    kt_diag d = {{0}};
    put("k.cu", "#include <math.h>\n// #include \"not_a_line_include.cuh\"\n"
          "extern \"C\" __global__ void k(float *x) { x[0] = 1; }\n");
    kt_spec *s = load(&d);
    CHECK(s != NULL);
    CHECK(s->kernel_includes == NULL);
    CHECK_STR(s->source_hash, "468f21dcae2aca89");
    kt_spec_free(s);
    CHECK(kt_spec_load(kt_test_path("kernels/gemm/gemm-cuda.json"), NULL, NULL, &s, &d) ==
          KT_OK);
    CHECK_STR(s->source_hash, "586beeeab605a975");
    kt_spec_free(s);
}

static const kt_test TESTS[] = {
    KT_T(test_header_edit_changes_the_source_hash),
    KT_T(test_missing_header_is_a_one_line_error),
    KT_T(test_header_outside_the_kernel_directory_is_refused),
    KT_T(test_kernel_without_includes_keeps_its_hash),
};
KT_TEST_MAIN(TESTS)
