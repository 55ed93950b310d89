/* test_db.c - the results database: schema, ids, resume lookups, refusal of
 * foreign files, and queries. */
#include "store/db.h"
#include "core/util.h"
#include "test.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>

static char *temp_path(const char *name)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "%s", kt_test_tmp(name));
    unlink(buf);
    return buf;
}

static kt_result ok_result(double ms)
{
    return (kt_result){.status = KT_STATUS_OK, .time_ms = ms, .min_ms = ms * 0.9,
                       .spread = 0.01, .reps = 7, .energy_j = NAN, .power_w = NAN};
}

static void test_new_file_gets_schema_and_ids_are_stable(void)
{
    char *path = temp_path("ids.db");
    kt_db *db;
    kt_diag d = {{0}};
    CHECK(kt_db_open(path, &db, &d) == KT_OK);
    kt_device_info dev = {.name = "cpu0", .backend = "cpu", .fingerprint = "fp"};
    int64_t a, b, k1, k2, p1, p2;
    CHECK(kt_db_device(db, &dev, &a, &d) == KT_OK);
    CHECK(kt_db_device(db, &dev, &b, &d) == KT_OK);
    CHECK_EQ_INT(a, b);
    CHECK(kt_db_kernel(db, "gemm", "abc", &k1, &d) == KT_OK);
    CHECK(kt_db_kernel(db, "gemm", "abd", &k2, &d) == KT_OK);
    CHECK(k1 != k2); /* a changed source is another kernel */
    CHECK(kt_db_problem(db, k1, "M=1", &p1, &d) == KT_OK);
    CHECK(kt_db_problem(db, k1, "M=1", &p2, &d) == KT_OK);
    CHECK_EQ_INT(p1, p2);
    kt_db_close(db);
    unlink(path);
}

static void test_record_then_lookup_survives_reopen(void)
{
    char *path = temp_path("resume.db");
    kt_db *db;
    kt_diag d = {{0}};
    CHECK(kt_db_open(path, &db, &d) == KT_OK);
    kt_device_info dev = {.name = "cpu0", .backend = "cpu", .fingerprint = "fp"};
    int64_t dv, k, p;
    CHECK(kt_db_device(db, &dev, &dv, &d) == KT_OK);
    CHECK(kt_db_kernel(db, "gemm", "h", &k, &d) == KT_OK);
    CHECK(kt_db_problem(db, k, "M=8", &p, &d) == KT_OK);
    kt_result r = ok_result(1.5);
    r.sm_clock_mhz = 1755;
    CHECK(kt_db_record(db, dv, k, p, "A=1,B=2", &r, &d) == KT_OK);
    kt_result crash = {.status = KT_STATUS_CRASH, .signal = 11, .time_ms = NAN,
                       .energy_j = NAN, .power_w = NAN};
    snprintf(crash.detail, sizeof crash.detail, "killed by signal 11");
    CHECK(kt_db_record(db, dv, k, p, "A=2,B=2", &crash, &d) == KT_OK);
    kt_db_close(db);

    CHECK(kt_db_open(path, &db, &d) == KT_OK);
    kt_result got;
    bool found;
    CHECK(kt_db_lookup(db, dv, p, "A=1,B=2", &got, &found, &d) == KT_OK);
    CHECK(found);
    CHECK(got.status == KT_STATUS_OK);
    CHECK_NEAR(got.time_ms, 1.5, 1e-12);
    CHECK_EQ_INT(got.reps, 7);
    CHECK(isnan(got.energy_j));
    CHECK_NEAR(got.sm_clock_mhz, 1755, 0);
    CHECK(kt_db_lookup(db, dv, p, "A=2,B=2", &got, &found, &d) == KT_OK);
    CHECK(found && got.status == KT_STATUS_CRASH && got.signal == 11);
    CHECK(got.sm_clock_mhz == 0); /* unknown */
    CHECK_STR(got.detail, "killed by signal 11");
    CHECK(kt_db_lookup(db, dv, p, "A=3,B=2", &got, &found, &d) == KT_OK);
    CHECK(!found);
    kt_db_close(db);
    unlink(path);
}

static void test_first_measurement_wins(void)
{
    char *path = temp_path("dup.db");
    kt_db *db;
    kt_diag d = {{0}};
    CHECK(kt_db_open(path, &db, &d) == KT_OK);
    kt_device_info dev = {.name = "x", .backend = "cpu", .fingerprint = "fp"};
    int64_t dv, k, p, n;
    CHECK(kt_db_device(db, &dev, &dv, &d) == KT_OK);
    CHECK(kt_db_kernel(db, "k", "h", &k, &d) == KT_OK);
    CHECK(kt_db_problem(db, k, "N=1", &p, &d) == KT_OK);
    kt_result r1 = ok_result(2.0), r2 = ok_result(1.0);
    CHECK(kt_db_record(db, dv, k, p, "A=1", &r1, &d) == KT_OK);
    CHECK(kt_db_record(db, dv, k, p, "A=1", &r2, &d) == KT_OK);
    CHECK(kt_db_count(db, dv, p, &n, &d) == KT_OK);
    CHECK_EQ_INT(n, 1);
    kt_result got;
    bool found;
    CHECK(kt_db_lookup(db, dv, p, "A=1", &got, &found, &d) == KT_OK);
    CHECK_NEAR(got.time_ms, 2.0, 0);
    kt_db_close(db);
    unlink(path);
}

static int collect_best(void *user, const kt_db_row *row)
{
    char *out = user;
    size_t len = strlen(out);
    snprintf(out + len, 256 - len, "%s|%s|%g;", row->problem, row->config,
             row->result.time_ms);
    return 0;
}

static void test_best_picks_fastest_ok_per_problem(void)
{
    char *path = temp_path("best.db");
    kt_db *db;
    kt_diag d = {{0}};
    CHECK(kt_db_open(path, &db, &d) == KT_OK);
    kt_device_info dev = {.name = "x", .backend = "cpu", .fingerprint = "fp"};
    int64_t dv, k, p1, p2;
    CHECK(kt_db_device(db, &dev, &dv, &d) == KT_OK);
    CHECK(kt_db_kernel(db, "k", "h", &k, &d) == KT_OK);
    CHECK(kt_db_problem(db, k, "N=1", &p1, &d) == KT_OK);
    CHECK(kt_db_problem(db, k, "N=2", &p2, &d) == KT_OK);
    kt_result a = ok_result(3), b = ok_result(1), c = ok_result(5);
    kt_result bad = {.status = KT_STATUS_WRONG_RESULT, .time_ms = NAN,
                     .energy_j = NAN, .power_w = NAN};
    CHECK(kt_db_record(db, dv, k, p1, "A=1", &a, &d) == KT_OK);
    CHECK(kt_db_record(db, dv, k, p1, "A=2", &b, &d) == KT_OK);
    CHECK(kt_db_record(db, dv, k, p1, "A=3", &bad, &d) == KT_OK);
    CHECK(kt_db_record(db, dv, k, p2, "A=1", &c, &d) == KT_OK);
    char out[256] = "";
    CHECK(kt_db_best(db, NULL, collect_best, out, &d) == KT_OK);
    CHECK_STR(out, "N=1|A=2|1;N=2|A=1|5;");
    kt_db_close(db);
    unlink(path);
}

static void test_text_file_is_refused(void)
{
    char *path = temp_path("text.db");
    FILE *f = fopen(path, "w");
    CHECK(f);
    for (int i = 0; i < 200; i++)
        fputs("this is not a database at all\n", f);
    fclose(f);
    kt_db *db = NULL;
    kt_diag d = {{0}};
    CHECK(kt_db_open(path, &db, &d) == KT_EFORMAT);
    CHECK(db == NULL);
    CHECK(strstr(d.msg, "not a ktune database") != NULL);
    CHECK(strstr(d.msg, path) != NULL);
    /* the file is left as it was */
    f = fopen(path, "r");
    char line[64];
    CHECK(f && fgets(line, sizeof line, f));
    CHECK_STR(line, "this is not a database at all\n");
    fclose(f);
    unlink(path);
}

static void test_foreign_sqlite_file_is_refused(void)
{
    char *path = temp_path("foreign.db");
    sqlite3 *c;
    CHECK(sqlite3_open(path, &c) == SQLITE_OK);
    CHECK(sqlite3_exec(c, "CREATE TABLE t(x); INSERT INTO t VALUES (1);", NULL, NULL,
                       NULL) == SQLITE_OK);
    sqlite3_close(c);
    kt_db *db = NULL;
    kt_diag d = {{0}};
    CHECK(kt_db_open(path, &db, &d) == KT_EFORMAT);
    CHECK(strstr(d.msg, "another application") != NULL);
    unlink(path);
}

/* The whole file's bytes, for before/after comparisons; caller frees. */
static char *slurp(const char *path, size_t *len)
{
    char *text = NULL;
    kt_diag d = {{0}};
    CHECK(kt_read_file(path, &text, len, &d) == KT_OK);
    return text;
}

/* Refused before any write: not switched to WAL, not a byte changed, no
 * journal left beside it. */
static void test_foreign_sqlite_file_is_left_unchanged(void)
{
    char *path = temp_path("foreign2.db");
    sqlite3 *c;
    CHECK(sqlite3_open(path, &c) == SQLITE_OK);
    CHECK(sqlite3_exec(c, "CREATE TABLE t(x); INSERT INTO t VALUES (1);", NULL, NULL,
                       NULL) == SQLITE_OK);
    sqlite3_close(c);
    size_t n0, n1;
    char *before = slurp(path, &n0);
    for (int mode = KT_DB_CREATE; mode <= KT_DB_EXISTING; mode++) {
        kt_db *db = NULL;
        kt_diag d = {{0}};
        CHECK(kt_db_open_mode(path, (kt_db_mode)mode, &db, &d) == KT_EFORMAT);
        CHECK(strstr(d.msg, path) && strstr(d.msg, "not a ktune database"));
    }
    char *after = slurp(path, &n1);
    CHECK(n0 == n1 && memcmp(before, after, n0) == 0);
    char wal[300];
    snprintf(wal, sizeof wal, "%s-wal", path);
    CHECK(access(wal, F_OK) != 0);
    free(before);
    free(after);
    unlink(path);
}

/* An empty file holds nothing to lose (the sqlite3 shell leaves one when
 * it opens a path that does not exist): a command that reads refuses it,
 * left empty; one that writes makes its database there. */
static void test_empty_file_is_refused_by_readers(void)
{
    char *path = temp_path("empty.db");
    FILE *f = fopen(path, "w");
    CHECK(f);
    fclose(f);
    kt_db *db = NULL;
    kt_diag d = {{0}};
    CHECK(kt_db_open_mode(path, KT_DB_EXISTING, &db, &d) == KT_EFORMAT);
    CHECK(strstr(d.msg, path) && strstr(d.msg, "an empty file"));
    struct stat st;
    CHECK(stat(path, &st) == 0 && st.st_size == 0);
    CHECK(kt_db_open_mode(path, KT_DB_CREATE, &db, &d) == KT_OK);
    kt_db_close(db);
    CHECK(kt_db_open_mode(path, KT_DB_EXISTING, &db, &d) == KT_OK);
    kt_db_close(db);
    unlink(path);
}

/* Leave an unfinished transaction on the file at path, as a process
 * killed in the middle of it: a hot journal beside a half-written file. */
static void kill_mid_transaction(const char *path)
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        sqlite3 *c;
        char row[512];
        memset(row, 'x', sizeof row - 1);
        row[sizeof row - 1] = '\0';
        sqlite3_open(path, &c);
        sqlite3_exec(c, "PRAGMA journal_mode = DELETE; PRAGMA cache_size = 10;"
                        " BEGIN EXCLUSIVE; CREATE TABLE junk(x);", NULL, NULL, NULL);
        for (int i = 0; i < 2000; i++) {
            char *sql = sqlite3_mprintf("INSERT INTO junk VALUES ('%q')", row);
            sqlite3_exec(c, sql, NULL, NULL, NULL);
            sqlite3_free(sql);
        }
        _exit(0); /* no commit, no rollback */
    }
    int status;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status));
    char journal[300];
    snprintf(journal, sizeof journal, "%s-journal", path);
    CHECK(access(journal, F_OK) == 0);
}

/* A file with another application's unfinished transaction is refused
 * without rolling it back; one of ours (ktune killed while it created or
 * upgraded the file) is rolled back and opens. */
static void test_hot_journal_is_rolled_back_only_when_ours(void)
{
    for (int ours = 0; ours <= 1; ours++) {
        char *path = temp_path("hot.db");
        kt_db *db = NULL;
        kt_diag d = {{0}};
        if (ours) {
            CHECK(kt_db_open(path, &db, &d) == KT_OK);
            kt_db_close(db);
        }
        kill_mid_transaction(path);
        size_t n0, n1;
        char *before = slurp(path, &n0);
        int rc = kt_db_open_mode(path, KT_DB_EXISTING, &db, &d);
        kt_db_close(db);
        char *after = slurp(path, &n1);
        if (ours) {
            CHECK(rc == KT_OK);
        } else {
            CHECK(rc == KT_EFORMAT && strstr(d.msg, "unfinished transaction"));
            CHECK(n0 == n1 && memcmp(before, after, n0) == 0);
        }
        free(before);
        free(after);
        char journal[300];
        snprintf(journal, sizeof journal, "%s-journal", path);
        unlink(journal);
        unlink(path);
    }
}

/* A command that only reads must not create the database it reads. */
static void test_existing_mode_creates_nothing(void)
{
    char *path = temp_path("absent.db");
    kt_db *db = NULL;
    kt_diag d = {{0}};
    CHECK(kt_db_open_mode(path, KT_DB_EXISTING, &db, &d) == KT_EIO);
    CHECK(strstr(d.msg, path) && strstr(d.msg, "no such file"));
    CHECK(access(path, F_OK) != 0);
    CHECK(kt_db_open_mode(path, KT_DB_CREATE, &db, &d) == KT_OK);
    kt_db_close(db);
    CHECK(kt_db_open_mode(path, KT_DB_EXISTING, &db, &d) == KT_OK);
    kt_db_close(db);
    unlink(path);
}

static void test_corrupted_file_is_an_error_not_a_crash(void)
{
    char *path = temp_path("corrupt.db");
    kt_db *db;
    kt_diag d = {{0}};
    CHECK(kt_db_open(path, &db, &d) == KT_OK);
    kt_device_info dev = {.name = "x", .backend = "cpu", .fingerprint = "fp"};
    int64_t dv, k, p;
    CHECK(kt_db_device(db, &dev, &dv, &d) == KT_OK);
    CHECK(kt_db_kernel(db, "k", "h", &k, &d) == KT_OK);
    CHECK(kt_db_problem(db, k, "N=1", &p, &d) == KT_OK);
    for (int i = 0; i < 300; i++) {
        char key[32];
        snprintf(key, sizeof key, "A=%d", i);
        kt_result r = ok_result(i);
        CHECK(kt_db_record(db, dv, k, p, key, &r, &d) == KT_OK);
    }
    kt_db_close(db);
    /* scribble over every page after the first (the schema's) */
    FILE *f = fopen(path, "r+b");
    CHECK(f && fseek(f, 0, SEEK_END) == 0);
    long size = ftell(f);
    CHECK(size > 8192 && fseek(f, 4096, SEEK_SET) == 0);
    for (long i = 4096; i < size; i++)
        fputc(0xA5, f);
    fclose(f);
    int rc = kt_db_open(path, &db, &d);
    if (rc == KT_OK) {
        kt_result got;
        bool found;
        rc = kt_db_lookup(db, dv, p, "A=7", &got, &found, &d);
        kt_db_close(db);
    }
    CHECK(rc == KT_EDB || rc == KT_EFORMAT);
    CHECK(strstr(d.msg, path) != NULL);
    unlink(path);
}

/* A version-1 file (no SM clock column) is upgraded in place: its rows
 * stay, their clock reads as unknown, new rows keep theirs. */
static void test_version_1_file_is_upgraded(void)
{
    char *path = temp_path("v1.db");
    kt_db *db;
    kt_diag d = {{0}};
    CHECK(kt_db_open(path, &db, &d) == KT_OK);
    kt_device_info dev = {.name = "x", .backend = "cuda", .fingerprint = "fp"};
    int64_t dv, k, p;
    CHECK(kt_db_device(db, &dev, &dv, &d) == KT_OK);
    CHECK(kt_db_kernel(db, "k", "h", &k, &d) == KT_OK);
    CHECK(kt_db_problem(db, k, "N=1", &p, &d) == KT_OK);
    kt_result r = ok_result(2.5);
    CHECK(kt_db_record(db, dv, k, p, "A=1", &r, &d) == KT_OK);
    kt_db_close(db);
    sqlite3 *c;
    CHECK(sqlite3_open(path, &c) == SQLITE_OK);
    CHECK(sqlite3_exec(c, "ALTER TABLE measurement DROP COLUMN sm_clock_mhz;"
                          " PRAGMA user_version = 1;", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(c);
    CHECK(kt_db_open(path, &db, &d) == KT_OK);
    kt_result got;
    bool found;
    CHECK(kt_db_lookup(db, dv, p, "A=1", &got, &found, &d) == KT_OK);
    CHECK(found && got.sm_clock_mhz == 0);
    CHECK_NEAR(got.time_ms, 2.5, 0);
    r.sm_clock_mhz = 1980;
    CHECK(kt_db_record(db, dv, k, p, "A=2", &r, &d) == KT_OK);
    kt_db_close(db);
    CHECK(kt_db_open(path, &db, &d) == KT_OK); /* now version 2: opens as is */
    CHECK(kt_db_lookup(db, dv, p, "A=2", &got, &found, &d) == KT_OK);
    CHECK(found);
    CHECK_NEAR(got.sm_clock_mhz, 1980, 0);
    kt_db_close(db);
    unlink(path);
}

static int collect_front(void *user, const kt_db_row *row)
{
    strcat(user, row->config);
    strcat(user, ";");
    return 0;
}

/* The configurations marked as a front, fastest first, "A=1;A=2;". */
static void front_of(kt_db *db, char *out)
{
    kt_diag d = {{0}};
    out[0] = '\0';
    CHECK(kt_db_front(db, NULL, collect_front, out, &d) == KT_OK);
}

/* A new database at path with device "x", kernel "k" and problem N=1
 * (ids[0..2]). */
static kt_db *open_one_problem(const char *path, int64_t ids[3])
{
    kt_db *db;
    kt_diag d = {{0}};
    CHECK(kt_db_open(path, &db, &d) == KT_OK);
    kt_device_info dev = {.name = "x", .backend = "cuda", .fingerprint = "fp"};
    CHECK(kt_db_device(db, &dev, &ids[0], &d) == KT_OK);
    CHECK(kt_db_kernel(db, "k", "h", &ids[1], &d) == KT_OK);
    CHECK(kt_db_problem(db, ids[1], "N=1", &ids[2], &d) == KT_OK);
    return db;
}

static void test_front_marks_replace_the_previous_front(void)
{
    char *path = temp_path("front.db");
    kt_diag d = {{0}};
    int64_t ids[3], q;
    kt_db *db = open_one_problem(path, ids);
    int64_t dv = ids[0], k = ids[1], p = ids[2];
    CHECK(kt_db_problem(db, k, "N=2", &q, &d) == KT_OK);
    const char *cfg[] = {"A=1", "A=2", "A=3"};
    for (int i = 0; i < 3; i++) {
        kt_result r = ok_result(3 - i); /* A=3 fastest */
        CHECK(kt_db_record(db, dv, k, p, cfg[i], &r, &d) == KT_OK);
        CHECK(kt_db_record(db, dv, k, q, cfg[i], &r, &d) == KT_OK);
    }
    char got[256];
    front_of(db, got);
    CHECK_STR(got, "");
    const char *first[] = {"A=1", "A=3", "A=9"}; /* A=9 has no row: skipped */
    CHECK(kt_db_front_mark(db, dv, p, first, 3, &d) == KT_OK);
    front_of(db, got);
    CHECK_STR(got, "A=3;A=1;");
    const char *other[] = {"A=2"};
    CHECK(kt_db_front_mark(db, dv, q, other, 1, &d) == KT_OK); /* another problem */
    CHECK(kt_db_front_mark(db, dv, p, other, 1, &d) == KT_OK); /* replaces N=1's */
    front_of(db, got);
    CHECK_STR(got, "A=2;A=2;");
    kt_db_close(db);
    unlink(path);
}

/* The file's bytes, and whether they equal those of another read. */
static size_t file_bytes(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, cap, f) : 0;
    if (f)
        fclose(f);
    return n;
}

static void test_readers_leave_a_file_without_front_unchanged(void)
{
    char *path = temp_path("nofront.db");
    kt_diag d = {{0}};
    int64_t ids[3];
    kt_db *db = open_one_problem(path, ids);
    int64_t dv = ids[0], k = ids[1], p = ids[2];
    kt_result r = ok_result(2.5);
    CHECK(kt_db_record(db, dv, k, p, "A=1", &r, &d) == KT_OK);
    kt_db_close(db);
    static char before[1 << 16], after[1 << 16];
    size_t n = file_bytes(path, before, sizeof before);
    CHECK(n > 0 && n < sizeof before);
    /* A reader (a replay, a query) of a file no front was marked in. */
    CHECK(kt_db_open_mode(path, KT_DB_EXISTING, &db, &d) == KT_OK);
    char got[64];
    front_of(db, got);
    CHECK_STR(got, "");
    kt_db_close(db);
    CHECK(file_bytes(path, after, sizeof after) == n && memcmp(before, after, n) == 0);
    /* The first mark adds the table; the version stays. */
    CHECK(kt_db_open(path, &db, &d) == KT_OK);
    const char *one[] = {"A=1"};
    CHECK(kt_db_front_mark(db, dv, p, one, 1, &d) == KT_OK);
    front_of(db, got);
    CHECK_STR(got, "A=1;");
    kt_db_close(db);
    sqlite3 *c;
    sqlite3_stmt *st;
    CHECK(sqlite3_open(path, &c) == SQLITE_OK);
    CHECK(sqlite3_prepare_v2(c, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK_EQ_INT(sqlite3_column_int(st, 0), 2);
    sqlite3_finalize(st);
    sqlite3_close(c);
    unlink(path);
}

static void test_unwritable_location_is_an_error(void)
{
    kt_db *db = NULL;
    kt_diag d = {{0}};
    CHECK(kt_db_open("/nonexistent-dir/x/ktune.db", &db, &d) == KT_EDB);
    CHECK(strstr(d.msg, "/nonexistent-dir/x/ktune.db") != NULL);
}

static const kt_test TESTS[] = {
    KT_T(test_new_file_gets_schema_and_ids_are_stable),
    KT_T(test_record_then_lookup_survives_reopen),
    KT_T(test_first_measurement_wins),
    KT_T(test_best_picks_fastest_ok_per_problem),
    KT_T(test_text_file_is_refused),
    KT_T(test_foreign_sqlite_file_is_refused),
    KT_T(test_foreign_sqlite_file_is_left_unchanged),
    KT_T(test_empty_file_is_refused_by_readers),
    KT_T(test_hot_journal_is_rolled_back_only_when_ours),
    KT_T(test_existing_mode_creates_nothing),
    KT_T(test_corrupted_file_is_an_error_not_a_crash),
    KT_T(test_version_1_file_is_upgraded),
    KT_T(test_front_marks_replace_the_previous_front),
    KT_T(test_readers_leave_a_file_without_front_unchanged),
    KT_T(test_unwritable_location_is_an_error),
};
KT_TEST_MAIN(TESTS)
