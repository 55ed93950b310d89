/* test_miopen.c - importing MIOpen performance databases: plain and bzip2
 * files, parameter names, problem keys, repeat imports, and bad files. */
#include "store/miopen.h"
#include "test.h"

#include <bzlib.h>
#include <sqlite3.h>
#include <sys/stat.h>

static const char *tmp(const char *name)
{
    static char buf[4][256];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, 256, "%s", kt_test_tmp(name)); /* file names are the device names */
    unlink(p);
    return p;
}

/* An SQLite file at path made by sql. */
static void write_sqlite(const char *path, const char *sql)
{
    sqlite3 *c;
    CHECK(sqlite3_open(path, &c) == SQLITE_OK);
    CHECK(sqlite3_exec(c, sql, NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(c);
}

/* A perf db with two problems and three rows, one of an unknown solver. */
static void make_perfdb(const char *path)
{
    const char *sql =
        "CREATE TABLE config (id INTEGER PRIMARY KEY, layout TEXT, data_type TEXT,"
        " direction TEXT, in_channels INT, in_h INT, out_channels INT, batchsize INT);"
        "CREATE TABLE perf_db (id INTEGER PRIMARY KEY, solver TEXT, config INT, params TEXT);"
        "INSERT INTO config VALUES (1, 'NCHW', 'FP16', 'B', 64, 28, 128, 16);"
        "INSERT INTO config VALUES (2, 'NCHW', 'FP32', 'W', 32, 7, 64, 8);"
        "INSERT INTO perf_db VALUES (1, 'ConvAsm1x1U', 1, '1,8,2,16,1,2,1,4');"
        "INSERT INTO perf_db VALUES (2, 'ConvAsmBwdWrW3x3', 2, '0,1,8,2,4,1');"
        "INSERT INTO perf_db VALUES (3, 'ConvSomethingNew', 2, '5,6');";
    write_sqlite(path, sql);
}

static void bzip(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    CHECK(in && out);
    int err;
    BZFILE *bz = BZ2_bzWriteOpen(&err, out, 9, 0, 0);
    CHECK(err == BZ_OK);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        BZ2_bzWrite(&err, bz, buf, (int)n);
    BZ2_bzWriteClose(&err, bz, 0, NULL, NULL);
    fclose(in);
    fclose(out);
}

static int collect(void *user, const kt_db_row *row)
{
    char *out = user;
    size_t len = strlen(out);
    snprintf(out + len, 2048 - len, "%s|%s|%s|%s;", row->device, row->kernel,
             row->problem, row->config);
    return 0;
}

static void import_and_check(const char *file, const char *device)
{
    kt_db *db;
    kt_diag d = {{0}};
    CHECK(kt_db_open(tmp("out.db"), &db, &d) == KT_OK);
    kt_import_stats st;
    CHECK(kt_miopen_import(file, db, device, &st, &d) == KT_OK);
    CHECK_EQ_INT(st.rows, 3);
    CHECK_EQ_INT(st.added, 3);
    CHECK_EQ_INT(st.named, 2);
    CHECK_EQ_INT(st.solvers, 3);
    char rows[2048] = "";
    CHECK(kt_db_list(db, NULL, collect, rows, &d) == KT_OK);
    char want[2048];
    const char *dev = device ? device : "gfx999_8";
    snprintf(want, sizeof want,
             "%s|ConvAsm1x1U|layout=NCHW,data_type=FP16,direction=B,in_channels=64,"
             "in_h=28,out_channels=128,batchsize=16|read_size=1,k_mult=8,"
             "chunks_per_wave=2,chunk_size=16,n_mult=1,c_mult=2,waves_c_in_group=1,"
             "waves_k_in_group=4;"
             "%s|ConvAsmBwdWrW3x3|layout=NCHW,data_type=FP32,direction=W,in_channels=32,"
             "in_h=7,out_channels=64,batchsize=8|limit_wave_cnt=0,reverse_inout=1,"
             "chunk_size=8,k_per_wave=2,pipe_lines_depth=4,n_per_group=1;"
             "%s|ConvSomethingNew|layout=NCHW,data_type=FP32,direction=W,in_channels=32,"
             "in_h=7,out_channels=64,batchsize=8|p0=5,p1=6;",
             dev, dev, dev);
    CHECK_STR(rows, want);
    /* again: nothing new */
    CHECK(kt_miopen_import(file, db, device, &st, &d) == KT_OK);
    CHECK_EQ_INT(st.rows, 3);
    CHECK_EQ_INT(st.added, 0);
    kt_db_close(db);
}

static void test_plain_sqlite_perfdb(void)
{
    const char *src = tmp("gfx999_8.db");
    make_perfdb(src);
    import_and_check(src, NULL);
}

static void test_bzip2_perfdb_and_device_name(void)
{
    const char *src = tmp("plain.db"), *bz = tmp("gfx999_8.db.bz2");
    make_perfdb(src);
    bzip(src, bz);
    import_and_check(bz, NULL);
    import_and_check(bz, "radeon7");
}

static void test_problem_overrides(void)
{
    char *out;
    kt_diag d = {{0}};
    CHECK(kt_miopen_problem_overrides("layout=NCHW,data_type=BF16,direction=W,"
                                      "in_channels=64,in_h=28", &out, &d) == KT_OK);
    CHECK_STR(out, "fp16=0,bf16=1,fwd=0,bwd=0,wrw=1,in_channels=64,in_h=28");
    free(out);
    CHECK(kt_miopen_problem_overrides("layout=NCHW,oops", &out, &d) == KT_EINVAL);
    CHECK(strstr(d.msg, "'layout=NCHW,oops'") != NULL);
}

static void test_bad_files_are_clear_errors(void)
{
    kt_db *db;
    kt_diag d = {{0}};
    CHECK(kt_db_open(tmp("bad-out.db"), &db, &d) == KT_OK);
    kt_import_stats st;
    const char *text = tmp("notes.txt");
    FILE *f = fopen(text, "w");
    fputs("hello, not a database\n", f);
    fclose(f);
    CHECK(kt_miopen_import(text, db, NULL, &st, &d) == KT_EFORMAT);
    CHECK(strstr(d.msg, "neither SQLite nor bzip2") != NULL);
    const char *cut = tmp("cut.db.bz2");
    f = fopen(cut, "w");
    fputs("BZh91AY&SY garbage", f);
    fclose(f);
    CHECK(kt_miopen_import(cut, db, NULL, &st, &d) == KT_EFORMAT);
    CHECK(strstr(d.msg, "bzip2") != NULL);
    const char *other = tmp("other.db");
    write_sqlite(other, "CREATE TABLE t(x);");
    CHECK(kt_miopen_import(other, db, NULL, &st, &d) == KT_EFORMAT);
    CHECK(strstr(d.msg, "not an MIOpen perf db") != NULL);
    CHECK(kt_miopen_import("/nonexistent.db", db, NULL, &st, &d) == KT_EIO);
    kt_db_close(db);
}

/* Rows of a named solver with the wrong count, a non-integer or (with its
 * spec) a value outside the domain, and a row of an unnamed solver with
 * another count than its other rows, are refused by id, never stored. */
static void check_garbage_refused(const char *spec_dir, uint64_t want_rejected,
                                  const char *want_reason)
{
    const char *src = tmp("gfx999_9.db");
    const char *sql =
        "CREATE TABLE config (id INTEGER PRIMARY KEY, layout TEXT, data_type TEXT,"
        " direction TEXT, in_channels INT);"
        "CREATE TABLE perf_db (id INTEGER PRIMARY KEY, solver TEXT, config INT, params TEXT);"
        "INSERT INTO config VALUES (1, 'NCHW', 'FP32', 'F', 64);"
        "INSERT INTO config VALUES (2, 'NC=HW', 'FP32', 'F', 64);"
        "INSERT INTO perf_db VALUES (1, 'ConvAsm1x1U', 1, '1,8,2,16,1,2,1,4');"
        "INSERT INTO perf_db VALUES (2, 'ConvAsm1x1U', 1, '1,8,2');"
        "INSERT INTO perf_db VALUES (3, 'ConvAsm1x1U', 1, '1,8,2,16,1,2,1,x');"
        "INSERT INTO perf_db VALUES (4, 'ConvAsm1x1U', 1, '1,8,2,16,1,2,1,3');"
        "INSERT INTO perf_db VALUES (5, 'ConvNew', 1, '5,6');"
        "INSERT INTO perf_db VALUES (6, 'ConvNew', 1, '7,8');"
        "INSERT INTO perf_db VALUES (7, 'ConvNew', 1, '5,6,7');"
        "INSERT INTO perf_db VALUES (8, 'ConvNew', 2, '1,1');";
    write_sqlite(src, sql);
    kt_db *db;
    kt_diag d = {{0}};
    unlink(tmp("garbage-out.db"));
    CHECK(kt_db_open(tmp("garbage-out.db"), &db, &d) == KT_OK);
    kt_import_stats st;
    kt_miopen_options o = {.spec_dir = spec_dir};
    CHECK(kt_miopen_import_opts(src, db, &o, &st, &d) == KT_OK);
    CHECK_EQ_INT(st.rejected, want_rejected);
    CHECK_EQ_INT(st.rows, 8 - want_rejected);
    CHECK(strstr(st.rejects, "id 2 (ConvAsm1x1U): '1,8,2' has 3 values, the solver "
                             "has 8; id 3 (ConvAsm1x1U): ") != NULL);
    CHECK(strstr(st.rejects, want_reason) != NULL);
    char rows[2048] = "";
    CHECK(kt_db_list(db, NULL, collect, rows, &d) == KT_OK);
    CHECK(strstr(rows, "=x") == NULL && strstr(rows, "p2=") == NULL &&
          strstr(rows, "NC=HW") == NULL);
    kt_db_close(db);
}

static void test_rows_that_are_not_configurations_are_refused(void)
{
    /* built-in names: 2 wrong counts... and 8 (a '=' in the problem) */
    check_garbage_refused(NULL, 4, "'1,8,2,16,1,2,1,x' is not 8 integers");
    /* the spec also knows 3 is not a value of waves_k_in_group */
    check_garbage_refused(kt_test_path("kernels/miopen"), 5,
                          "'3' is not a value of parameter 'waves_k_in_group'");
}

/* A bzip2 file that decompresses past the limit is refused when the limit
 * is reached (not decompressed in full), and nothing is left on disk. */
static void test_bzip2_bomb_is_refused_at_the_limit(void)
{
    const char *zeros = tmp("zeros.db"), *bomb = tmp("bomb.db.bz2");
    FILE *f = fopen(zeros, "wb");
    CHECK(f);
    static char block[1 << 16];
    for (int i = 0; i < 64; i++) /* 4 MiB */
        CHECK(fwrite(block, 1, sizeof block, f) == sizeof block);
    fclose(f);
    bzip(zeros, bomb);
    kt_db *db;
    kt_diag d = {{0}};
    CHECK(kt_db_open(tmp("bomb-out.db"), &db, &d) == KT_OK);
    kt_import_stats st;
    kt_miopen_options o = {.max_bytes = 1 << 20};
    CHECK(kt_miopen_import_opts(bomb, db, &o, &st, &d) == KT_EFORMAT);
    CHECK(strstr(d.msg, "decompresses to more than 1048576 bytes") != NULL);
    CHECK(strstr(d.msg, "bomb.db.bz2") != NULL);
    kt_db_close(db);
    unlink(zeros);
    unlink(bomb);
}

/* A perf db saved in WAL mode reads from its decompressed bytes alone. */
static void test_wal_mode_perfdb_in_bzip2(void)
{
    const char *src = tmp("wal.db"), *bz = tmp("gfx999_8.db.bz2");
    make_perfdb(src);
    write_sqlite(src, "PRAGMA journal_mode = WAL;");
    bzip(src, bz);
    import_and_check(bz, NULL);
}

static const kt_test TESTS[] = {
    KT_T(test_plain_sqlite_perfdb),
    KT_T(test_bzip2_perfdb_and_device_name),
    KT_T(test_problem_overrides),
    KT_T(test_bad_files_are_clear_errors),
    KT_T(test_rows_that_are_not_configurations_are_refused),
    KT_T(test_bzip2_bomb_is_refused_at_the_limit),
    KT_T(test_wal_mode_perfdb_in_bzip2),
};
KT_TEST_MAIN(TESTS)
