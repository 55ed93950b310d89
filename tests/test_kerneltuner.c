/* test_kerneltuner.c - importing Kernel Tuner cache files and T4 results:
 * the shipped fixtures are stored whole with their times, an open cache is
 * read as Kernel Tuner reads it, and a bad file stores nothing. */
#include "core/util.h"
#include "store/kerneltuner.h"
#include "store/t4.h"
#include "spec_util.h"

#include <math.h>

/* The row of the configuration named in want->config, copied into *want. */
static int find_config(void *user, const kt_db_row *row)
{
    kt_db_row *want = user;
    if (strcmp(row->config, want->config) != 0)
        return 0;
    want->result = row->result;
    return 1;
}

static int count(void *user, const kt_db_row *row)
{
    (void)row;
    (*(int *)user)++;
    return 0;
}

static void test_fixture_is_stored_with_its_times(void)
{
    kt_db *db;
    kt_diag d = {{0}};
    kt_kerneltuner_stats st;
    CHECK(kt_db_open(kt_test_tmp("k.db"), &db, &d) == KT_OK);
    CHECK(kt_kerneltuner_import(kt_test_path("tests/data/kerneltuner/fp32_a4000.json"),
                                db, &st, &d) == KT_OK);
    CHECK(st.rows == 10 && st.ok == 10 && st.added == 10);
    CHECK_STR(st.problem, "ProblemSize_0=48,ProblemSize_1=64");
    kt_db_row want = {.config = "block_size_x=1024,nr_outer=64,nr_inner=1024,"
                                "nvml_gr_clock=2100"};
    CHECK(kt_db_list(db, NULL, find_config, &want, &d) == KT_OK);
    CHECK(want.result.status == KT_STATUS_OK && want.result.reps == 10);
    CHECK(fabs(want.result.time_ms - 77.53778305053712) < 1e-9);
    CHECK(fabs(want.result.min_ms - 75.01824188232422) < 1e-9);
    CHECK(fabs(want.result.power_w - 139.161) < 1e-9);
    CHECK(fabs(want.result.compile_ms - 3950.955282896757) < 1e-6);
    kt_db_close(db);
}

static void test_a_bad_entry_stores_nothing(void)
{
    kt_db *db;
    kt_diag d = {{0}};
    kt_kerneltuner_stats st;
    const char *head = "{\"device_name\": \"G\", \"kernel_name\": \"k\", "
                       "\"tune_params_keys\": [\"a\"], \"cache\": {"
                       "\"1\": {\"time\": 1.5}, \"2\": {\"time\": \"InvalidConfig\"},";
    char text[512];
    CHECK(kt_db_open(kt_test_tmp("b.db"), &db, &d) == KT_OK);
    snprintf(text, sizeof text, "%s \"3,4\": {\"time\": 2}}}", head);
    CHECK(kt_kerneltuner_import(write_temp("bad.json", text), db, &st, &d) == KT_EFORMAT);
    CHECK(strstr(d.msg, "cache entry '3,4': 2 values for 1 tuning parameters") != NULL);
    int n = 0;
    CHECK(kt_db_list(db, NULL, count, &n, &d) == KT_OK);
    CHECK_EQ_INT(n, 0);
    /* the same entries, left open by Kernel Tuner: read whole */
    CHECK(kt_kerneltuner_import(write_temp("open.json", head), db, &st, &d) == KT_OK);
    CHECK(st.rows == 2 && st.ok == 1 && st.added == 2);
    kt_db_close(db);
}

/* T4: seconds become ms; a result with an unknown invalidity after a good
 * one stores neither. */
static void test_t4_results_all_or_nothing(void)
{
    kt_db *db;
    kt_diag d = {{0}};
    kt_t4_stats st;
    kt_t4_options o = {.device = "G", .kernel = "k"};
    const char *good = "{\"configuration\": {\"a\": 1}, \"times\": {}, \"invalidity\": "
                       "\"correct\", \"correctness\": 1, \"measurements\": [{\"name\": "
                       "\"time\", \"value\": 0.5, \"unit\": \"s\"}]}";
    char text[1024];
    CHECK(kt_db_open(kt_test_tmp("t4.db"), &db, &d) == KT_OK);
    snprintf(text, sizeof text, "{\"results\": [%s, {\"configuration\": {\"a\": 2}, "
             "\"times\": {}, \"invalidity\": \"odd\", \"correctness\": 1}]}", good);
    CHECK(kt_t4_import(write_temp("bad.t4", text), db, &o, &st, &d) == KT_EFORMAT);
    CHECK(strstr(d.msg, "results[1]: invalidity is not one of") != NULL);
    int n = 0;
    CHECK(kt_db_list(db, NULL, count, &n, &d) == KT_OK);
    CHECK_EQ_INT(n, 0);
    snprintf(text, sizeof text, "{\"results\": [%s]}", good);
    CHECK(kt_t4_import(write_temp("good.t4", text), db, &o, &st, &d) == KT_OK);
    CHECK(st.rows == 1 && st.ok == 1 && st.added == 1);
    kt_db_row want = {.config = "a=1"};
    CHECK(kt_db_list(db, NULL, find_config, &want, &d) == KT_OK);
    CHECK(want.result.status == KT_STATUS_OK && want.result.time_ms == 500);
    kt_db_close(db);
}

/* A file whose configurations name other parameters than the rows stored
 * for its kernel is refused whole, naming the names that differ. */
static void test_other_parameter_names_are_refused(void)
{
    kt_db *db;
    kt_diag d = {{0}};
    kt_kerneltuner_stats st;
    kt_t4_stats t4;
    kt_t4_options o = {.device = "G", .kernel = "k"};
    CHECK(kt_db_open(kt_test_tmp("n.db"), &db, &d) == KT_OK);
    CHECK(kt_kerneltuner_import(write_temp("a.json", "{\"device_name\": \"G\", "
                                "\"kernel_name\": \"k\", \"tune_params_keys\": [\"a\"], "
                                "\"cache\": {\"1\": {\"time\": 1}, \"2\": {\"time\": 2}}}"),
                                db, &st, &d) == KT_OK);
    CHECK(kt_kerneltuner_import(write_temp("ab.json", "{\"device_name\": \"H\", "
                                "\"kernel_name\": \"k\", \"tune_params_keys\": [\"a\", "
                                "\"b\"], \"cache\": {\"1,1\": {\"time\": 1}}}"),
                                db, &st, &d) == KT_EFORMAT);
    CHECK(strstr(d.msg, "ab.json: tune_params_keys: parameters (a, b) other than those "
                 "of kernel 'k' in the database (a): new: b (hint:") != NULL);
    CHECK(kt_t4_import(write_temp("b.t4", "{\"results\": [{\"configuration\": "
                       "{\"b\": 1}, \"times\": {}, \"invalidity\": \"compile\", "
                       "\"correctness\": 1}]}"), db, &o, &t4, &d) == KT_EFORMAT);
    CHECK(strstr(d.msg, "results[0]: parameters (b) other than those of kernel 'k' in "
                 "the database (a): new: b; missing: a") != NULL);
    int n = 0;
    CHECK(kt_db_list(db, NULL, count, &n, &d) == KT_OK);
    CHECK_EQ_INT(n, 2);
    kt_db_close(db);
}

static const kt_test TESTS[] = {
    KT_T(test_fixture_is_stored_with_its_times),
    KT_T(test_a_bad_entry_stores_nothing),
    KT_T(test_t4_results_all_or_nothing),
    KT_T(test_other_parameter_names_are_refused),
};

KT_TEST_MAIN(TESTS)
