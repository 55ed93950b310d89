/* test_cubin_key.c - a CUDA kernel's nested local headers (a header that
 * includes another, as kernels/gemm/mma.cuh and hopper.cuh include
 * common.cuh) are found, also through a link as kernels/conv has them, and
 * an edit of the innermost one gives the kernel a new compiled-kernel
 * (CUBIN) cache entry instead of the stale one.  Compiles with the real
 * NVRTC; skipped where it is absent. */
#include "backend/backend.h"
#include "core/util.h"
#include "nvrtc_util.h"
#include "test.h"

#include <sys/stat.h>
#include <unistd.h>

static void put(const char *name, const char *text)
{
    FILE *f = fopen(kt_test_tmp(name), "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
}

/* k/k.cu includes a.cuh, a link to ../h/a.cuh, which includes b.cuh
 * (k/b.cuh: a kernel's local includes lie beside it). */
static void write_kernel(const char *value)
{
    char b[128];
    mkdir(kt_test_tmp("k"), 0700);
    mkdir(kt_test_tmp("h"), 0700);
    put("k/k.json",
        "{\"ConfigurationSpace\": {\"TuningParameters\": [{\"Name\": \"A\", "
        "\"Type\": \"int\", \"Values\": \"[1]\"}]}, \"KernelSpecification\": "
        "{\"Language\": \"CUDA\", \"KernelName\": \"k\", \"KernelFile\": \"k.cu\", "
        "\"GlobalSize\": {\"X\": \"1\"}, \"LocalSize\": {\"X\": \"1\"}, \"Arguments\": "
        "[{\"Name\": \"x\", \"Type\": \"float\", \"MemoryType\": \"Vector\", "
        "\"AccessType\": \"WriteOnly\", \"Size\": 1}]}}");
    put("k/k.cu", "#include \"a.cuh\"\n"
                  "extern \"C\" __global__ void k(float *x) { x[0] = B_VALUE * A; }\n");
    put("h/a.cuh", "#pragma once\n#include \"b.cuh\"\n");
    unlink(kt_test_tmp("k/a.cuh"));
    CHECK(symlink("../h/a.cuh", kt_test_tmp("k/a.cuh")) == 0);
    snprintf(b, sizeof b, "#pragma once\n#define B_VALUE %s\n", value);
    put("k/b.cuh", b);
}

/* The cache file the configuration compiles to (the caller frees it). */
static char *compiled(void)
{
    kt_spec *spec = NULL;
    kt_diag d = {{0}};
    CHECK(kt_spec_load(kt_test_tmp("k/k.json"), NULL, NULL, &spec, &d) == KT_OK);
    CHECK(spec->kernel_includes && strstr(spec->kernel_includes, "\nb.cuh\n"));
    const kt_backend *be = kt_backend_find("cuda");
    kt_backend_opts o = {.cache_dir = kt_test_tmp("cache"), .jobs = 1, .arch = "sm_90"};
    void *ctx = NULL;
    CHECK(be->open(spec, &o, &ctx, &d) == KT_OK);
    uint16_t cfg[1] = {0};
    const uint16_t *list[1] = {cfg};
    kt_build b = {0};
    CHECK(be->compile(ctx, list, 1, &b, &d) == KT_OK);
    if (b.status != KT_STATUS_OK)
        fprintf(stderr, "%s\n", b.detail);
    CHECK(b.status == KT_STATUS_OK);
    char *path = kt_strdup(b.artifact);
    kt_builds_clear(&b, 1);
    be->close(ctx);
    kt_spec_free(spec);
    return path;
}

static void test_nested_header_edit_gives_a_new_cubin(void)
{
    need_nvrtc();
    write_kernel("1.0f");
    char *first = compiled();
    char *again = compiled(); /* unchanged: the same entry */
    CHECK_STR(first, again);
    write_kernel("2.0f");
    char *edited = compiled();
    CHECK(strcmp(first, edited) != 0);
    CHECK(access(first, R_OK) == 0 && access(edited, R_OK) == 0);
    free(first);
    free(again);
    free(edited);
}

/* The shipped tensor-core kernels reach common.cuh through mma.cuh or
 * hopper.cuh, so their hashes (and CUBIN keys) cover it. */
static void test_shipped_kernels_hash_common_cuh(void)
{
    static const char *const specs[] = {
        "kernels/gemm/gemm-f16-cuda.json",        "kernels/gemm/gemm-wgmma-f16-cuda.json",
        "kernels/gemm/gemm-wgmma-ws-f16-cuda.json", "kernels/gemm/gemm-tma-f8-cuda.json",
        "kernels/conv/conv-igemm-tc-f16-cuda.json", "kernels/conv/conv-igemm-wgmma-f16-cuda.json"};
    for (size_t i = 0; i < KT_ARRAY_LEN(specs); i++) {
        kt_spec *spec = NULL;
        kt_diag d = {{0}};
        CHECK(kt_spec_load(kt_test_path(specs[i]), NULL, NULL, &spec, &d) == KT_OK);
        CHECK(spec->kernel_includes && strstr(spec->kernel_includes, "\ncommon.cuh\n"));
        kt_spec_free(spec);
    }
}

static const kt_test TESTS[] = {
    KT_T(test_nested_header_edit_gives_a_new_cubin),
    KT_T(test_shipped_kernels_hash_common_cuh),
};
KT_TEST_MAIN(TESTS)
