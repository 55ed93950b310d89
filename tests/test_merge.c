/* test_merge.c - databases merged into one (store/merge.h): ids mapped by
 * natural keys, the rule for the same keys in both, idempotence, fronts
 * merged as a front, and the refusals. */
#include "store/merge.h"
#include "core/util.h"
#include "test.h"

#include <math.h>

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

static void test_fronts_merge_into_the_front_of_their_union(void)
{
    one a = open_one("a.db", 0), out = open_one("out.db", 0);
    kt_diag d = {{0}};
    /* out's front: X=1 (1 ms, 9 J), X=2 (5 ms, 2 J); a's: X=3 (2 ms, 3 J)
     * and X=4 (0.5 ms, 20 J), and X=5 equal to X=2 */
    put(&out, "X=1", res(KT_STATUS_OK, 1, 9));
    put(&out, "X=2", res(KT_STATUS_OK, 5, 2));
    const char *of[] = {"X=1", "X=2"};
    CHECK(kt_db_front_mark(out.db, out.dev, out.prob, of, 2, &d) == KT_OK);
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

static const kt_test TESTS[] = {
    KT_T(test_rows_of_two_shards_join_under_the_outputs_ids),
    KT_T(test_a_success_replaces_a_failure_and_the_first_success_stays),
    KT_T(test_fronts_merge_into_the_front_of_their_union),
    KT_T(test_a_database_without_fronts_merges_into_one_with),
    KT_T(test_itself_a_missing_file_and_a_foreign_file_are_refused),
};
KT_TEST_MAIN(TESTS)
