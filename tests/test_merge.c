/* test_merge.c - databases merged into one (store/merge.h): ids mapped by
 * natural keys, the rule for the same keys in both, idempotence, fronts
 * merged as a front, the refusals, and repeated readings merged as their
 * mean. */
#include "store/merge.h"
#include "core/util.h"
#include "test.h"

#include <math.h>
#include <sqlite3.h>

/* One database's handle and the ids of its device, kernel and problem. */
typedef struct one {
    kt_db *db;
    int64_t dev, kernel, prob;
} one;

/* A database at name (under the test's folder) holding device fp, kernel
 * "k" and problem N=1; extra devices or kernels first shift the ids. */
static one open_one(const char *name, int shift)
{
    one o = {0};
    kt_diag d = {{0}};
    CHECK(kt_db_open(kt_test_tmp(name), &o.db, &d) == KT_OK);
    int64_t unused;
    for (int i = 0; i < shift; i++) {
        kt_device_info other = {.name = "o", .backend = "cpu"};
        snprintf(other.fingerprint, sizeof other.fingerprint, "other%d", i);
        CHECK(kt_db_device(o.db, &other, &unused, &d) == KT_OK);
        CHECK(kt_db_kernel(o.db, other.fingerprint, "h", &unused, &d) == KT_OK);
    }
    kt_device_info dev = {.name = "cpu0", .backend = "cpu", .fingerprint = "fp"};
    CHECK(kt_db_device(o.db, &dev, &o.dev, &d) == KT_OK);
    CHECK(kt_db_kernel(o.db, "k", "h", &o.kernel, &d) == KT_OK);
    CHECK(kt_db_problem(o.db, o.kernel, "N=1", &o.prob, &d) == KT_OK);
    return o;
}

static kt_result res(kt_status s, double ms, double joules)
{
    return (kt_result){.status = s, .time_ms = ms, .min_ms = ms, .spread = 0.01,
                       .reps = 3, .energy_j = joules, .power_w = NAN};
}

static void put(one *o, const char *config, kt_result r)
{
    kt_diag d = {{0}};
    CHECK(kt_db_record(o->db, o->dev, o->kernel, o->prob, config, &r, &d) == KT_OK);
}

static kt_result get(one *o, const char *config)
{
    kt_diag d = {{0}};
    kt_result r = {0};
    bool found = false;
    CHECK(kt_db_lookup(o->db, o->dev, o->prob, config, &r, &found, &d) == KT_OK);
    CHECK(found);
    return r;
}

static int count_row(void *user, const kt_db_row *row)
{
    (void)row;
    ++*(int *)user;
    return 0;
}

static int rows_of(kt_db *db)
{
    int n = 0;
    kt_diag d = {{0}};
    CHECK(kt_db_list(db, NULL, count_row, &n, &d) == KT_OK);
    return n;
}

static void test_rows_of_two_shards_join_under_the_outputs_ids(void)
{
    one a = open_one("a.db", 0), b = open_one("b.db", 2), out = open_one("out.db", 1);
    put(&a, "X=1", res(KT_STATUS_OK, 2, NAN));
    put(&a, "X=2", res(KT_STATUS_CRASH, NAN, NAN));
    put(&b, "X=3", res(KT_STATUS_OK, 1, NAN));
    kt_db_close(a.db);
    kt_db_close(b.db);
    kt_merge_stats st;
    kt_diag d = {{0}};
    CHECK(kt_db_merge(out.db, kt_test_tmp("a.db"), &st, &d) == KT_OK);
    CHECK(st.rows == 2 && st.added == 2 && st.replaced == 0);
    CHECK(kt_db_merge(out.db, kt_test_tmp("b.db"), &st, &d) == KT_OK);
    CHECK(st.rows == 1 && st.added == 1);
    CHECK_EQ_INT(rows_of(out.db), 3);
    CHECK(get(&out, "X=2").status == KT_STATUS_CRASH);
    CHECK_NEAR(get(&out, "X=3").time_ms, 1, 0);
    /* again: nothing new */
    CHECK(kt_db_merge(out.db, kt_test_tmp("a.db"), &st, &d) == KT_OK);
    CHECK(st.rows == 2 && st.added == 0 && st.replaced == 0);
    CHECK_EQ_INT(rows_of(out.db), 3);
    kt_db_close(out.db);
}

static void test_a_success_replaces_a_failure_and_the_first_success_stays(void)
{
    one a = open_one("a.db", 0), out = open_one("out.db", 0);
    put(&out, "X=1", res(KT_STATUS_TIMEOUT, NAN, NAN));
    put(&out, "X=2", res(KT_STATUS_OK, 5, NAN));
    put(&out, "X=3", res(KT_STATUS_CRASH, NAN, NAN));
    put(&a, "X=1", res(KT_STATUS_OK, 3, NAN));
    put(&a, "X=2", res(KT_STATUS_OK, 4, NAN));
    put(&a, "X=3", res(KT_STATUS_WRONG_RESULT, NAN, NAN));
    kt_db_close(a.db);
    kt_merge_stats st;
    kt_diag d = {{0}};
    CHECK(kt_db_merge(out.db, kt_test_tmp("a.db"), &st, &d) == KT_OK);
    CHECK(st.added == 0 && st.replaced == 1);
    CHECK(get(&out, "X=1").status == KT_STATUS_OK);
    CHECK_NEAR(get(&out, "X=1").time_ms, 3, 0);
    CHECK_NEAR(get(&out, "X=2").time_ms, 5, 0);      /* the output's success */
    CHECK(get(&out, "X=3").status == KT_STATUS_CRASH); /* the output's failure */
    kt_db_close(out.db);
}

static int front_row(void *user, const kt_db_row *row)
{
    strcat(user, row->config);
    strcat(user, ";");
    return 0;
}

/* o's rows X=1 and X=2, of (ms, joules) each, marked as its front. */
static void front_of_two(one *o, double ms1, double joules1, double ms2, double joules2)
{
    kt_diag d = {{0}};
    put(o, "X=1", res(KT_STATUS_OK, ms1, joules1));
    put(o, "X=2", res(KT_STATUS_OK, ms2, joules2));
    const char *of[] = {"X=1", "X=2"};
    CHECK(kt_db_front_mark(o->db, o->dev, o->prob, of, 2, &d) == KT_OK);
}

static void test_fronts_merge_into_the_front_of_their_union(void)
{
    one a = open_one("a.db", 0), out = open_one("out.db", 0);
    kt_diag d = {{0}};
    /* out's front: X=1 (1 ms, 9 J), X=2 (5 ms, 2 J); a's: X=3 (2 ms, 3 J)
     * and X=4 (0.5 ms, 20 J), and X=5 equal to X=2 */
    front_of_two(&out, 1, 9, 5, 2);
    put(&a, "X=3", res(KT_STATUS_OK, 2, 3));
    put(&a, "X=4", res(KT_STATUS_OK, 0.5, 20));
    put(&a, "X=5", res(KT_STATUS_OK, 5, 2));
    put(&a, "X=6", res(KT_STATUS_OK, 6, 6)); /* dominated, unmarked */
    const char *af[] = {"X=3", "X=4", "X=5"};
    CHECK(kt_db_front_mark(a.db, a.dev, a.prob, af, 3, &d) == KT_OK);
    kt_db_close(a.db);
    CHECK(kt_db_merge(out.db, kt_test_tmp("a.db"), NULL, &d) == KT_OK);
    char got[256] = "";
    CHECK(kt_db_front(out.db, NULL, front_row, got, &d) == KT_OK);
    CHECK_STR(got, "X=4;X=1;X=3;X=2;");
    kt_db_close(out.db);
}

static void test_a_database_without_fronts_merges_into_one_with(void)
{
    one a = open_one("a.db", 0), out = open_one("out.db", 0);
    kt_diag d = {{0}};
    put(&out, "X=1", res(KT_STATUS_OK, 1, 1));
    const char *of[] = {"X=1"};
    CHECK(kt_db_front_mark(out.db, out.dev, out.prob, of, 1, &d) == KT_OK);
    put(&a, "X=2", res(KT_STATUS_OK, 0.5, 0.5));
    kt_db_close(a.db);
    CHECK(kt_db_merge(out.db, kt_test_tmp("a.db"), NULL, &d) == KT_OK);
    char got[64] = "";
    CHECK(kt_db_front(out.db, NULL, front_row, got, &d) == KT_OK);
    CHECK_STR(got, "X=1;"); /* marks come from fronts only */
    kt_db_close(out.db);
}

static void test_itself_a_missing_file_and_a_foreign_file_are_refused(void)
{
    one out = open_one("out.db", 0);
    put(&out, "X=1", res(KT_STATUS_OK, 1, NAN));
    kt_merge_stats st;
    kt_diag d = {{0}};
    CHECK(kt_db_merge(out.db, kt_test_tmp("out.db"), &st, &d) == KT_EINVAL);
    CHECK(strstr(d.msg, "merged into") != NULL);
    CHECK(kt_db_merge(out.db, kt_test_tmp("none.db"), &st, &d) == KT_EIO);
    FILE *f = fopen(kt_test_tmp("text.db"), "w");
    CHECK(f != NULL);
    fputs("not a database, long enough to be read as one ............... .......\n"
          "........................................................................\n",
          f);
    fclose(f);
    CHECK(kt_db_merge(out.db, kt_test_tmp("text.db"), &st, &d) == KT_EFORMAT);
    CHECK(st.rows == 0 && st.added == 0);
    CHECK_EQ_INT(rows_of(out.db), 1);
    /* the handle still works: no attachment or transaction was left */
    put(&out, "X=2", res(KT_STATUS_OK, 1, NAN));
    CHECK_EQ_INT(rows_of(out.db), 2);
    kt_db_close(out.db);
}

/* One ok reading: its median and least time, energy, power and clock
 * (NAN, 0: none). */
static kt_result reading(double ms, double min_ms, double joules, double watts, double mhz)
{
    kt_result r = res(KT_STATUS_OK, ms, joules);
    r.min_ms = min_ms;
    r.power_w = watts;
    r.sm_clock_mhz = mhz;
    return r;
}

/* The output and two inputs of the same configurations measured three
 * times: X=1 in all three; X=2 in a and b, b's without energy; X=3 a
 * failure in a, a success in b; X=4 in the output only. */
static one three_runs(void)
{
    one a = open_one("a.db", 0), b = open_one("b.db", 2), out = open_one("out.db", 1);
    put(&out, "X=1", reading(6, 5.5, 18, 300, 1900));
    put(&out, "X=4", reading(1, 1, 2, 50, 1000));
    put(&a, "X=1", reading(2, 1.5, 10, 100, 1700));
    put(&a, "X=2", reading(4, 3, 20, 80, 1500));
    put(&a, "X=3", res(KT_STATUS_CRASH, NAN, NAN));
    put(&b, "X=1", reading(4, 3.5, 14, 200, 0));
    put(&b, "X=2", reading(6, 6, NAN, NAN, 0));
    put(&b, "X=3", reading(5, 4, 7, 70, 1400));
    kt_db_close(a.db);
    kt_db_close(b.db);
    return out;
}

static void test_readings_of_three_runs_are_stored_as_their_mean(void)
{
    one out = three_runs();
    const char *paths[] = {kt_test_tmp("a.db"), kt_test_tmp("b.db")};
    kt_merge_stats st[2];
    kt_mean_stats m;
    kt_diag d = {{0}};
    CHECK(kt_db_merge_mean(out.db, paths, 2, st, &m, &d) == KT_OK);
    CHECK(st[0].rows == 3 && st[0].added == 2 && st[0].replaced == 0);
    CHECK(st[1].rows == 3 && st[1].added == 0 && st[1].replaced == 1);
    CHECK(m.averaged == 2 && m.readings == 5); /* X=1 of 3, X=2 of 2 */
    CHECK(m.versions == 0);
    CHECK_EQ_INT(rows_of(out.db), 4);
    kt_result x1 = get(&out, "X=1");
    CHECK_NEAR(x1.time_ms, 4, 1e-12);   /* (6 + 2 + 4) / 3 */
    CHECK_NEAR(x1.min_ms, 1.5, 0);      /* the least */
    CHECK_NEAR(x1.energy_j, 14, 1e-12); /* (18 + 10 + 14) / 3 */
    CHECK_NEAR(x1.power_w, 200, 1e-12);
    CHECK_NEAR(x1.sm_clock_mhz, 1800, 1e-12); /* b's has none */
    kt_result x2 = get(&out, "X=2");
    CHECK_NEAR(x2.time_ms, 5, 1e-12);
    CHECK_NEAR(x2.min_ms, 3, 0);
    CHECK_NEAR(x2.energy_j, 20, 0); /* b's reading has no energy */
    CHECK_NEAR(x2.power_w, 80, 0);
    kt_result x3 = get(&out, "X=3"); /* b's success replaced a's failure */
    CHECK(x3.status == KT_STATUS_OK);
    CHECK_NEAR(x3.time_ms, 5, 0);
    CHECK_NEAR(x3.energy_j, 7, 0);
    CHECK_NEAR(get(&out, "X=4").time_ms, 1, 0);
    kt_db_close(out.db);
}

static void test_without_the_mean_the_first_reading_stays(void)
{
    one out = three_runs();
    kt_diag d = {{0}};
    CHECK(kt_db_merge(out.db, kt_test_tmp("a.db"), NULL, &d) == KT_OK);
    CHECK(kt_db_merge(out.db, kt_test_tmp("b.db"), NULL, &d) == KT_OK);
    kt_result x1 = get(&out, "X=1");
    CHECK_NEAR(x1.time_ms, 6, 0);
    CHECK_NEAR(x1.energy_j, 18, 0);
    CHECK_NEAR(get(&out, "X=2").time_ms, 4, 0);
    CHECK_NEAR(get(&out, "X=3").time_ms, 5, 0);
    kt_db_close(out.db);
}

/* Rows of another source version of the kernel are other code: they stay
 * apart, are not averaged with this version's, and are counted. */
static void test_another_source_version_stays_apart_and_is_counted(void)
{
    one out = open_one("ver-out.db", 0), in = open_one("ver-in.db", 0);
    kt_diag d = {{0}};
    int64_t k2, p2;
    CHECK(kt_db_kernel(in.db, "k", "h2", &k2, &d) == KT_OK);
    CHECK(kt_db_problem(in.db, k2, "N=1", &p2, &d) == KT_OK);
    put(&out, "X=1", reading(6, 6, 18, 300, 1900));
    put(&in, "X=1", reading(2, 2, 10, 100, 1700)); /* the same version: averaged */
    kt_result r2 = reading(4, 4, 20, 80, 1500);
    CHECK(kt_db_record(in.db, in.dev, k2, p2, "X=1", &r2, &d) == KT_OK);
    CHECK(kt_db_record(in.db, in.dev, k2, p2, "X=2", &r2, &d) == KT_OK);
    kt_db_close(in.db);
    const char *paths[] = {kt_test_tmp("ver-in.db")};
    kt_mean_stats m;
    CHECK(kt_db_merge_mean(out.db, paths, 1, NULL, &m, &d) == KT_OK);
    CHECK(m.averaged == 1 && m.readings == 2 && m.versions == 1);
    CHECK_EQ_INT(rows_of(out.db), 3);
    CHECK_NEAR(get(&out, "X=1").time_ms, 4, 1e-12); /* (6 + 2) / 2, not with h2's 4 */
    kt_db_close(out.db);
}

/* A trigger of the output's connection refuses b's X=2 (what a full disk
 * would do midway). */
static void refuse_x2(kt_db *db, bool on)
{
    const char *sql = on ? "CREATE TEMP TRIGGER refuse BEFORE INSERT ON main.measurement"
                           " WHEN new.config = 'X=2' AND new.time_ms = 6"
                           " BEGIN SELECT RAISE(ABORT, 'refused'); END"
                         : "DROP TRIGGER temp.refuse";
    CHECK(sqlite3_exec(kt_db_sqlite(db), sql, NULL, NULL, NULL) == SQLITE_OK);
}

static void test_an_error_partway_leaves_nothing_half_averaged(void)
{
    one out = three_runs();
    const char *paths[] = {kt_test_tmp("a.db"), kt_test_tmp("b.db")};
    const char *missing[] = {paths[0], kt_test_tmp("none.db")};
    const char *twice[] = {paths[0], paths[0]};
    kt_merge_stats st[2];
    kt_mean_stats m;
    kt_diag d = {{0}};
    /* checked first: nothing merged */
    CHECK(kt_db_merge_mean(out.db, missing, 2, st, &m, &d) == KT_EIO);
    CHECK(kt_db_merge_mean(out.db, twice, 2, st, &m, &d) == KT_EINVAL);
    CHECK(strstr(d.msg, "given twice") != NULL);
    CHECK_EQ_INT(rows_of(out.db), 2);
    /* b refused midway: a merged as kt_db_merge merges it, nothing averaged */
    refuse_x2(out.db, true);
    CHECK(kt_db_merge_mean(out.db, paths, 2, st, &m, &d) == KT_EDB);
    CHECK(strstr(d.msg, "refused") != NULL);
    CHECK(strstr(d.msg, "(1 of 2 inputs merged, nothing averaged)") != NULL);
    CHECK(st[0].added == 2 && st[1].rows == 0 && m.averaged == 0);
    CHECK_EQ_INT(rows_of(out.db), 4);
    CHECK_NEAR(get(&out, "X=1").time_ms, 6, 0); /* the output's */
    CHECK_NEAR(get(&out, "X=2").time_ms, 4, 0); /* a's */
    CHECK(get(&out, "X=3").status == KT_STATUS_CRASH);
    /* b alone now: no reading of the failed merge is left over */
    refuse_x2(out.db, false);
    CHECK(kt_db_merge_mean(out.db, paths + 1, 1, st, &m, &d) == KT_OK);
    CHECK(m.averaged == 2 && m.readings == 4);
    CHECK_NEAR(get(&out, "X=1").time_ms, 5, 1e-12); /* (6 + 4) / 2 */
    CHECK_NEAR(get(&out, "X=2").time_ms, 5, 1e-12); /* (4 + 6) / 2 */
    kt_db_close(out.db);
}

static void test_a_mark_the_means_leave_dominated_leaves_the_front(void)
{
    one a = open_one("a.db", 0), out = open_one("out.db", 0);
    kt_diag d = {{0}};
    front_of_two(&out, 6, 8, 3, 20);
    put(&a, "X=1", res(KT_STATUS_OK, 2, 40)); /* X=1's mean: 4 ms, 24 J */
    kt_db_close(a.db);
    const char *paths[] = {kt_test_tmp("a.db")};
    CHECK(kt_db_merge_mean(out.db, paths, 1, NULL, NULL, &d) == KT_OK);
    char got[64] = "";
    CHECK(kt_db_front(out.db, NULL, front_row, got, &d) == KT_OK);
    CHECK_STR(got, "X=2;");
    kt_db_close(out.db);
}

static const kt_test TESTS[] = {
    KT_T(test_rows_of_two_shards_join_under_the_outputs_ids),
    KT_T(test_a_success_replaces_a_failure_and_the_first_success_stays),
    KT_T(test_fronts_merge_into_the_front_of_their_union),
    KT_T(test_a_database_without_fronts_merges_into_one_with),
    KT_T(test_itself_a_missing_file_and_a_foreign_file_are_refused),
    KT_T(test_readings_of_three_runs_are_stored_as_their_mean),
    KT_T(test_without_the_mean_the_first_reading_stays),
    KT_T(test_an_error_partway_leaves_nothing_half_averaged),
    KT_T(test_a_mark_the_means_leave_dominated_leaves_the_front),
    KT_T(test_another_source_version_stays_apart_and_is_counted),
};
KT_TEST_MAIN(TESTS)
