/* test_siblings.c - the default method may learn from a cell's siblings (the
 * kernel's problems with other values of the --where fields; src/ml/siblings.c,
 * src/ml/choose.c): where the siblings hold what the cell lacks, a pooled
 * candidate is chosen; the cell's held-out problems are exactly those of a
 * run without pooling, no sibling's held-out problem is trained on, and
 * the model file says which candidates pooled. */
#include <ktune.h>

#include "ml/model_impl.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>

/* Cell T=a has 16 problems, N = 5, 13, ..., 125; its sibling T=b has
 * N = 1..128.  The best of four configurations is (N / 8) mod 4, so each
 * of a's problems lies in a block of N none of its others share, and only
 * b's problems tell a block's best: a cell alone cannot learn it. */
static ktune_db *twin_db(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fputs("created,device,kernel,source_hash,problem,config,status,time_ms,min_ms,spread,"
          "compile_ms,energy_j,power_w,sm_clock_mhz,reps,detail\n", f);
    for (int t = 0; t < 2; t++)
        for (int i = t ? 1 : 5; i <= 128; i += t ? 1 : 8)
            for (int c = 0; c < 4; c++) {
                double ms = c == i / 8 % 4 ? 1.0 : 1.6;
                fprintf(f, "\"2026-01-01T00:00:00.000Z\",\"cpu0\",\"twin\",\"h\","
                        "\"T=%c,N=%d\",\"A=%d,B=%d\",\"ok\",%g,%g,0,0,,,,3,\"\"\n",
                        "ab"[t], i, c % 2 + 1, c / 2 * 4 + 4, ms, ms);
            }
    fclose(f);
    const char *csv = kt_test_write("twin.csv", text);
    free(text);
    ktune_db *db;
    ktune_diag d = {{0}};
    CHECK(ktune_db_open(kt_test_tmp("twin.db"), KTUNE_DB_CREATE, &db, &d) == KTUNE_OK);
    ktune_import_stats st;
    CHECK(ktune_db_import(db, KTUNE_IMPORT_CSV, csv, NULL, &st, &d) == KTUNE_OK);
    CHECK_EQ_INT(st.added, 4 * (16 + 128));
    return db;
}

static ktune_model *trained(ktune_db *db, const char *method, const char *where)
{
    ktune_diag d = {{0}};
    ktune_train_opts o;
    ktune_train_opts_init(&o);
    o.method = method;
    o.where = where;
    o.seed = 4;
    o.hidden = 8;
    o.epochs = 30;
    ktune_model *m = NULL;
    CHECK(ktune_model_train(db, "twin", &o, &m, &d) == KTUNE_OK);
    return m;
}

/* Whether problem key p is among m's training (or held-out) samples. */
static bool holds(const samples *s, const char *p)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->problem[i], p) == 0)
            return true;
    return false;
}

static void test_a_cell_learns_from_its_sibling_without_leaking(void)
{
    ktune_db *db = twin_db();
    ktune_model *m = trained(db, NULL, "T=a"), *own = trained(db, "knn", "T=a"),
                *sib = trained(db, "knn", "T=b");
    ktune_model_candidate c;
    const char *names[] = {"knn",     "xgboost", "encdec", "ensemble", "mix",
                           "xgboost", "encdec",  "ensemble", "mix"};
    size_t i = 0, chosen = 0;
    for (; ktune_model_candidate_at(m, i, &c) == KTUNE_OK; i++) {
        CHECK(i < 9);
        CHECK_STR(c.method, names[i < 9 ? i : 0]);
        CHECK(c.pooled == (i >= 5)); /* knn cannot pool */
        chosen = c.chosen ? i : chosen;
    }
    CHECK_EQ_INT(i, 9);
    CHECK(chosen >= 5); /* only the sibling knows the held-out N */
    CHECK(ktune_model_candidate_at(m, chosen, &c) == KTUNE_OK && c.top1 == 100);
    /* the held-out problems are the cell's own run's, in its order */
    CHECK_EQ_INT(m->test.n, own->test.n);
    for (size_t k = 0; k < m->test.n && k < own->test.n; k++)
        CHECK_STR(m->test.problem[k], own->test.problem[k]);
    /* trained on both cells' training parts, nothing either holds out */
    CHECK_EQ_INT(m->train.n, own->train.n + sib->train.n);
    for (size_t k = 0; k < sib->test.n; k++)
        CHECK(!holds(&m->train, sib->test.problem[k]));
    for (size_t k = 0; k < own->test.n; k++)
        CHECK(!holds(&m->train, own->test.problem[k]));
    CHECK_STR(m->where, "T=a");
    ktune_model_free(m);
    ktune_model_free(own);
    ktune_model_free(sib);
    ktune_db_close(db);
}

static void test_the_pooled_choice_survives_the_model_file(void)
{
    ktune_db *db = twin_db();
    ktune_model *m = trained(db, "auto", "T=a"), *back;
    ktune_diag d = {{0}};
    CHECK(ktune_model_save(m, kt_test_tmp("p.ktm"), &d) == KTUNE_OK);
    CHECK(ktune_model_load(kt_test_tmp("p.ktm"), &back, &d) == KTUNE_OK);
    ktune_model_candidate a, b;
    size_t i = 0, nchosen = 0;
    for (; ktune_model_candidate_at(m, i, &a) == KTUNE_OK; i++) {
        CHECK(ktune_model_candidate_at(back, i, &b) == KTUNE_OK);
        CHECK_STR(b.method, a.method);
        CHECK(a.pooled == b.pooled && a.chosen == b.chosen && a.top1 == b.top1);
        nchosen += b.chosen;
    }
    CHECK(i == 9 && nchosen == 1);
    ktune_model_free(m);
    ktune_model_free(back);
    ktune_db_close(db);
}

static void test_no_sibling_no_pooled_candidate(void)
{
    ktune_db *db = twin_db();
    ktune_model *m = trained(db, NULL, NULL); /* every problem: no sibling */
    ktune_model_candidate c;
    size_t i = 0;
    for (; ktune_model_candidate_at(m, i, &c) == KTUNE_OK; i++)
        CHECK(!c.pooled);
    CHECK_EQ_INT(i, 5);
    ktune_model_free(m);
    ktune_db_close(db);
}

static const kt_test TESTS[] = {
    KT_T(test_a_cell_learns_from_its_sibling_without_leaking),
    KT_T(test_the_pooled_choice_survives_the_model_file),
    KT_T(test_no_sibling_no_pooled_candidate),
};
KT_TEST_MAIN(TESTS)
