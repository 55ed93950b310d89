/* test_tune_warn.c - ktune_tune reports its warnings through the caller's
 * callback (ktune_tune_opts.warn), never silently: a default that its
 * spec's conditions exclude, and a recording's rows that cannot be kept
 * (also by ktune_benchmark, ktune_bench_opts.warn).
 * Through <ktune.h> alone, as an application sees it. */
#include <ktune.h>

#include "test.h"

#include <limits.h>
#include <stdlib.h>

/* Every warning, one per line. */
typedef struct said {
    char text[4096];
    int n;
} said;

static void keep(void *user, const char *msg)
{
    said *s = user;
    CHECK(strchr(msg, '\n') == NULL);
    snprintf(s->text + strlen(s->text), sizeof s->text - strlen(s->text), "%s\n", msg);
    s->n++;
}

static void opts_for(ktune_tune_opts *o, said *s)
{
    ktune_tune_opts_init(o);
    o->budget_kind = KTUNE_BUDGET_COUNT;
    o->budget = 1;
    o->warm = 0;
    o->jobs = 1;
    o->energy_window_s = 0;
    o->db_path = kt_test_tmp("warn.db");
    o->cache_dir = kt_test_tmp("cache");
    o->warn = keep;
    o->warn_user = s;
}

/* A run that must succeed, its report dropped. */
static void tune_ok(const ktune_spec *spec, const ktune_tune_opts *o)
{
    ktune_run *run = NULL;
    ktune_diag d = {{0}};
    int rc = ktune_tune(spec, o, &run, &d);
    if (rc != KTUNE_OK)
        fprintf(stderr, "%s\n", d.msg);
    CHECK_EQ_INT(rc, KTUNE_OK);
    ktune_run_free(run);
}

/* The faulty kernel's correct mode, its default VARIANT=1 excluded. */
static ktune_spec *excluded_default(void)
{
    char kernel[PATH_MAX], text[PATH_MAX + 2048];
    CHECK(realpath(kt_test_path("tests/kernels/faulty.c"), kernel) != NULL);
    snprintf(text, sizeof text,
             "{\"ConfigurationSpace\": {\"TuningParameters\": ["
             "{\"Name\": \"MODE\", \"Type\": \"int\", \"Values\": \"[0]\"},"
             "{\"Name\": \"VARIANT\", \"Type\": \"int\", \"Values\": \"[1, 2]\","
             " \"Default\": 1}], \"Conditions\": [{\"Parameters\": [\"VARIANT\"],"
             " \"Expression\": \"VARIANT == 2\"}],"
             " \"ProblemParameters\": [{\"Name\": \"N\", \"Default\": 8}]},"
             " \"KernelSpecification\": {\"Language\": \"C\", \"KernelName\": \"scale\","
             " \"KernelFile\": \"%s\", \"Arguments\": [{\"Name\": \"n\", \"Type\":"
             " \"int32\", \"MemoryType\": \"Scalar\", \"FillValue\": \"N\"},"
             " {\"Name\": \"x\", \"Type\": \"float\", \"MemoryType\": \"Vector\","
             " \"AccessType\": \"ReadOnly\", \"Size\": \"N\"},"
             " {\"Name\": \"y\", \"Type\": \"float\", \"MemoryType\": \"Vector\","
             " \"AccessType\": \"WriteOnly\", \"Size\": \"N\"}]}}", kernel);
    FILE *f = fopen(kt_test_tmp("excluded.json"), "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
    ktune_spec *spec = NULL;
    ktune_diag d = {{0}};
    CHECK_EQ_INT(ktune_spec_load(kt_test_tmp("excluded.json"), NULL, NULL, &spec, &d),
                 KTUNE_OK);
    return spec;
}

static void test_an_excluded_default_is_a_warning(void)
{
    ktune_spec *spec = excluded_default();
    said s = {"", 0};
    ktune_tune_opts o;
    opts_for(&o, &s);
    tune_ok(spec, &o);
    CHECK_EQ_INT(s.n, 1);
    CHECK(strstr(s.text, "excluded.json: warning: the default configuration breaks the "
                         "spec's conditions for problem N=8") != NULL);
    CHECK(strstr(s.text, "the first valid one, MODE=0,VARIANT=2\n") != NULL);
    o.warn = NULL; /* without a callback the run is the same, and quiet */
    tune_ok(spec, &o);
    CHECK_EQ_INT(s.n, 1);
    ktune_spec_free(spec);
}

#define RECORDING "tests/data/kerneltuner/vector_add_a4000.json"
#define NOT_KEPT "vector_add_a4000.json: warning: its rows are not kept for the next replay: "

/* A cache folder that cannot be made: under a file. */
static const char *bad_cache(void)
{
    FILE *f = fopen(kt_test_tmp("file"), "w");
    CHECK(f != NULL);
    fclose(f);
    return kt_test_tmp("file/cache");
}

static void test_rows_not_kept_are_a_warning(void)
{
    said s = {"", 0};
    ktune_tune_opts o;
    opts_for(&o, &s);
    o.cache_dir = bad_cache();
    o.replay = kt_test_path(RECORDING);
    o.strategy = "random";
    tune_ok(NULL, &o);
    CHECK_EQ_INT(s.n, 1);
    CHECK(strstr(s.text, NOT_KEPT) != NULL);
}

static void test_benchmark_rows_not_kept_are_a_warning(void)
{
    said s = {"", 0};
    ktune_bench_opts o;
    ktune_bench_opts_init(&o);
    o.replay = kt_test_path(RECORDING);
    o.cache_dir = bad_cache();
    static const double budgets[] = {2};
    o.budgets = budgets;
    o.nbudgets = 1;
    o.seeds = 1;
    o.warn = keep;
    o.warn_user = &s;
    ktune_bench *b = NULL;
    ktune_diag d = {{0}};
    CHECK_EQ_INT(ktune_benchmark(NULL, &o, &b, &d), KTUNE_OK);
    CHECK_EQ_INT(s.n, 1);
    CHECK(strstr(s.text, NOT_KEPT) != NULL);
    ktune_bench_free(b);
}

static const kt_test TESTS[] = {
    KT_T(test_an_excluded_default_is_a_warning),
    KT_T(test_rows_not_kept_are_a_warning),
    KT_T(test_benchmark_rows_not_kept_are_a_warning),
};
KT_TEST_MAIN(TESTS)
