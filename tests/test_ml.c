/* test_ml.c - the predictor's pieces: datasets from the store, the split,
 * the beam search with and without constraints, the k-NN baseline, the
 * model file (round trip and corrupt files), and constraint binding. */
#include "core/util.h"
#include "ml/beam.h"
#include "ml/evaluate.h"
#include "ml/predict.h"
#include "spec_util.h"

#include <sys/stat.h>

/* ------------------------------------------------------------ beam search */

/* Position p scores token t (1..3) as log(w[p][t]), but for the last
 * position after a first token 2, which scores as W2. */
static const double W[3][4] = {{0, 0.6, 0.3, 0.1}, {0, 0.5, 0.4, 0.1}, {0, 0.2, 0.2, 0.6}};
static const double W2[4] = {0, 0.005, 0.99, 0.005};

static int toy_scores(void *user, const uint16_t *prefixes, size_t n, size_t stride,
                      size_t pos, double *logp)
{
    (void)user;
    for (size_t i = 0; i < n; i++, logp += 4) {
        const double *w = pos == 2 && prefixes[i * stride] == 2 ? W2 : W[pos];
        logp[0] = -INFINITY;
        for (int t = 1; t < 4; t++)
            logp[t] = log(w[t]);
    }
    return KT_OK;
}

/* Constraint: the first two tokens must differ. */
static bool differ(void *user, const uint16_t *prefix, size_t len)
{
    (void)user;
    return len < 2 || prefix[0] != prefix[1];
}

static void test_beam_search_ranks_and_constrains(void)
{
    size_t vocab[3] = {4, 4, 4}, found;
    uint16_t out[5 * 3];
    double lp[5];
    kt_beam_opts o = {.width = 5, .scores = toy_scores};
    CHECK(kt_beam_search(3, vocab, &o, out, lp, &found) == KT_OK);
    CHECK_EQ_INT(found, 5);
    CHECK(out[0] == 1 && out[1] == 1 && out[2] == 3); /* 0.6 * 0.5 * 0.6 */
    CHECK_NEAR(lp[0], log(0.6 * 0.5 * 0.6), 1e-12);
    for (size_t i = 1; i < found; i++)
        CHECK(lp[i] <= lp[i - 1]);
    o.ok = differ;
    CHECK(kt_beam_search(3, vocab, &o, out, lp, &found) == KT_OK);
    CHECK_EQ_INT(found, 5);
    for (size_t i = 0; i < found; i++)
        CHECK(out[i * 3] != out[i * 3 + 1]);
    /* 0.3 * 0.5 * 0.99 beats 0.6 * 0.4 * 0.6: the prefix changed the scores */
    CHECK(out[0] == 2 && out[1] == 1 && out[2] == 2);
    CHECK(out[3] == 1 && out[4] == 2 && out[5] == 3);
}

/* -------------------------------------------------------------- datasets */

static const char *path_of(const char *name)
{
    static char buf[2][256];
    static int next;
    char *p = buf[next++ % 2];
    snprintf(p, 256, "%s", kt_test_tmp(name));
    return p;
}

/* 40 problems N=1..40 of kernel "toy": the best A is 1 below N=20, else 2
 * (the other A is measured too, slower); B is always 4.  Plus one failed
 * row and one other kernel. */
static kt_db *toy_db(void)
{
    kt_db *db;
    kt_diag d = {{0}};
    const char *p = path_of("toy.db");
    unlink(p);
    CHECK(kt_db_open(p, &db, &d) == KT_OK);
    kt_device_info dev = {.name = "x", .backend = "cpu", .fingerprint = "fp"};
    int64_t dv, k, other, pr;
    CHECK(kt_db_device(db, &dev, &dv, &d) == KT_OK);
    CHECK(kt_db_kernel(db, "toy", "h", &k, &d) == KT_OK);
    CHECK(kt_db_kernel(db, "other", "h", &other, &d) == KT_OK);
    kt_result ok = {.status = KT_STATUS_OK, .time_ms = 1, .energy_j = NAN, .power_w = NAN};
    kt_result slow = ok;
    slow.time_ms = 1.6;
    kt_result bad = {.status = KT_STATUS_CRASH, .time_ms = NAN, .energy_j = NAN,
                     .power_w = NAN};
    for (int n = 1; n <= 40; n++) {
        char key[64], cfg[64];
        snprintf(key, sizeof key, "kind=%s,N=%d", n % 2 ? "odd" : "even", n);
        snprintf(cfg, sizeof cfg, "A=%d,B=4", n < 20 ? 1 : 2);
        CHECK(kt_db_problem(db, k, key, &pr, &d) == KT_OK);
        CHECK(kt_db_record(db, dv, k, pr, cfg, &ok, &d) == KT_OK);
        snprintf(cfg, sizeof cfg, "A=%d,B=4", n < 20 ? 2 : 1);
        CHECK(kt_db_record(db, dv, k, pr, cfg, &slow, &d) == KT_OK);
        CHECK(kt_db_record(db, dv, k, pr, "A=9,B=9", &bad, &d) == KT_OK);
    }
    CHECK(kt_db_problem(db, other, "N=1", &pr, &d) == KT_OK);
    CHECK(kt_db_record(db, dv, other, pr, "Z=1", &ok, &d) == KT_OK);
    return db;
}

static void test_dataset_tokenises_ok_rows_of_one_kernel(void)
{
    kt_db *db = toy_db();
    kt_dataset *ds;
    kt_diag d = {{0}};
    CHECK(kt_dataset_load(db, "toy", NULL, &ds, &d) == KT_OK);
    CHECK_EQ_INT(ds->n, 40);
    CHECK_EQ_INT(ds->nin, 2);
    CHECK_EQ_INT(ds->nout, 2);
    CHECK_STR(ds->in_names[1], "N");
    CHECK_STR(ds->out_names[0], "A");
    CHECK_EQ_INT(ds->out_vocab[0].n, 3); /* <unk>, 1, 2 */
    CHECK_STR(ds->out_vocab[0].words[0], "<unk>");
    size_t one = ds->n;
    for (size_t i = 0; i < ds->n; i++)
        if (strcmp(ds->problem[i], "kind=odd,N=1") == 0)
            one = i;
    CHECK(one < ds->n);
    CHECK(isnan(ds->xnum[one * 2]) && ds->xnum[one * 2 + 1] == 1);
    kt_dataset_free(ds);
    CHECK(kt_dataset_load(db, "toy", "kind=even", &ds, &d) == KT_OK);
    CHECK_EQ_INT(ds->n, 20);
    kt_dataset_free(ds);
    CHECK(kt_dataset_load(db, "toy", "kind=none", &ds, &d) == KT_ENOTFOUND);
    CHECK(strstr(d.msg, "kind=none") != NULL);
    CHECK(kt_dataset_load(db, "toy", "kind", &ds, &d) == KT_EINVAL);
    CHECK(ds == NULL);
    /* every measurement, each timed against its problem's fastest */
    CHECK(kt_dataset_load_all(db, "toy", NULL, &ds, &d) == KT_OK);
    CHECK_EQ_INT(ds->n, 80);
    size_t fast = 0, slow = 0;
    for (size_t i = 0; i < ds->n; i++) {
        fast += ds->rel[i] == 1;
        slow += fabs(ds->rel[i] - 1.6) < 1e-12;
    }
    CHECK_EQ_INT(fast, 40);
    CHECK_EQ_INT(slow, 40);
    kt_dataset_free(ds);
    /* another device's times are relative to its own best */
    kt_device_info other = {.name = "y", .backend = "cpu", .fingerprint = "fp2"};
    int64_t dv, k, pr;
    kt_result r = {.status = KT_STATUS_OK, .time_ms = 5, .energy_j = NAN, .power_w = NAN};
    CHECK(kt_db_device(db, &other, &dv, &d) == KT_OK);
    CHECK(kt_db_kernel(db, "toy", "h", &k, &d) == KT_OK);
    CHECK(kt_db_problem(db, k, "kind=odd,N=1", &pr, &d) == KT_OK);
    CHECK(kt_db_record(db, dv, k, pr, "A=1,B=4", &r, &d) == KT_OK);
    r.time_ms = 8;
    CHECK(kt_db_record(db, dv, k, pr, "A=2,B=4", &r, &d) == KT_OK);
    CHECK(kt_dataset_load_all(db, "toy", NULL, &ds, &d) == KT_OK);
    CHECK_EQ_INT(ds->n, 82);
    fast = 0;
    for (size_t i = 0; i < ds->n; i++)
        fast += ds->rel[i] == 1;
    CHECK_EQ_INT(fast, 41);
    kt_dataset_free(ds);
    kt_db_close(db);
}

static void test_split_is_seeded_and_disjoint(void)
{
    kt_db *db = toy_db();
    kt_dataset *ds;
    kt_diag d = {{0}};
    CHECK(kt_dataset_load(db, "toy", NULL, &ds, &d) == KT_OK);
    size_t *tr, *te, *tr2, *te2, ntr, nte, ntr2, nte2;
    CHECK(kt_dataset_split(ds, 0.25, 7, NULL, &tr, &ntr, &te, &nte) == KT_OK);
    CHECK(kt_dataset_split(ds, 0.25, 7, NULL, &tr2, &ntr2, &te2, &nte2) == KT_OK);
    CHECK_EQ_INT(nte, 10);
    CHECK_EQ_INT(ntr, 30);
    CHECK(memcmp(te, te2, nte * sizeof *te) == 0);
    bool seen[40] = {false};
    for (size_t i = 0; i < ntr; i++)
        seen[tr[i]] = true;
    for (size_t i = 0; i < nte; i++) {
        CHECK(!seen[te[i]]);
        seen[te[i]] = true;
    }
    free(tr);
    free(te);
    free(tr2);
    free(te2);
    kt_dataset_free(ds);
    kt_db_close(db);
}

static void test_group_split_keeps_twins_together(void)
{
    kt_db *db = toy_db();
    kt_dataset *ds;
    kt_diag d = {{0}};
    CHECK(kt_dataset_load(db, "toy", NULL, &ds, &d) == KT_OK);
    size_t *tr, *te, ntr, nte;
    /* ignoring N leaves two groups, kind=odd and kind=even, of 20 each */
    CHECK(kt_dataset_split(ds, 0.25, 7, "N", &tr, &ntr, &te, &nte) == KT_OK);
    CHECK_EQ_INT(nte, 20);
    CHECK_EQ_INT(ntr, 20);
    const char *kind = strstr(ds->problem[te[0]], "kind=odd") ? "kind=odd" : "kind=even";
    for (size_t i = 0; i < nte; i++)
        CHECK(strstr(ds->problem[te[i]], kind) != NULL);
    for (size_t i = 0; i < ntr; i++)
        CHECK(strstr(ds->problem[tr[i]], kind) == NULL);
    free(tr);
    free(te);
    kt_dataset_free(ds);
    kt_db_close(db);
}

/* ------------------------------------------------------------------ models */

static kt_model *toy_model_of(const char *method)
{
    kt_db *db = toy_db();
    kt_dataset *ds;
    kt_model *m;
    kt_diag d = {{0}};
    bool all = strcmp(method, "cost") == 0; /* it learns from every measurement */
    CHECK((all ? kt_dataset_load_all : kt_dataset_load)(db, "toy", NULL, &ds, &d) == KT_OK);
    kt_train_opts o = {.method = method, .holdout = 0.25, .seed = 3, .k = 3, .hidden = 16,
                       .epochs = all ? 40 : 0};
    CHECK(kt_model_train(ds, &o, &m, &d) == KT_OK);
    kt_dataset_free(ds);
    kt_db_close(db);
    return m;
}

static kt_model *toy_model(void) { return toy_model_of("knn"); }

static const char *const METHODS[] = {"knn",    "naive_bayes", "tree",   "forest",
                                      "svc",    "encdec",      "attention", "hybrid",
                                      "hybrid2", "ensemble", "xgboost", "cost"};
#define NMETHODS (sizeof METHODS / sizeof *METHODS)

static void test_every_method_learns_the_toy_rule(void)
{
    for (size_t k = 0; k < NMETHODS; k++) {
        kt_model *m = toy_model_of(METHODS[k]);
        kt_model_info info;
        kt_model_describe(m, &info);
        CHECK_STR(info.method, METHODS[k]);
        uint16_t out[2];
        size_t found;
        kt_diag d = {{0}};
        CHECK(kt_predict(m, NULL, "kind=odd,N=3", 1, out, NULL, &found, &d) == KT_OK);
        CHECK_STR(info.out_vocab[0].words[out[0]], "1");
        CHECK(kt_predict(m, NULL, "kind=even,N=38", 1, out, NULL, &found, &d) == KT_OK);
        CHECK_STR(info.out_vocab[0].words[out[0]], "2");
        kt_model_free(m);
    }
}

static void test_knn_predicts_its_neighbours_choice(void)
{
    kt_model *m = toy_model();
    uint16_t out[2 * 4];
    size_t found;
    kt_diag d = {{0}};
    CHECK(kt_predict(m, NULL, "kind=odd,N=3", 4, out, NULL, &found, &d) == KT_OK);
    CHECK_EQ_INT(found, 2); /* A in {1, 2}, B in {4} */
    kt_model_info info;
    kt_model_describe(m, &info);
    CHECK_STR(info.out_vocab[0].words[out[0]], "1");
    CHECK_STR(info.out_vocab[1].words[out[1]], "4");
    CHECK(kt_predict(m, NULL, "kind=even,N=36", 1, out, NULL, &found, &d) == KT_OK);
    CHECK_STR(info.out_vocab[0].words[out[0]], "2");
    kt_train_opts o = {.method = "transformer", .holdout = 0.2};
    kt_model *none;
    CHECK(kt_model_train(NULL, &o, &none, &d) == KT_EINVAL);
    CHECK(strstr(d.msg, "unknown method") != NULL);
    CHECK(strstr(d.msg, "forest") != NULL);
    kt_model_free(m);
}

static void round_trip(const char *method)
{
    kt_model *m = toy_model_of(method), *back;
    kt_diag d = {{0}};
    const char *p = path_of("toy.ktm");
    CHECK(kt_model_save(m, p, &d) == KT_OK);
    CHECK(kt_model_load(p, &back, &d) == KT_OK);
    kt_model_info a, b;
    kt_model_describe(m, &a);
    kt_model_describe(back, &b);
    CHECK(a.ntrain == b.ntrain && a.ntest == b.ntest && a.nout == b.nout);
    for (size_t i = 0; i < a.ntest; i++) {
        CHECK_STR(kt_model_test_problem(m, i), kt_model_test_problem(back, i));
        uint16_t x[2], y[2];
        size_t f1, f2;
        CHECK(kt_predict(m, NULL, kt_model_test_problem(m, i), 1, x, NULL, &f1, &d) == 0);
        CHECK(kt_predict(back, NULL, kt_model_test_problem(m, i), 1, y, NULL, &f2, &d) == 0);
        CHECK(f1 == f2 && x[0] == y[0] && x[1] == y[1]);
    }
    kt_model_free(back);
    kt_model_free(m);
}

static void test_model_file_round_trip(void)
{
    for (size_t k = 0; k < NMETHODS; k++)
        round_trip(METHODS[k]);
}

/* The same seed gives the same model file, byte for byte; another seed
 * another one. */
static void test_training_is_deterministic_for_a_seed(void)
{
    const char *names[3] = {"a.ktm", "b.ktm", "c.ktm"};
    char *bytes[3];
    size_t len[3];
    kt_diag d = {{0}};
    for (int i = 0; i < 3; i++) {
        kt_db *db = toy_db();
        kt_dataset *ds;
        kt_model *m;
        CHECK(kt_dataset_load(db, "toy", NULL, &ds, &d) == KT_OK);
        kt_train_opts o = {.method = "attention", .holdout = 0.25, .seed = i < 2 ? 3 : 4,
                           .epochs = 5};
        CHECK(kt_model_train(ds, &o, &m, &d) == KT_OK);
        CHECK(kt_model_save(m, path_of(names[i]), &d) == KT_OK);
        CHECK(kt_read_file(path_of(names[i]), &bytes[i], &len[i], &d) == KT_OK);
        kt_model_free(m);
        kt_dataset_free(ds);
        kt_db_close(db);
    }
    CHECK(len[0] == len[1] && memcmp(bytes[0], bytes[1], len[0]) == 0);
    CHECK(len[0] != len[2] || memcmp(bytes[0], bytes[2], len[0]) != 0);
    for (int i = 0; i < 3; i++)
        free(bytes[i]);
}

static void corrupt(const char *method)
{
    kt_model *m = toy_model_of(method), *back;
    kt_diag d = {{0}};
    const char *p = path_of("good.ktm");
    CHECK(kt_model_save(m, p, &d) == KT_OK);
    kt_model_free(m);
    char *data;
    size_t len;
    CHECK(kt_read_file(p, &data, &len, &d) == KT_OK);
    const char *bad = path_of("bad.ktm");
    kt_rng rng;
    kt_rng_seed(&rng, 5);
    for (int trial = 0; trial < 300; trial++) {
        FILE *f = fopen(bad, "wb");
        size_t n = trial < 100 ? (size_t)kt_rng_below(&rng, len) : len; /* truncated */
        char *copy = malloc(len);
        memcpy(copy, data, len);
        for (int e = 0; trial >= 100 && e < 4; e++) /* or scribbled on */
            copy[kt_rng_below(&rng, len)] = (char)kt_rng_next(&rng);
        fwrite(copy, 1, n, f);
        fclose(f);
        free(copy);
        int rc = kt_model_load(bad, &back, &d);
        CHECK(rc == KT_OK || rc == KT_EFORMAT);
        if (rc == KT_OK) { /* a scribble that kept it well-formed must still work */
            uint16_t out[2];
            size_t found;
            kt_predict(back, NULL, "kind=odd,N=5", 1, out, NULL, &found, &d);
            kt_model_free(back);
        } else {
            CHECK(strstr(d.msg, bad) != NULL);
        }
    }
    free(data);
}

static void test_corrupt_model_files_are_refused(void)
{
    for (size_t k = 0; k < NMETHODS; k++)
        corrupt(METHODS[k]);
}

/* The performance model scores every combination of known values; past
 * its limit (6^8 here) training is a clear error, not a huge allocation. */
static void test_cost_refuses_too_many_combinations(void)
{
    kt_db *db;
    kt_diag d = {{0}};
    const char *p = path_of("wide.db");
    unlink(p);
    CHECK(kt_db_open(p, &db, &d) == KT_OK);
    kt_device_info dev = {.name = "x", .backend = "cpu", .fingerprint = "fp"};
    int64_t dv, k, pr;
    CHECK(kt_db_device(db, &dev, &dv, &d) == KT_OK);
    CHECK(kt_db_kernel(db, "wide", "h", &k, &d) == KT_OK);
    CHECK(kt_db_problem(db, k, "N=1", &pr, &d) == KT_OK);
    for (int v = 1; v <= 6; v++) {
        char cfg[128];
        snprintf(cfg, sizeof cfg, "A=%d,B=%d,C=%d,D=%d,E=%d,F=%d,G=%d,H=%d", v, v, v, v, v,
                 v, v, v);
        kt_result r = {.status = KT_STATUS_OK, .time_ms = v, .energy_j = NAN,
                       .power_w = NAN};
        CHECK(kt_db_record(db, dv, k, pr, cfg, &r, &d) == KT_OK);
    }
    kt_dataset *ds;
    kt_model *m;
    CHECK(kt_dataset_load_all(db, "wide", NULL, &ds, &d) == KT_OK);
    kt_train_opts o = {.method = "cost", .holdout = 0, .seed = 1, .epochs = 5};
    CHECK(kt_model_train(ds, &o, &m, &d) == KT_ERANGE);
    CHECK(strstr(d.msg, "too many combinations") != NULL);
    kt_dataset_free(ds);
    kt_db_close(db);
}

/* ------------------------------------------------------------ constraints */

static void test_constrained_prediction_is_valid(void)
{
    kt_model *m = toy_model();
    kt_diag d = {{0}};
    /* a space where A must be 2 once N > 10 and B is 4 */
    char text[8192];
    snprintf(text, sizeof text, "%s",
             "{\"ConfigurationSpace\": {\"TuningParameters\": ["
             "{\"Name\": \"A\", \"Type\": \"int\", \"Values\": \"[1, 2]\"},"
             "{\"Name\": \"B\", \"Type\": \"int\", \"Values\": \"[4, 8]\"}],"
             " \"Conditions\": [{\"Parameters\": [\"A\"], \"Expression\": \"N <= 10 or A == 2\"}],"
             " \"ProblemParameters\": [{\"Name\": \"N\", \"Default\": 1},"
             " {\"Name\": \"kind\", \"Default\": 0}]},"
             " \"KernelSpecification\": {\"Language\": \"None\", \"KernelName\": \"toy\"}}");
    const char *spec = write_temp("toy.json", text);
    kt_model_info info;
    kt_model_describe(m, &info);
    kt_constraint *c;
    CHECK(kt_constraint_new(spec, NULL, NULL, &info, &c, &d) == KT_OK);
    uint16_t out[4];
    size_t found;
    /* N=15: the neighbours say A=1, the space says A=2 */
    CHECK(kt_predict(m, c, "N=15", 2, out, NULL, &found, &d) == KT_OK);
    CHECK_EQ_INT(found, 1);
    CHECK_STR(info.out_vocab[0].words[out[0]], "2");
    CHECK(kt_constraint_valid(c, out));
    CHECK(kt_predict(m, NULL, "N=15", 2, out, NULL, &found, &d) == KT_OK);
    CHECK_STR(info.out_vocab[0].words[out[0]], "1");
    CHECK(kt_constraint_bind(c, "N=15", &d) == KT_OK);
    CHECK(!kt_constraint_valid(c, out));
    kt_constraint_free(c);
    kt_model_free(m);
}

/* ------------------------------------------------- training and evaluation */

/* The data a method learns from comes from its table: "cost" every ok
 * measurement (two per toy problem), "knn" each problem's best. */
static void test_training_from_the_store_follows_the_method_table(void)
{
    kt_db *db = toy_db();
    kt_diag d = {{0}};
    kt_model *m = NULL;
    kt_model_info info;
    kt_train_opts o = {.method = "cost", .holdout = 0.2, .seed = 1, .epochs = 20};
    CHECK(kt_model_train_db(db, "toy", &o, &m, &d) == KT_EINVAL);
    CHECK(m == NULL && strstr(d.msg, "every measurement") && strstr(d.msg, "holdout 0"));
    o.holdout = 0;
    CHECK(kt_model_train_db(db, "toy", &o, &m, &d) == KT_OK);
    kt_model_describe(m, &info);
    CHECK_EQ_INT(info.ntrain, 80);
    kt_model_free(m);
    o = (kt_train_opts){.method = "knn", .holdout = 0.25, .seed = 1, .k = 3};
    CHECK(kt_model_train_db(db, "toy", &o, &m, &d) == KT_OK);
    kt_model_describe(m, &info);
    CHECK_EQ_INT(info.ntrain + info.ntest, 40);
    kt_model_free(m);
    o.split_ignore = "N,bogus";
    CHECK(kt_model_train_db(db, "toy", &o, &m, &d) == KT_EINVAL);
    CHECK(strstr(d.msg, "'bogus' is not a field of toy's problems (kind, N)") != NULL);
    o = (kt_train_opts){.method = "transformer"};
    CHECK(kt_model_train_db(db, "toy", &o, &m, &d) == KT_EINVAL);
    CHECK(strstr(d.msg, "unknown method 'transformer'") != NULL);
    kt_db_close(db);
}

/* The metrics of `ktune evaluate` on the k-NN toy model's ten held-out
 * problems. */
static void test_evaluation_scores_the_held_out_problems(void)
{
    kt_model *m = toy_model();
    kt_diag d = {{0}};
    kt_eval_opts o = {.widths = {1, 2}, .nwidths = 2, .unconstrained = true};
    kt_eval_report r;
    CHECK(kt_model_evaluate(m, &o, &r, &d) == KT_OK);
    CHECK_EQ_INT(r.samples, 10);
    CHECK_EQ_INT(r.kmax, 2);
    /* two of the ten sit near the rule's edge (N=20), where the neighbours
     * vote wrong: A is wrong there (B never), the true one comes second */
    CHECK(fabs(r.avg_accuracy - 90) < 1e-9 && fabs(r.perfect[0] - 80) < 1e-9);
    CHECK(fabs(r.perfect[1] - 100) < 1e-9);
    CHECK(isnan(r.valid) && r.ms_per_query >= 0);
    o.limit = 3;
    CHECK(kt_model_evaluate(m, &o, &r, &d) == KT_OK);
    CHECK_EQ_INT(r.samples, 3);
    o.unconstrained = false; /* the constrained search needs a space */
    CHECK(kt_model_evaluate(m, &o, &r, &d) == KT_EINVAL);
    CHECK(strstr(d.msg, "no space for kernel 'toy'") != NULL);
    o = (kt_eval_opts){.nwidths = 0, .unconstrained = true};
    CHECK(kt_model_evaluate(m, &o, &r, &d) == KT_EINVAL);
    kt_model_free(m);
}

/* The log-probability the default method chooses by is what the beam
 * search ranks the true configuration by, averaged over the held-out
 * problems (a beam as wide as the toy's outputs allow lists every
 * configuration with its score). */
static void test_loglik_is_the_beams_score_of_the_true_configuration(void)
{
    kt_model *m = toy_model();
    kt_model_info info;
    kt_model_describe(m, &info);
    enum { WIDE = 64 };
    uint16_t out[WIDE * 8];
    double logp[WIDE], want = 0, got;
    kt_diag d = {{0}};
    CHECK(info.nout <= 8 && info.ntest == 10);
    for (size_t i = 0; i < info.ntest; i++) {
        size_t found = 0, b = 0;
        CHECK(kt_predict(m, NULL, kt_model_test_problem(m, i), WIDE, out, logp, &found, &d) ==
              KT_OK);
        while (b < found && memcmp(out + b * info.nout, kt_model_test_target(m, i),
                                   info.nout * sizeof *out) != 0)
            b++;
        CHECK(b < found && found < WIDE); /* every configuration was listed */
        want += logp[b];
    }
    CHECK(kt_model_loglik(m, &got, &d) == KT_OK);
    CHECK_NEAR(got, want / 10, 1e-9);
    CHECK(got < 0);
    kt_model_free(m);
}

static const kt_test TESTS[] = {
    KT_T(test_beam_search_ranks_and_constrains),
    KT_T(test_dataset_tokenises_ok_rows_of_one_kernel),
    KT_T(test_split_is_seeded_and_disjoint),
    KT_T(test_group_split_keeps_twins_together),
    KT_T(test_knn_predicts_its_neighbours_choice),
    KT_T(test_every_method_learns_the_toy_rule),
    KT_T(test_model_file_round_trip), KT_T(test_training_is_deterministic_for_a_seed),
    KT_T(test_corrupt_model_files_are_refused),
    KT_T(test_cost_refuses_too_many_combinations),
    KT_T(test_constrained_prediction_is_valid),
    KT_T(test_training_from_the_store_follows_the_method_table),
    KT_T(test_evaluation_scores_the_held_out_problems),
    KT_T(test_loglik_is_the_beams_score_of_the_true_configuration),
};
KT_TEST_MAIN(TESTS)
