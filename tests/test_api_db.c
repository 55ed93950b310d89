/* test_api_db.c - the public results-database API, through <ktune.h>
 * alone: opening (and refusing what is not a database), importing a Kernel
 * Tuner cache of tests/data and ktune's own CSV, queries by kernel, device
 * and problem, the exports, and the errors of bad arguments. */
#include <ktune.h>

#include "test.h"

#include <stdio.h>

#define CACHE "tests/data/kerneltuner/vector_add_a4000.json"

static const char *src_path(const char *rel)
{
    static char buf[512];
    const char *root = getenv("KT_TEST_SRCDIR");
    snprintf(buf, sizeof buf, "%s/%s", root ? root : ".", rel);
    return buf;
}

/* A one-line diagnostic: something, and no newline. */
static bool one_line(const ktune_diag *d) { return d->msg[0] && !strchr(d->msg, '\n'); }

/* A new database holding the Kernel Tuner cache. */
static ktune_db *imported(const char *name, ktune_import_stats *st)
{
    ktune_db *db = NULL;
    ktune_diag d = {{0}};
    CHECK(ktune_db_open(kt_test_tmp(name), KTUNE_DB_CREATE, &db, &d) == KTUNE_OK);
    CHECK(ktune_db_import(db, KTUNE_IMPORT_KERNELTUNER, src_path(CACHE), NULL, st, &d) ==
          KTUNE_OK);
    return db;
}

static int count_row(void *user, const ktune_row *row)
{
    (void)row;
    ++*(int *)user;
    return 0;
}

static int stop_at_two(void *user, const ktune_row *row)
{
    (void)row;
    return ++*(int *)user == 2;
}

static void test_open_refuses_what_is_not_a_database(void)
{
    ktune_db *db = (ktune_db *)1;
    ktune_diag d = {{0}};
    CHECK(ktune_db_open(kt_test_tmp("none.db"), 0, &db, &d) == KTUNE_EIO);
    CHECK(db == NULL && one_line(&d));
    CHECK(access(kt_test_tmp("none.db"), F_OK) != 0); /* nothing created */
    FILE *f = fopen(kt_test_tmp("text.db"), "w");
    fputs("not a database\n", f);
    fclose(f);
    CHECK(ktune_db_open(kt_test_tmp("text.db"), KTUNE_DB_CREATE, &db, &d) == KTUNE_EFORMAT);
    CHECK(one_line(&d));
    CHECK(ktune_db_open(NULL, 0, &db, &d) == KTUNE_EINVAL && one_line(&d));
    CHECK(ktune_db_open(kt_test_tmp("x.db"), 0x80, &db, &d) == KTUNE_EINVAL);
    ktune_db_close(NULL);
}

static void test_an_import_is_stored_once_and_queried(void)
{
    ktune_import_stats st;
    ktune_db *db = imported("kt.db", &st);
    ktune_diag d = {{0}};
    CHECK(st.rows > 10 && st.added == st.rows && st.ok > 0 && st.ok <= st.rows);
    CHECK(strstr(st.device, "A4000") != NULL && st.kernel[0] && st.problem[0]);
    ktune_import_stats again;
    CHECK(ktune_db_import(db, KTUNE_IMPORT_KERNELTUNER, src_path(CACHE), NULL, &again, &d) ==
          KTUNE_OK);
    CHECK(again.rows == st.rows && again.added == 0);
    int n = 0;
    uint64_t rows = 0;
    CHECK(ktune_db_query(db, NULL, count_row, &n, &rows, &d) == KTUNE_OK);
    CHECK_EQ_INT(n, (int)st.rows);
    CHECK_EQ_INT(rows, st.rows);
    ktune_query q;
    ktune_query_init(&q);
    q.kernel = st.kernel;
    q.problem = st.problem;
    q.best = true;
    n = 0;
    CHECK(ktune_db_query(db, &q, count_row, &n, &rows, &d) == KTUNE_OK);
    CHECK_EQ_INT(n, 1); /* one device, kernel and problem: one best */
    q.best = false;
    q.ok_only = true;
    CHECK(ktune_db_query(db, &q, count_row, &n, &rows, &d) == KTUNE_OK);
    CHECK_EQ_INT(rows, st.ok);
    q.device = "no such device";
    CHECK(ktune_db_query(db, &q, count_row, &n, &rows, &d) == KTUNE_OK && rows == 0);
    n = 0;
    CHECK(ktune_db_query(db, NULL, stop_at_two, &n, &rows, &d) == KTUNE_OK);
    CHECK_EQ_INT(n, 2);
    ktune_db_close(db);
}

/* The text of an export; the caller frees. */
static char *exported(ktune_db *db, ktune_export_format fmt, const ktune_query *q,
                      uint64_t *rows, int *rc, ktune_diag *d)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    CHECK(out != NULL);
    *rc = ktune_db_export(db, fmt, q, out, rows, d);
    fclose(out);
    return text;
}

static void test_exports_read_back(void)
{
    ktune_import_stats st;
    ktune_db *db = imported("kt.db", &st);
    ktune_diag d = {{0}};
    uint64_t rows;
    int rc;
    char *csv = exported(db, KTUNE_EXPORT_CSV, NULL, &rows, &rc, &d);
    CHECK(rc == KTUNE_OK && rows == st.rows);
    size_t lines = 0;
    for (const char *s = csv; *s; s++)
        lines += *s == '\n';
    CHECK_EQ_INT(lines, st.rows + 1);
    FILE *f = fopen(kt_test_tmp("rows.csv"), "w");
    fputs(csv, f);
    fclose(f);
    free(csv);
    ktune_db *copy;
    ktune_import_stats cs;
    CHECK(ktune_db_open(kt_test_tmp("copy.db"), KTUNE_DB_CREATE, &copy, &d) == KTUNE_OK);
    CHECK(ktune_db_import(copy, KTUNE_IMPORT_CSV, kt_test_tmp("rows.csv"), NULL, &cs, &d) ==
          KTUNE_OK);
    CHECK(cs.rows == st.rows && cs.added == st.rows);
    ktune_db_close(copy);
    ktune_export_format fmt;
    CHECK(ktune_export_format_parse("kerneltuner", &fmt) == KTUNE_OK);
    char *cache = exported(db, fmt, NULL, &rows, &rc, &d);
    CHECK(rc == KTUNE_OK && strstr(cache, "\"tune_params_keys\"") != NULL);
    free(cache);
    char *json = exported(db, KTUNE_EXPORT_JSON, NULL, &rows, &rc, &d);
    CHECK(rc == KTUNE_OK && json[0] == '[' && strstr(json, "\"status\": \"ok\""));
    free(json);
    CHECK(ktune_export_format_parse("xml", &fmt) == KTUNE_ENOTFOUND);
    ktune_db_close(db);
}

static void test_bad_arguments_are_errors_with_a_line(void)
{
    ktune_import_stats st;
    ktune_db *db = imported("kt.db", &st);
    ktune_diag d = {{0}};
    uint64_t rows = 7;
    CHECK(ktune_db_query(NULL, NULL, count_row, NULL, &rows, &d) == KTUNE_EINVAL);
    CHECK(rows == 0 && one_line(&d));
    CHECK(ktune_db_query(db, NULL, NULL, NULL, NULL, &d) == KTUNE_EINVAL);
    ktune_query q = {.size = 3}; /* not filled by ktune_query_init */
    CHECK(ktune_db_query(db, &q, count_row, NULL, NULL, &d) == KTUNE_EINVAL);
    CHECK(strstr(d.msg, "ktune_query_init") != NULL);
    CHECK(ktune_db_export(db, KTUNE_EXPORT_CSV, NULL, NULL, NULL, &d) == KTUNE_EINVAL);
    CHECK(ktune_db_import(db, KTUNE_IMPORT_T4, kt_test_tmp("missing.json"), NULL, &st, &d) <
          0);
    CHECK(one_line(&d) && st.rows == 0);
    CHECK(ktune_db_import(db, KTUNE_IMPORT_CSV, NULL, NULL, NULL, NULL) == KTUNE_EINVAL);
    ktune_import_format fmt;
    CHECK(ktune_import_format_parse("miopen", &fmt) == KTUNE_OK && fmt == KTUNE_IMPORT_MIOPEN);
    CHECK(ktune_import_format_parse("xls", &fmt) == KTUNE_ENOTFOUND);
    ktune_db_close(db);
}

static const kt_test TESTS[] = {
    KT_T(test_open_refuses_what_is_not_a_database),
    KT_T(test_an_import_is_stored_once_and_queried),
    KT_T(test_exports_read_back),
    KT_T(test_bad_arguments_are_errors_with_a_line),
};
KT_TEST_MAIN(TESTS)
