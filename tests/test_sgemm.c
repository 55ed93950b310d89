/* test_sgemm.c - the CUDA SGEMM spec (kernels/gemm/gemm-cuda.json) without
 * a GPU: its transposed-A layout (AT=1) is in the space with the launch
 * and shared memory the kernel expects, the conditions that narrow the
 * space hold where the H100's measurements put them, and the configurations
 * the H100 and H200 chose compile with NVRTC for sm_90, with and without
 * stream K and the tail split (skipped where NVRTC is absent). */
#include "backend/backend.h"
#include "backend/launch.h"
#include "core/space.h"
#include "measure/measure.h"
#include "nvrtc_util.h"
#include "test.h"

#include <string.h>

/* The H100's choices at 4096^3 (bench/gpu/logs/sgemm-2026-11-24-2.txt):
 * A transposed with 8 x 16 and 16 x 8 thread tiles, and the layout before
 * it (AT=0); stream K; the H200's at 4096^3 and 8192^3 with a register
 * cap (__maxnreg__, bench/gpu/logs/sgemm-nreg-2026-11-28.txt), and with the
 * tail split (bench/gpu/logs/sgemm-tail-2026-11-29.txt). */
static const char *const CHOSEN[] = {
    "BM=128,BN=256,BK=32,WM=64,WN=64,TM=8,TN=16,STAGES=3,GM=8,MINB=1,AT=1,SK=0,NREG=0,TAIL=0",
    "BM=128,BN=256,BK=16,WM=64,WN=64,TM=16,TN=8,STAGES=2,GM=8,MINB=1,AT=1,SK=0,NREG=0,TAIL=0",
    "BM=64,BN=64,BK=16,WM=64,WN=32,TM=8,TN=8,STAGES=3,GM=1,MINB=2,AT=0,SK=0,NREG=0,TAIL=0",
    "BM=128,BN=256,BK=32,WM=128,WN=32,TM=16,TN=8,STAGES=4,GM=8,MINB=1,AT=1,SK=132,NREG=0,TAIL=0",
    "BM=128,BN=256,BK=32,WM=32,WN=128,TM=8,TN=16,STAGES=3,GM=8,MINB=1,AT=1,SK=0,NREG=216,TAIL=0",
    "BM=128,BN=256,BK=32,WM=32,WN=128,TM=8,TN=16,STAGES=3,GM=8,MINB=1,AT=1,SK=132,NREG=228,TAIL=1"};

static kt_spec *load_sgemm(void)
{
    kt_spec *spec = NULL;
    kt_diag d = {{0}};
    CHECK(kt_spec_load(kt_test_path("kernels/gemm/gemm-cuda.json"), NULL, NULL, &spec, &d) ==
          KT_OK);
    return spec;
}

/* The launch of one configuration key at problem "M=..,N=..,K=..". */
static kt_launch launch_of(const kt_spec *spec, const char *problem, const char *key,
                           bool *valid)
{
    kt_diag d = {{0}};
    kt_problem prob;
    kt_space *space;
    uint16_t cfg[32];
    double slots[128];
    kt_launch l;
    memset(&l, 0, sizeof l);
    CHECK(spec->nparams <= 32 && spec->nnames <= 128);
    CHECK(kt_problem_parse(spec, problem, &prob, &d) == KT_OK);
    CHECK(kt_space_new(spec, &prob, &space, &d) == KT_OK);
    CHECK(kt_spec_config_parse(spec, key, cfg, &d) == KT_OK);
    *valid = kt_space_is_valid(space, cfg);
    kt_spec_slots(spec, cfg, &prob, slots);
    kt_launch_limits lim = {.max_threads = 1024, .max_shared_optin = 227 * 1024};
    CHECK(kt_launch_geometry(spec, slots, false, &lim, &l, &d) == KT_OK);
    kt_space_free(space);
    kt_problem_clear(&prob);
    return l;
}

/* AT=1 keeps A as As[k][m] with rows of BM + 4 floats; AT=0 as As[m][k]
 * with rows of BK + 4: the same tile asks for less shared memory. */
static void test_transposed_a_layout_is_in_the_space(void)
{
    kt_spec *spec = load_sgemm();
    bool valid;
    kt_launch l = launch_of(spec, "M=4096,N=4096,K=4096", CHOSEN[0], &valid);
    CHECK(valid);
    CHECK_EQ_INT((int)l.block[0], 256);
    CHECK_EQ_INT((int)l.grid[0], 16);
    CHECK_EQ_INT((int)l.grid[1], 32);
    CHECK_EQ_INT((int)l.shared, 3 * (128 * 32 + 4 * 32 + 32 * 256) * 4);
    l = launch_of(spec, "M=4096,N=4096,K=4096",
                  "BM=128,BN=256,BK=32,WM=64,WN=64,TM=8,TN=16,STAGES=3,GM=8,MINB=1,AT=0,SK=0,NREG=0,TAIL=0",
                  &valid);
    CHECK(!valid); /* 8 x 16 needs AT=1's fewer fragment registers */
    CHECK_EQ_INT((int)l.shared, 3 * (128 * 36 + 32 * 256) * 4);
    /* MINB caps registers at 65536 / (threads MINB): not below 128 */
    launch_of(spec, "M=4096,N=4096,K=4096",
              "BM=128,BN=256,BK=32,WM=64,WN=64,TM=8,TN=16,STAGES=3,GM=8,MINB=4,AT=1,SK=0,NREG=0,TAIL=0", &valid);
    CHECK(!valid);
    kt_spec_free(spec);
}

/* SK=132 (the H100's and H200's multiprocessors): a block a tile for the
 * whole waves of 132, then up to 132 blocks that share the rest's k-tiles;
 * the workspace holds two partial tiles a block, a counter a block (the
 * largest values in the spec's lists are the last). */
static void test_stream_k_grid_and_workspace(void)
{
    kt_spec *spec = load_sgemm();
    bool valid;
    /* 4096^3, 128 x 256 tiles: 512 tiles, 3 waves of 132 and 116 shared */
    kt_launch l = launch_of(spec, "M=4096,N=4096,K=4096", CHOSEN[3], &valid);
    CHECK(valid);
    CHECK_EQ_INT((int)l.grid[0], 396 + 132);
    CHECK_EQ_INT((int)l.grid[1], 1);
    CHECK_EQ_INT((int)l.block[0], 256);
    /* 32 tiles, all shared; 12 x 22 tiles (2 waves): none shared */
    l = launch_of(spec, "M=1000,N=1003,K=517", CHOSEN[3], &valid);
    CHECK(valid);
    CHECK_EQ_INT((int)l.grid[0], 132);
    l = launch_of(spec, "M=1536,N=5632,K=64", CHOSEN[3], &valid);
    CHECK_EQ_INT((int)l.grid[0], 264);
    /* 4 tiles of 2 k-tiles: 8 blocks share them */
    l = launch_of(spec, "M=256,N=512,K=64", CHOSEN[3], &valid);
    CHECK_EQ_INT((int)l.grid[0], 8);
    kt_diag d = {{0}};
    kt_problem prob;
    kt_args args;
    /* W holds two partial tiles for each of SK blocks at the largest SK and
     * tile in the space, at any problem size (the 1024^2 x 16384 GEMM has
     * 64 tiles, every one shared among 132 blocks) */
    double most = 2;
    const char *names[] = {"SK", "BM", "BN"};
    for (size_t n = 0; n < 3; n++)
        for (size_t p = 0; p < spec->nparams; p++)
            if (strcmp(spec->params[p].name, names[n]) == 0)
                most *= spec->params[p].values[spec->params[p].nvalues - 1];
    CHECK(most == 2.0 * 132 * 256 * 256);
    const char *shapes[] = {"M=64,N=64,K=64", "M=1024,N=1024,K=16384", "M=8192,N=8192,K=8192"};
    for (size_t n = 0; n < 3; n++) {
        CHECK(kt_problem_parse(spec, shapes[n], &prob, &d) == KT_OK);
        CHECK(kt_args_plan(spec, &prob, &args, &d) == KT_OK);
        CHECK_EQ_INT((int)args.n, 8);
        CHECK((double)args.count[6] >= most); /* W */
        CHECK(args.count[7] == 132);          /* Wc */
        kt_args_clear(&args);
        kt_problem_clear(&prob);
    }
    kt_spec_free(spec);
}

static bool valid_at(const kt_spec *spec, const char *problem, const char *key)
{
    bool valid;
    launch_of(spec, problem, key, &valid);
    return valid;
}

/* Measured on the H100 (bench/gpu/logs/sgemm-2026-11-24-1.txt, -2.txt and
 * sgemm-2026-11-24-3.txt): a 16 x 8 tile needs about 210-250 registers, so
 * 512 threads (a cap of 128) spill, at any size; at M N >= 4096^2 the
 * space keeps A transposed, 128-output thread tiles, BK >= 16, BN >= 128,
 * GM=8, MINB=1; smaller problems keep the whole space. */
static void test_space_is_narrowed_where_measured(void)
{
    kt_spec *spec = load_sgemm();
    const char *big = "M=4096,N=4096,K=4096", *odd = "M=1000,N=1003,K=517";
    const char *spill = "BM=256,BN=256,BK=16,WM=64,WN=64,TM=16,TN=8,STAGES=2,GM=8,MINB=1,AT=1,SK=0,NREG=0,TAIL=0";
    CHECK(!valid_at(spec, big, spill));
    CHECK(!valid_at(spec, odd, spill));
    /* AT=0, 8 x 8 tiles, BK=8, BN=64 and GM=1 are out at 4096^2 and in at
     * the odd shape */
    const char *out[] = {CHOSEN[2],
                         "BM=128,BN=128,BK=16,WM=64,WN=32,TM=8,TN=8,STAGES=2,GM=8,MINB=2,AT=1,SK=0,NREG=0,TAIL=0",
                         "BM=128,BN=256,BK=8,WM=64,WN=64,TM=16,TN=8,STAGES=2,GM=8,MINB=1,AT=1,SK=0,NREG=0,TAIL=0",
                         "BM=128,BN=64,BK=16,WM=128,WN=32,TM=16,TN=8,STAGES=2,GM=8,MINB=1,AT=1,SK=0,NREG=0,TAIL=0",
                         "BM=128,BN=256,BK=16,WM=64,WN=64,TM=16,TN=8,STAGES=2,GM=1,MINB=1,AT=1,SK=0,NREG=0,TAIL=0"};
    for (size_t i = 0; i < sizeof out / sizeof *out; i++) {
        CHECK(!valid_at(spec, big, out[i]));
        CHECK(valid_at(spec, odd, out[i]));
    }
    for (size_t i = 0; i < 2; i++)
        CHECK(valid_at(spec, big, CHOSEN[i]) && valid_at(spec, "M=8192,N=8192,K=8192", CHOSEN[i]));
    kt_spec_free(spec);
}

/* NREG caps registers with __maxnreg__, which replaces __launch_bounds__:
 * only with MINB=1, only on the 128-output thread tiles it was measured on,
 * and never more registers than a multiprocessor holds for the block. */
static void test_register_cap_where_it_fits(void)
{
    kt_spec *spec = load_sgemm();
    const char *odd = "M=1000,N=1003,K=517";
    CHECK(valid_at(spec, "M=4096,N=4096,K=4096", CHOSEN[4]));
    CHECK(valid_at(spec, odd, CHOSEN[4]));
    const char *out[] = {
        "BM=128,BN=128,BK=16,WM=64,WN=32,TM=8,TN=16,STAGES=2,GM=8,MINB=2,AT=1,SK=0,NREG=216,TAIL=0",
        "BM=128,BN=128,BK=16,WM=64,WN=32,TM=8,TN=8,STAGES=2,GM=8,MINB=1,AT=1,SK=0,NREG=216,TAIL=0",
        "BM=256,BN=256,BK=16,WM=64,WN=64,TM=16,TN=8,STAGES=2,GM=8,MINB=1,AT=1,SK=0,NREG=216,TAIL=0"};
    for (size_t i = 0; i < sizeof out / sizeof *out; i++)
        CHECK(!valid_at(spec, odd, out[i]));
    kt_spec_free(spec);
}

/* TAIL=1 (with SK, the multiprocessors): a block a tile for the whole
 * waves of SK, then two blocks for each tile left, cut at one k-tile; a
 * tile of one k-tile is not cut; TAIL needs SK. */
static void test_tail_split_grid(void)
{
    kt_spec *spec = load_sgemm();
    bool valid;
    /* 4096^3, 128 x 256 tiles: 512 tiles, 3 waves of 132 and 116 cut in two */
    kt_launch l = launch_of(spec, "M=4096,N=4096,K=4096", CHOSEN[5], &valid);
    CHECK(valid);
    CHECK_EQ_INT((int)l.grid[0], 396 + 2 * 116);
    CHECK_EQ_INT((int)l.grid[1], 1);
    /* 8192^3: 2048 tiles, 15 waves and 68 cut; 32 tiles, no whole wave */
    l = launch_of(spec, "M=8192,N=8192,K=8192", CHOSEN[5], &valid);
    CHECK_EQ_INT((int)l.grid[0], 1980 + 2 * 68);
    l = launch_of(spec, "M=1000,N=1003,K=517", CHOSEN[5], &valid);
    CHECK(valid);
    CHECK_EQ_INT((int)l.grid[0], 64);
    /* one k-tile (K <= BK) or none: a block a tile */
    l = launch_of(spec, "M=256,N=512,K=32", CHOSEN[5], &valid);
    CHECK_EQ_INT((int)l.grid[0], 4);
    l = launch_of(spec, "M=256,N=512,K=33", CHOSEN[5], &valid);
    CHECK_EQ_INT((int)l.grid[0], 8);
    CHECK(!valid_at(spec, "M=4096,N=4096,K=4096",
                    "BM=128,BN=256,BK=32,WM=32,WN=128,TM=8,TN=16,STAGES=3,GM=8,MINB=1,AT=1,SK=0,NREG=228,TAIL=1"));
    kt_spec_free(spec);
}

/* A CUBIN serves every problem size: one compile each covers the odd
 * shapes and 4096^3. */
static void test_chosen_configurations_compile(void)
{
    need_nvrtc();
    kt_spec *spec = load_sgemm();
    kt_diag d = {{0}};
    const kt_backend *be = kt_backend_find("cuda");
    kt_backend_opts o = {.cache_dir = kt_test_tmp("cache"), .jobs = 2, .arch = "sm_90"};
    void *ctx;
    CHECK(be->open(spec, &o, &ctx, &d) == KT_OK);
    enum { N = sizeof CHOSEN / sizeof *CHOSEN };
    uint16_t cfgs[N][32];
    const uint16_t *list[N];
    kt_build builds[N];
    for (size_t i = 0; i < N; i++) {
        CHECK(kt_spec_config_parse(spec, CHOSEN[i], cfgs[i], &d) == KT_OK);
        list[i] = cfgs[i];
    }
    CHECK(be->compile(ctx, list, N, builds, &d) == KT_OK);
    for (size_t i = 0; i < N; i++) {
        if (builds[i].status != KT_STATUS_OK)
            fprintf(stderr, "%s: %s\n", CHOSEN[i], builds[i].detail);
        CHECK(builds[i].status == KT_STATUS_OK);
    }
    kt_builds_clear(builds, N);
    be->close(ctx);
    kt_spec_free(spec);
}

static const kt_test TESTS[] = {
    KT_T(test_transposed_a_layout_is_in_the_space),
    KT_T(test_space_is_narrowed_where_measured),
    KT_T(test_register_cap_where_it_fits),
    KT_T(test_stream_k_grid_and_workspace),
    KT_T(test_tail_split_grid),
    KT_T(test_chosen_configurations_compile),
};
KT_TEST_MAIN(TESTS)
