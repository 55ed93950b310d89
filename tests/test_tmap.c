/* test_tmap.c - TensorMap arguments (MemoryType "TensorMap"): how the spec
 * spells them and which mistakes it names, and the cuTensorMapEncodeTiled
 * fields the CUDA backend computes from them for one configuration, all
 * without a GPU (the encode call itself needs the driver; with one, the
 * encoded map is checked to be accepted). */
#include "backend/cuda_api.h"
#include "backend/tmap.h"
#include "core/util.h"
#include "measure/measure.h"
#include "test.h"

/* A CUDA spec over A (M x K halves) whose last argument is tmap_arg; BX
 * and BY are tuning parameters, M and K problem sizes. */
static const char *spec_with(const char *tmap_arg, const char *language)
{
    static char text[4096];
    FILE *f = fopen(kt_test_tmp("k.cu"), "w");
    CHECK(f != NULL);
    fputs("extern \"C\" __global__ void k(const short *A) {}\n", f);
    fclose(f);
    snprintf(text, sizeof text,
             "{\"ConfigurationSpace\": {\"TuningParameters\": ["
             "{\"Name\": \"BX\", \"Type\": \"int\", \"Values\": \"[64, 72, 300]\"},"
             "{\"Name\": \"BY\", \"Type\": \"int\", \"Values\": \"[128, 256]\"}],"
             "\"ProblemParameters\": [{\"Name\": \"M\", \"Default\": 1000},"
             "{\"Name\": \"K\", \"Default\": 4096}]},"
             "\"KernelSpecification\": {\"Language\": \"%s\", \"KernelName\": \"k\","
             "\"KernelFile\": \"k.cu\", \"GlobalSize\": {\"X\": \"1\"},"
             "\"LocalSize\": {\"X\": \"1\"}, \"Arguments\": ["
             "{\"Name\": \"A\", \"Type\": \"half\", \"MemoryType\": \"Vector\","
             "\"Size\": \"M * K\"}, %s]}}",
             language, tmap_arg);
    const char *path = kt_test_tmp("spec.json");
    f = fopen(path, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
    return path;
}

static const char *GOOD = "{\"Name\": \"tmA\", \"MemoryType\": \"TensorMap\", \"Source\": "
                          "\"A\", \"Dims\": [\"K\", \"M\"], \"Box\": [\"BX\", \"BY\"], "
                          "\"Swizzle\": \"128B\"}";

static void test_tensor_map_argument_is_read(void)
{
    kt_spec *s;
    kt_diag d = {{0}};
    CHECK(kt_spec_load(spec_with(GOOD, "CUDA"), NULL, NULL, &s, &d) == KT_OK);
    const kt_arg *a = &s->args[1];
    CHECK(a->tmap != NULL);
    CHECK(a->scalar);                       /* passed by value */
    CHECK_EQ_INT(a->type, KT_DT_HALF);      /* the Source's type */
    CHECK_EQ_INT(a->tmap->source, 0);
    CHECK_EQ_INT(a->tmap->rank, 2);
    CHECK_EQ_INT(a->tmap->swizzle, KT_SWIZZLE_128B);
    CHECK(s->args[0].tmap == NULL);
    /* the worker passes the 128 bytes of a CUtensorMap by value */
    kt_problem prob;
    kt_args args;
    CHECK(kt_problem_parse(s, NULL, &prob, &d) == KT_OK);
    CHECK(kt_args_plan(s, &prob, &args, &d) == KT_OK);
    CHECK(args.bytes[1] == KT_TMAP_BYTES && args.bytes[0] == 1000 * 4096 * 2);
    kt_args_clear(&args);
    kt_problem_clear(&prob);
    kt_spec_free(s);
}

static void expect_spec_error(const char *arg, const char *language, const char *frag)
{
    kt_spec *s = NULL;
    kt_diag d = {{0}};
    CHECK(kt_spec_load(spec_with(arg, language), NULL, NULL, &s, &d) == KT_ESPEC);
    if (!strstr(d.msg, frag))
        fprintf(stderr, "message: %s\n", d.msg);
    CHECK(strstr(d.msg, frag) != NULL);
    CHECK(strstr(d.msg, "spec.json: KernelSpecification.Arguments[1]") != NULL);
}

static void test_tensor_map_mistakes_are_named(void)
{
    expect_spec_error("{\"Name\": \"t\", \"MemoryType\": \"TensorMap\", \"Source\": \"B\", "
                      "\"Dims\": [\"K\"], \"Box\": [64]}",
                      "CUDA", "Source 'B' is not a vector argument listed before this one");
    expect_spec_error("{\"Name\": \"t\", \"MemoryType\": \"TensorMap\", \"Source\": \"A\", "
                      "\"Dims\": [\"K\", \"M\"], \"Box\": [64]}",
                      "CUDA", "Arguments[1].Box: expected 2 expressions");
    expect_spec_error("{\"Name\": \"t\", \"MemoryType\": \"TensorMap\", \"Source\": \"A\", "
                      "\"Dims\": [\"K\", \"BX\"], \"Box\": [64, 64]}",
                      "CUDA", "Dims[1]: may use problem parameters only");
    expect_spec_error("{\"Name\": \"t\", \"MemoryType\": \"TensorMap\", \"Source\": \"A\", "
                      "\"Dims\": [1, 2, 3, 4, 5, 6], \"Box\": [64]}",
                      "CUDA", "Arguments[1].Dims: expected 1 to 5 expressions");
    expect_spec_error("{\"Name\": \"t\", \"MemoryType\": \"TensorMap\", \"Source\": \"A\", "
                      "\"Dims\": [\"K\"], \"Box\": [64], \"Swizzle\": \"256B\"}",
                      "CUDA", "Swizzle: unsupported value \"256B\"");
    expect_spec_error("{\"Name\": \"t\", \"MemoryType\": \"TensorMap\", \"Source\": \"A\", "
                      "\"Dims\": [\"K\"], \"Box\": [\"K +\"]}",
                      "CUDA", "Arguments[1].Box[0]: in \"K +\"");
    expect_spec_error(GOOD, "OpenCL", "needs \"Language\": \"CUDA\"");
}

/* Fields for problem `problem` and configuration (bx, by) (value indexes). */
static int fields(const kt_spec *s, const char *problem, uint16_t bx, uint16_t by,
                  kt_tmap_fields *f, kt_diag *d)
{
    kt_problem prob;
    double slots[16];
    uint16_t cfg[2] = {bx, by};
    CHECK(s->nnames <= 16);
    CHECK(kt_problem_parse(s, problem, &prob, d) == KT_OK);
    kt_spec_slots(s, cfg, &prob, slots);
    int rc = kt_tmap_fields_make(s, 1, slots, f, d);
    kt_problem_clear(&prob);
    return rc;
}

static void test_tensor_map_fields_follow_problem_and_configuration(void)
{
    kt_spec *s;
    kt_diag d = {{0}};
    kt_tmap_fields f;
    CHECK(kt_spec_load(spec_with(GOOD, "CUDA"), NULL, NULL, &s, &d) == KT_OK);
    CHECK(fields(s, "M=1000,K=4096", 0, 1, &f, &d) == KT_OK);
    CHECK_EQ_INT(f.dtype, KT_TMAP_FLOAT16);
    CHECK_EQ_INT(f.rank, 2);
    CHECK(f.dims[0] == 4096 && f.dims[1] == 1000);
    CHECK(f.strides[0] == 8192);            /* bytes between rows of A */
    CHECK(f.box[0] == 64 && f.box[1] == 256);
    CHECK(f.elem_strides[0] == 1 && f.elem_strides[1] == 1);
    CHECK_EQ_INT(f.swizzle, KT_SWIZZLE_128B);
    /* 72 halves are 144 bytes, wider than the 128-byte swizzle span */
    CHECK(fields(s, NULL, 1, 0, &f, &d) == KT_ERANGE);
    CHECK(strstr(d.msg, "'tmA': the box's inner extent is 144 bytes") != NULL);
    CHECK(fields(s, NULL, 2, 0, &f, &d) == KT_ERANGE);
    CHECK(strstr(d.msg, "Box[0] \"BX\" is not a whole number from 1 to 256") != NULL);
    /* K = 517 halves: rows 1034 bytes apart, which TMA cannot address */
    CHECK(fields(s, "K=517", 0, 0, &f, &d) == KT_ESPEC);
    CHECK(strstr(d.msg, "stride of 1034 bytes") != NULL);
    kt_spec_free(s);
    /* Dims that reach past the Source buffer */
    CHECK(kt_spec_load(spec_with("{\"Name\": \"t\", \"MemoryType\": \"TensorMap\", "
                                 "\"Source\": \"A\", \"Dims\": [\"K\", \"M + 1\"], "
                                 "\"Box\": [64, 8]}",
                                 "CUDA"),
                       NULL, NULL, &s, &d) == KT_OK);
    CHECK(fields(s, NULL, 0, 0, &f, &d) == KT_ESPEC);
    CHECK(strstr(d.msg, "Dims cover 4100096 elements, its Source 'A' has 4096000") != NULL);
    kt_spec_free(s);
}

/* With a driver, the fields are ones it accepts (no device memory needed:
 * encoding only writes the 128 bytes). */
static void test_driver_accepts_the_fields(void)
{
    kt_cuda_api cu;
    kt_diag d = {{0}};
    if (kt_cuda_api_load(&cu, &d) != KT_OK || cu.cuInit(0) != 0) {
        KT_SKIP("no CUDA driver here");
    }
    if (!cu.cuTensorMapEncodeTiled)
        KT_SKIP("the driver has no cuTensorMapEncodeTiled");
    kt_spec *s;
    kt_tmap_fields f;
    CHECK(kt_spec_load(spec_with(GOOD, "CUDA"), NULL, NULL, &s, &d) == KT_OK);
    CHECK(fields(s, NULL, 0, 0, &f, &d) == KT_OK);
    _Alignas(64) unsigned char map[KT_TMAP_BYTES];
    void *addr = (void *)(uintptr_t)0x10000000; /* 16-byte aligned; never read */
    CHECK(cu.cuTensorMapEncodeTiled(map, f.dtype, f.rank, addr, f.dims, f.strides, f.box,
                                    f.elem_strides, 0, f.swizzle, f.l2_promotion, 0) == 0);
    kt_spec_free(s);
    kt_cuda_api_unload(&cu);
}

static const kt_test TESTS[] = {
    KT_T(test_tensor_map_argument_is_read),
    KT_T(test_tensor_map_mistakes_are_named),
    KT_T(test_tensor_map_fields_follow_problem_and_configuration),
    KT_T(test_driver_accepts_the_fields),
};
KT_TEST_MAIN(TESTS)
