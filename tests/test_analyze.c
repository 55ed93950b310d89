/* test_analyze.c - ktune_analyze (include/ktune.h, "analysis") on a small
 * synthetic kernel whose answer is known: A decides the time, B the power,
 * C and the problem size barely matter; and the TreeSHAP wrapper it uses
 * (ml/xgb.h: contributions sum to the prediction). */
#include "ml/xgb.h"
#include "test.h"

#include <ktune.h>
#include <math.h>

static const char HEADER[] = "created,device,kernel,source_hash,problem,config,status,"
                             "time_ms,min_ms,spread,compile_ms,energy_j,power_w,"
                             "sm_clock_mhz,reps,detail\n";

/* One CSV row of kernel (its source hash "h", else kernel's text after a
 * '/') on device; energy and power left out when power is 0. */
static void row(FILE *f, const char *dev, const char *kernel, int n, int a, int b,
                const char *c, double t, double power)
{
    const char *slash = strchr(kernel, '/');
    int len = slash ? (int)(slash - kernel) : (int)strlen(kernel);
    fprintf(f, "\"2026-11-24T00:00:00.000Z\",\"%s\",\"%.*s\",\"%s\",\"N=%d\","
            "\"A=%d,B=%d,C=%s\",\"ok\",%.9g,%.9g,0,0,", dev, len, kernel,
            slash ? slash + 1 : "h", n, a, b, c, t, t);
    if (power > 0)
        fprintf(f, "%.9g,%.9g,", t * power / 1e3, power);
    else
        fprintf(f, ",,");
    fprintf(f, "0,10,\"\"\n");
}

/* Kernel "syn": time = N/100 (1 + 2 |log2 A - 2|) (1 + B/10), 2% more at
 * C=y; power = 100 + 20 B.  Kernel "few" has 6 rows, "noenergy" none,
 * "twodev" rows of two devices, and "twins" 64 configurations whose times
 * no parameter explains, each stored twice (two source hashes). */
static ktune_db *synthetic(void)
{
    const char *csv = kt_test_tmp("syn.csv");
    FILE *f = fopen(csv, "w");
    CHECK(f != NULL);
    fputs(HEADER, f);
    static const char *const C[] = {"x", "y"};
    for (int n = 100; n <= 200; n += 100)
        for (int a = 1; a <= 8; a *= 2)
            for (int b = 1; b <= 4; b++)
                for (int c = 0; c < 2; c++) {
                    double t = n / 100.0 * (1 + 2 * fabs(log2(a) - 2)) * (1 + b / 10.0) *
                               (c ? 1.02 : 1);
                    row(f, "dev", "syn", n, a, b, C[c], t, 100 + 20 * b);
                    row(f, "dev", "noenergy", n, a, b, C[c], t, 0);
                    row(f, c ? "dev2" : "dev", "twodev", n, a, b, C[c], t, 0);
                }
    for (int b = 1; b <= 6; b++)
        row(f, "dev", "few", 100, 1, b, "x", b, 0);
    for (int a = 1; a <= 8; a++)
        for (int b = 1; b <= 8; b++)
            for (int v = 0; v < 2; v++)
                row(f, "dev", v ? "twins/h2" : "twins/h1", 100, a, b, "x",
                    1 + (a * 7919 + b * 104729) % 97 / 10.0, 0);
    fclose(f);
    ktune_db *db = NULL;
    ktune_diag d = {{0}};
    CHECK(ktune_db_open(kt_test_tmp("syn.db"), KTUNE_DB_CREATE, &db, &d) == KTUNE_OK);
    CHECK(ktune_db_import(db, KTUNE_IMPORT_CSV, csv, NULL, NULL, &d) == KTUNE_OK);
    return db;
}

static void opts(ktune_analyze_opts *o, const char *kernel)
{
    ktune_analyze_opts_init(o);
    o->kernel = kernel;
    o->rounds = 60; /* quick under the sanitizers, enough for 64 rows */
}

static const char *top(const ktune_analysis *a, ktune_target t)
{
    ktune_importance imp[8];
    size_t n = ktune_analysis_importance(a, t, imp, 8);
    return n ? ktune_analysis_feature(a, imp[0].feature) : "";
}

static void test_models_rank_what_decides(void)
{
    ktune_db *db = synthetic();
    ktune_analyze_opts o;
    opts(&o, "syn");
    ktune_analysis *a = NULL;
    ktune_diag d = {{0}};
    CHECK(ktune_analyze(db, &o, &a, &d) == KTUNE_OK);
    ktune_analysis_info in;
    ktune_analysis_describe(a, &in);
    CHECK_EQ_INT(in.rows, 64);
    CHECK_EQ_INT(in.problems, 2);
    CHECK_EQ_INT(in.features, 4); /* A, B, C and the problem's N */
    CHECK_EQ_INT(in.tuning, 3);
    CHECK_STR(ktune_analysis_feature(a, 3), "N");
    CHECK(ktune_analysis_feature(a, 4) == NULL);
    CHECK_EQ_INT(in.targets, 7); /* time, energy and power: all present */
    ktune_fit fit;
    CHECK(ktune_analysis_fit(a, KTUNE_TARGET_TIME, &fit) == KTUNE_OK);
    CHECK(fit.rows == 64 && fit.r2 > 0.8 && fit.spearman > 0.8 && fit.mape < 30);
    CHECK(ktune_analysis_fit(a, KTUNE_TARGET_ENERGY, &fit) == KTUNE_OK && fit.r2 > 0.7);
    CHECK_STR(top(a, KTUNE_TARGET_TIME), "A");
    CHECK_STR(top(a, KTUNE_TARGET_POWER), "B");
    ktune_interaction in6[8];
    CHECK_EQ_INT(ktune_analysis_interactions(a, KTUNE_TARGET_TIME, in6, 8), 6);
    CHECK(in6[0].a < in6[0].b && in6[0].mean_abs >= in6[5].mean_abs);
    ktune_dependence pd[8];
    size_t A = 0;
    CHECK_EQ_INT(ktune_analysis_dependence(a, KTUNE_TARGET_TIME, A, pd, 8), 4);
    CHECK_STR(pd[2].value, "4"); /* the best value predicts the least time */
    CHECK(pd[2].mean < pd[0].mean && pd[2].mean < pd[3].mean);
    ktune_analysis_free(a);
    ktune_db_close(db);
}

/* Fixing A at 1 or 8 makes the best time 5x; B at 4 1.27x; C at y 1.02x:
 * the ablation agrees with the importance. */
static void test_ablation_agrees_with_importance(void)
{
    ktune_db *db = synthetic();
    ktune_analyze_opts o;
    opts(&o, "syn");
    o.problem = "N=100";
    ktune_analysis *a = NULL;
    CHECK(ktune_analyze(db, &o, &a, NULL) == KTUNE_OK);
    ktune_ablation ab[4];
    bool agrees = false;
    CHECK_EQ_INT(ktune_analysis_ablation(a, ab, 4, &agrees), 3);
    CHECK(agrees);
    CHECK_STR(ktune_analysis_feature(a, ab[0].feature), "A");
    CHECK_NEAR(ab[0].cost, 5, 1e-9);
    CHECK(strcmp(ab[0].worst, "1") == 0 || strcmp(ab[0].worst, "8") == 0);
    for (int i = 1; i < 3; i++) {
        const char *name = ktune_analysis_feature(a, ab[i].feature);
        CHECK_NEAR(ab[i].cost, strcmp(name, "B") == 0 ? 1.4 / 1.1 : 1.02, 1e-9);
    }
    ktune_analysis_free(a);
    ktune_db_close(db);
}

/* The rows' repetitions do not spread (noise 0); a reading noise b adds
 * b to each time's in quadrature, so a cost's difference from the first's
 * has sd b sqrt(2): at 5% the check still agrees, at 50% A's 5x and B's
 * 1.27x (1.37 apart in the log) fall within twice 0.71, a tie.  And the
 * analysis says what it was given. */
static void test_reading_noise_widens_the_tie(void)
{
    ktune_db *db = synthetic();
    ktune_analyze_opts o;
    opts(&o, "syn");
    o.problem = "N=100";
    o.targets = 1u << KTUNE_TARGET_TIME;
    o.top = 0;
    static const double B[] = {0.05, 0.5};
    for (int k = 0; k < 2; k++) {
        o.reading_noise = B[k];
        ktune_analysis *a = NULL;
        CHECK(ktune_analyze(db, &o, &a, NULL) == KTUNE_OK);
        ktune_ablation ab[4];
        CHECK_EQ_INT(ktune_analysis_ablation(a, ab, 4, NULL), 3);
        for (int i = 1; i < 3; i++)
            CHECK_NEAR(ab[i].sd, B[k] * sqrt(2), 1e-9);
        CHECK_EQ_INT(ktune_analysis_check(a), k ? KTUNE_CHECK_TIE : KTUNE_CHECK_AGREE);
        ktune_analysis_info in;
        ktune_analysis_describe(a, &in);
        CHECK_NEAR(in.reading_noise, B[k], 0);
        ktune_analysis_free(a);
    }
    ktune_db_close(db);
}

/* The time model of syn with opts' settings and fold seed seed, repeated
 * repeats times; the fit, and the top feature's predicted cost. */
static ktune_fit repeated(ktune_db *db, uint64_t seed, unsigned repeats, double *cost)
{
    ktune_analyze_opts o;
    opts(&o, "syn");
    o.targets = 1u << KTUNE_TARGET_TIME;
    o.top = 0;
    o.seed = seed;
    o.repeats = repeats;
    ktune_analysis *a = NULL;
    ktune_fit fit = {0};
    CHECK(ktune_analyze(db, &o, &a, NULL) == KTUNE_OK);
    CHECK(ktune_analysis_fit(a, KTUNE_TARGET_TIME, &fit) == KTUNE_OK);
    ktune_importance imp[4];
    CHECK(ktune_analysis_importance(a, KTUNE_TARGET_TIME, imp, 4) > 0);
    *cost = imp[0].cost;
    ktune_analysis_info in;
    ktune_analysis_describe(a, &in);
    CHECK_EQ_INT(in.repeats, repeats);
    ktune_analysis_free(a);
    return fit;
}

/* Three cross-validations give the means of the three with fold seeds 7,
 * 8 and 9 and the standard deviation of their R-squared; the ranking is
 * the first's, as without repeats. */
static void test_repeats_average_over_folds(void)
{
    ktune_db *db = synthetic();
    double cost[4], r2[3], mean = 0, ss = 0;
    ktune_fit one[3];
    for (int k = 0; k < 3; k++) {
        one[k] = repeated(db, 7 + (uint64_t)k, 1, &cost[k]);
        r2[k] = one[k].r2;
        mean += r2[k] / 3;
        CHECK_NEAR(one[k].r2_sd, 0, 0);
    }
    for (int k = 0; k < 3; k++)
        ss += (r2[k] - mean) * (r2[k] - mean);
    ktune_fit three = repeated(db, 7, 3, &cost[3]);
    CHECK_NEAR(three.r2, mean, 1e-9);
    CHECK_NEAR(three.r2_sd, sqrt(ss / 2), 1e-9);
    CHECK(r2[0] != r2[1] || r2[1] != r2[2]); /* the folds differ */
    CHECK_NEAR(three.mape, (one[0].mape + one[1].mape + one[2].mape) / 3, 1e-9);
    CHECK_EQ_INT(three.rows, 64);
    CHECK_NEAR(cost[3], cost[0], 0);
    ktune_db_close(db);
}

/* On the H100 FP16 wgmma GEMM (its whole space, bench/gpu/data) the
 * ablation costs BN 1.371x, STAGES 1.328x: the ranking by each value's
 * mean contribution over every row put STAGES first; the held-out
 * predictions put BN first, as the ablation does, but the 3 % between
 * them is within the noise of those rows' repetitions: a tie. */
static void test_ranking_on_the_h100_gemm_ties_within_noise(void)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'",
             kt_test_path("bench/gpu/data/gemm-energy-h100.db"), kt_test_tmp("h100.db"));
    CHECK(system(cmd) == 0); /* a copy: opening may write WAL files beside it */
    ktune_db *db = NULL;
    CHECK(ktune_db_open(kt_test_tmp("h100.db"), 0, &db, NULL) == KTUNE_OK);
    ktune_analyze_opts o;
    ktune_analyze_opts_init(&o);
    o.kernel = "gemm-wgmma-f16-cuda";
    o.targets = 1u << KTUNE_TARGET_TIME;
    o.top = 0;
    ktune_analysis *a = NULL;
    CHECK(ktune_analyze(db, &o, &a, NULL) == KTUNE_OK);
    ktune_ablation ab[8];
    bool agrees = false;
    CHECK_EQ_INT(ktune_analysis_ablation(a, ab, 8, &agrees), 6);
    CHECK_STR(ktune_analysis_feature(a, ab[0].feature), "BN");
    CHECK_NEAR(ab[0].cost, 1.371, 1e-3);
    CHECK(!agrees && ktune_analysis_check(a) == KTUNE_CHECK_TIE);
    for (int i = 1; i < 6; i++)
        CHECK(ab[i].cost <= ab[0].cost && ab[i].sd > 0.01 && ab[i].sd < 0.1);
    ktune_fit fit; /* a sanity check: 0.90 unweighted, 0.897 as chosen since
                      2026-11-28, where the inner choice of 97 rows is noisy */
    CHECK(ktune_analysis_fit(a, KTUNE_TARGET_TIME, &fit) == KTUNE_OK && fit.r2 > 0.85);
    ktune_analysis_free(a);
    ktune_db_close(db);
}

/* Rows that are one configuration at one problem (the kernel measured
 * again after its source changed) fall in one fold: a held-out row's twin
 * in the training part would let the model recall its time, and times
 * that no parameter explains would read as well predicted. */
static void test_twins_share_a_fold(void)
{
    ktune_db *db = synthetic();
    ktune_analyze_opts o;
    opts(&o, "twins");
    o.targets = 1u << KTUNE_TARGET_TIME;
    ktune_analysis *a = NULL;
    ktune_diag d = {{0}};
    CHECK(ktune_analyze(db, &o, &a, &d) == KTUNE_OK);
    ktune_fit fit;
    CHECK(ktune_analysis_fit(a, KTUNE_TARGET_TIME, &fit) == KTUNE_OK);
    CHECK_EQ_INT(fit.rows, 128);
    CHECK(fit.r2 < 0.3 && fit.spearman < 0.5); /* twins apart: 0.67 and 0.80 */
    ktune_analysis_free(a);
    ktune_db_close(db);
}

static bool one_line(const ktune_diag *d) { return d->msg[0] && !strchr(d->msg, '\n'); }

static void expect(ktune_db *db, const ktune_analyze_opts *o, int code, const char *text)
{
    ktune_analysis *a = (ktune_analysis *)1;
    ktune_diag d = {{0}};
    CHECK_EQ_INT(ktune_analyze(db, o, &a, &d), code);
    CHECK(a == NULL && one_line(&d));
    if (!strstr(d.msg, text))
        printf("diag: %s\n", d.msg);
    CHECK(strstr(d.msg, text) != NULL);
}

static void test_bad_input_is_one_line(void)
{
    ktune_db *db = synthetic();
    ktune_analyze_opts o;
    opts(&o, "nosuch");
    expect(db, &o, KTUNE_ENOTFOUND, "no ok measurement of kernel 'nosuch'");
    opts(&o, "few");
    expect(db, &o, KTUNE_EINVAL, "has 6 ok configurations");
    opts(&o, "noenergy");
    o.targets = 1u << KTUNE_TARGET_ENERGY;
    expect(db, &o, KTUNE_ENOTFOUND, "0 of 64 rows have a reading of energy");
    opts(&o, "twodev");
    expect(db, &o, KTUNE_EINVAL, "several devices");
    o.device = "dev2";
    o.folds = 1;
    expect(db, &o, KTUNE_EINVAL, "1 folds");
    o.folds = 5;
    o.size = 8;
    expect(db, &o, KTUNE_EINVAL, "ktune_analyze_opts_init");
    o.size = sizeof o;
    expect(NULL, &o, KTUNE_EINVAL, "db is NULL");
    o.reading_noise = 0.6;
    expect(db, &o, KTUNE_EINVAL, "reading_noise 0.6; 0 to 0.5");
    o.reading_noise = NAN;
    expect(db, &o, KTUNE_EINVAL, "reading_noise");
    o.reading_noise = 0;
    o.repeats = 0;
    expect(db, &o, KTUNE_EINVAL, "0 repeats; 1 to 20");
    o.repeats = 21;
    expect(db, &o, KTUNE_EINVAL, "21 repeats; 1 to 20");
    o.repeats = 1;
    /* without energy asked for, the kernel is analysed on time alone */
    opts(&o, "noenergy");
    ktune_analysis *a = NULL;
    CHECK(ktune_analyze(db, &o, &a, NULL) == KTUNE_OK);
    ktune_analysis_info in;
    ktune_analysis_describe(a, &in);
    ktune_fit fit;
    CHECK(in.targets == 1 && ktune_analysis_fit(a, KTUNE_TARGET_ENERGY, &fit) ==
                                 KTUNE_ENOTFOUND);
    ktune_analysis_free(a);
    ktune_analysis_free(NULL);
    ktune_db_close(db);
}

static void test_target_names(void)
{
    ktune_target t;
    CHECK(ktune_target_parse("energy", &t) == KTUNE_OK && t == KTUNE_TARGET_ENERGY);
    CHECK(ktune_target_parse("joules", &t) == KTUNE_ENOTFOUND);
    CHECK_STR(ktune_target_name(KTUNE_TARGET_POWER), "power");
    CHECK_STR(ktune_target_name(KTUNE_TARGET_COUNT), "unknown");
}

/* TreeSHAP's contributions of a row sum to the booster's prediction, and
 * its interaction values to the contributions. */
static void test_shap_sums_to_prediction(void)
{
    enum { N = 40, NF = 2 };
    float x[N * NF], y[N], p[N], c[N * (NF + 1)], in[N * (NF + 1) * (NF + 1)];
    for (int i = 0; i < N; i++) {
        x[i * NF] = (float)(i % 5);
        x[i * NF + 1] = (float)(i / 5);
        y[i] = x[i * NF] * x[i * NF + 1] + 3 * x[i * NF];
    }
    const char *params[] = {"objective", "reg:squarederror", "max_depth", "3", NULL};
    kt_xgb_data data = {.x = x, .y = y, .n = N, .nf = NF};
    kt_xgb_opts xo = {.params = params, .rounds = 20};
    kt_xgb *b = NULL;
    kt_diag d = {{0}};
    CHECK(kt_xgb_train(&data, &xo, &b, &d) == KT_OK);
    CHECK(kt_xgb_predict(b, x, N, NF, p, N, &d) == KT_OK);
    CHECK(kt_xgb_shap(b, x, N, NF, false, c, N * (NF + 1), &d) == KT_OK);
    CHECK(kt_xgb_shap(b, x, N, NF, true, in, N * (NF + 1) * (NF + 1), &d) == KT_OK);
    for (int i = 0; i < N; i++) {
        float *ci = c + i * (NF + 1), *ii = in + i * (NF + 1) * (NF + 1);
        CHECK_NEAR(ci[0] + ci[1] + ci[2], p[i], 1e-3);
        CHECK_NEAR(ii[0] + ii[1], ci[0], 1e-3); /* row 0 of the matrix: feature 0 */
    }
    CHECK(kt_xgb_shap(b, x, N, NF, false, c, 7, &d) == KT_EFORMAT); /* wrong size */
    kt_xgb_free(b);
}

static const kt_test TESTS[] = {
    KT_T(test_models_rank_what_decides), KT_T(test_ablation_agrees_with_importance),
    KT_T(test_reading_noise_widens_the_tie), KT_T(test_repeats_average_over_folds),
    KT_T(test_bad_input_is_one_line),    KT_T(test_target_names),
    KT_T(test_shap_sums_to_prediction),
    KT_T(test_ranking_on_the_h100_gemm_ties_within_noise),
    KT_T(test_twins_share_a_fold),
};

KT_TEST_MAIN(TESTS)
