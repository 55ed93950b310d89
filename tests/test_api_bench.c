/* test_api_bench.c - the public comparison of strategies on a recording,
 * through <ktune.h> alone: a Kernel Tuner cache of tests/data replayed
 * without a spec, the report's rows and curves, and the errors of bad
 * options. */
#include <ktune.h>

#include "test.h"

#include <math.h>

#define CACHE "tests/data/kerneltuner/vector_add_a4000.json"

static const char *cache_path(void)
{
    static char buf[512];
    const char *root = getenv("KT_TEST_SRCDIR");
    snprintf(buf, sizeof buf, "%s/%s", root ? root : ".", CACHE);
    return buf;
}

static void test_strategies_are_compared_on_a_recording(void)
{
    static const char *const STRATEGIES[] = {"random", "brute_force"};
    static const double BUDGETS[] = {3, 6};
    ktune_bench_opts o;
    ktune_bench_opts_init(&o);
    CHECK(o.seeds == 20 && o.nbudgets == 5 && o.budgets[4] == 400);
    o.replay = cache_path();
    o.strategies = STRATEGIES;
    o.nstrategies = 2;
    o.budgets = BUDGETS;
    o.nbudgets = 2;
    o.seeds = 3;
    ktune_bench *b = NULL;
    ktune_diag d = {{0}};
    CHECK(ktune_benchmark(NULL, &o, &b, &d) == KTUNE_OK);
    const ktune_bench_info *info = ktune_bench_summary(b);
    CHECK_STR(info->kernel, "vector_add");
    CHECK(info->space > 6 && info->optimum_ms > 0 && info->optimum_config[0]);
    CHECK(info->nstrategies == 2 && info->nbudgets == 2 && info->nrows == 4);
    CHECK(info->seeds == 3 && info->curve_len == 6);
    const ktune_bench_row *r = ktune_bench_row_at(b, 1);
    CHECK_STR(r->strategy, "random");
    CHECK(r->budget == 6 && r->fraction.mean > 0 && r->fraction.mean <= 1);
    CHECK(r->found >= 0 && r->found <= 1);
    CHECK(ktune_bench_row_at(b, 4) == NULL);
    const ktune_bench_stat *c = ktune_bench_curve(b, 0);
    CHECK(c != NULL && c[5].mean >= c[0].mean);
    CHECK(ktune_bench_curve(b, 2) == NULL);
    ktune_bench_free(b);
}

static void test_bad_options_are_errors_with_a_line(void)
{
    ktune_bench_opts o;
    ktune_bench_opts_init(&o);
    ktune_bench *b = (ktune_bench *)1;
    ktune_diag d = {{0}};
    CHECK(ktune_benchmark(NULL, &o, &b, &d) == KTUNE_EINVAL); /* no recording */
    CHECK(b == NULL && d.msg[0] && !strchr(d.msg, '\n'));
    o.replay = cache_path();
    static const double DOWN[] = {6, 3};
    o.budgets = DOWN;
    o.nbudgets = 2;
    CHECK(ktune_benchmark(NULL, &o, &b, &d) == KTUNE_EINVAL);
    CHECK(strstr(d.msg, "ascending") != NULL);
    ktune_bench_opts_init(&o);
    o.replay = cache_path();
    static const char *const BOGUS[] = {"bogus"};
    o.strategies = BOGUS;
    o.nstrategies = 1;
    CHECK(ktune_benchmark(NULL, &o, &b, &d) == KTUNE_EINVAL);
    CHECK(strstr(d.msg, "bogus") != NULL);
    ktune_bench_opts_init(&o);
    o.replay = kt_test_tmp("missing.json");
    CHECK(ktune_benchmark(NULL, &o, &b, &d) < 0 && b == NULL);
    o.size = 0;
    CHECK(ktune_benchmark(NULL, &o, &b, &d) == KTUNE_EINVAL);
    CHECK(ktune_benchmark(NULL, NULL, &b, &d) == KTUNE_EINVAL);
    ktune_bench_free(NULL);
    CHECK(ktune_bench_summary(NULL) == NULL);
}

static const kt_test TESTS[] = {
    KT_T(test_strategies_are_compared_on_a_recording),
    KT_T(test_bad_options_are_errors_with_a_line),
};
KT_TEST_MAIN(TESTS)
