/* test_choose.c - training without a method chooses one by validation on
 * the training part (src/ml/choose.c), through <ktune.h> alone: on data
 * built so that one candidate must win, it is chosen, the same seed gives
 * the same model file, the saved model says what was chosen and how every
 * candidate scored, and bad input is a one-line error. */
#include <ktune.h>

#include "test.h"

#include <stdio.h>
#include <stdlib.h>

static bool one_line(const ktune_diag *d) { return d->msg[0] && !strchr(d->msg, '\n'); }

/* The bytes of a test file (caller frees); NULL if unreadable. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *data = NULL;
    *len = 0;
    if (f && fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        rewind(f);
        data = n >= 0 ? malloc((size_t)n + 1) : NULL;
        *len = data ? fread(data, 1, (size_t)n, f) : 0;
    }
    if (f)
        fclose(f);
    return data;
}

/* n problems of kernel "pick" with fields N = 1..n and two fields of noise
 * P, Q spread as widely; the best A is 1 up to N = n/2, else 2, the best
 * B is 4 up to N = 3n/4, else 8 (the other configurations are slower).  A
 * threshold on one field is one split for xgboost, while k-NN's distance
 * is two thirds noise, so xgboost must beat knn. */
static ktune_db *pick_db(int n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fputs("created,device,kernel,source_hash,problem,config,status,time_ms,min_ms,spread,"
          "compile_ms,energy_j,power_w,sm_clock_mhz,reps,detail\n", f);
    for (int i = 1; i <= n; i++)
        for (int a = 1; a <= 2; a++)
            for (int b = 4; b <= 8; b += 4) {
                bool best = (a == 1) == (i <= n / 2) && (b == 4) == (i <= 3 * n / 4);
                fprintf(f, "\"2026-01-01T00:00:00.000Z\",\"cpu0\",\"pick\",\"h\","
                        "\"N=%d,P=%d,Q=%d\",\"A=%d,B=%d\",\"ok\",%g,%g,0,0,,,,3,\"\"\n", i,
                        1 + i * 7919 % 101 * 10, 1 + i * 104729 % 97 * 10, a, b,
                        best ? 1.0 : 1.6, best ? 1.0 : 1.6);
            }
    fclose(f);
    const char *csv = kt_test_write("pick.csv", text);
    free(text);
    ktune_db *db;
    ktune_diag d = {{0}};
    CHECK(ktune_db_open(kt_test_tmp("pick.db"), KTUNE_DB_CREATE, &db, &d) == KTUNE_OK);
    ktune_import_stats st;
    CHECK(ktune_db_import(db, KTUNE_IMPORT_CSV, csv, NULL, &st, &d) == KTUNE_OK);
    CHECK_EQ_INT(st.added, 4 * n);
    return db;
}

/* Small sequence models and few boosting rounds: the test stays fast. */
static ktune_model *chosen(ktune_db *db, uint64_t seed)
{
    ktune_diag d = {{0}};
    ktune_train_opts o;
    ktune_train_opts_init(&o);
    CHECK(o.method == NULL); /* the default is to choose */
    o.seed = seed;
    o.hidden = 8;
    o.epochs = 30;
    ktune_model *m = NULL;
    CHECK(ktune_model_train(db, "pick", &o, &m, &d) == KTUNE_OK);
    return m;
}

static void test_the_method_that_must_win_is_chosen(void)
{
    ktune_db *db = pick_db(120);
    ktune_model *m = chosen(db, 1);
    ktune_model_info info;
    CHECK(ktune_model_describe(m, &info) == KTUNE_OK);
    CHECK_STR(info.method, "xgboost");
    CHECK(info.ntrain == 96 && info.ntest == 24);
    CHECK_EQ_INT(info.nvalidation, 24); /* a quarter of a small training part */
    ktune_model_candidate c[5];
    const char *names[] = {"knn", "xgboost", "encdec", "ensemble", "mix"};
    for (size_t i = 0; i < 5; i++) {
        CHECK(ktune_model_candidate_at(m, i, &c[i]) == KTUNE_OK);
        CHECK_STR(c[i].method, names[i]);
        CHECK(c[i].chosen == (i == 1));
        CHECK(c[i].top1 <= c[i].top10);
    }
    for (size_t i = 0; i < 5; i++) { /* the highest log-probability is chosen */
        CHECK(c[i].top1 + c[i].top10 <= c[1].top1 + c[1].top10);
        CHECK(c[i].loglik <= 0 && c[i].loglik <= c[1].loglik);
    }
    CHECK(c[0].loglik < c[1].loglik);
    CHECK(ktune_model_candidate_at(m, 5, &c[0]) == KTUNE_ENOTFOUND);
    CHECK_NEAR(c[1].top1, 100, 1e-9);
    CHECK(c[0].top1 < 90); /* knn is fooled by the noise */
    ktune_model_free(m);
    ktune_db_close(db);
}

static void test_the_choice_is_saved_and_deterministic(void)
{
    ktune_db *db = pick_db(120);
    ktune_model *a = chosen(db, 2), *b = chosen(db, 2), *back;
    ktune_diag d = {{0}};
    CHECK(ktune_model_save(a, kt_test_tmp("a.ktm"), &d) == KTUNE_OK);
    CHECK(ktune_model_save(b, kt_test_tmp("b.ktm"), &d) == KTUNE_OK);
    size_t la, lb;
    char *fa = slurp(kt_test_tmp("a.ktm"), &la), *fb = slurp(kt_test_tmp("b.ktm"), &lb);
    CHECK(fa && fb && la > 0 && la == lb && memcmp(fa, fb, la) == 0);
    free(fa);
    free(fb);
    CHECK(ktune_model_load(kt_test_tmp("a.ktm"), &back, &d) == KTUNE_OK);
    ktune_model_info ia, ib;
    ktune_model_describe(a, &ia);
    ktune_model_describe(back, &ib);
    CHECK_STR(ib.method, ia.method);
    CHECK_EQ_INT(ib.nvalidation, ia.nvalidation);
    ktune_model_candidate ca, cb;
    for (size_t i = 0; ktune_model_candidate_at(a, i, &ca) == KTUNE_OK; i++) {
        CHECK(ktune_model_candidate_at(back, i, &cb) == KTUNE_OK);
        CHECK_STR(cb.method, ca.method);
        CHECK(cb.top1 == ca.top1 && cb.top10 == ca.top10 && cb.chosen == ca.chosen);
        CHECK(cb.loglik == ca.loglik);
    }
    ktune_model_free(a);
    ktune_model_free(b);
    ktune_model_free(back);
    ktune_db_close(db);
}

static void test_bad_input_fails_and_a_given_method_has_no_candidates(void)
{
    ktune_db *db = pick_db(4);
    ktune_diag d = {{0}};
    ktune_train_opts o;
    ktune_train_opts_init(&o);
    ktune_model *m = (ktune_model *)1;
    o.method = "auto";
    o.holdout = 1.5;
    CHECK(ktune_model_train(db, "pick", &o, &m, &d) == KTUNE_EINVAL && one_line(&d));
    CHECK(m == NULL && strstr(d.msg, "--holdout must be at least 0 and below 1"));
    o.method = "nosuch";
    CHECK(ktune_model_train(db, "pick", &o, &m, &d) == KTUNE_EINVAL && one_line(&d));
    CHECK(strstr(d.msg, "unknown method 'nosuch' (available: auto, knn, "));
    const char *given[] = {"knn", NULL}; /* NULL: 3 samples are too few to validate */
    for (size_t i = 0; i < 2; i++) {
        o.method = given[i];
        o.holdout = 0.25;
        CHECK(ktune_model_train(db, "pick", &o, &m, &d) == KTUNE_OK);
        ktune_model_info info;
        ktune_model_candidate c;
        CHECK(ktune_model_describe(m, &info) == KTUNE_OK && info.nvalidation == 0);
        CHECK_STR(info.method, "knn");
        CHECK(ktune_model_candidate_at(m, 0, &c) == KTUNE_ENOTFOUND);
        CHECK(ktune_model_candidate_at(NULL, 0, &c) == KTUNE_EINVAL);
        ktune_model_free(m);
    }
    ktune_db_close(db);
}

static const kt_test TESTS[] = {
    KT_T(test_the_method_that_must_win_is_chosen),
    KT_T(test_the_choice_is_saved_and_deterministic),
    KT_T(test_bad_input_fails_and_a_given_method_has_no_candidates),
};
KT_TEST_MAIN(TESTS)
