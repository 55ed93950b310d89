/* test_tune.c - whole tuning runs on a kernel whose configurations crash,
 * hang, compute wrongly, fail to compile or write where they must not:
 * each is classified, the run goes on, and the best is a correct one. */
#include "core/util.h"
#include "tune/tuner.h"
#include "test.h"

#include <signal.h>

static kt_spec *load_faulty(void)
{
    kt_spec *spec;
    kt_diag d = {{0}};
    if (kt_spec_load(kt_test_path("tests/kernels/faulty.json"), NULL, NULL, &spec,
                     &d) != KT_OK) {
        fprintf(stderr, "%s\n", d.msg);
        exit(1);
    }
    return spec;
}

static kt_tune_opts opts_for(const char *db_name)
{
    static char db[256], cache[256];
    snprintf(db, sizeof db, "%s", kt_test_tmp(db_name));
    snprintf(cache, sizeof cache, "%s", kt_test_tmp("cache"));
    unlink(db);
    kt_tune_opts o = kt_tune_defaults();
    o.db_path = db;
    o.backend.cache_dir = cache;
    o.problem = "N=5000";
    o.measure.timeout_s = 2;
    o.measure.min_time_s = 0.01;
    return o;
}

static int find_config(void *user, const kt_db_row *row)
{
    kt_db_row *want = user;
    if (strcmp(row->config, want->config) == 0) {
        want->result = row->result;
        want->device = "found";
    }
    return 0;
}

static kt_result stored(const char *db_path, const char *config)
{
    kt_db *db;
    kt_diag d = {{0}};
    CHECK(kt_db_open(db_path, &db, &d) == KT_OK);
    kt_db_row want = {.config = config};
    CHECK(kt_db_list(db, NULL, find_config, &want, &d) == KT_OK);
    kt_db_close(db);
    CHECK(want.device != NULL);
    return want.result;
}

static void test_every_fault_is_classified_and_best_is_correct(void)
{
    kt_spec *spec = load_faulty();
    kt_tune_opts o = opts_for("faults.db");
    kt_tune_report rep;
    kt_diag d = {{0}};
    CHECK(kt_tune(spec, &o, &rep, &d) == KT_OK);
    CHECK_EQ_INT(rep.space_size, 18);
    CHECK_EQ_INT(rep.measured, 18);
    CHECK_EQ_INT(rep.by_status[KT_STATUS_OK], 4); /* modes 0 and 8 */
    CHECK_EQ_INT(rep.by_status[KT_STATUS_CRASH], 6);  /* modes 1, 5, 6 */
    CHECK_EQ_INT(rep.by_status[KT_STATUS_TIMEOUT], 2);
    CHECK_EQ_INT(rep.by_status[KT_STATUS_WRONG_RESULT], 4); /* modes 3, 7 */
    CHECK_EQ_INT(rep.by_status[KT_STATUS_COMPILE_ERROR], 2);
    CHECK(rep.best_config && (strncmp(rep.best_config, "MODE=0,", 7) == 0 ||
                              strncmp(rep.best_config, "MODE=8,", 7) == 0));
    CHECK(rep.default_result.status == KT_STATUS_OK);
    kt_result r = stored(o.db_path, "MODE=1,VARIANT=1");
    CHECK(r.status == KT_STATUS_CRASH && r.signal == SIGSEGV);
    r = stored(o.db_path, "MODE=5,VARIANT=2"); /* wrote into a read-only input */
    CHECK(r.status == KT_STATUS_CRASH && r.signal == SIGSEGV);
    r = stored(o.db_path, "MODE=4,VARIANT=1");
    CHECK(r.status == KT_STATUS_COMPILE_ERROR);
    CHECK(strstr(r.detail, "broken on purpose") != NULL);
    r = stored(o.db_path, "MODE=3,VARIANT=1");
    CHECK(r.status == KT_STATUS_WRONG_RESULT && strstr(r.detail, "y: element") != NULL);
    r = stored(o.db_path, "MODE=0,VARIANT=2");
    CHECK(r.status == KT_STATUS_OK && r.time_ms > 0 && r.reps >= 5);
    kt_tune_report_clear(&rep);
    kt_spec_free(spec);
}

static void test_second_run_measures_nothing(void)
{
    kt_spec *spec = load_faulty();
    kt_tune_opts o = opts_for("resume.db");
    o.problem = "N=3000";
    kt_tune_report rep;
    kt_diag d = {{0}};
    CHECK(kt_tune(spec, &o, &rep, &d) == KT_OK);
    CHECK_EQ_INT(rep.measured, 18);
    char *first_best = kt_strdup(rep.best_config);
    kt_tune_report_clear(&rep);
    CHECK(kt_tune(spec, &o, &rep, &d) == KT_OK);
    CHECK_EQ_INT(rep.measured, 0);
    CHECK_EQ_INT(rep.cached, 18);
    CHECK_EQ_INT(rep.by_status[KT_STATUS_TIMEOUT], 2);
    CHECK_STR(rep.best_config, first_best);
    free(first_best);
    kt_tune_report_clear(&rep);
    kt_spec_free(spec);
}

static void test_budgets_limit_the_evaluations(void)
{
    kt_spec *spec = load_faulty();
    kt_tune_opts o = opts_for("budget.db");
    o.strategy = "random";
    o.budget = (kt_budget){KT_BUDGET_COUNT, 3};
    kt_tune_report rep;
    kt_diag d = {{0}};
    CHECK(kt_tune(spec, &o, &rep, &d) == KT_OK);
    CHECK_EQ_INT(rep.measured + rep.cached, 3);
    kt_tune_report_clear(&rep);
    /* a time cap does not lift the count (--budget 3 --time 600) */
    o.time_limit_s = 600;
    CHECK(kt_tune(spec, &o, &rep, &d) == KT_OK);
    CHECK_EQ_INT(rep.measured + rep.cached, 3);
    kt_tune_report_clear(&rep);
    o.time_limit_s = 0;
    o.budget = (kt_budget){KT_BUDGET_FRACTION, 0.5};
    CHECK(kt_tune(spec, &o, &rep, &d) == KT_OK);
    CHECK_EQ_INT(rep.measured + rep.cached, 9);
    kt_tune_report_clear(&rep);
    kt_spec_free(spec);
}

static int append_config(void *user, const kt_db_row *row)
{
    char *out = user;
    size_t len = strlen(out);
    snprintf(out + len, 1024 - len, "%s;", row->config);
    return 0;
}

static void configs_of(const char *path, char *out)
{
    kt_db *db;
    kt_diag d = {{0}};
    out[0] = '\0';
    CHECK(kt_db_open(path, &db, &d) == KT_OK);
    CHECK(kt_db_list(db, NULL, append_config, out, &d) == KT_OK);
    kt_db_close(db);
}

static void test_random_strategy_is_deterministic_for_a_seed(void)
{
    kt_spec *spec = load_faulty();
    char a[1024], b[1024], c[1024];
    const char *names[] = {"seed-a.db", "seed-b.db", "seed-c.db"};
    char *outs[] = {a, b, c};
    uint64_t seeds[] = {7, 7, 8};
    for (int i = 0; i < 3; i++) {
        kt_tune_opts o = opts_for(names[i]);
        o.strategy = "random";
        o.seed = seeds[i];
        o.budget = (kt_budget){KT_BUDGET_COUNT, 6};
        kt_tune_report rep;
        kt_diag d = {{0}};
        CHECK(kt_tune(spec, &o, &rep, &d) == KT_OK);
        kt_tune_report_clear(&rep);
        configs_of(o.db_path, outs[i]);
    }
    CHECK_STR(a, b);
    CHECK(strcmp(a, c) != 0);
    kt_spec_free(spec);
}

static void test_unknown_strategy_is_a_clear_error(void)
{
    kt_spec *spec = load_faulty();
    kt_tune_opts o = opts_for("unknown.db");
    o.strategy = "simulated_guessing";
    kt_tune_report rep;
    kt_diag d = {{0}};
    CHECK(kt_tune(spec, &o, &rep, &d) == KT_EINVAL);
    CHECK(strstr(d.msg, "simulated_guessing") != NULL);
    kt_tune_report_clear(&rep);
    kt_spec_free(spec);
}

static const kt_test TESTS[] = {
    KT_T(test_every_fault_is_classified_and_best_is_correct),
    KT_T(test_second_run_measures_nothing),
    KT_T(test_budgets_limit_the_evaluations),
    KT_T(test_random_strategy_is_deterministic_for_a_seed),
    KT_T(test_unknown_strategy_is_a_clear_error),
};
KT_TEST_MAIN(TESTS)
