/* test_online_cuda.c - online tuning of CUDA kernels: a CUDA spec is
 * accepted where a device is and refused with a clear message where none
 * is (CI); a backend without a production call is refused by its table;
 * where a device is, the application's own device buffers (allocated in
 * the primary context, as the runtime API does) are served and right. */
#include "backend/cuda_api.h"
#include "core/util.h"
#include "tune/online.h"
#include "test.h"

#include <math.h>

#define SIZE 256

/* Whether this machine has a CUDA device the driver can open. */
static bool have_device(void)
{
    kt_cuda_api cu;
    kt_diag d = {{0}};
    int n = 0;
    bool ok = kt_cuda_api_load(&cu, &d) == KT_OK && cu.cuInit(0) == 0 &&
              cu.cuDeviceGetCount(&n) == 0 && n > 0;
    if (cu.lib)
        kt_cuda_api_unload(&cu);
    return ok;
}

static kt_online_opts opts_for(void)
{
    kt_online_opts o = kt_online_defaults();
    o.backend.cache_dir = kt_test_tmp("cache");
    o.candidates = 4;
    return o;
}

static void test_cuda_is_accepted_where_a_device_is(void)
{
    kt_spec *spec;
    kt_diag d = {{0}};
    CHECK(kt_spec_load(kt_test_path("kernels/gemm/gemm-cuda.json"), NULL, NULL, &spec,
                       &d) == KT_OK);
    kt_online_opts o = opts_for();
    kt_online *on = NULL;
    int rc = kt_online_open(spec, &o, &on, &d);
    if (have_device()) {
        CHECK_EQ_INT(rc, KT_OK);
        CHECK(on != NULL);
    } else {
        /* refused for the machine, not for the language */
        CHECK_EQ_INT(rc, KT_EBACKEND);
        CHECK(strstr(d.msg, "CUDA") != NULL || strstr(d.msg, "NVRTC") != NULL);
        CHECK(strstr(d.msg, "C kernels only") == NULL);
        CHECK(on == NULL);
    }
    kt_online_close(on);
    kt_spec_free(spec);
}

/* A backend says through its table whether it can run in the application. */
static const kt_backend NO_CALL = {.abi = KT_BACKEND_ABI, .name = "offline-only",
                                   .language = KT_LANG_C};

static void test_backend_without_production_call_is_refused(void)
{
    kt_spec *spec;
    kt_diag d = {{0}};
    CHECK(kt_spec_load(kt_test_path("tests/kernels/online.json"), NULL, NULL, &spec,
                       &d) == KT_OK);
    kt_online_opts o = opts_for();
    o.backend_impl = &NO_CALL;
    kt_online *on = NULL;
    CHECK_EQ_INT(kt_online_open(spec, &o, &on, &d), KT_EBACKEND);
    CHECK(strstr(d.msg, "offline-only backend cannot") != NULL);
    CHECK(on == NULL);
    kt_spec_free(spec);
}

/* The application's side: the driver, its primary context current, three
 * device matrices and their host copies. */
typedef struct gpu_app {
    kt_cuda_api cu;
    CUdevice dev;
    CUcontext ctx;
    CUdeviceptr da, db, dc;
    float *a, *b, *c;
    int m, n, k;
    void *args[6];
} gpu_app;

static void gpu_app_init(gpu_app *g)
{
    kt_diag d = {{0}};
    size_t bytes = sizeof(float) * SIZE * SIZE;
    *g = (gpu_app){.m = SIZE, .n = SIZE, .k = SIZE};
    CHECK(kt_cuda_api_load(&g->cu, &d) == KT_OK);
    CHECK(g->cu.cuInit(0) == 0 && g->cu.cuDeviceGet(&g->dev, 0) == 0);
    CHECK(g->cu.cuDevicePrimaryCtxRetain(&g->ctx, g->dev) == 0);
    CHECK(g->cu.cuCtxSetCurrent(g->ctx) == 0);
    g->a = malloc(bytes);
    g->b = malloc(bytes);
    g->c = malloc(bytes);
    CHECK(g->a && g->b && g->c);
    for (size_t i = 0; i < SIZE * SIZE; i++) {
        g->a[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
        g->b[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
    }
    CHECK(g->cu.cuMemAlloc(&g->da, bytes) == 0 && g->cu.cuMemAlloc(&g->db, bytes) == 0 &&
          g->cu.cuMemAlloc(&g->dc, bytes) == 0);
    CHECK(g->cu.cuMemcpyHtoD(g->da, g->a, bytes) == 0);
    CHECK(g->cu.cuMemcpyHtoD(g->db, g->b, bytes) == 0);
    void *args[6] = {&g->m, &g->n, &g->k, &g->da, &g->db, &g->dc};
    memcpy(g->args, args, sizeof args);
}

static void gpu_app_clear(gpu_app *g)
{
    g->cu.cuMemFree(g->da);
    g->cu.cuMemFree(g->db);
    g->cu.cuMemFree(g->dc);
    g->cu.cuDevicePrimaryCtxRelease(g->dev);
    kt_cuda_api_unload(&g->cu);
    free(g->a);
    free(g->b);
    free(g->c);
}

/* C = A B (row-major) on the device, as the application reads it back. */
static bool gpu_app_right(gpu_app *g)
{
    CHECK(g->cu.cuMemcpyDtoH(g->c, g->dc, sizeof(float) * SIZE * SIZE) == 0);
    for (int r = 0; r < SIZE; r += 37)
        for (int j = 0; j < SIZE; j++) {
            double want = 0;
            for (int p = 0; p < SIZE; p++)
                want += (double)g->a[r * SIZE + p] * g->b[p * SIZE + j];
            if (!(fabs(want - g->c[r * SIZE + j]) <= 1e-3 * (1 + fabs(want))))
                return false;
        }
    return true;
}

static void test_cuda_serves_the_application_buffers(void)
{
    if (!have_device())
        KT_SKIP("no CUDA device");
    gpu_app g;
    gpu_app_init(&g);
    kt_spec *spec;
    kt_problem prob;
    kt_diag d = {{0}};
    CHECK(kt_spec_load(kt_test_path("kernels/gemm/gemm-cuda.json"), NULL, NULL, &spec,
                       &d) == KT_OK);
    CHECK(kt_problem_parse(spec, "M=256,N=256,K=256", &prob, &d) == KT_OK);
    kt_online_opts o = opts_for();
    o.explore_share = 0.5;
    kt_online *on = NULL;
    CHECK_EQ_INT(kt_online_open(spec, &o, &on, &d), KT_OK);
    kt_online_call call;
    for (int i = 0; i < 300; i++) {
        if (i == 299) /* poison: the last call must write every output */
            CHECK(g.cu.cuMemsetD8(g.dc, 0xff, sizeof(float) * SIZE * SIZE) == 0);
        int rc = kt_online_run(on, &prob, g.args, &call, &d);
        if (rc != KT_OK)
            fprintf(stderr, "call %d: %s\n", i, d.msg);
        CHECK_EQ_INT(rc, KT_OK);
        CHECK(call.time_ms > 0 && call.time_ms < 1000);
        if (i == 0)
            kt_online_wait(on);
    }
    CHECK(gpu_app_right(&g));
    kt_online_info st;
    CHECK_EQ_INT(kt_online_info_get(on, &prob, &st, &d), KT_OK);
    CHECK(st.calls == 300 && st.explored > 0 && st.candidates >= 2);
    fprintf(stderr, "  %llu calls, %llu explored, %zu failed, best %s at %.4f ms\n",
            (unsigned long long)st.calls, (unsigned long long)st.explored, st.failed,
            st.best, st.best_ms);
    kt_online_close(on);
    kt_problem_clear(&prob);
    kt_spec_free(spec);
    gpu_app_clear(&g);
}

static const kt_test TESTS[] = {
    KT_T(test_cuda_is_accepted_where_a_device_is),
    KT_T(test_backend_without_production_call_is_refused),
    KT_T(test_cuda_serves_the_application_buffers),
};

KT_TEST_MAIN(TESTS)
