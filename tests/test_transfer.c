/* test_transfer.c - transfer across devices through <ktune.h> alone: three
 * trimmed pnpoly recordings (tests/data/transfer), the model's order and
 * scores, each device held out in turn, and the one-line errors of bad
 * input.  The expected figures were computed apart from ktune, from the
 * files' times (tests/data/transfer/README.md gives the script). */
#include <ktune.h>

#include "test.h"

#include <math.h>

#define DIR "tests/data/transfer/"

static const char *data(const char *name)
{
    static char buf[4][512];
    static int next;
    const char *root = getenv("KT_TEST_SRCDIR");
    char *b = buf[next++ % 4];
    snprintf(b, sizeof buf[0], "%s/" DIR "%s", root ? root : ".", name);
    return b;
}

#define CFG(bm, bx, ts, um) \
    "between_method=" #bm ",block_size_x=" #bx ",tile_size=" #ts ",use_method=" #um

static void test_the_model_orders_a_portfolio_of_mean_fractions(void)
{
    /* best covering first (greedy on each device's best so far), then by
     * mean fraction of each device's optimum; a failure last, at 0 */
    static const struct { const char *key; double score; } WANT[] = {
        {CFG(0, 448, 20, 0), 0.990551}, {CFG(0, 384, 20, 0), 0.988768},
        {CFG(3, 448, 20, 0), 0.951190}, {CFG(0, 64, 20, 0), 0.888130},
        {CFG(0, 288, 20, 0), 0.982525}, {CFG(0, 256, 20, 0), 0.982324},
        {CFG(2, 416, 20, 0), 0.946478}, {CFG(0, 32, 1, 0), 0.145056},
        {CFG(0, 544, 20, 1), 0.0},
    };
    const char *paths[] = {data("rtx2080ti.json"), data("rtx3060.json"),
                           data("rtx3090.json")};
    ktune_transfer *t = NULL;
    ktune_diag d = {{0}};
    CHECK(ktune_transfer_open(paths, 3, NULL, &t, &d) == KTUNE_OK);
    CHECK_STR(ktune_transfer_kernel(t), "cn_pnpoly");
    CHECK(ktune_transfer_ndevices(t) == 3);
    CHECK_STR(ktune_transfer_device(t, 2), "NVIDIA GeForce RTX 3090");
    CHECK(ktune_transfer_device(t, 3) == NULL);
    CHECK(ktune_transfer_count(t) == 9);
    for (size_t i = 0; i < 9; i++) {
        const char *key;
        double score;
        CHECK(ktune_transfer_config(t, i, &key, &score) == KTUNE_OK);
        CHECK_STR(key, WANT[i].key);
        CHECK_NEAR(score, WANT[i].score, 1e-6);
    }
    CHECK(ktune_transfer_config(t, 9, NULL, NULL) == KTUNE_EINVAL);
    ktune_transfer_free(t);
    ktune_transfer_free(NULL);
}

static void test_each_device_held_out_reaches_what_its_times_say(void)
{
    /* per device: transfer with 0 (top one), 2 and 4 measurements; warm
     * with 2 and 4 (the default configuration, then the top 1 or 3); the
     * default configuration's fraction */
    static const double TRANSFER[3][3] = {{0.967698, 0.967698, 0.967698},
                                          {0.996162, 0.996162, 1.0},
                                          {0.981287, 0.981287, 0.998605}};
    static const double WARM[3][2] = {{0.967698, 0.967698}, {0.996162, 0.996162},
                                      {0.981287, 0.998605}};
    static const double DEFAULT[3] = {0.032180, 0.202910, 0.200079};
    static const double BUDGETS[] = {2, 4};
    const char *paths[] = {data("rtx2080ti.json"), data("rtx3060.json"),
                           data("rtx3090.json")};
    ktune_transfer_bench_opts o;
    ktune_transfer_bench_opts_init(&o);
    CHECK(o.nbudgets == 2 && o.budgets[1] == 20 && o.seeds == 20 && o.top == 10);
    o.paths = paths;
    o.npaths = 3;
    o.budgets = BUDGETS;
    o.seeds = 3;
    ktune_transfer_bench *b = NULL;
    ktune_diag d = {{0}};
    CHECK(ktune_transfer_benchmark(&o, &b, &d) == KTUNE_OK);
    CHECK_STR(ktune_transfer_bench_kernel(b), "cn_pnpoly");
    CHECK(ktune_transfer_bench_count(b) == 12);
    for (size_t dev = 0; dev < 3; dev++)
        for (size_t k = 0; k < 3; k++) {
            const ktune_transfer_row *r = ktune_transfer_bench_row(b, dev * 3 + k);
            CHECK(r->measurements == (k ? (uint64_t)BUDGETS[k - 1] : 0));
            CHECK_NEAR(r->transfer, TRANSFER[dev][k], 1e-5);
            CHECK_NEAR(r->warm, k ? WARM[dev][k - 1] : TRANSFER[dev][0], 1e-5);
            if (k == 0)
                CHECK_NEAR(r->cold, DEFAULT[dev], 1e-5);
            else /* every cold run measures the default first */
                CHECK(r->cold >= DEFAULT[dev] - 1e-5 && r->cold <= 1);
        }
    const ktune_transfer_row *m = ktune_transfer_bench_row(b, 11);
    CHECK(m->device == NULL && m->measurements == 4 && isnan(m->optimum_ms));
    CHECK_NEAR(m->transfer, 0.998605, 1e-5); /* median of 0.968, 1, 0.999 */
    CHECK(ktune_transfer_bench_row(b, 12) == NULL);
    ktune_transfer_bench_free(b);
}

/* f fails with code, one line naming what is wrong. */
static void check_open_fails(const char *a, const char *b, int code, const char *what)
{
    const char *paths[] = {data(a), data(b)};
    ktune_transfer *t = (ktune_transfer *)1;
    ktune_diag d = {{0}};
    CHECK(ktune_transfer_open(paths, 2, NULL, &t, &d) == code);
    CHECK(t == NULL && !strchr(d.msg, '\n'));
    CHECK(strstr(d.msg, what) != NULL);
}

static void test_bad_input_is_one_line(void)
{
    check_open_fails("rtx3090.json", "three_params.json", KTUNE_EFORMAT,
                     "3 tuning parameters, not 4");
    check_open_fails("rtx3090.json", "../kerneltuner/vector_add_a4000.json",
                     KTUNE_EFORMAT, "kernel 'vector_add', not 'cn_pnpoly'");
    check_open_fails("rtx3090.json", "rtx3090.json", KTUNE_EFORMAT,
                     "device 'NVIDIA GeForce RTX 3090' is recorded twice");
    ktune_transfer *t = NULL;
    ktune_diag d = {{0}};
    CHECK(ktune_transfer_open(NULL, 0, NULL, &t, &d) == KTUNE_EINVAL);
    const char *one[] = {data("rtx3090.json")};
    ktune_transfer_bench_opts o;
    ktune_transfer_bench_opts_init(&o);
    o.paths = one;
    o.npaths = 1;
    ktune_transfer_bench *b = (ktune_transfer_bench *)1;
    CHECK(ktune_transfer_benchmark(&o, &b, &d) == KTUNE_EINVAL && b == NULL);
    CHECK(strstr(d.msg, "at least two devices") != NULL && !strchr(d.msg, '\n'));
    o.size = 1;
    CHECK(ktune_transfer_benchmark(&o, &b, &d) == KTUNE_EINVAL);
    CHECK(ktune_transfer_benchmark(NULL, &b, &d) == KTUNE_EINVAL);
    ktune_transfer_bench_free(NULL);
}

static const kt_test TESTS[] = {
    KT_T(test_the_model_orders_a_portfolio_of_mean_fractions),
    KT_T(test_each_device_held_out_reaches_what_its_times_say),
    KT_T(test_bad_input_is_one_line),
};
KT_TEST_MAIN(TESTS)
