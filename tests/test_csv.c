/* test_csv.c - the CSV reader (quotes, line breaks, errors with line and
 * column) and importing ktune's CSV export into a database: all rows or,
 * on any error, none. */
#include "core/csv.h"
#include "core/util.h"
#include "store/csv_import.h"
#include "spec_util.h"

/* The records read, joined: fields by '|', records by ';', each record
 * prefixed with its line number. */
static int join(void *user, char **f, size_t n, size_t line)
{
    kt_buf *b = user;
    kt_buf_appendf(b, "%zu:", line);
    for (size_t i = 0; i < n; i++)
        kt_buf_appendf(b, "%s%s", i ? "|" : "", f[i]);
    kt_buf_append(b, ";");
    return 0;
}

static char *read_joined(const char *text, int *rc, kt_diag *d)
{
    kt_buf b = {0};
    *rc = kt_csv_read(write_temp("r.csv", text), join, &b, d);
    return kt_buf_take(&b);
}

static void test_reader_handles_quotes_and_line_breaks(void)
{
    kt_diag d = {{0}};
    int rc;
    char *s = read_joined("a,b,c\r\n\"x, y\",\"say \"\"hi\"\"\",\n\n1,\"two\nlines\",3", &rc,
                          &d);
    CHECK(rc == KT_OK);
    CHECK_STR(s, "1:a|b|c;2:x, y|say \"hi\"|;4:1|two\nlines|3;");
    free(s);
    s = read_joined("only\n", &rc, &d);
    CHECK_STR(s, "1:only;");
    free(s);
}

static void test_reader_errors_name_line_and_column(void)
{
    kt_diag d = {{0}};
    int rc;
    free(read_joined("a,b\n1,x\"y\n", &rc, &d));
    CHECK(rc == KT_ESYNTAX);
    CHECK(strstr(d.msg, "r.csv:2:4: a quote inside an unquoted field") != NULL);
    free(read_joined("a,b\n\"1\"2,3\n", &rc, &d));
    CHECK(rc == KT_ESYNTAX);
    CHECK(strstr(d.msg, ":2:4: text after a closing quote") != NULL);
    free(read_joined("a\n\"open\n", &rc, &d));
    CHECK(rc == KT_ESYNTAX);
    CHECK(strstr(d.msg, "a quoted field is not closed") != NULL);
    free(read_joined("", &rc, &d));
    CHECK(rc == KT_OK);
}

#define HEADER "created,device,kernel,source_hash,problem,config,status,time_ms," \
               "min_ms,spread,compile_ms,energy_j,power_w,sm_clock_mhz,reps,detail\n"
#define ROW(cfg, status, t) "\"2026-11-22T10:00:00Z\",\"CPU X\",\"gemm\",\"abc\"," \
    "\"M=8,N=8\",\"" cfg "\",\"" status "\"," t ",,0.01,12,,,,5,\"\"\n"

static int import(const char *db_path, const char *text, kt_csv_import_stats *st,
                  kt_diag *d)
{
    kt_db *db;
    CHECK(kt_db_open(db_path, &db, d) == KT_OK);
    int rc = kt_csv_import(write_temp("in.csv", text), db, st, d);
    kt_db_close(db);
    return rc;
}

static int count_rows(void *user, const kt_db_row *row)
{
    (void)row;
    ++*(int *)user;
    return 0;
}

static int rows_in(const char *db_path)
{
    kt_db *db;
    kt_diag d = {{0}};
    int n = 0;
    CHECK(kt_db_open(db_path, &db, &d) == KT_OK);
    CHECK(kt_db_list(db, NULL, count_rows, &n, &d) == KT_OK);
    kt_db_close(db);
    return n;
}

static int find_row(void *user, const kt_db_row *row)
{
    kt_db_row *want = user;
    if (strcmp(row->config, want->config) == 0) {
        want->result = row->result;
        want->device = kt_strdup(row->device);
        want->created = kt_strdup(row->created);
    }
    return 0;
}

static void test_import_stores_every_row_once(void)
{
    char db_path[256];
    snprintf(db_path, sizeof db_path, "%s", kt_test_tmp("csv.db"));
    unlink(db_path);
    kt_csv_import_stats st;
    kt_diag d = {{0}};
    const char *text = HEADER ROW("A=1", "ok", "1.5") ROW("A=2", "compile_error", "")
                           ROW("A=3", "ok", "0.25");
    CHECK(import(db_path, text, &st, &d) == KT_OK);
    CHECK_EQ_INT(st.rows, 3);
    CHECK_EQ_INT(st.added, 3);
    CHECK(import(db_path, text, &st, &d) == KT_OK); /* again: nothing new */
    CHECK_EQ_INT(st.rows, 3);
    CHECK_EQ_INT(st.added, 0);
    CHECK_EQ_INT(rows_in(db_path), 3);
    kt_db *db;
    CHECK(kt_db_open(db_path, &db, &d) == KT_OK);
    kt_db_row want = {.config = "A=3"};
    CHECK(kt_db_list(db, NULL, find_row, &want, &d) == KT_OK);
    kt_db_close(db);
    CHECK_STR(want.device, "CPU X");
    CHECK(want.result.status == KT_STATUS_OK);
    CHECK(want.result.time_ms == 0.25 && want.result.reps == 5);
    CHECK(want.result.spread == 0.01 && want.result.compile_ms == 12);
    CHECK_STR(want.created, "2026-11-22T10:00:00Z"); /* when it was measured */
    free((char *)want.device);
    free((char *)want.created);
    unlink(db_path);
}

static void test_a_bad_row_imports_nothing(void)
{
    char db_path[256];
    snprintf(db_path, sizeof db_path, "%s", kt_test_tmp("csv.db"));
    static const struct {
        const char *text, *msg;
    } BAD[] = {
        {HEADER ROW("A=1", "ok", "1") ROW("A=2", "fast", "1"), "in.csv:3: unknown status 'fast'"},
        {HEADER ROW("A=1", "ok", "1") ROW("A=2", "ok", ""), "in.csv:3: an ok row without a time_ms"},
        {HEADER ROW("A=1", "ok", "1x"), "in.csv:2: column 'time_ms': '1x' is not a number"},
        {HEADER "\"t\",\"CPU\"\n", "in.csv:2: 2 fields, the header has 16"},
        {"device,kernel,problem,config,status\n", "in.csv:1: no column 'source_hash'"},
        {"device,kernel,source_hash,problem,config,status,speed\n",
         "in.csv:1: unknown column 'speed'"},
        {"", "in.csv: empty (no header)"},
        {HEADER "\"yesterday\",\"CPU X\",\"gemm\",\"abc\",\"M=8\",\"A=1\",\"ok\",1,,,,,,,5,\"\"\n",
         "in.csv:2: column 'created': 'yesterday' is not a UTC time"},
        /* a config or problem that is not NAME=VALUE,..., or that names other
         * parameters than the kernel's other rows */
        {HEADER ROW("A=1", "ok", "1") ROW("garbage", "ok", "1"),
         "in.csv:3: column 'config': 'garbage' is not NAME=VALUE"},
        {HEADER ROW("A=1,", "ok", "1"), "in.csv:2: column 'config': ends with ','"},
        {HEADER ROW("A=1,A=2", "ok", "1"), "'A' is named twice"},
        {HEADER ROW("A=", "ok", "1"), "the value is empty"},
        {HEADER ROW("1x=2", "ok", "1"), "'1x=2' is not NAME=VALUE"},
        {HEADER ROW("A=1", "ok", "1") ROW("B=1", "ok", "1"),
         "in.csv:3: column 'config': 'B=1' names other parameters than the rows of "
         "kernel gemm (as 'A=1')"},
        {HEADER ROW("A=1", "ok", "1")
             "\"2026-11-22T10:00:00Z\",\"CPU X\",\"gemm\",\"abc\",\"M=8\",\"A=2\","
             "\"ok\",1,,,,,,,5,\"\"\n",
         "in.csv:3: column 'problem': 'M=8' names other parameters"},
    };
    for (size_t i = 0; i < KT_ARRAY_LEN(BAD); i++) {
        unlink(db_path);
        kt_csv_import_stats st;
        kt_diag d = {{0}};
        CHECK(import(db_path, BAD[i].text, &st, &d) == KT_EFORMAT);
        if (!strstr(d.msg, BAD[i].msg)) {
            fprintf(stderr, "case %zu: '%s'\n", i, d.msg);
            CHECK(0);
        }
        CHECK_EQ_INT(st.added, 0);
        CHECK_EQ_INT(rows_in(db_path), 0);
    }
    unlink(db_path);
}

/* A byte order mark (spreadsheets write one) is skipped; a NUL byte, which
 * used to end the file unseen, is an error at its line and column. */
static void test_reader_skips_a_bom_and_refuses_nul(void)
{
    kt_diag d = {{0}};
    int rc;
    char *s = read_joined("\xEF\xBB\xBF" "a,b\n1,2\n", &rc, &d);
    CHECK(rc == KT_OK);
    CHECK_STR(s, "1:a|b;2:1|2;");
    free(s);
    const char *path = write_temp("nul.csv", "");
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite("a,b\n1,2\nx\0y\n3,4\n", 1, 16, f) == 16);
    fclose(f);
    kt_buf b = {0};
    CHECK(kt_csv_read(path, join, &b, &d) == KT_ESYNTAX);
    CHECK(strstr(d.msg, "nul.csv:3:2: a NUL byte") != NULL);
    free(kt_buf_take(&b));
    unlink(path);
}

/* A config whose parameters are not those of the kernel's rows already
 * stored (by an earlier import) is refused too. */
static void test_config_names_are_checked_against_stored_rows(void)
{
    char db_path[256];
    snprintf(db_path, sizeof db_path, "/tmp/ktune-test-csv-%d.db", (int)getpid());
    unlink(db_path);
    kt_csv_import_stats st;
    kt_diag d = {{0}};
    CHECK(import(db_path, HEADER ROW("A=1", "ok", "1"), &st, &d) == KT_OK);
    CHECK(import(db_path, HEADER ROW("C=1", "ok", "1"), &st, &d) == KT_EFORMAT);
    CHECK(strstr(d.msg, "'C=1' names other parameters") != NULL);
    CHECK_EQ_INT(rows_in(db_path), 1);
    unlink(db_path);
}

static const kt_test TESTS[] = {
    KT_T(test_reader_handles_quotes_and_line_breaks),
    KT_T(test_reader_errors_name_line_and_column),
    KT_T(test_import_stores_every_row_once),
    KT_T(test_a_bad_row_imports_nothing),
    KT_T(test_reader_skips_a_bom_and_refuses_nul),
    KT_T(test_config_names_are_checked_against_stored_rows),
};

KT_TEST_MAIN(TESTS)
