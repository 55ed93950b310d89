/* test_api.c - the public API as an application sees it: this file
 * includes <ktune.h> alone.  It loads the CPU GEMM spec, binds a problem,
 * tunes a small budget into a temporary database, reads the best back
 * (and again from the database), counts and lists the space, validates
 * specs, and checks that bad input gives the right code with a one-line
 * diag. */
#include <ktune.h>

#include "test.h"

#define GEMM "kernels/gemm/gemm-c.json"
#define SMALL "M=64,N=64,K=64"

/* diag holds one line, no newline, naming what it is about. */
static void check_diag(const ktune_diag *d, const char *about)
{
    CHECK(d->msg[0] != '\0');
    CHECK(strchr(d->msg, '\n') == NULL);
    CHECK(strstr(d->msg, about) != NULL);
}

static ktune_spec *gemm(void)
{
    ktune_spec *spec = NULL;
    ktune_diag d = {{0}};
    int rc = ktune_spec_load(kt_test_path(GEMM), NULL, NULL, &spec, &d);
    if (rc != KTUNE_OK)
        fprintf(stderr, "%s\n", d.msg);
    CHECK_EQ_INT(rc, KTUNE_OK);
    return spec;
}

static void small_opts(ktune_tune_opts *o, const char *strategy)
{
    ktune_tune_opts_init(o);
    o->problem = SMALL;
    o->strategy = strategy;
    o->budget_kind = KTUNE_BUDGET_COUNT;
    o->budget = 4;
    o->warm = 0;
    o->jobs = 2;
    o->energy_window_s = 0;
    o->db_path = kt_test_tmp("api.db");
    o->cache_dir = kt_test_tmp("cache");
}

static void test_spec_and_problem(void)
{
    ktune_spec *spec = gemm();
    CHECK_STR(ktune_spec_name(spec), "gemm");
    CHECK_EQ_INT(ktune_spec_nparams(spec), 8);
    CHECK_STR(ktune_spec_param_name(spec, 0), "MR");
    CHECK(ktune_spec_param_name(spec, 8) == NULL);
    CHECK_EQ_INT(ktune_spec_nproblem(spec), 3);
    CHECK_STR(ktune_spec_problem_name(spec, 2), "K");
    CHECK_NEAR(ktune_spec_problem_default(spec, 0), 1024, 0);
    ktune_problem *p = NULL;
    CHECK_EQ_INT(ktune_problem_parse(spec, "K=64,M=64,N=64", 0, &p, NULL), KTUNE_OK);
    CHECK_STR(ktune_problem_key(p), SMALL);
    ktune_problem_free(p);
    CHECK_EQ_INT(ktune_problem_parse(spec, NULL, 0, &p, NULL), KTUNE_OK);
    CHECK_STR(ktune_problem_key(p), "M=1024,N=1024,K=1024");
    ktune_problem_free(p);
    ktune_spec_free(spec);
}

/* The database at path read against itself: every ok row pairs with
 * itself (no difference, no offset); the CPU reads no energy. */
static void check_retest_of_itself(const char *path, uint64_t ok)
{
    ktune_db *a = NULL, *b = NULL;
    ktune_diag d = {{0}};
    CHECK_EQ_INT(ktune_db_open(path, 0, &a, &d), KTUNE_OK);
    CHECK_EQ_INT(ktune_db_open(path, 0, &b, &d), KTUNE_OK);
    ktune_retest r;
    CHECK_EQ_INT(ktune_db_retest(a, b, NULL, &r, &d), KTUNE_OK);
    CHECK_EQ_INT(r.time.pairs, ok);
    CHECK(r.time.rms == 0 && r.time.offset == 0 && r.time.spread > 0);
    CHECK(ok < 3 ? isnan(r.time.r2_ceiling) : r.time.r2_ceiling == 1);
    CHECK(r.energy.pairs == 0 && isnan(r.energy.rms) && isnan(r.energy.r2_ceiling));
    CHECK_EQ_INT(ktune_db_retest(a, NULL, NULL, &r, &d), KTUNE_EINVAL);
    check_diag(&d, "ktune_db_retest");
    ktune_query q;
    ktune_query_init(&q);
    q.best = true;
    CHECK_EQ_INT(ktune_db_retest(a, b, &q, &r, &d), KTUNE_EINVAL);
    check_diag(&d, "best or front");
    q.best = false;
    q.kernel = "absent";
    CHECK_EQ_INT(ktune_db_retest(a, b, &q, &r, &d), KTUNE_ENOTFOUND);
    check_diag(&d, "no configuration");
    ktune_db_close(a);
    ktune_db_close(b);
}

static void test_tune_then_read_back_from_the_database(void)
{
    ktune_spec *spec = gemm();
    ktune_tune_opts o;
    small_opts(&o, "random");
    ktune_run *run = NULL;
    ktune_diag d = {{0}};
    int rc = ktune_tune(spec, &o, &run, &d);
    if (rc != KTUNE_OK)
        fprintf(stderr, "%s\n", d.msg);
    CHECK_EQ_INT(rc, KTUNE_OK);
    const ktune_run_info *info = ktune_run_summary(run);
    CHECK_STR(info->kernel, "gemm");
    CHECK_STR(info->problem, SMALL);
    CHECK(info->space_size > 4);
    CHECK_EQ_INT(info->measured + info->cached, 4);
    CHECK_EQ_INT(ktune_run_count(run), 4);
    uint64_t by_status = 0;
    for (int s = 0; s < KTUNE_STATUS_COUNT; s++)
        by_status += info->by_status[s];
    CHECK_EQ_INT(by_status, 4);
    const char *best, *first;
    ktune_result r, r0;
    CHECK_EQ_INT(ktune_run_best(run, &best, &r), KTUNE_OK);
    CHECK_EQ_INT(r.status, KTUNE_STATUS_OK);
    CHECK(r.time_ms > 0);
    CHECK_EQ_INT(ktune_run_evaluated(run, 0, &first, &r0), KTUNE_OK);
    CHECK(ktune_run_evaluated(run, 4, &first, &r0) == KTUNE_ENOTFOUND);
    const char *def;
    CHECK_EQ_INT(ktune_run_default(run, &def, &r0), KTUNE_OK); /* first, always */
    CHECK_STR(first, def);
    CHECK(isfinite(ktune_run_speedup(run)) && ktune_run_speedup(run) >= 1);
    const char *phase;
    double s;
    CHECK_EQ_INT(ktune_run_phase(run, 0, &phase, &s), KTUNE_OK);
    CHECK_STR(phase, "compile_wait");
    char best_key[256];
    snprintf(best_key, sizeof best_key, "%s", best);
    ktune_run_free(run);

    /* The same run again is answered from the database: nothing measured. */
    CHECK_EQ_INT(ktune_tune(spec, &o, &run, &d), KTUNE_OK);
    CHECK_EQ_INT(ktune_run_summary(run)->measured, 0);
    CHECK_EQ_INT(ktune_run_summary(run)->cached, 4);
    CHECK_EQ_INT(ktune_run_best(run, &best, &r), KTUNE_OK);
    CHECK_STR(best, best_key);
    uint64_t ok = ktune_run_summary(run)->by_status[KTUNE_STATUS_OK];
    ktune_run_free(run);
    ktune_spec_free(spec);
    check_retest_of_itself(o.db_path, ok);
}

static void test_bad_input_gives_a_code_and_one_line(void)
{
    ktune_spec *spec = NULL;
    ktune_diag d = {{0}};
    CHECK_EQ_INT(ktune_spec_load(kt_test_tmp("none.json"), NULL, NULL, &spec, &d),
                 KTUNE_EIO);
    check_diag(&d, "none.json");
    CHECK(spec == NULL);
    CHECK_EQ_INT(ktune_spec_load(NULL, NULL, NULL, &spec, &d), KTUNE_EINVAL);
    spec = gemm();
    ktune_problem *p = NULL;
    CHECK_EQ_INT(ktune_problem_parse(spec, "M=64,N=abc,K=64", 0, &p, &d), KTUNE_EINVAL);
    check_diag(&d, "abc");
    CHECK_EQ_INT(ktune_problem_parse(spec, "M=64,X=1", 0, &p, &d), KTUNE_EINVAL);
    check_diag(&d, "'X'");
    CHECK_EQ_INT(ktune_problem_parse(spec, "M=64", 0, &p, &d), KTUNE_ENOTFOUND);
    check_diag(&d, "does not set N, K");
    CHECK(p == NULL);
    CHECK_EQ_INT(ktune_problem_parse(spec, "M=64", KTUNE_PROBLEM_PARTIAL, &p, &d),
                 KTUNE_OK);
    CHECK_STR(ktune_problem_key(p), "M=64,N=1024,K=1024");
    ktune_problem_free(p);

    ktune_tune_opts o;
    ktune_run *run = NULL;
    small_opts(&o, "no_such_strategy");
    CHECK_EQ_INT(ktune_tune(spec, &o, &run, &d), KTUNE_EINVAL);
    check_diag(&d, "no_such_strategy");
    CHECK(run == NULL);
    small_opts(&o, "predict");
    CHECK_EQ_INT(ktune_tune(spec, &o, &run, &d), KTUNE_EINVAL);
    check_diag(&d, "needs a trained model");
    small_opts(&o, "random");
    o.model = "some.model";
    CHECK_EQ_INT(ktune_tune(spec, &o, &run, &d), KTUNE_EINVAL);
    check_diag(&d, "'random'");
    small_opts(&o, "random");
    o.budget = 0;
    CHECK_EQ_INT(ktune_tune(spec, &o, &run, &d), KTUNE_EINVAL);
    check_diag(&d, "budget");
    small_opts(&o, "random");
    o.energy_window_s = -0.5; /* only KTUNE_ENERGY_WINDOW_AUTO is below 0 */
    CHECK_EQ_INT(ktune_tune(spec, &o, &run, &d), KTUNE_EINVAL);
    check_diag(&d, "energy window");
    ktune_tune_opts_init(&o);
    CHECK(o.energy_window_s == KTUNE_ENERGY_WINDOW_AUTO);
    small_opts(&o, "random");
    o.size = sizeof o - 8; /* a caller built against another header */
    CHECK_EQ_INT(ktune_tune(spec, &o, &run, &d), KTUNE_EINVAL);
    check_diag(&d, "ktune_tune_opts_init");
    small_opts(&o, "random");
    o.problem = "M=64";
    CHECK_EQ_INT(ktune_tune(spec, &o, &run, &d), KTUNE_ENOTFOUND);
    check_diag(&d, "does not set");
    CHECK_EQ_INT(ktune_tune(NULL, &o, &run, &d), KTUNE_EINVAL);
    check_diag(&d, "no spec");
    CHECK_EQ_INT(ktune_strategy_find("nope", NULL, &d), KTUNE_ENOTFOUND);
    check_diag(&d, "unknown strategy 'nope'");
    ktune_spec_free(spec);
    ktune_spec_free(NULL);
    ktune_run_free(NULL);
    ktune_problem_free(NULL);
}

static void test_strategy_table_has_the_properties(void)
{
    ktune_strategy_info s;
    size_t n = 0;
    for (size_t i = 0; ktune_strategy_at(i, &s) == KTUNE_OK; i++, n++) {
        bool is_bf = strcmp(s.name, "brute_force") == 0;
        CHECK(s.exhaustive == is_bf);
        CHECK(s.implies_map == (strcmp(s.name, "map_elites") == 0));
        CHECK(s.needs_model == (strncmp(s.name, "predict", 7) == 0));
    }
    CHECK(n >= 12);
    CHECK_EQ_INT(ktune_strategy_find("predict", &s, NULL), KTUNE_OK);
    CHECK(s.needs_model && !s.searches);
    CHECK_EQ_INT(ktune_strategy_find("predict+search", &s, NULL), KTUNE_OK);
    CHECK(s.needs_model && s.searches);
    CHECK_EQ_INT(ktune_strategy_find(KTUNE_STRATEGY_DEFAULT, &s, NULL), KTUNE_OK);
}

/* ktune_space_list's callback: counts, and stops after *stop_after. */
static int count_key(void *user, const char *key)
{
    uint64_t *n = user;
    CHECK(strncmp(key, "MR=", 3) == 0);
    return ++n[0] == n[1];
}

static void test_space_counts_lists_and_samples(void)
{
    ktune_spec *spec = gemm();
    ktune_problem *p = NULL;
    ktune_space *space = NULL;
    ktune_diag d = {{0}};
    CHECK_EQ_INT(ktune_problem_parse(spec, SMALL, 0, &p, NULL), KTUNE_OK);
    CHECK_EQ_INT(ktune_space_new(spec, p, NULL, &space, &d), KTUNE_OK);
    char *count = NULL;
    ktune_space_stats st;
    CHECK_EQ_INT(ktune_space_count(space, &count, &st, &d), KTUNE_OK);
    uint64_t n[2] = {0, 0};
    CHECK_EQ_INT(ktune_space_list(space, count_key, n, NULL, &d), KTUNE_OK);
    char listed[32];
    snprintf(listed, sizeof listed, "%llu", (unsigned long long)n[0]);
    CHECK_STR(count, listed);
    ktune_free(count);
    uint64_t m[2] = {0, 3}; /* stop after three */
    CHECK_EQ_INT(ktune_space_list(space, count_key, m, NULL, &d), KTUNE_OK);
    CHECK_EQ_INT(m[0], 3);
    uint64_t k[2] = {0, 0};
    CHECK_EQ_INT(ktune_space_sample(space, 5, 1, count_key, k, &d), KTUNE_OK);
    CHECK(k[0] >= 5 && k[0] <= 6); /* the default joins the sample */
    char cart[32];
    ktune_space_cartesian(space, cart, sizeof cart);
    CHECK(strtoull(cart, NULL, 10) >= n[0]);
    ktune_space_free(space);

    ktune_space_opts so;
    ktune_space_opts_init(&so);
    so.size = 1; /* a caller built against another header */
    CHECK_EQ_INT(ktune_space_new(spec, p, &so, &space, &d), KTUNE_EINVAL);
    ktune_problem_free(p);
    ktune_spec_free(spec);
}

static void test_validate_reports_problems_with_their_place(void)
{
    ktune_validation *v = NULL;
    ktune_diag d = {{0}};
    CHECK_EQ_INT(ktune_spec_validate(kt_test_path(GEMM), NULL, NULL, &v, &d), KTUNE_OK);
    CHECK_EQ_INT(ktune_validation_count(v), 0);
    CHECK(ktune_validation_space(v) != NULL);
    CHECK(ktune_validation_space_problem(v) == NULL);
    ktune_validation_free(v);

    const char *bad = kt_test_tmp("bad.json");
    FILE *f = fopen(bad, "w");
    CHECK(f != NULL);
    fputs("{\n  \"General\": {\"BenchmarkName\": \"x\", \"FormatVersion\": 1},\n"
          "  \"ConfigurationSpace\": {\"TuningParameters\": [\n"
          "    {\"Name\": \"A\", \"Type\": \"int\", \"Values\": \"[1, 2\", "
          "\"Default\": 1}]}\n}\n", f);
    fclose(f);
    CHECK_EQ_INT(ktune_spec_validate(bad, NULL, NULL, &v, &d), KTUNE_OK);
    CHECK(ktune_validation_count(v) >= 1);
    const char *first = ktune_validation_problem(v, 0);
    CHECK(strncmp(first, bad, strlen(bad)) == 0 && first[strlen(bad)] == ':');
    CHECK(ktune_validation_problem(v, ktune_validation_count(v)) == NULL);
    ktune_validation_free(v);
    CHECK_EQ_INT(ktune_spec_validate(NULL, NULL, NULL, &v, &d), KTUNE_EINVAL);
}

static void test_version_and_dependencies(void)
{
    CHECK_STR(ktune_version(), KTUNE_VERSION);
    const char *name;
    char v[32];
    CHECK_EQ_INT(ktune_dependency(0, &name, v, sizeof v), KTUNE_OK);
    CHECK_STR(name, "SQLite");
    CHECK_EQ_INT(ktune_dependency(4, &name, v, sizeof v), KTUNE_ENOTFOUND);
    CHECK(name == NULL);
    CHECK_STR(ktune_strerror(KTUNE_ENOTFOUND), "not found");
    ktune_status s;
    CHECK_EQ_INT(ktune_status_parse("wrong_result", &s), KTUNE_OK);
    CHECK_STR(ktune_status_name(s), "wrong_result");
}

static const kt_test TESTS[] = {
    KT_T(test_spec_and_problem),
    KT_T(test_tune_then_read_back_from_the_database),
    KT_T(test_bad_input_gives_a_code_and_one_line),
    KT_T(test_strategy_table_has_the_properties),
    KT_T(test_space_counts_lists_and_samples),
    KT_T(test_validate_reports_problems_with_their_place),
    KT_T(test_version_and_dependencies),
};

KT_TEST_MAIN(TESTS)
