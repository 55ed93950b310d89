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

/* A perf db with two problems and three rows, one of an unknown solver. */
static void make_perfdb(const char *path)
{
    sqlite3 *c;
    CHECK(sqlite3_open(path, &c) == SQLITE_OK);
    const char *sql =
        "CREATE TABLE config (id INTEGER PRIMARY KEY, layout TEXT, data_type TEXT,"
        " direction TEXT, in_channels INT, in_h INT, out_channels INT, batchsize INT);"
        "CREATE TABLE perf_db (id INTEGER PRIMARY KEY, solver TEXT, config INT, params TEXT);"
        "INSERT INTO config VALUES (1, 'NCHW', 'FP16', 'B', 64, 28, 128, 16);"
        "INSERT INTO config VALUES (2, 'NCHW', 'FP32', 'W', 32, 7, 64, 8);"
        "INSERT INTO perf_db VALUES (1, 'ConvAsm1x1U', 1, '1,8,2,16,1,2,1,4');"
        "INSERT INTO perf_db VALUES (2, 'ConvAsmBwdWrW3x3', 2, '0,1,8,2,4,1');"
        "INSERT INTO perf_db VALUES (3, 'ConvSomethingNew', 2, '5,6');";
    CHECK(sqlite3_exec(c, sql, NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(c);
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
    sqlite3 *c;
    CHECK(sqlite3_open(other, &c) == SQLITE_OK);
    sqlite3_exec(c, "CREATE TABLE t(x);", NULL, NULL, NULL);
    sqlite3_close(c);
    CHECK(kt_miopen_import(other, db, NULL, &st, &d) == KT_EFORMAT);
    CHECK(strstr(d.msg, "not an MIOpen perf db") != NULL);
    CHECK(kt_miopen_import("/nonexistent.db", db, NULL, &st, &d) == KT_EIO);
    kt_db_close(db);
}

static const kt_test TESTS[] = {
    KT_T(test_plain_sqlite_perfdb),
    KT_T(test_bzip2_perfdb_and_device_name),
    KT_T(test_problem_overrides),
    KT_T(test_bad_files_are_clear_errors),
};
KT_TEST_MAIN(TESTS)
