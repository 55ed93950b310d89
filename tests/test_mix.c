/* test_mix.c - models averaged (src/ml/avg.c): "mix" (mix.c) scores every
 * token after every prefix as the average of the probabilities of xgboost
 * and encdec trained alone on the same data with the same seed; a bag
 * (bag.c) as the average of its method's models of two seeds on the same
 * samples; saved, both score exactly as trained. */
#include "core/util.h"
#include "ml/model_impl.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 120 problems N = 1..120, A = 1 + N mod 3 and B = 1 + (N / 2) mod 2 best. */
static kt_dataset *mix_dataset(void)
{
    kt_db *db;
    kt_diag d = {{0}};
    CHECK(kt_db_open(kt_test_tmp("mix.db"), &db, &d) == KT_OK);
    kt_device_info dev = {.name = "x", .backend = "cpu", .fingerprint = "fp"};
    int64_t dv, k, pr;
    CHECK(kt_db_device(db, &dev, &dv, &d) == KT_OK);
    CHECK(kt_db_kernel(db, "mix", "h", &k, &d) == KT_OK);
    kt_result ok = {.status = KT_STATUS_OK, .time_ms = 1, .energy_j = NAN, .power_w = NAN};
    for (int n = 1; n <= 120; n++) {
        char key[32], cfg[32];
        snprintf(key, sizeof key, "N=%d", n);
        snprintf(cfg, sizeof cfg, "A=%d,B=%d", 1 + n % 3, 1 + n / 2 % 2);
        CHECK(kt_db_problem(db, k, key, &pr, &d) == KT_OK);
        CHECK(kt_db_record(db, dv, k, pr, cfg, &ok, &d) == KT_OK);
    }
    kt_dataset *ds;
    CHECK(kt_dataset_load(db, "mix", NULL, &ds, &d) == KT_OK);
    kt_db_close(db);
    return ds;
}

static kt_model *trained(const kt_dataset *ds, const char *method)
{
    kt_train_opts o = {.method = method, .holdout = 0.25, .seed = 3, .hidden = 8,
                       .epochs = 20};
    kt_model *m = NULL;
    kt_diag d = {{0}};
    CHECK(kt_model_train(ds, &o, &m, &d) == KT_OK);
    return m;
}

/* The scores of m at positions 0 and 1 for N=7 after the prefixes A=1, A=2
 * and A=3 (out: 3 x V per position, V the position's vocabulary, 4 or 3). */
static void scores(const kt_model *m, double out[2][12])
{
    kt_query *q;
    kt_diag d = {{0}};
    CHECK(kt_query_new(m, "N=7", &q, &d) == KT_OK);
    uint16_t prefixes[3 * 2] = {1, 0, 2, 0, 3, 0};
    for (size_t pos = 0; pos < 2; pos++)
        CHECK(kt_query_scores(q, prefixes, 3, 2, pos, out[pos]) == KT_OK);
    kt_query_free(q);
}

/* Each score of a (3 prefixes x V per position) is the average of b's and
 * c's probabilities. */
static void check_average(const kt_model *m, double a[2][12], double b[2][12],
                          double c[2][12])
{
    kt_model_info info;
    kt_model_describe(m, &info);
    for (size_t pos = 0; pos < 2; pos++)
        for (size_t i = 0; i < 3 * info.out_vocab[pos].n; i++) {
            if (i % info.out_vocab[pos].n == 0) { /* token 0, unknown */
                CHECK(isinf(a[pos][i]) && a[pos][i] < 0);
                continue;
            }
            CHECK_NEAR(exp(a[pos][i]), 0.5 * exp(b[pos][i]) + 0.5 * exp(c[pos][i]), 1e-9);
        }
}

static void test_mix_averages_its_parts(void)
{
    kt_dataset *ds = mix_dataset();
    kt_model *x = trained(ds, "xgboost"), *e = trained(ds, "encdec"), *m = trained(ds, "mix");
    double sx[2][12], se[2][12], sm[2][12];
    scores(x, sx);
    scores(e, se);
    scores(m, sm);
    kt_model_info info;
    kt_model_describe(m, &info);
    CHECK(info.out_vocab[0].n == 4 && info.out_vocab[1].n == 3);
    check_average(m, sm, sx, se);
    kt_model_free(x);
    kt_model_free(e);
    kt_model_free(m);
    kt_dataset_free(ds);
}

static void test_a_saved_mix_scores_as_the_trained_one(void)
{
    kt_dataset *ds = mix_dataset();
    kt_model *m = trained(ds, "mix"), *back = NULL;
    kt_diag d = {{0}};
    CHECK(kt_model_save(m, kt_test_tmp("mix.ktm"), &d) == KT_OK);
    CHECK(kt_model_load(kt_test_tmp("mix.ktm"), &back, &d) == KT_OK);
    double a[2][12] = {{0}}, b[2][12] = {{0}};
    scores(m, a);
    scores(back, b);
    for (size_t pos = 0; pos < 2; pos++)
        for (size_t i = 0; i < 12; i++)
            CHECK(a[pos][i] == b[pos][i]);
    kt_model_info info;
    kt_model_describe(back, &info);
    CHECK_STR(info.method, "mix");
    kt_model_free(m);
    kt_model_free(back);
    kt_dataset_free(ds);
}

/* xgboost trained with seed 3 on the split of seed 3, then bagged; and the
 * same method trained with bag.c's second seed on the same samples. */
static void test_a_bag_averages_models_of_two_seeds(void)
{
    kt_dataset *ds = mix_dataset();
    kt_model *m = trained(ds, "xgboost"), *other = NULL, *back = NULL;
    kt_train_opts o = {.method = "xgboost", .holdout = 0.25, .seed = 3, .hidden = 8,
                       .epochs = 20};
    size_t *tr, *te, ntr, nte;
    kt_diag d = {{0}};
    CHECK(kt_dataset_split(ds, o.holdout, o.seed, NULL, &tr, &ntr, &te, &nte) == KT_OK);
    o.seed = 3 + 0x9e3779b97f4a7c15ULL; /* member 1's */
    CHECK(kt_model_train_on(ds, tr, ntr, te, nte, &o, &other, &d) == KT_OK);
    double one[2][12] = {{0}}, two[2][12] = {{0}}, bag[2][12] = {{0}}, again[2][12] = {{0}};
    scores(m, one);
    scores(other, two);
    CHECK(memcmp(one, two, sizeof one) != 0); /* the seed matters */
    o.seed = 3;
    CHECK(kt_model_bag(m, 2, &o) == KT_OK);
    scores(m, bag);
    check_average(m, bag, one, two);
    kt_model_info info;
    kt_model_describe(m, &info);
    CHECK_STR(info.method, "xgboost"); /* described as its members */
    CHECK(kt_model_save(m, kt_test_tmp("bag.ktm"), &d) == KT_OK);
    CHECK(kt_model_load(kt_test_tmp("bag.ktm"), &back, &d) == KT_OK);
    scores(back, again);
    CHECK(memcmp(bag, again, sizeof bag) == 0);
    free(tr);
    free(te);
    kt_model_free(m);
    kt_model_free(other);
    kt_model_free(back);
    kt_dataset_free(ds);
}

/* A method whose training ignores the seed gains nothing from a second
 * one: kt_model_bag refuses it and leaves the model as it was. */
static void test_an_unseeded_method_is_not_bagged(void)
{
    kt_dataset *ds = mix_dataset();
    kt_model *m = trained(ds, "knn");
    kt_train_opts o = {.method = "knn", .holdout = 0.25, .seed = 3};
    double before[2][12] = {{0}}, after[2][12] = {{0}};
    scores(m, before);
    CHECK(kt_model_bag(m, 2, &o) == KT_EINVAL);
    scores(m, after);
    CHECK(memcmp(before, after, sizeof before) == 0);
    kt_model_free(m);
    m = trained(ds, "xgboost");
    CHECK(kt_model_bag(m, 1, &o) == KT_EINVAL && kt_model_bag(m, KT_AVG_MAX + 1, &o) == KT_EINVAL);
    kt_model_free(m);
    kt_dataset_free(ds);
}

static const kt_test TESTS[] = {
    KT_T(test_a_bag_averages_models_of_two_seeds),
    KT_T(test_an_unseeded_method_is_not_bagged),
    KT_T(test_mix_averages_its_parts),
    KT_T(test_a_saved_mix_scores_as_the_trained_one),
};
KT_TEST_MAIN(TESTS)
