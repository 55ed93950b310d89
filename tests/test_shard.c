/* test_shard.c - ktune_tune_opts.shard of shards through <ktune.h>: the
 * shares are disjoint and every N-th configuration from the K-th; a share
 * checks results against the same reference as the whole space (the
 * default, even where the share lacks it: no warning that it breaks the
 * conditions); a shard outside 1..shards is refused. */
#include <ktune.h>

#include "test.h"

#include <limits.h>
#include <stdlib.h>

/* The faulty kernel's correct mode, VARIANT 1 to 3, no reference kernel:
 * results are checked against the default, VARIANT=1. */
static ktune_spec *three_variants(void)
{
    char kernel[PATH_MAX];
    CHECK(realpath(kt_test_path("tests/kernels/faulty.c"), kernel) != NULL);
    FILE *f = fopen(kt_test_tmp("three.json"), "w");
    CHECK(f != NULL);
    fprintf(f, "{\"ConfigurationSpace\": {\"TuningParameters\": [\n"
               " {\"Name\": \"MODE\", \"Type\": \"int\", \"Values\": \"[0]\"},\n"
               " {\"Name\": \"VARIANT\", \"Type\": \"int\", \"Values\": \"[1, 2, 3]\"}],\n"
               " \"ProblemParameters\": [{\"Name\": \"N\", \"Default\": 8}]},\n"
               "\"KernelSpecification\": {\"Language\": \"C\", \"KernelName\": \"scale\",\n"
               " \"KernelFile\": \"%s\", \"Arguments\": [\n"
               " {\"Name\": \"n\", \"Type\": \"int32\", \"MemoryType\": \"Scalar\",\n"
               "  \"FillValue\": \"N\"},\n"
               " {\"Name\": \"x\", \"Type\": \"float\", \"MemoryType\": \"Vector\",\n"
               "  \"AccessType\": \"ReadOnly\", \"Size\": \"N\"},\n"
               " {\"Name\": \"y\", \"Type\": \"float\", \"MemoryType\": \"Vector\",\n"
               "  \"AccessType\": \"WriteOnly\", \"Size\": \"N\"}]}}\n", kernel);
    fclose(f);
    ktune_spec *spec = NULL;
    ktune_diag d = {{0}};
    CHECK_EQ_INT(ktune_spec_load(kt_test_tmp("three.json"), NULL, NULL, &spec, &d),
                 KTUNE_OK);
    return spec;
}

static void count_warning(void *user, const char *msg)
{
    fprintf(stderr, "warning: %s\n", msg);
    ++*(int *)user;
}

/* Share k of n of the spec, brute force: its run (the caller frees). */
static ktune_run *tune_share(const ktune_spec *spec, unsigned k, unsigned n, int *warnings)
{
    ktune_tune_opts o;
    ktune_tune_opts_init(&o);
    o.strategy = "brute_force";
    o.shard = k;
    o.shards = n;
    o.jobs = 1;
    o.energy_window_s = 0;
    o.db_path = kt_test_tmp("shard.db");
    o.cache_dir = kt_test_tmp("cache");
    o.warn = count_warning;
    o.warn_user = warnings;
    ktune_run *run = NULL;
    ktune_diag d = {{0}};
    int rc = ktune_tune(spec, &o, &run, &d);
    if (rc != KTUNE_OK)
        fprintf(stderr, "%s\n", d.msg);
    CHECK_EQ_INT(rc, KTUNE_OK);
    return run;
}

static void test_each_share_holds_every_nth_configuration(void)
{
    ktune_spec *spec = three_variants();
    static const char *const want[] = {"MODE=0,VARIANT=1", "MODE=0,VARIANT=2",
                                       "MODE=0,VARIANT=3"};
    for (unsigned k = 1; k <= 3; k++) {
        int warnings = 0;
        ktune_run *run = tune_share(spec, k, 3, &warnings);
        const ktune_run_info *info = ktune_run_summary(run);
        CHECK(info->space_size == 1 && info->measured == 1);
        const char *key = NULL;
        ktune_result r;
        CHECK_EQ_INT(ktune_run_evaluated(run, 0, &key, &r), KTUNE_OK);
        CHECK_STR(key, want[k - 1]);
        CHECK(r.status == KTUNE_STATUS_OK); /* checked against VARIANT=1's output */
        CHECK_EQ_INT(warnings, 0);          /* the default is the reference */
        ktune_run_free(run);
    }
    ktune_spec_free(spec);
}

static void test_more_shards_than_configurations_leave_one_empty(void)
{
    ktune_spec *spec = three_variants();
    ktune_tune_opts o;
    ktune_tune_opts_init(&o);
    o.shard = 4;
    o.shards = 4;
    o.db_path = kt_test_tmp("shard.db");
    o.cache_dir = kt_test_tmp("cache");
    ktune_run *run = NULL;
    ktune_diag d = {{0}};
    CHECK_EQ_INT(ktune_tune(spec, &o, &run, &d), KTUNE_EEMPTY);
    CHECK(strstr(d.msg, "share 4 of 4 is empty") != NULL);
    ktune_run_free(run);
    ktune_spec_free(spec);
}

static void test_a_shard_outside_its_count_is_refused(void)
{
    ktune_spec *spec = three_variants();
    static const unsigned bad[][2] = {{0, 3}, {4, 3}};
    for (size_t i = 0; i < 2; i++) {
        ktune_tune_opts o;
        ktune_tune_opts_init(&o);
        o.shard = bad[i][0];
        o.shards = bad[i][1];
        o.db_path = kt_test_tmp("never.db");
        ktune_run *run = NULL;
        ktune_diag d = {{0}};
        CHECK_EQ_INT(ktune_tune(spec, &o, &run, &d), KTUNE_EINVAL);
        CHECK(strstr(d.msg, "the shard must be 1 to 3") != NULL);
        ktune_run_free(run);
    }
    CHECK(access(kt_test_tmp("never.db"), F_OK) != 0);
    ktune_spec_free(spec);
}

static const kt_test TESTS[] = {
    KT_T(test_each_share_holds_every_nth_configuration),
    KT_T(test_more_shards_than_configurations_leave_one_empty),
    KT_T(test_a_shard_outside_its_count_is_refused),
};
KT_TEST_MAIN(TESTS)
