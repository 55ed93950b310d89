/* test_analyze_derive.c - derived features in ktune_analyze's models
 * (ml/analyze_derive.c): on a synthetic kernel whose time is decided by
 * the product of two parameters (threads per block, A x B, past a limit),
 * the held-out R-squared rises with them; and the candidates. */
#include "ml/analyze.h"
#include "test.h"

#include <ktune.h>
#include <math.h>

/* Kernel "prod": A, B in 1..24; time 1 ms, 10 ms once A x B passes 96
 * (too many threads for the block), 1 % more per step of C. */
static ktune_db *product_db(void)
{
    const char *csv = kt_test_tmp("prod.csv");
    FILE *f = fopen(csv, "w");
    CHECK(f != NULL);
    fputs("created,device,kernel,source_hash,problem,config,status,time_ms,min_ms,spread,"
          "compile_ms,energy_j,power_w,sm_clock_mhz,reps,detail\n", f);
    for (int a = 1; a <= 24; a++)
        for (int b = 1; b <= 24; b++) {
            int c = (a + b) % 3;
            double t = (a * b > 96 ? 10 : 1) * (1 + 0.01 * c);
            fprintf(f, "\"2026-11-25T00:00:00.000Z\",\"dev\",\"prod\",\"h\",\"N=1\","
                    "\"A=%d,B=%d,C=%d\",\"ok\",%.9g,%.9g,0,0,,,0,10,\"\"\n", a, b, c, t, t);
        }
    fclose(f);
    ktune_db *db = NULL;
    CHECK(ktune_db_open(kt_test_tmp("prod.db"), KTUNE_DB_CREATE, &db, NULL) == KTUNE_OK);
    CHECK(ktune_db_import(db, KTUNE_IMPORT_CSV, csv, NULL, NULL, NULL) == KTUNE_OK);
    return db;
}

/* The held-out R-squared of time; least: the feature with the smallest
 * mean |contribution|. */
static double r2_with(ktune_db *db, size_t derived, char *least)
{
    ktune_analyze_opts o;
    ktune_analyze_opts_init(&o);
    o.kernel = "prod";
    o.rounds = 60; /* quick under the sanitizers */
    o.derived = derived;
    ktune_analysis *a = NULL;
    ktune_diag d = {{0}};
    CHECK(ktune_analyze(db, &o, &a, &d) == KTUNE_OK);
    ktune_fit fit;
    CHECK(ktune_analysis_fit(a, KTUNE_TARGET_TIME, &fit) == KTUNE_OK);
    ktune_importance imp[4];
    CHECK_EQ_INT(ktune_analysis_importance(a, KTUNE_TARGET_TIME, imp, 4), 3);
    size_t min = 0;
    for (size_t i = 1; i < 3; i++)
        min = imp[i].mean_abs < imp[min].mean_abs ? i : min;
    snprintf(least, 16, "%s", ktune_analysis_feature(a, imp[min].feature));
    ktune_analysis_free(a);
    return fit.r2;
}

/* Trees over A and B alone approximate the hyperbola A x B = 96 by a
 * staircase and miss held-out configurations beside it; one split on the
 * product finds it.  Before derived features the default analysis scored
 * about 0.9. */
static void test_a_product_that_decides_time_is_learnt(void)
{
    ktune_db *db = product_db();
    char least[16];
    double plain = r2_with(db, 0, least);
    double derived = r2_with(db, 16, least);
    printf("held-out R2: %.4f without derived features, %.4f with\n", plain, derived);
    CHECK(derived > 0.99);
    CHECK(derived > plain + 0.02);
    CHECK_STR(least, "C"); /* the explanation is still of A and B */
    ktune_analyze_opts o;
    ktune_analyze_opts_init(&o);
    CHECK_EQ_INT(o.derived, 16);
    ktune_db_close(db);
}

/* Features A (1, 2, 4), B (0, 1), text T: products and ratios of A and B,
 * no division by B (it can be 0), nothing of T. */
static void test_candidates(void)
{
    static double an[] = {1, 2, 4}, bn[] = {0, 1}, tn[] = {0, 1};
    kt_afeature f[3] = {{.name = "A", .tuning = true, .numeric = true, .nvals = 3, .num = an},
                        {.name = "B", .tuning = true, .numeric = true, .nvals = 2, .num = bn},
                        {.name = "T", .tuning = true, .nvals = 2, .num = tn}};
    kt_analysis a = {.nf = 3, .ntuning = 3, .f = f};
    kt_aderived *d = NULL;
    size_t n = 0;
    CHECK(kt_derived_candidates(&a, &d, &n) == KT_OK);
    CHECK_EQ_INT(n, 2);
    char name[64];
    kt_derived_name(&a, &d[0], name, sizeof name);
    CHECK_STR(name, "A*B");
    kt_derived_name(&a, &d[1], name, sizeof name);
    CHECK_STR(name, "B/A");
    float base[3] = {4, 1, 0}, *x = NULL;
    CHECK(kt_derived_matrix(base, 1, 3, d, n, &x) == KT_OK);
    CHECK(x[3] == 4 && x[4] == 0.25f);
    free(x);
    free(d);
}

static const kt_test TESTS[] = {
    KT_T(test_a_product_that_decides_time_is_learnt),
    KT_T(test_candidates),
};

KT_TEST_MAIN(TESTS)
