/* test_report.c - ktune_report_write: every string from the database is
 * escaped, every figure drawn has data points, a stored time/energy front
 * is the one drawn, the page fetches nothing, and the API's errors. */
#include "store/db.h"
#include "test.h"

#include <stdlib.h>

/* A database of one kernel whose names and keys carry HTML. */
static kt_db *hostile_db(const char *path, int64_t *dv, int64_t *pb)
{
    kt_db *db;
    kt_diag d = {{0}};
    int64_t k;
    CHECK(kt_db_open(path, &db, &d) == KT_OK);
    kt_device_info dev = {.name = "<img src=x onerror=alert(1)>", .backend = "cuda",
                          .fingerprint = "fp"};
    CHECK(kt_db_device(db, &dev, dv, &d) == KT_OK);
    CHECK(kt_db_kernel(db, "k<script>\"'&", "h", &k, &d) == KT_OK);
    CHECK(kt_db_problem(db, k, "N=<b>", pb, &d) == KT_OK);
    static const char *const KEYS[] = {"A=1,B=<i>", "A=2,B=<i>", "A=1,B=&x", "A=2,B=&x",
                                       "A=3,B=&x"};
    for (size_t i = 0; i < 5; i++) {
        kt_result r = {.status = KT_STATUS_OK, .time_ms = 1.0 + (double)i,
                       .energy_j = 5.0 - (double)i, .power_w = NAN};
        CHECK(kt_db_record(db, *dv, k, *pb, KEYS[i], &r, &d) == KT_OK);
    }
    kt_result bad = {.status = KT_STATUS_COMPILE_ERROR, .time_ms = NAN, .energy_j = NAN};
    snprintf(bad.detail, sizeof bad.detail, "<error>");
    CHECK(kt_db_record(db, *dv, k, *pb, "A=4,B=&x", &bad, &d) == KT_OK);
    return db;
}

/* The report of db with opts o (NULL: defaults) as a string (caller frees). */
static char *report_of(kt_db *db, const ktune_report_opts *o, int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    ktune_diag d = {{0}};
    *rc = ktune_report_write(db, o, f, NULL, &d);
    fclose(f);
    return buf;
}

/* Each figcaption's data-points: how many figures, and whether all > 0. */
static size_t figures_with_points(const char *html, bool *all_positive)
{
    size_t n = 0;
    *all_positive = true;
    for (const char *s = html; (s = strstr(s, "<figcaption data-points=\"")); s++, n++)
        *all_positive &= atoi(s + strlen("<figcaption data-points=\"")) > 0;
    return n;
}

static void test_strings_from_the_database_are_escaped(void)
{
    int64_t dv, pb;
    kt_db *db = hostile_db(kt_test_tmp("h.db"), &dv, &pb);
    int rc;
    char *html = report_of(db, NULL, &rc);
    CHECK_EQ_INT(rc, KT_OK);
    CHECK(strstr(html, "<img") == NULL);
    CHECK(strstr(html, "<b>") == NULL);
    CHECK(strstr(html, "<i>") == NULL);
    CHECK(strstr(html, "k<script>") == NULL);
    CHECK(strstr(html, "&lt;img src=x onerror=alert(1)&gt;") != NULL);
    CHECK(strstr(html, "k&lt;script&gt;&quot;&#39;&amp;") != NULL);
    CHECK(strstr(html, "B=&amp;x") != NULL);
    /* one <script> only: the page's own check */
    const char *s = strstr(html, "<script>");
    CHECK(s && !strstr(s + 1, "<script>"));
    free(html);
    kt_db_close(db);
}

static void test_every_figure_has_data_and_nothing_is_fetched(void)
{
    int64_t dv, pb;
    kt_db *db = hostile_db(kt_test_tmp("h.db"), &dv, &pb);
    int rc;
    char *html = report_of(db, NULL, &rc);
    CHECK_EQ_INT(rc, KT_OK);
    bool positive;
    /* status, convergence, front, map (no roofline: not an H100) */
    CHECK_EQ_INT(figures_with_points(html, &positive), 4);
    CHECK(positive);
    CHECK(strstr(html, "http") == NULL);
    CHECK(strstr(html, "src=\"") == NULL && strstr(html, "href=") == NULL);
    CHECK(strstr(html, "url(") == NULL && strstr(html, "@import") == NULL);
    CHECK(strstr(html, "data-kind=\"map\"") && strstr(html, "data-kind=\"front\""));
    free(html);
    FILE *f = fopen(kt_test_tmp("r.html"), "w");
    ktune_report_info info;
    CHECK(f && ktune_report_write(db, NULL, f, &info, NULL) == KT_OK);
    fclose(f);
    CHECK(info.measurements == 6 && info.kernels == 1 && info.runs == 1 && info.figures == 4);
    kt_db_close(db);
}

static void test_a_stored_front_is_the_one_drawn(void)
{
    int64_t dv, pb;
    kt_db *db = hostile_db(kt_test_tmp("h.db"), &dv, &pb);
    int rc;
    char *html = report_of(db, NULL, &rc);
    CHECK(strstr(html, "5 configurations: none is stored; the report computed it"));
    free(html);
    const char *const front[] = {"A=1,B=<i>", "A=3,B=&x"};
    kt_diag d = {{0}};
    CHECK(kt_db_front_mark(db, dv, pb, front, 2, &d) == KT_OK);
    html = report_of(db, NULL, &rc);
    CHECK_EQ_INT(rc, KT_OK);
    CHECK(strstr(html, "2 configurations: as stored by ktune tune --objective pareto"));
    free(html);
    kt_db_close(db);
}

static void test_options_and_errors(void)
{
    int64_t dv, pb;
    kt_db *db = hostile_db(kt_test_tmp("h.db"), &dv, &pb);
    ktune_report_opts o;
    ktune_report_opts_init(&o);
    int rc;
    char *html = report_of(db, &o, &rc);
    /* 5 correct rows: too few for a model, said in a note */
    CHECK(strstr(html, "<p class=\"note\">No parameter importance on &lt;img"));
    free(html);
    o.no_script = true;
    o.no_analysis = true;
    o.title = "<T>";
    html = report_of(db, &o, &rc);
    CHECK_EQ_INT(rc, KT_OK);
    CHECK(strstr(html, "<script") == NULL && strstr(html, "<h1>&lt;T&gt;</h1>"));
    CHECK(strstr(html, "No parameter importance") == NULL);
    free(html);
    o.kernel = "nosuch";
    html = report_of(db, &o, &rc);
    CHECK_EQ_INT(rc, KTUNE_ENOTFOUND);
    free(html);
    o.size = 8;
    html = report_of(db, &o, &rc);
    CHECK_EQ_INT(rc, KTUNE_EINVAL);
    free(html);
    ktune_diag d = {{0}};
    CHECK_EQ_INT(ktune_report_write(NULL, NULL, stdout, NULL, &d), KTUNE_EINVAL);
    CHECK_EQ_INT(ktune_report_write(db, NULL, NULL, NULL, &d), KTUNE_EINVAL);
    kt_db_close(db);
    kt_db *empty;
    CHECK(kt_db_open(kt_test_tmp("e.db"), &empty, NULL) == KT_OK);
    html = report_of(empty, NULL, &rc);
    CHECK_EQ_INT(rc, KTUNE_ENOTFOUND);
    free(html);
    kt_db_close(empty);
}

static const kt_test TESTS[] = {
    KT_T(test_strings_from_the_database_are_escaped),
    KT_T(test_every_figure_has_data_and_nothing_is_fetched),
    KT_T(test_a_stored_front_is_the_one_drawn),
    KT_T(test_options_and_errors),
};

KT_TEST_MAIN(TESTS)
