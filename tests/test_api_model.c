/* test_api_model.c - the public model API, through <ktune.h> alone: a k-NN
 * model trained on a database built from a CSV recording, saved and loaded,
 * its predictions (constrained by a spec, or not), its evaluation on the
 * problems it held out, and the errors of bad arguments and bad files. */
#include <ktune.h>

#include "test.h"

#include <math.h>
#include <stdio.h>

static bool one_line(const ktune_diag *d) { return d->msg[0] && !strchr(d->msg, '\n'); }

/* 40 problems N=1..40 of kernel "toy": the best A is 1
 * below N=20, else 2 (the other A is slower); B is always 4.  A CSV
 * recording as `ktune db export csv` writes it, imported. */
static ktune_db *toy_db(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fputs("created,device,kernel,source_hash,problem,config,status,time_ms,min_ms,spread,"
          "compile_ms,energy_j,power_w,sm_clock_mhz,reps,detail\n", f);
    for (int n = 1; n <= 40; n++)
        for (int a = 1; a <= 2; a++)
            fprintf(f, "\"2026-01-01T00:00:00.000Z\",\"cpu0\",\"toy\",\"h\","
                    "\"N=%d\",\"A=%d,B=4\",\"ok\",%g,%g,0,0,,,,3,\"\"\n", n, a, (a == 1) == (n < 20) ? 1.0 : 1.6,
                    (a == 1) == (n < 20) ? 1.0 : 1.6);
    fclose(f);
    const char *csv = kt_test_write("toy.csv", text);
    free(text);
    ktune_db *db;
    ktune_diag d = {{0}};
    CHECK(ktune_db_open(kt_test_tmp("toy.db"), KTUNE_DB_CREATE, &db, &d) == KTUNE_OK);
    ktune_import_stats st;
    CHECK(ktune_db_import(db, KTUNE_IMPORT_CSV, csv, NULL, &st, &d) == KTUNE_OK);
    CHECK_EQ_INT(st.added, 80);
    return db;
}

static ktune_model *toy_model(void)
{
    ktune_db *db = toy_db();
    ktune_diag d = {{0}};
    ktune_train_opts o;
    ktune_train_opts_init(&o);
    o.method = "knn";
    o.holdout = 0.25;
    o.seed = 3;
    o.k = 3;
    ktune_model *m;
    CHECK(ktune_model_train(db, "toy", &o, &m, &d) == KTUNE_OK);
    ktune_db_close(db);
    return m;
}

static void test_a_trained_model_round_trips_and_predicts(void)
{
    ktune_model *m = toy_model(), *back;
    ktune_diag d = {{0}};
    ktune_model_info info;
    CHECK(ktune_model_describe(m, &info) == KTUNE_OK);
    CHECK_STR(info.method, "knn");
    CHECK_STR(info.kernel, "toy");
    CHECK(info.ntrain == 30 && info.ntest == 10 && info.ninputs == 1 && info.noutputs == 2);
    CHECK_STR(ktune_model_output_name(m, 0), "A");
    CHECK(ktune_model_input_name(m, 2) == NULL);
    CHECK(ktune_model_save(m, kt_test_tmp("toy.ktm"), &d) == KTUNE_OK);
    CHECK(ktune_model_load(kt_test_tmp("toy.ktm"), &back, &d) == KTUNE_OK);
    ktune_predictions *p;
    CHECK(ktune_model_predict(back, "N=3", 4, NULL, &p, &d) == KTUNE_OK);
    CHECK_EQ_INT(ktune_predictions_count(p), 2); /* A in {1, 2}, B in {4} */
    CHECK_STR(ktune_predictions_config(p, 0), "A=1,B=4");
    CHECK(ktune_predictions_log_prob(p, 0) >= ktune_predictions_log_prob(p, 1));
    CHECK(ktune_predictions_config(p, 2) == NULL && isnan(ktune_predictions_log_prob(p, 2)));
    ktune_predictions_free(p);
    CHECK(ktune_model_predict(back, "N=36", 1, NULL, &p, &d) == KTUNE_OK);
    CHECK_STR(ktune_predictions_config(p, 0), "A=2,B=4");
    ktune_predictions_free(p);
    ktune_model_free(back);
    ktune_model_free(m);
}

/* A space where A must be 2 once N > 10: the constrained prediction obeys
 * it where the neighbours say otherwise. */
static void test_a_spec_constrains_the_predictions(void)
{
    ktune_model *m = toy_model();
    ktune_diag d = {{0}};
    const char *spec = kt_test_write(
        "toy.json",
        "{\"ConfigurationSpace\": {\"TuningParameters\": ["
        "{\"Name\": \"A\", \"Type\": \"int\", \"Values\": \"[1, 2]\"},"
        "{\"Name\": \"B\", \"Type\": \"int\", \"Values\": \"[4, 8]\"}],"
        " \"Conditions\": [{\"Parameters\": [\"A\"], \"Expression\": \"N <= 10 or A == 2\"}],"
        " \"ProblemParameters\": [{\"Name\": \"N\", \"Default\": 1}]},"
        " \"KernelSpecification\": {\"Language\": \"None\", \"KernelName\": \"toy\"}}");
    ktune_predictions *p;
    CHECK(ktune_model_predict(m, "N=15", 2, NULL, &p, &d) == KTUNE_OK);
    CHECK_STR(ktune_predictions_config(p, 0), "A=1,B=4");
    ktune_predictions_free(p);
    CHECK(ktune_model_predict(m, "N=15", 2, spec, &p, &d) == KTUNE_OK);
    CHECK_EQ_INT(ktune_predictions_count(p), 1);
    CHECK_STR(ktune_predictions_config(p, 0), "A=2,B=4");
    ktune_predictions_free(p);
    ktune_eval_opts o;
    ktune_eval_opts_init(&o);
    o.spec_path = spec;
    ktune_eval_report r;
    CHECK(ktune_model_evaluate(m, &o, &r, &d) == KTUNE_OK);
    CHECK(r.samples == 10 && r.kmax == 100 && fabs(r.valid - 100) < 1e-9);
    ktune_model_free(m);
}

static void test_evaluation_reports_the_papers_metrics(void)
{
    ktune_model *m = toy_model();
    ktune_diag d = {{0}};
    ktune_eval_opts o;
    ktune_eval_opts_init(&o);
    CHECK(o.nwidths == 5 && o.widths[4] == 100);
    o.widths[0] = 1;
    o.widths[1] = 2;
    o.nwidths = 2;
    o.unconstrained = true;
    ktune_eval_report r;
    CHECK(ktune_model_evaluate(m, &o, &r, &d) == KTUNE_OK);
    CHECK(r.samples == 10 && r.kmax == 2 && isnan(r.valid));
    /* B is always right, so a configuration is right when A is: the share
     * of right parameters is half-way between the perfect share and 100;
     * with two values of A, the true one is always among the top 2 */
    CHECK(r.perfect[0] >= 50 && fabs(r.avg_accuracy - (r.perfect[0] + 100) / 2) < 1e-9);
    CHECK(fabs(r.perfect[1] - 100) < 1e-9 && r.ms_per_query >= 0);
    o.unconstrained = false; /* and no spec */
    CHECK(ktune_model_evaluate(m, &o, &r, &d) == KTUNE_EINVAL && one_line(&d));
    o.size = 1;
    CHECK(ktune_model_evaluate(m, &o, &r, &d) == KTUNE_EINVAL);
    CHECK(strstr(d.msg, "ktune_eval_opts_init") != NULL);
    ktune_model_free(m);
}

/* The method table says what a method learns from. */
static void test_methods_and_training_errors(void)
{
    ktune_method_info mi;
    bool cost = false;
    for (size_t i = 0; ktune_method_at(i, &mi) == KTUNE_OK; i++)
        if (strcmp(mi.name, "cost") == 0)
            cost = mi.every_measurement;
        else
            CHECK(!mi.every_measurement);
    CHECK(cost);
    ktune_db *db = toy_db();
    ktune_diag d = {{0}};
    ktune_train_opts o;
    ktune_train_opts_init(&o);
    ktune_model *m = (ktune_model *)1;
    o.method = "cost";
    CHECK(ktune_model_train(db, "toy", &o, &m, &d) == KTUNE_EINVAL);
    CHECK(m == NULL && one_line(&d) && strstr(d.msg, "holdout 0"));
    o.method = "transformer";
    CHECK(ktune_model_train(db, "toy", &o, &m, &d) == KTUNE_EINVAL);
    CHECK(strstr(d.msg, "unknown method 'transformer'") != NULL);
    o.method = "knn";
    o.split_ignore = "bogus";
    CHECK(ktune_model_train(db, "toy", &o, &m, &d) == KTUNE_EINVAL);
    CHECK(strstr(d.msg, "'bogus' is not a field of toy's problems") != NULL);
    o.split_ignore = NULL;
    CHECK(ktune_model_train(db, "nope", &o, &m, &d) == KTUNE_ENOTFOUND && one_line(&d));
    CHECK(ktune_model_train(NULL, "toy", &o, &m, &d) == KTUNE_EINVAL);
    o.size = 0;
    CHECK(ktune_model_train(db, "toy", &o, &m, &d) == KTUNE_EINVAL);
    ktune_db_close(db);
}

static void test_bad_problems_and_files_are_refused(void)
{
    ktune_model *m = toy_model(), *none = (ktune_model *)1;
    ktune_diag d = {{0}};
    ktune_predictions *p = (ktune_predictions *)1;
    CHECK(ktune_model_predict(m, "N=3,K=7", 1, NULL, &p, &d) == KTUNE_EINVAL);
    CHECK(p == NULL && strstr(d.msg, "'K' is not a field of the model's problems (N)"));
    CHECK(ktune_model_predict(m, "N=3,N=4", 1, NULL, &p, &d) == KTUNE_EINVAL);
    CHECK(strstr(d.msg, "sets 'N' twice") != NULL);
    CHECK(ktune_model_predict(m, "N=3", 0, NULL, &p, &d) == KTUNE_EINVAL);
    CHECK(ktune_model_predict(m, "N=3", 1, kt_test_tmp("missing.json"), &p, &d) < 0);
    CHECK(p == NULL && one_line(&d));
    const char *junk = kt_test_write("junk.ktm", "KTUNEMDL but nothing after");
    CHECK(ktune_model_load(junk, &none, &d) == KTUNE_EFORMAT);
    CHECK(none == NULL && one_line(&d));
    CHECK(ktune_model_load(NULL, &none, &d) == KTUNE_EINVAL);
    CHECK(ktune_model_describe(NULL, NULL) == KTUNE_EINVAL);
    ktune_model_free(NULL);
    ktune_predictions_free(NULL);
    ktune_model_free(m);
}

static const kt_test TESTS[] = {
    KT_T(test_a_trained_model_round_trips_and_predicts),
    KT_T(test_a_spec_constrains_the_predictions),
    KT_T(test_evaluation_reports_the_papers_metrics),
    KT_T(test_methods_and_training_errors),
    KT_T(test_bad_problems_and_files_are_refused),
};
KT_TEST_MAIN(TESTS)
