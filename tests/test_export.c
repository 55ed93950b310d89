/* test_export.c - the results database written in other tools' formats
 * (store/export.h): what each format holds, what a filter that matches
 * nothing writes, the rows of a time/energy front, and the refusal of a
 * Kernel Tuner cache of mixed rows. */
#include "store/export.h"
#include "test.h"

/* Two problems of kernel "k" on one device: a fast and a failed row for
 * P=1, one row for P=2. */
static kt_db *two_problems(void)
{
    kt_db *db;
    kt_diag d = {{0}};
    const char *p = kt_test_tmp("e.db");
    CHECK(kt_db_open(p, &db, &d) == KT_OK);
    kt_device_info dev = {.name = "cpu0", .backend = "cpu", .fingerprint = "fp"};
    int64_t dv, k, p1, p2;
    CHECK(kt_db_device(db, &dev, &dv, &d) == KT_OK);
    CHECK(kt_db_kernel(db, "k", "h", &k, &d) == KT_OK);
    CHECK(kt_db_problem(db, k, "P=1", &p1, &d) == KT_OK);
    CHECK(kt_db_problem(db, k, "P=2", &p2, &d) == KT_OK);
    kt_result ok = {.status = KT_STATUS_OK, .time_ms = 2, .reps = 3, .energy_j = NAN,
                    .power_w = NAN};
    kt_result crash = {.status = KT_STATUS_CRASH, .time_ms = NAN, .energy_j = NAN,
                       .power_w = NAN};
    CHECK(kt_db_record(db, dv, k, p1, "A=1,B=x", &ok, &d) == KT_OK);
    CHECK(kt_db_record(db, dv, k, p1, "A=2,B=x", &crash, &d) == KT_OK);
    CHECK(kt_db_record(db, dv, k, p2, "A=1,B=y", &ok, &d) == KT_OK);
    return db;
}

/* The text of one export; the caller frees. */
static char *export_text(kt_db *db, kt_export_format fmt, const kt_db_filter *f,
                         kt_db_rows which, uint64_t *rows, int *rc)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    kt_diag d = {{0}};
    CHECK(out != NULL);
    *rc = kt_db_export(db, fmt, f, which, out, rows, &d);
    fclose(out);
    return text;
}

static size_t count(const char *text, const char *what)
{
    size_t n = 0;
    for (const char *s = text; (s = strstr(s, what)); s++)
        n++;
    return n;
}

static void test_each_format_holds_the_rows(void)
{
    kt_db *db = two_problems();
    uint64_t rows;
    int rc;
    char *t = export_text(db, KTUNE_EXPORT_CSV, NULL, KT_ROWS_ALL, &rows, &rc);
    CHECK(rc == KT_OK && rows == 3);
    CHECK(strncmp(t, "created,device,kernel,", 22) == 0 && count(t, "\n") == 4);
    CHECK(strstr(t, "\"k\",\"h\",\"P=1\",\"A=2,B=x\",\"crash\",") != NULL);
    free(t);
    t = export_text(db, KTUNE_EXPORT_JSON, NULL, KT_ROWS_BEST, &rows, &rc);
    CHECK(rc == KT_OK && rows == 2 && t[0] == '[' && count(t, "\"status\": \"ok\"") == 2);
    CHECK(strstr(t, "\"A\": 1,") && strstr(t, "\"B\": \"x\""));
    free(t);
    t = export_text(db, KTUNE_EXPORT_T4, NULL, KT_ROWS_ALL, &rows, &rc);
    CHECK(rc == KT_OK && count(t, "\"invalidity\"") == 3);
    CHECK(strstr(t, "\"RuntimeFailedConfig\"") != NULL);
    free(t);
    t = export_text(db, KTUNE_EXPORT_T4_METADATA, NULL, KT_ROWS_ALL, &rows, &rc);
    CHECK(rc == KT_OK && strstr(t, "\"name\": \"cpu0\"") && strstr(t, "ktune=="));
    free(t);
    kt_db_close(db);
}

static void test_a_filter_that_matches_nothing_writes_nothing(void)
{
    kt_db *db = two_problems();
    uint64_t rows = 9;
    int rc;
    kt_db_filter f = {.kernel = "other"};
    char *t = export_text(db, KTUNE_EXPORT_JSON, &f, KT_ROWS_ALL, &rows, &rc);
    CHECK(rc == KT_OK && rows == 0 && strcmp(t, "") == 0);
    free(t);
    kt_export_format fmt;
    CHECK(kt_export_format_parse("t4-metadata", &fmt) == KT_OK && fmt == KTUNE_EXPORT_T4_METADATA);
    CHECK(kt_export_format_parse("xml", &fmt) == KT_ENOTFOUND);
    kt_db_close(db);
}

static void test_a_kerneltuner_cache_holds_one_problem(void)
{
    kt_db *db = two_problems();
    uint64_t rows;
    int rc;
    char *t = export_text(db, KTUNE_EXPORT_KERNELTUNER, NULL, KT_ROWS_ALL, &rows, &rc);
    CHECK(rc == KT_EINVAL && strcmp(t, "") == 0);
    free(t);
    kt_db_filter f = {.problem = "P=1"};
    t = export_text(db, KTUNE_EXPORT_KERNELTUNER, &f, KT_ROWS_ALL, &rows, &rc);
    CHECK(rc == KT_OK && rows == 2 && strstr(t, "\"problem_size\": 1"));
    CHECK(strstr(t, "\"1,x\"") && strstr(t, "\"2,x\""));
    free(t);
    kt_db_close(db);
}

static void test_the_front_is_the_marked_rows_fastest_first(void)
{
    kt_db *db = two_problems();
    uint64_t rows = 9;
    int rc;
    char *t = export_text(db, KTUNE_EXPORT_CSV, NULL, KT_ROWS_FRONT, &rows, &rc);
    CHECK(rc == KT_OK && rows == 0 && count(t, "\n") == 1); /* no front table yet */
    free(t);
    kt_diag d = {{0}};
    kt_device_info dev = {.name = "cpu0", .backend = "cpu", .fingerprint = "fp"};
    int64_t dv, k, p1;
    CHECK(kt_db_device(db, &dev, &dv, &d) == KT_OK);
    CHECK(kt_db_kernel(db, "k", "h", &k, &d) == KT_OK);
    CHECK(kt_db_problem(db, k, "P=1", &p1, &d) == KT_OK);
    kt_result slow = {.status = KT_STATUS_OK, .time_ms = 3, .reps = 3, .energy_j = 1,
                      .power_w = NAN};
    CHECK(kt_db_record(db, dv, k, p1, "A=3,B=x", &slow, &d) == KT_OK);
    const char *front[] = {"A=3,B=x", "A=1,B=x"};
    CHECK(kt_db_front_mark(db, dv, p1, front, 2, &d) == KT_OK);
    t = export_text(db, KTUNE_EXPORT_CSV, NULL, KT_ROWS_FRONT, &rows, &rc);
    CHECK(rc == KT_OK && rows == 2 && count(t, "\n") == 3);
    const char *fast = strstr(t, "\"A=1,B=x\""), *frugal = strstr(t, "\"A=3,B=x\"");
    CHECK(fast && frugal && fast < frugal && !strstr(t, "P=2"));
    free(t);
    kt_db_close(db);
}

static const kt_test TESTS[] = {
    KT_T(test_each_format_holds_the_rows),
    KT_T(test_a_filter_that_matches_nothing_writes_nothing),
    KT_T(test_the_front_is_the_marked_rows_fastest_first),
    KT_T(test_a_kerneltuner_cache_holds_one_problem),
};
KT_TEST_MAIN(TESTS)
